"""The greedy sample bot: the seeds' advice as one-move lookahead (see ``policy.py``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.engine import Move, Observation
from arena.sdk import Bot, serve

sys.path.insert(0, str(Path(__file__).resolve().parent))
if TYPE_CHECKING:  # mypy reads the bot's own modules under their package names
    from sample_bots.greedy.policy import choose_move
else:
    from policy import choose_move


class GreedyBot(Bot):
    """Settebello first, then sweeps, sevens, coins, cards; never an easy sweep for the next."""

    name = "greedy"
    version = "1.0.0"
    author = "Scopa Arena"

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        move: Move = choose_move(observation, legal_moves)
        return move


if __name__ == "__main__":
    serve(GreedyBot())
