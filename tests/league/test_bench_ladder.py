"""``arena bench ladder`` runs end to end, small (a smoke test: the figures are for people and
are never asserted beyond their shape and counts), and refuses bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "bench", "ladder", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_the_ladder_benchmark_plays_its_matches_and_lets_the_late_bot_in() -> None:
    result = bench("--matches", "24", "--late-after", "6", "--ismcts", "5", "--workers", "1",
                   "--skip-demo", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["matches"] == 24
    table = report["table"]
    assert sorted(row["bot"] for row in table) == sorted(
        ["greedy 0%", "greedy 33%", "greedy 67%", "greedy 100%", "ismcts 5",
         "greedy 50% (late)"])
    assert sum(row["games"] for row in table) == 24 * 2 * 2  # two games, two bots each
    late = next(row for row in table if row["bot"].endswith("(late)"))
    assert 0 < late["games"] < min(r["games"] for r in table if r is not late)
    assert report["matches_to_order"] is None or 1 <= report["matches_to_order"] <= 24
    conservative = [row["conservative"] for row in table]
    assert conservative == sorted(conservative, reverse=True)


@pytest.mark.parametrize("option", [["--matches", "0"], ["--slots", "0"], ["--cap", "0"]])
def test_it_refuses_empty_budgets(option: list[str]) -> None:
    refused = bench(*option, "--skip-demo")
    assert refused.returncode == 2 and "must be at least 1" in refused.stderr
