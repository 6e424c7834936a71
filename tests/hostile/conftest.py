"""Fixtures of the hostile-bot suite: a short sandboxed match of a test bot."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import BANK_MS, HOSTILE_LIMITS, MOVE_MS, PlayMatch, hostile, verify_replays

from arena.runner import BotRef, MatchReport, MatchSpec, run_match

# The test bots are programs the runner starts, not modules for pytest to import.
collect_ignore_glob = ["bots/*"]


@pytest.fixture
def host_locks_alone() -> Iterator[None]:
    """Runs the test alone among the tests that take or look for locks on host files (with
    ``-n``): a control's bots, unsandboxed, lock files that a sandboxed receiver can test too."""
    with open(Path(tempfile.gettempdir()) / "scopa-arena-tests-host-locks", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


@pytest.fixture
def play_hostile(bwrap: str, tmp_path: Path) -> PlayMatch:
    """Plays a short sandboxed match (one duplicate set) of a test bot against ``random``.

    Partnership games play unpaced unless the test says otherwise: no attack played here is
    on think time, which ``test_think_time.py`` plays paced and unpaced."""

    def play(
        name: str,
        variant: str = "scopa",
        *,
        move_ms: int = MOVE_MS,
        opponent: str = "random",
        games: int = 2,
        **spec: Any,
    ) -> MatchReport:
        options: dict[str, Any] = {"limits": HOSTILE_LIMITS, "pace_partners": False, **spec}
        match = MatchSpec(
            entrants=[hostile(name), BotRef.parse(opponent)],
            variant=variant,
            games=games,
            move_time_ms=move_ms,
            bank_ms=BANK_MS,
            replays_dir=tmp_path / "replays",
            **options,
        )
        report = run_match(match)
        whole_sets = -(-games // 2) * 2  # games come in duplicate sets of two
        assert len(report.games) == whole_sets, "the match did not go on to its last game"
        verify_replays(tmp_path / "replays")
        return report

    return play
