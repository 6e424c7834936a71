"""The informed sample bot: ISMCTS over samples of the hidden cards that respect what play
revealed (see ``search.py``).

Budget per move: ``--rollouts N`` and/or ``--time SECONDS`` (or ``SCOPA_INFORMED_ROLLOUTS``,
``SCOPA_INFORMED_TIME``); the time is never more than half of what the clock allows for the
move. ``--seed`` (or ``SCOPA_BOT_SEED``) makes the bot deterministic under a rollout budget.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from arena.engine import Move, Observation
from arena.sdk import Bot, serve

sys.path.insert(0, str(Path(__file__).resolve().parent))
if TYPE_CHECKING:  # mypy reads the bot's own modules under their package names
    from sample_bots.informed.search import SearchConfig, search
else:
    from search import SearchConfig, search  # the bot's own folder, not a package


class InformedBot(Bot):
    """Reads what the other seats' plays say about their hands before it searches."""

    name = "informed"
    version = "1.0.0"
    author = "Scopa Arena"

    def __init__(self, config: SearchConfig) -> None:
        self.config = config

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        config = self.config
        if self.clock.move_ms > 0:
            cap = self.clock.move_ms / 2000  # half the move's time, in seconds
            limit = cap if config.time_limit is None else min(config.time_limit, cap)
            config = replace(config, time_limit=limit)
        move: Move = search(observation, legal_moves, config).move
        return move


def config_from_args(argv: Sequence[str] | None = None) -> SearchConfig:
    """The search budget from the command line, else the environment, else 0.2 s per move."""
    parser = argparse.ArgumentParser(description="The informed sample bot.")
    parser.add_argument("--rollouts", type=int, default=None)
    parser.add_argument("--time", type=float, default=None, help="seconds per move")
    parser.add_argument("--seed", type=int, default=None)
    args, _ = parser.parse_known_args(argv)
    env = os.environ
    rollouts = args.rollouts or (
        int(env["SCOPA_INFORMED_ROLLOUTS"]) if env.get("SCOPA_INFORMED_ROLLOUTS") else None
    )
    seconds = args.time or (
        float(env["SCOPA_INFORMED_TIME"]) if env.get("SCOPA_INFORMED_TIME") else None
    )
    if rollouts is None and seconds is None:
        seconds = 0.2
    seed = args.seed if args.seed is not None else int(env.get("SCOPA_BOT_SEED", "0"))
    return SearchConfig(iterations=rollouts, time_limit=seconds, seed=seed)


if __name__ == "__main__":
    serve(InformedBot(config_from_args()))
