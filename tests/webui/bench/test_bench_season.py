"""``arena bench season`` runs end to end on its own throwaway database (a smoke test: the
figures themselves are printed for people, never asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_season_benchmark_reports_played_and_empty_matches() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "season", "--entrants", "3",
         "--workers", "1", "--games", "1", "--target", "1", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    rows = report["rows"]
    assert [(r["workers"], r["empty"], r["matches"]) for r in rows] == [
        (1, False, 3), (1, True, 3)
    ]
    assert rows[1]["play_ms_median"] == 0
    assert report["queue_overhead_ms_per_match"] == rows[1]["wall_ms_per_match"] > 0


def test_it_rejects_a_bad_worker_list() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "season", "--workers", "one"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2
    assert "--workers 'one'" in result.stdout + result.stderr
