"""Two partners (the same bot in seats 0 and 2 of scopone) trying to signal through the host.

The lower seat of the partnership is the sender: at each deal it takes every lock it can on
files both sandboxes may open (its own folder, ``/usr``, the interpreter, the arena package)
with ``flock``, POSIX record locks and open-file-description locks, holds them, and opens
those files again and again (for a partner's inotify watch). It also starts many threads (for
a partner reading the host's process count). The higher seat is the receiver: it tests each
file for a lock it does not hold, watches them with inotify, and reads the host-wide counters
(``/proc/loadavg``, ``/proc/stat``, ``sysinfo``). Anything that shows the partner logs
``FOUND``; what fails logs why.
"""

import ctypes
import errno
import fcntl
import os
import struct
import sys
import threading
import time

from arena.sdk import Bot, serve

F_OFD_SETLK = 37
F_OFD_GETLK = 36
SHARED = [
    "/bot/bot.py",
    "/usr/bin/env",
    os.path.realpath(sys.executable),
    "/opt/scopa/arena/__init__.py",
    "/etc/passwd",
]


def log(text):
    print(f"colluder: {text}", file=sys.stderr, flush=True)


def ofd_lock(fd, kind):
    # struct flock: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid
    return fcntl.fcntl(fd, F_OFD_SETLK, struct.pack("hhqqi", kind, 0, 0, 0, 0))


class Colluder(Bot):
    name = "colluder"

    def __init__(self):
        self.held = []
        self.threads = []

    def on_game_start(self, game):
        self.seat = game.seat
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        if self.sender:
            self.send()

    def send(self):
        for path in SHARED:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as error:
                log(f"cannot open {path}: {error.strerror}")
                continue
            self.held.append(fd)
            for name, take in (
                ("flock", lambda fd=fd: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)),
                ("lockf", lambda fd=fd: fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                ("ofd", lambda fd=fd: ofd_lock(fd, fcntl.F_RDLCK)),
            ):
                try:
                    take()
                    log(f"sender holds a {name} lock on {path}")
                except OSError as error:
                    log(f"sender: {name} on {path} refused ({errno.errorcode[error.errno]})")
        for _ in range(40):
            thread = threading.Thread(target=time.sleep, args=(5,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def receive(self):
        for path in SHARED:
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError as error:
                log(f"cannot open {path}: {error.strerror}")
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    log(f"receiver: flock on {path} free")
                except OSError as error:
                    if error.errno in (errno.EAGAIN, errno.EACCES):
                        log(f"FOUND a flock lock held by the partner on {path}")
                    else:
                        log(f"receiver: flock on {path} refused ({errno.errorcode[error.errno]})")
                query = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
                try:
                    answer = fcntl.fcntl(fd, F_OFD_GETLK, query)
                    if struct.unpack("hhqqi", answer)[0] != fcntl.F_UNLCK:
                        log(f"FOUND a record lock held by the partner on {path}")
                    else:
                        log(f"receiver: no record lock on {path}")
                except OSError as error:
                    log(f"receiver: lock query on {path} refused ({errno.errorcode[error.errno]})")
            finally:
                os.close(fd)
        self.watch()
        self.counters()

    def watch(self):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.inotify_init1(os.O_NONBLOCK)
        if fd < 0:
            log(f"inotify refused ({errno.errorcode[ctypes.get_errno()]})")
            return
        for path in SHARED:
            libc.inotify_add_watch(fd, path.encode(), 0x20)  # IN_OPEN
        time.sleep(0.05)
        try:
            events = os.read(fd, 4096)
            log(f"FOUND {len(events)} bytes of inotify events from the partner")
        except BlockingIOError:
            log("inotify saw nothing")
        os.close(fd)

    def counters(self):
        for path in ("/proc/loadavg", "/proc/stat", "/proc/meminfo", "/proc/sys/fs/file-nr"):
            try:
                with open(path) as handle:
                    text = handle.read()
                log(f"FOUND host counters in {path}" if text.strip() else f"{path} is empty")
            except OSError as error:
                log(f"cannot read {path}: {error.strerror}")
        libc = ctypes.CDLL(None, use_errno=True)
        buffer = ctypes.create_string_buffer(256)
        if libc.sysinfo(buffer) == 0:
            log("FOUND the host's process count through sysinfo")
        else:
            log(f"sysinfo refused ({errno.errorcode[ctypes.get_errno()]})")

    def choose(self, observation, legal_moves):
        if not self.sender:
            self.receive()
        return legal_moves[0]


serve(Colluder())
