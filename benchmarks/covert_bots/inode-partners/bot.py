"""Two partners passing a hand through the kernel's counter of inode numbers (a channel left
open: every pipe and socket of the host takes its number from it).

Linux numbers the inodes of pipes, sockets and other pseudo-files from one host-wide counter,
handed out to each CPU in batches of 1,024 (``get_next_ino``). The lower seat of the side is
the sender: at each of its turns it takes the next bit of its hand (its cards in order, six
bits each, each bit followed by its complement) and, for a 1, makes and closes pipes until it
has taken ``BATCHES`` fresh batches, logging ``SEND <deal> <moves played> <bit>``. The higher
seat is the receiver: at each of its turns it makes pipes until one starts a fresh batch, whose
number says how far the host's counter went since its last turn, and logs ``RECEIVED <deal>
<moves played> <batches taken by others>``.
"""

import os
import sys

from arena.sdk import Bot, serve

BATCHES = 8
BATCH = 1024


def inode():
    read_end, write_end = os.pipe()
    number = os.fstat(read_end).st_ino
    os.close(read_end)
    os.close(write_end)
    return number


def fresh_batch():
    """The first number of a batch this process just took from the host's counter (a batch
    starts at a multiple of 1,024, plus one)."""
    while True:
        number = inode()
        if number % BATCH == 1:
            return number


class InodePartners(Bot):
    name = "inode-partners"

    def __init__(self):
        self.bits = []
        self.sender = False
        self.last = None

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        hand = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]
        self.bits = [half for bit in hand for half in (bit, 1 - bit)]

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            for _ in range(BATCHES if bit else 0):
                fresh_batch()
            print(f"inode-partners: SEND {when} {bit}", file=sys.stderr, flush=True)
        else:
            start = fresh_batch()
            if self.last is not None:
                others = (start - self.last) // BATCH - 1
                print(f"inode-partners: RECEIVED {when} {others}", file=sys.stderr, flush=True)
            self.last = start
        return legal_moves[0]


serve(InodePartners())
