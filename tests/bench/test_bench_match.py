"""``arena bench match`` plays each run as the arena does (each game of a set by processes that
saw no other) and with processes reused across a set, and reports both with their ratio (a
smoke test: figures are for people and are asserted only in their shape, their counts and
their arithmetic)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "match", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_match_benchmark_reports_fresh_reused_ahead_and_exec_in_one_run(
    bwrap: str,
) -> None:
    result = bench(
        "--games",
        "4",
        "--runs",
        "1",
        "--warmup",
        "2",
        "--prestart",
        "--exec",
        "--new-processes",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    # The warm-up's games are played first and counted nowhere.
    assert report["warmup_games"] == 2
    assert report["games"] == 4 and report["faults"] == 0
    # New processes for the first set's second game only: the second set's is played by the
    # processes that played the first set's first game, resting meanwhile.
    assert report["restarts"] == 1
    (run,) = report["runs"]
    ratio = run["games_per_second"] / run["reused_games_per_second"]
    assert report["fresh_over_reused"] == pytest.approx(ratio, abs=0.02)
    assert report["prestart_games_per_second"] > 0
    assert set(run) >= {"prestart_over_reused", "median_restart_ms", "exec_over_reused"}
    assert report["exec_games_per_second"] > 0
    assert report["new_processes_games_per_second"] > 0 and "new_processes_over_reused" in run
    # The host's busy CPU by game (this machine has /proc/stat): both matches ran bots.
    assert report["cpu_ms_per_game"] > 0 and report["reused_cpu_ms_per_game"] > 0
    assert set(run) >= {"cpu_ms_per_game", "reused_cpu_ms_per_game"}


def test_it_rejects_fewer_than_one_run() -> None:
    refused = bench("--runs", "0")
    assert refused.returncode == 2
    assert "--runs must be at least 1" in refused.stdout


def test_it_rejects_a_negative_warmup() -> None:
    refused = bench("--warmup", "-1")
    assert refused.returncode == 2
    assert "--warmup cannot be negative" in refused.stdout
