"""A bot started with an outsized command or environment (the test adds them to its
manifest): it says how much of them reached it, then plays its first legal move."""

import os
import sys

from arena.sdk import Bot, serve

argument = sum(len(part) for part in sys.argv[1:])
environment = sum(len(value) for name, value in os.environ.items() if name.startswith("OUTSIZED"))
print(f"outsized: argument {argument}, environment {environment}", file=sys.stderr, flush=True)


class Outsized(Bot):
    name = "outsized"

    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(Outsized())
