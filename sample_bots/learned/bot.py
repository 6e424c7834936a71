"""The learned sample bot: a linear policy trained with ``arena.env`` (see ``train.py``).

Each legal move is scored by ``weights . features`` (``features.py``, weights in
``weights.json``) and the best is played.  Pure Python on the SDK: it needs nothing in the
sandbox but the arena package.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.engine import Move, Observation
from arena.sdk import Bot, serve

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
if TYPE_CHECKING:  # mypy reads the bot's own modules under their package names
    from sample_bots.learned.features import FEATURES, best_move
else:
    from features import FEATURES, best_move


def load_weights(path: Path = HERE / "weights.json") -> list[float]:
    """The weights of ``path``, checked against the features this bot computes."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("features") != list(FEATURES):
        raise ValueError(f"{path.name} was trained on other features than features.py computes")
    return [float(w) for w in data["weights"]]


class LearnedBot(Bot):
    """Plays the legal move its learned weights score highest."""

    name = "learned"
    version = "1.0.0"
    author = "Scopa Arena"

    def __init__(self, weights: Sequence[float]) -> None:
        self.weights = list(weights)

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return best_move(observation, legal_moves, self.weights)


if __name__ == "__main__":
    serve(LearnedBot(load_weights()))
