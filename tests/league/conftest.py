"""Fixtures of the league tests: users, the sample bots as registered versions, a variant."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"


@pytest.fixture
def staff(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("staff", is_staff=True)


@pytest.fixture
def sample_versions(staff: Any) -> list[Any]:
    """random and greedy registered as ready versions (trusted sample bots)."""
    from webui.league import services

    return [
        services.register_folder_bot(staff, SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]


def fake_report(seats_per_game: list[list[int]], winners: list[int | None],
                totals: list[list[int]] | None = None) -> dict[str, Any]:
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
