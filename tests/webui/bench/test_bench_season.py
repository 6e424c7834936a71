"""``arena bench season`` runs end to end on its own throwaway database (a smoke test: the
figures themselves are printed for people, never asserted)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_the_season_benchmark_reports_played_and_empty_matches() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["PYTHONFAULTHANDLER"] = "1"
    # Each season has 60 s (it then fails with its workers' logs); past the whole deadline,
    # SIGABRT makes the benchmark print where it waits before the test fails.
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "bench",
            "season",
            "--entrants",
            "3",
            "--workers",
            "1",
            "--games",
            "1",
            "--target",
            "1",
            "--timeout",
            "60",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        stdout, stderr = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        stdout, stderr = process.communicate(timeout=30)
        pytest.fail(f"the benchmark did not end within 300 s:\n{stderr}")
    assert process.returncode == 0, stderr
    report = json.loads(stdout)
    rows = report["rows"]
    assert [(r["workers"], r["empty"], r["matches"]) for r in rows] == [(1, False, 3), (1, True, 3)]
    assert rows[1]["play_ms_median"] == 0
    assert report["queue_overhead_ms_per_match"] == rows[1]["wall_ms_per_match"] > 0


def test_it_rejects_a_bad_worker_list() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "season", "--workers", "one"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--workers 'one'" in result.stdout + result.stderr


@pytest.mark.slow
def test_a_season_past_its_deadline_fails_with_what_its_workers_logged() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "bench",
            "season",
            "--entrants",
            "2",
            "--workers",
            "1",
            "--games",
            "1",
            "--target",
            "1",
            "--timeout",
            "0.2",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert "not finished after 0.2 s (0 of 1 matches done)" in result.stderr
    # The worker's log follows: its name and Celery's own start-up lines.
    assert "--- played1-" in result.stderr
