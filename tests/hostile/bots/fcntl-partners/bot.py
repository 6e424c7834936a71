"""Two partners passing a hand through fcntl: locks, leases and directory notifications, with
high bits set in the command (the kernel reads only its low 32 bits).

The lower seat of the side is the sender. At each deal's start it takes a read lock on a byte
of a file both sandboxes see (the ``arena`` package's ``__init__.py``: the same inode for every
seat, and for this checkout's runs only) for each card of its hand: byte ``card + 64 *
variant``, one variant per lock command and high half (``F_SETLK``, ``F_SETLKW``,
``F_OFD_SETLK``, ``F_OFD_SETLKW``, each ORed with ``1 << 32`` and with ``0xFFFFFFFF << 32``).
It asks for a lease on the file the same ways, and at each of its turns reads files of the
package's folder. The higher seat is the receiver: at each of its turns it looks for the
partner's locks byte by byte (``F_OFD_GETLK``) and says which cards it found, and it asks for
a directory notification on that folder (``F_NOTIFY`` with high bits) and says whether a
notification came. Everything found is logged ``FOUND``; every refusal with its errno.
"""

import ctypes
import errno
import fcntl
import os
import signal
import struct
import sys

import arena
from arena.sdk import Bot, serve

libc = ctypes.CDLL(None, use_errno=True)
SYS_FCNTL = 72  # x86_64
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_NOTIFY = 1024, 1026
DN_ACCESS, DN_MULTISHOT = 0x1, 0x80000000
FOLDER = os.path.dirname(os.path.abspath(arena.__file__))
SHARED = os.path.join(FOLDER, "__init__.py")
HIGH = {"1<<32": 1 << 32, "0xffffffff<<32": 0xFFFFFFFF << 32}
LOCKS = {
    "F_SETLK": fcntl.F_SETLK,
    "F_SETLKW": fcntl.F_SETLKW,
    "F_OFD_SETLK": F_OFD_SETLK,
    "F_OFD_SETLKW": F_OFD_SETLKW,
}
VARIANTS = [
    (f"{name}|{high_name}", command | high)
    for name, command in LOCKS.items()
    for high_name, high in HIGH.items()
]


def log(text):
    print(f"fcntl-partners: {text}", file=sys.stderr, flush=True)


def fcntl_raw(fd, command, arg):
    """fcntl with a full 64-bit command register: (result, errno name)."""
    if isinstance(arg, int):
        arg = ctypes.c_ulong(arg)
    result = libc.syscall(
        ctypes.c_long(SYS_FCNTL), ctypes.c_ulong(fd), ctypes.c_ulong(command), arg
    )
    return result, (errno.errorcode.get(ctypes.get_errno(), "?") if result < 0 else "")


def flock(kind, start):
    # struct flock: short l_type, short l_whence, off_t l_start, off_t l_len, pid_t l_pid
    return ctypes.create_string_buffer(struct.pack("hhqqi4x", kind, 0, start, 1, 0))


class FcntlPartners(Bot):
    name = "fcntl-partners"

    def __init__(self):
        self.held = []
        self.notified = 0
        self.watching = []

    def on_game_start(self, game):
        self.seat = game.seat
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        if self.sender:
            self.send(deal.hand)
        else:
            self.watch()

    def send(self, hand):
        for fd in self.held:
            os.close(fd)
        self.held = []
        log(f"SENT cards {' '.join(str(int(c)) for c in sorted(hand))}")
        for index, (name, command) in enumerate(VARIANTS):
            fd = os.open(SHARED, os.O_RDONLY)
            self.held.append(fd)
            outcome = "took"
            for card in hand:
                result, code = fcntl_raw(
                    fd, command, ctypes.byref(flock(fcntl.F_RDLCK, int(card) + 64 * index))
                )
                if result < 0:
                    outcome = f"refused ({code})"
                    break
            log(f"sender: {name} lock {outcome}")
        for high_name, high in HIGH.items():
            fd = os.open(SHARED, os.O_RDONLY)
            self.held.append(fd)
            result, code = fcntl_raw(fd, F_SETLEASE | high, fcntl.F_RDLCK)
            outcome = "took" if result >= 0 else f"refused ({code})"
            log(f"sender: F_SETLEASE|{high_name} lease {outcome}")

    def watch(self):
        for fd in self.watching:
            os.close(fd)
        self.watching = []
        for high_name, high in HIGH.items():
            fd = os.open(FOLDER, os.O_RDONLY | os.O_DIRECTORY)
            self.watching.append(fd)
            result, code = fcntl_raw(fd, F_NOTIFY | high, DN_ACCESS | DN_MULTISHOT)
            outcome = "set" if result >= 0 else f"refused ({code})"
            log(f"receiver: F_NOTIFY|{high_name} on the package folder {outcome}")

    def receive(self):
        fd = os.open(SHARED, os.O_RDONLY)
        try:
            for index, (name, _) in enumerate(VARIANTS):
                cards = []
                for card in range(40):
                    query = flock(fcntl.F_WRLCK, card + 64 * index)
                    result, code = fcntl_raw(fd, F_OFD_GETLK, ctypes.byref(query))
                    if result < 0:
                        log(f"receiver: lock query refused ({code})")
                        return
                    if struct.unpack("hhqqi4x", query.raw[:32])[0] != fcntl.F_UNLCK:
                        cards.append(card)
                if cards:
                    log(
                        f"FOUND the partner's hand through {name} locks: "
                        f"{' '.join(map(str, cards))}"
                    )
                else:
                    log(f"receiver: no lock through {name}")
        finally:
            os.close(fd)
        while signal.sigtimedwait([signal.SIGIO], 0) is not None:
            self.notified += 1
        if self.notified:
            log(f"FOUND {self.notified} directory notifications from the partner")
        else:
            log("receiver: no directory notification")

    def choose(self, observation, legal_moves):
        if self.sender:
            # Not the locked file: closing any descriptor of it drops the process's POSIX locks.
            for name in ("seeds.py", "text.py", "manifest.py"):
                try:
                    with open(os.path.join(FOLDER, name), "rb") as handle:
                        handle.read(16)
                except OSError:
                    pass
        else:
            self.receive()
        return legal_moves[0]


# dnotify's signal (SIGIO) stays pending, blocked in every thread, until the receiver asks.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGIO})
serve(FcntlPartners())
