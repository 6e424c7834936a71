"""``arena bench seat`` takes one seat through its restart cycle, forked and by exec, in one run
(a smoke test: figures are for people and are asserted only in their shape and counts)."""

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
        [sys.executable, "-m", "arena.cli", "bench", "seat", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_seat_benchmark_measures_both_ways_in_every_round(bwrap: str) -> None:
    result = bench("--cycles", "2", "--rounds", "2", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert (report["bot"], report["cycles"], report["rounds"]) == ("random", 2, 2)
    for way in ("forked", "exec"):
        assert len(report[f"{way}_rounds"]) == 2
        # Each cycle started a bot and had it answer Describe: it took time and CPU.
        assert report[f"{way}_start_ms"] > 0 and report[f"{way}_wall_ms"] > 0
        assert report[f"{way}_cpu_ms"] > 0
    assert report["forked_over_exec_cpu"] == pytest.approx(
        report["forked_cpu_ms"] / report["exec_cpu_ms"], abs=0.01
    )


def test_it_rejects_no_cycles() -> None:
    refused = bench("--cycles", "0")
    assert refused.returncode == 2
    assert "--cycles and --rounds must be at least 1" in refused.stdout


def test_it_names_a_bot_it_does_not_know() -> None:
    refused = bench("--bot", "no-such-bot", "--cycles", "1", "--rounds", "1")
    assert refused.returncode == 2
    assert refused.stdout.startswith("arena bench seat: ")
