"""Two partners passing a hand by timing each other's use of the CPU.

The lower seat of the side is the sender. At start it forks ``SPINNERS`` children that spin
on the CPU, each in a session of its own (autogroups give each the weight of a whole seat) and
at the lowest priority (its own thread still answers quickly). At each of its turns it takes
the next bit of its hand (its cards in order, six bits each, each bit followed by its
complement) and lets its spinners run until its next turn for a 1, or stops them
(``SIGSTOP``) for a 0, and logs ``SEND <deal> <moves played> <bit>``. The higher seat is the
receiver: at each of its turns it counts how many rounds of a tight loop it makes in
``WINDOW_S`` of wall time and logs ``RECEIVED <deal> <moves played> <rounds>``: fewer rounds
mean the partner's spinners ran. A test pairs the two.
"""

import os
import signal
import sys
import time

SPINNERS = 64
WINDOW_S = 0.04
children = []
# Both seats fork them (a seat learns its role only when the game starts), before anything is
# imported: small processes, and no gRPC thread copied.
for _ in range(SPINNERS):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.nice(19)
        os.kill(os.getpid(), signal.SIGSTOP)  # stopped until a 1 is sent
        while True:
            pass
    children.append(pid)

from arena.sdk import Bot, serve  # noqa: E402


class CpuPartners(Bot):
    name = "cpu-partners"

    def __init__(self):
        self.bits = []
        self.sender = False

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        # Each bit of the hand (its cards in order, six bits each) goes as itself then its
        # complement (Manchester): as many 1s as 0s, whatever the hand.
        hand = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]
        self.bits = [half for bit in hand for half in (bit, 1 - bit)]

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            for pid in children:
                os.kill(pid, signal.SIGCONT if bit else signal.SIGSTOP)
            print(f"cpu-partners: SEND {when} {bit}", file=sys.stderr, flush=True)
        else:
            end = time.perf_counter() + WINDOW_S
            rounds = 0
            while time.perf_counter() < end:
                for _ in range(100):
                    rounds += 1
            print(f"cpu-partners: RECEIVED {when} {rounds}", file=sys.stderr, flush=True)
        return legal_moves[0]


serve(CpuPartners())
