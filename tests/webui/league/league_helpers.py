"""Helpers of the league tests (a module of its own: conftest modules are not importable)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from report_fakes import FakeGame, fake_match_report

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"


def fake_report(
    seats_per_game: list[list[int]],
    winners: list[int | None],
    totals: list[list[int]] | None = None,
) -> Any:
    """A two-player report of the runner's own making with hand-made results (the data layer
    reads no moves): 11-4 to the winning side unless ``totals`` says otherwise."""
    return fake_match_report(
        "scopa",
        [
            FakeGame(
                seats,
                totals[i] if totals else ([11, 4] if winner == 0 else [4, 11]),
                winner,
            )
            for i, (seats, winner) in enumerate(zip(seats_per_game, winners, strict=True))
        ],
        entrants=2,
    )
