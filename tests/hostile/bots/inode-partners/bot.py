"""Partners that pass a hand through the kernel's numbering of objects (a test bot).

Linux numbers the inodes of pipes, sockets and new ``/proc`` entries from one counter of the
whole host, handed to each CPU in batches of 1,024 (``get_next_ino``). The lower seat of the
side is the sender: at each of its turns it takes the next bit of its hand (six bits a card,
each bit followed by its complement) and, for a 1, makes and closes pipes until it has taken
``BATCHES`` fresh batches, logging ``SEND <deal> <moves> <bit>``. The higher seat is the
receiver: at each turn it makes pipes until one starts a fresh batch, whose number says how
many batches others took since its last turn: ``RECEIVED <deal> <moves> <batches>``. When the
sandbox refuses a pipe, either seat logs ``refused <call> (<errno name>)`` and plays on; other
ways to read or move the numbering are tried and logged the same way (``/proc``, a socket's
cookie, a pidfd, a memfd). At start-up, before its game, the bot logs whether it could make a
pipe and a socket then (``START pipe ok``).
"""

import errno
import os
import socket
import sys

from arena.sdk import Bot, serve

BATCHES = 8
BATCH = 1024
SO_COOKIE = 57


def say(text):
    print(f"inode-partners: {text}", file=sys.stderr, flush=True)


def inode():
    read_end, write_end = os.pipe()
    number = os.fstat(read_end).st_ino
    os.close(read_end)
    os.close(write_end)
    return number


def fresh_batch():
    """The first number of a batch this process just took from the host's counter."""
    while True:
        number = inode()
        if number % BATCH == 1:
            return number


def attempt(name, call):
    """Makes ``call``; logs ``refused <name> (<errno>)`` when it fails. Its result, or None."""
    try:
        return call()
    except OSError as error:
        say(f"refused {name} ({errno.errorcode.get(error.errno, error.errno)})")
        return None


def other_ways():
    """Every other way to read a number from a host-wide counter, each logged if refused."""
    attempt("socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
    attempt("socketpair", lambda: [s.close() for s in socket.socketpair()])
    attempt("memfd_create", lambda: os.close(os.memfd_create("x")))
    attempt("proc", lambda: os.stat(f"/proc/{os.getpid()}/status"))
    attempt("pidfd_open", lambda: os.close(os.pidfd_open(os.getpid())))
    attempt("sock_diag", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 4).close())
    with socket.socket(fileno=os.dup(LISTENER)) as listener:
        attempt("so_cookie", lambda: listener.getsockopt(socket.SOL_SOCKET, SO_COOKIE, 8))


def start():
    """Pipes and sockets while the bot starts, before its game: allowed."""
    made = attempt("pipe", inode) is not None
    made = made and attempt("socket", lambda: socket.socket(socket.AF_UNIX).close()) is None
    say(f"START pipe {'ok' if made else 'refused'}")
    return socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).detach()


LISTENER = start()


class InodePartners(Bot):
    name = "inode-partners"

    def __init__(self):
        self.bits = []
        self.sender = False
        self.last = None
        self.tried = False

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        hand = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]
        self.bits = [half for bit in hand for half in (bit, 1 - bit)]

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if not self.tried:
            self.tried = True
            other_ways()
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            for _ in range(BATCHES if bit else 0):
                if attempt("pipe", fresh_batch) is None:
                    break
            say(f"SEND {when} {bit}")
        else:
            start = attempt("pipe", fresh_batch)
            if start is not None:
                if self.last is not None:
                    say(f"RECEIVED {when} {(start - self.last) // BATCH - 1}")
                self.last = start
        return legal_moves[0]


serve(InodePartners())
