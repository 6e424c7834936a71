"""Helpers of the league tests (a module of its own: conftest modules are not importable)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"


def fake_report(
    seats_per_game: list[list[int]],
    winners: list[int | None],
    totals: list[list[int]] | None = None,
) -> dict[str, Any]:
    """A report of the runner's shape with hand-made results (the data layer reads no moves)."""
    games = []
    for i, (seats, winner) in enumerate(zip(seats_per_game, winners, strict=True)):
        game_totals = totals[i] if totals else ([11, 4] if winner == 0 else [4, 11])
        games.append(
            {
                "replay": {
                    "format": "scopa-replay",
                    "version": 1,
                    "variant": "scopa",
                    "options": {},
                    "players": ["a", "b"],
                    "seed": i,
                    "deals": [],
                    "result": {"totals": game_totals, "winner": winner},
                },
                "seats": seats,
                "winner_side": winner,
                "void": "",
                "forfeit": None,
                "faults": [],
                "duration_ms": 10,
            }
        )
    return {"games": games, "duration_ms": 20}
