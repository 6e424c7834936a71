"""``arena bench swiss`` runs end to end on a tiny field (a smoke test: the figures are for
people and are never asserted beyond their shape and the match counts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "swiss", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_swiss_benchmark_reports_both_formats_on_the_same_field() -> None:
    result = bench(
        "--bots",
        "8",
        "--tiers",
        "4",
        "--games",
        "2",
        "--repeats",
        "2",
        "--target",
        "1",
        "--workers",
        "1",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["round_robin_matches"] == 28  # every pair of 8
    assert report["swiss_matches"] == 5 * 4  # ceil(log2 8) + 2 rounds of 4 boards
    assert report["match_share"] == round(20 / 28, 4)
    for key in ("swiss_spearman", "round_robin_spearman"):
        assert -1.0 <= report[key] <= 1.0
    assert len(report["runs"]) == 2 and report["runs"][0]["seed"] != report["runs"][1]["seed"]
    assert (
        report["field"]
        == ["random"] * 2 + ["greedy 33%"] * 2 + ["greedy 67%"] * 2 + ["greedy 100%"] * 2
    )


def test_it_rejects_rounds_the_field_cannot_play_and_a_bad_budget_list() -> None:
    refused = bench("--bots", "8", "--rounds", "8")
    assert refused.returncode == 2
    assert "a Swiss of 8 rounds needs at least 9 entrants" in refused.stderr
    assert bench("--ismcts", "many").returncode == 2
