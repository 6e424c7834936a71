"""``arena bench ladder`` runs end to end, small (a smoke test: the figures are for people and
are never asserted beyond their shape and counts), and refuses bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "ladder", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_ladder_benchmark_plays_its_matches_and_lets_the_late_bot_in() -> None:
    result = bench(
        "--matches",
        "24",
        "--late-after",
        "6",
        "--ismcts",
        "5",
        "--workers",
        "1",
        "--target",
        "3",
        "--repeats",
        "2",
        "--calibrate",
        "2",
        "--skip-demo",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["matches"] == 24
    table = report["table"]
    assert sorted(row["bot"] for row in table) == sorted(
        [
            "anti-greedy 100%",
            "random",
            "greedy 50%",
            "greedy 100%",
            "ismcts 5",
            "anti-greedy 60% (late)",
        ]
    )
    assert sum(row["games"] for row in table) == 24 * 2 * 2  # two games, two bots each
    late = next(row for row in table if row["bot"].endswith("(late)"))
    assert 0 < late["games"] < min(r["games"] for r in table if r is not late)
    conservative = [row["conservative"] for row in table]
    assert conservative == sorted(conservative, reverse=True)
    # Two runs of their own seeds; the figure is their median, the higher of two (a run that
    # never settled counting as the longest).
    runs = report["runs"]
    assert [run["seed"] for run in runs] == [1, 2]
    settled = sorted(25 if r["matches_to_order"] is None else r["matches_to_order"] for r in runs)
    assert all(1 <= value <= 25 for value in settled)
    assert report["matches_to_order"] == (None if settled[1] == 25 else settled[1])
    # The calibration: each level against the next, weakest pair first, two deals each.
    adjacent = report["adjacent"]
    assert [(row["weaker"], row["stronger"]) for row in adjacent] == [
        ("anti-greedy 100%", "anti-greedy 60%"),
        ("anti-greedy 60%", "random"),
        ("random", "greedy 50%"),
        ("greedy 50%", "greedy 100%"),
        ("greedy 100%", "ismcts 5"),
    ]
    assert all(row["games"] == 4 and 0 <= row["win_rate"] <= 1 for row in adjacent)


@pytest.mark.parametrize(
    "option",
    [
        ["--matches", "0"],
        ["--slots", "0"],
        ["--cap", "0"],
        ["--repeats", "0"],
        ["--calibrate", "-1"],
    ],
)
def test_it_refuses_empty_budgets(option: list[str]) -> None:
    refused = bench(*option, "--skip-demo")
    assert refused.returncode == 2 and "must be at least" in refused.stderr
    assert refused.stdout == ""


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--mixes", "0,0.5,2"], "between -1 and 1"),
        (["--late", "-3"], "between -1 and 1"),
        (["--mixes", "0,0.5,0.5"], "same greedy share"),
        (["--late", "0"], "same greedy share"),  # the late bot's level is taken: no known order
    ],
)
def test_it_refuses_a_field_without_a_known_order(option: list[str], message: str) -> None:
    refused = bench(*option, "--skip-demo")
    assert refused.returncode == 2 and message in refused.stderr
