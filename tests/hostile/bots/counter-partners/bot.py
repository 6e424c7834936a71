"""Two partners passing a hand through host-wide kernel counters.

The lower seat of the side is the sender: at each of its turns it takes the next bit of its
hand (its cards in order, six bits each, each bit followed by its complement) and, for a 1,
raises every counter it can reach and holds it until its next turn (for a 0 it lets go):

- Linux AIO contexts (``io_setup``): ``/proc/sys/fs/aio-nr``;
- pseudo-terminals (``/dev/ptmx``): ``/proc/sys/kernel/pty/nr``;
- TCP sockets (``socket(AF_INET)``): ``/proc/net/sockstat``'s ``alloc``, ``protocols``;
- open files: ``/proc/sys/fs/file-nr``;
- files and names in its ``/tmp``: ``/proc/sys/fs/inode-nr``, ``dentry-state``.

The higher seat is the receiver: at each of its turns it reads every counter it knows of
(those above, and the load, CPU, interrupt and memory counters of ``/proc``) and logs
``READ <deal> <moves played> <counter> <value>`` (``-`` when it cannot read a number); the
sender logs ``SET <deal> <moves played> <bit>`` and how each move of a counter went. A test
pairs the two: a counter that follows the sender's bits passes the hand.
"""

import ctypes
import errno
import os
import re
import socket
import sys

from arena.sdk import Bot, serve

libc = ctypes.CDLL(None, use_errno=True)
SYS_IO_SETUP, SYS_IO_DESTROY = 206, 207  # x86_64
HOLD = {"aio": 8, "pty": 8, "inet": 64, "files": 200, "names": 2000}

COUNTERS = {
    # name: (file, regex of the number read, or None for the first number)
    "aio-nr": ("/proc/sys/fs/aio-nr", None),
    "pty-nr": ("/proc/sys/kernel/pty/nr", None),
    "file-nr": ("/proc/sys/fs/file-nr", None),
    "inode-nr": ("/proc/sys/fs/inode-nr", None),
    "dentry-state": ("/proc/sys/fs/dentry-state", None),
    "sockstat-tcp-alloc": ("/proc/net/sockstat", r"TCP: .*alloc (\d+)"),
    "sockstat-sockets": ("/proc/net/sockstat", r"sockets: used (\d+)"),
    "protocols-tcp-memory": ("/proc/net/protocols", r"^TCP\s+\d+\s+\d+\s+(-?\d+)"),
    "softnet": ("/proc/net/softnet_stat", None),
    "stat": ("/proc/stat", r"^processes (\d+)"),
    "loadavg": ("/proc/loadavg", r"\d+/(\d+)"),
    "interrupts": ("/proc/interrupts", r"^\s*LOC:\s+(\d+)"),
    "softirqs": ("/proc/softirqs", r"^\s*TIMER:\s+(\d+)"),
    "meminfo": ("/proc/meminfo", r"^MemFree:\s+(\d+)"),
    "vmstat": ("/proc/vmstat", r"^pgalloc_normal (\d+)"),
    "cgroups": ("/proc/cgroups", r"^memory\s+\d+\s+(\d+)"),
    "pressure": ("/proc/pressure/cpu", r"total=(\d+)"),
    "slabinfo": ("/proc/slabinfo", r"^dentry\s+(\d+)"),
    "entropy": ("/proc/sys/kernel/random/entropy_avail", None),
}


def log(text):
    print(f"counter-partners: {text}", file=sys.stderr, flush=True)


def read_counter(path, pattern):
    try:
        with open(path) as handle:
            text = handle.read()
    except OSError as error:
        return f"- ({errno.errorcode.get(error.errno, '?')})"
    found = re.search(pattern, text, re.MULTILINE) if pattern else re.search(r"\d+", text)
    if not found:
        return "- (empty)" if not text.strip() else "- (no number)"
    return found.group(1) if pattern else found.group(0)


class CounterPartners(Bot):
    name = "counter-partners"

    def __init__(self):
        self.held = {"aio": [], "pty": [], "inet": [], "files": [], "names": []}
        self.bits = []
        self.said = set()

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        # Each bit of the hand (its cards in order, six bits each) goes as itself then its
        # complement (Manchester): as many 1s as 0s, whatever the hand.
        hand = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]
        self.bits = [half for bit in hand for half in (bit, 1 - bit)]

    def once(self, what, outcome):
        if (what, outcome) not in self.said:
            self.said.add((what, outcome))
            log(f"sender: {what} {outcome}")

    def raise_all(self):
        for _ in range(HOLD["aio"]):
            context = ctypes.c_ulong(0)
            result = libc.syscall(
                ctypes.c_long(SYS_IO_SETUP), ctypes.c_ulong(1), ctypes.byref(context)
            )
            if result < 0:
                self.once("io_setup", f"refused ({errno.errorcode[ctypes.get_errno()]})")
                break
            self.held["aio"].append(context.value)
            self.once("io_setup", "took an AIO context")
        for _ in range(HOLD["pty"]):
            try:
                self.held["pty"].append(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))
                self.once("/dev/ptmx", "opened a pseudo-terminal")
            except OSError as error:
                self.once("/dev/ptmx", f"refused ({errno.errorcode[error.errno]})")
                break
        for _ in range(HOLD["inet"]):
            try:
                self.held["inet"].append(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
                self.once("socket(AF_INET)", "made a TCP socket")
            except OSError as error:
                self.once("socket(AF_INET)", f"refused ({errno.errorcode[error.errno]})")
                break
        for _ in range(HOLD["files"]):
            try:
                self.held["files"].append(os.open("/dev/null", os.O_RDONLY))
            except OSError:
                break
        for index in range(HOLD["names"]):
            try:
                with open(f"/tmp/n{index}", "w"):
                    pass
                self.held["names"].append(f"/tmp/n{index}")
            except OSError:
                break

    def lower_all(self):
        for context in self.held["aio"]:
            libc.syscall(ctypes.c_long(SYS_IO_DESTROY), ctypes.c_ulong(context))
        for fd in self.held["pty"] + self.held["files"]:
            os.close(fd)
        for sock in self.held["inet"]:
            sock.close()
        for name in self.held["names"]:
            os.unlink(name)
        self.held = {key: [] for key in self.held}

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            self.lower_all()
            if bit:
                self.raise_all()
            log(f"SET {when} {bit}")
        else:
            for name, (path, pattern) in COUNTERS.items():
                log(f"READ {when} {name} {read_counter(path, pattern)}")
        return legal_moves[0]


serve(CounterPartners())
