"""A bot that does the same work at every turn: a fixed number of random play-outs of the deal
it sees, then the first legal move.

Its turn's round trip is then a measure of the CPU it was given: a bot searching on a fixed
budget, as a league's search bots do. Used by ``benchmarks/audit_beside_matches.py``.
"""

import random

from arena.engine import Deal
from arena.sdk import Bot, serve

PLAYOUTS = 200


class FixedWork(Bot):
    name = "fixed-work"

    def __init__(self):
        self.rng = random.Random(1)

    def choose(self, observation, legal_moves):
        for _ in range(PLAYOUTS):
            deal = Deal.determinize(observation, self.rng)
            while not deal.is_over():
                deal.apply_unchecked(self.rng.choice(deal.legal_moves()))
        return legal_moves[0]


serve(FixedWork())
