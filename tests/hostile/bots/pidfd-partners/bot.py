"""Partners that try to pass a hand through pidfds, and the socket options that hand them out
(a test bot).

A pidfd's inode number is a count of every process the host ever made (pidfs), which a
partner moves by forking. The lower seat of the side is the sender: at each of its turns it
takes the next bit of its hand (six bits a card) and, for a 1, forks ``FORKS`` children that end
at once, logging ``SEND <deal> <moves> <bit>``. The higher seat is the receiver: at each turn
it tries every way to hold a pidfd and read its number: ``pidfd_open``, ``clone`` with
``CLONE_PIDFD``, and ``getsockopt(SO_PEERPIDFD)``, on its server's listening socket after a
child of its own called ``listen()`` on it again (the peer of a listening socket is the last
process that called ``listen``) and on each connection its server holds (the runner's gRPC
connection). ``SO_PEERCRED`` and ``SO_PASSPIDFD`` (which makes a pidfd arrive with each
message) are tried the same ways, each also with high bits in the level and the option name.
Every refusal is logged ``refused <what> (<errno name>)``; a number read is logged
``RECEIVED <deal> <moves> <inode>``, a pid ``PEER <pid>``. Both seats try everything once, at
their first turn. The bot plays the first legal move.
"""

import ctypes
import errno
import os
import socket
import stat
import struct
import sys

from arena.sdk import Bot, serve

FORKS = 16
SO_PASSCRED, SO_PEERCRED, SO_PASSPIDFD, SO_PEERPIDFD = 16, 17, 76, 77
SO_ACCEPTCONN = 30
CLONE_PIDFD, SIGCHLD = 0x1000, 17
SYS_GETSOCKOPT, SYS_SETSOCKOPT, SYS_CLONE = 55, 54, 56  # x86_64
HIGH = 0xFFFFFFFF << 32

libc = ctypes.CDLL(None, use_errno=True)


def say(text):
    print(f"pidfd-partners: {text}", file=sys.stderr, flush=True)


def refused(what, code):
    say(f"refused {what} ({errno.errorcode.get(code, code)})")


def sockets():
    """This process's sockets: (fd, listening?)."""
    found = []
    for fd in range(3, 256):
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
        except OSError:
            continue
        try:
            with socket.socket(fileno=os.dup(fd)) as sock:
                listening = sock.getsockopt(socket.SOL_SOCKET, SO_ACCEPTCONN) == 1
                family = sock.family
        except OSError:
            continue
        if family == socket.AF_UNIX:
            found.append((fd, listening))
    return found


def raw_getsockopt(fd, level, name, size):
    """getsockopt with full 64-bit level and name registers: (bytes or None, errno)."""
    value = ctypes.create_string_buffer(size)
    length = ctypes.c_uint32(size)
    result = libc.syscall(
        ctypes.c_long(SYS_GETSOCKOPT),
        ctypes.c_ulong(fd),
        ctypes.c_ulong(level),
        ctypes.c_ulong(name),
        value,
        ctypes.byref(length),
    )
    if result < 0:
        return None, ctypes.get_errno()
    return value.raw[: length.value], 0


def raw_setsockopt(fd, level, name, flag):
    value = ctypes.c_int(flag)
    result = libc.syscall(
        ctypes.c_long(SYS_SETSOCKOPT),
        ctypes.c_ulong(fd),
        ctypes.c_ulong(level),
        ctypes.c_ulong(name),
        ctypes.byref(value),
        ctypes.c_ulong(4),
    )
    return 0 if result == 0 else ctypes.get_errno()


def read_pidfd(where, fd):
    """Logs the pidfs number of pidfd ``fd`` (the channel), and closes it."""
    try:
        say(f"RECEIVED {where} {os.fstat(fd).st_ino}")
    finally:
        os.close(fd)


def peer_options(where, fd):
    """SO_PEERPIDFD, SO_PEERCRED and SO_PASSPIDFD on socket ``fd``, plain and with high bits."""
    for high_name, high in (("", 0), ("|high", HIGH)):
        level = socket.SOL_SOCKET | high
        value, code = raw_getsockopt(fd, level, SO_PEERPIDFD | high, 4)
        if value is None:
            refused(f"SO_PEERPIDFD{high_name} on {where}", code)
        else:
            read_pidfd(where, struct.unpack("i", value)[0])
        value, code = raw_getsockopt(fd, level, SO_PEERCRED | high, 12)
        if value is None:
            refused(f"SO_PEERCRED{high_name} on {where}", code)
        else:
            say(f"PEER {where} {struct.unpack('3i', value)[0]}")
        for name, option in (("SO_PASSPIDFD", SO_PASSPIDFD), ("SO_PASSCRED", SO_PASSCRED)):
            code = raw_setsockopt(fd, level, option | high, 1)
            if code:
                refused(f"{name}{high_name} on {where}", code)
            else:
                say(f"FOUND {name}{high_name} set on {where}")


def relisten(fd):
    """A child calls listen() again on the listening socket ``fd``, and ends."""
    pid = os.fork()
    if pid == 0:
        try:
            with socket.socket(fileno=os.dup(fd)) as sock:
                sock.listen(16)
            os._exit(0)
        except OSError:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    say(f"relisten {'ok' if os.waitstatus_to_exitcode(status) == 0 else 'failed'}")


def try_everything(when):
    try:
        read_pidfd(f"pidfd_open {when}", os.pidfd_open(os.getpid()))
    except OSError as error:
        refused("pidfd_open", error.errno)
    room = ctypes.c_int(-1)
    pid = libc.syscall(
        ctypes.c_long(SYS_CLONE),
        ctypes.c_ulong(CLONE_PIDFD | SIGCHLD),
        ctypes.c_ulong(0),
        ctypes.byref(room),
        ctypes.c_ulong(0),
        ctypes.c_ulong(0),
    )
    if pid == 0:
        os._exit(0)
    if pid < 0:
        refused("clone CLONE_PIDFD", ctypes.get_errno())
    else:
        os.waitpid(pid, 0)
        read_pidfd(f"clone {when}", room.value)
    found = sockets()
    listening = sum(1 for _, is_listening in found if is_listening)
    say(f"sockets {listening} listening {len(found) - listening} connected")
    for fd, listening in found:
        if listening:
            relisten(fd)
            peer_options(f"listening {when}", fd)
        else:
            peer_options(f"connection {when}", fd)


class PidfdPartners(Bot):
    name = "pidfd-partners"

    def __init__(self):
        self.bits = []
        self.sender = False
        self.tried = False

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        self.bits = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if not self.tried:
            self.tried = True
            try_everything(when)
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            for _ in range(FORKS if bit else 0):
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                os.waitpid(pid, 0)
            say(f"SEND {when} {bit}")
        else:
            try:
                read_pidfd(when, os.pidfd_open(os.getpid()))
            except OSError as error:
                refused("pidfd_open", error.errno)
        return legal_moves[0]


serve(PidfdPartners())
