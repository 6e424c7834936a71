"""ISMCTS iterations per CPU second on the engine in use: ``python -m sample_bots.ismcts.speed``.

Searches 300 iterations from a few positions of each variant and prints the median rate.
Run it twice to compare the engines: as is (the compiled core where it is built) and with
``ARENA_ENGINE=python`` (the pure engine).  A measurement, not a test: it asserts nothing.
"""

from __future__ import annotations

import statistics
import sys
import time

from arena.engine import Game, core, rules_for
from sample_bots.ismcts.search import SearchConfig, search


def rate(variant: str, positions: int = 6, iterations: int = 300) -> float:
    """Median iterations per CPU second over ``positions`` positions of ``variant``."""
    rules = rules_for(variant)
    rates = []
    for seed in range(positions):
        deal = Game(rules, seed).new_deal()
        for _ in range(seed % 5):  # a few moves in, so positions differ
            deal.apply_unchecked(deal.legal_moves()[0])
        obs = deal.observation(deal.to_move)
        start = time.process_time()
        search(obs, deal.legal_moves(), SearchConfig(iterations=iterations, seed=seed))
        rates.append(iterations / (time.process_time() - start))
    return statistics.median(rates)


def main(argv: list[str]) -> int:
    """Prints each variant's rate (default: scopa and scopone)."""
    for variant in argv or ["scopa", "scopone"]:
        print(f"{variant}: {rate(variant):,.0f} iterations/s ({core.backend()} engine)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
