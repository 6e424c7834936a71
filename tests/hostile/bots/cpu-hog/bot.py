"""A bot that starts 64 processes spinning on the CPU to starve the other seats.

At start it forks ``SPINNERS`` children that spin for ever, each in a session of its own (so
that the kernel's per-session fairness, autogroups, gives each the weight of a whole seat) and
at the lowest priority (so that the bot's own thread still answers in its turn). At each of
its turns it lets them spin or stops them (``SIGSTOP``), in turn, and logs ``HOG <deal> <moves
played> <spinning>``, so that a neighbour's compute can be compared between the two in the
same match.
"""

import os
import signal
import sys

SPINNERS = 64
children = []
for _ in range(SPINNERS):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        os.nice(19)
        while True:
            pass
    children.append(pid)

from arena.sdk import Bot, serve  # noqa: E402  (after the fork: no gRPC thread is copied)


class CpuHog(Bot):
    name = "cpu-hog"

    def __init__(self):
        self.turns = 0

    def choose(self, observation, legal_moves):
        spinning = self.turns % 2 == 0
        self.turns += 1
        for pid in children:
            os.kill(pid, signal.SIGCONT if spinning else signal.SIGSTOP)
        print(
            f"cpu-hog: HOG {observation.deal_index} {len(observation.history)} "
            f"{int(spinning)} ({len(children)} spinners)",
            file=sys.stderr,
            flush=True,
        )
        return legal_moves[0]


serve(CpuHog())
