"""The random sample bot: plays a uniformly random legal move; the baseline every bot must beat.

Seeded from ``SCOPA_BOT_SEED`` (or ``--seed``) so a match can be replayed; otherwise from the OS.
"""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Sequence

from arena.engine import Move, Observation
from arena.sdk import Bot, serve


class RandomBot(Bot):
    """Chooses uniformly among the legal moves."""

    name = "random"
    version = "1.0.0"
    author = "Scopa Arena"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return self.rng.choice(legal_moves)


def main() -> None:
    parser = argparse.ArgumentParser(description="The random sample bot.")
    parser.add_argument("--seed", type=int, default=None, help="seed (default $SCOPA_BOT_SEED)")
    args, _ = parser.parse_known_args()
    seed = args.seed if args.seed is not None else os.environ.get("SCOPA_BOT_SEED")
    serve(RandomBot(None if seed is None else int(seed)))


if __name__ == "__main__":
    main()
