"""Planted cheaters (``cheaters.py`` beside this file: policies the test harness hands the true
deal, never uploadable bots) are flagged by the audit within the games promised; honest bots
are not flagged in as many; the benchmark finds the cheaters in a checkout only."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.audit import AuditConfig
from arena.bench import fairplay

ROOT = Path(__file__).resolve().parents[2]
CONFIG = AuditConfig(samples=24)


def games_to_flag(name: str, max_games: int) -> dict[str, Any]:
    return fairplay.until_flagged((fairplay.planted_subject(name), 38, max_games, CONFIG, 0.001))


def test_the_planted_cheaters_are_loaded_from_the_test_suite() -> None:
    planted = fairplay.planted_policies()
    assert tuple(planted) == fairplay.PLANTED_NAMES
    assert Path(__file__).with_name("cheaters.py") == fairplay.CHEATERS
    assert planted["partner-peek"][:2] == ("scopone", "partner")
    assert {kind for _, kind, _ in planted.values()} == {"hidden", "partner"}
    assert not hasattr(fairplay, "peek_greedy")  # nothing of them ships in the library


def test_a_bot_that_sees_its_opponents_hand_is_flagged_within_50_games() -> None:
    run = games_to_flag("peek-greedy", 50)
    assert run["flagged"], run
    assert run["games"] <= 50


def test_a_bot_searching_the_true_deal_is_flagged_within_50_games() -> None:
    run = games_to_flag("peek-search", 50)
    assert run["flagged"], run


def test_a_scopone_bot_that_sees_its_partners_hand_is_flagged_within_100_games() -> None:
    run = games_to_flag("partner-peek", 100)
    assert run["flagged"], run
    assert run["games"] <= 100


@pytest.mark.parametrize("bot", ["greedy", "random"])
def test_an_honest_bot_is_not_flagged_over_20_games(bot: str) -> None:
    results = fairplay.play_games((fairplay.HONEST[bot], 38, range(20), CONFIG, 0))
    row = fairplay.honest_row(fairplay.HONEST[bot], results, 0.001)
    assert row["decisions"] > 100
    assert not row["flagged"], row
    # Honest play's excess (its match on the true deal less its share of the samples) stays
    # within the slack of the decisions that carry one.
    assert row["excess"] < CONFIG.slack
    assert 0 < row["exact_decisions"] < row["decisions"]


def test_the_strongest_sample_bot_is_audited_among_the_honest_bots_at_scopone() -> None:
    subject = fairplay.Subject("informed", False, "scopone", "partner")
    results = fairplay.play_games((subject, 38, range(2), CONFIG, 10))
    row = fairplay.honest_row(subject, results, 0.001)
    assert "informed" in fairplay.HONEST
    assert row["decisions"] > 20  # both seats of its side, every decision through the audit
    assert not row["flagged"], row


def test_the_benchmark_reports_a_row_per_bot_with_planted_and_flagged() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "bench",
            "fairplay",
            "--json",
            "--bot",
            "peek-greedy",
            "--bot",
            "random",
            "--runs",
            "1",
            "--max-games",
            "20",
            "--games",
            "2",
            "--samples",
            "8",
            "--workers",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    rows = {row["bot"]: row for row in figures["bots"]}
    assert set(rows) == {"peek-greedy", "random"}
    assert rows["peek-greedy"]["planted"] and rows["peek-greedy"]["flagged"]
    assert rows["peek-greedy"]["games_to_flag"][0] <= 20
    assert not rows["random"]["planted"] and rows["random"]["games"] == 2
    assert figures["alpha"] == 0.001


def test_the_benchmark_refuses_unknown_bots_and_bad_numbers() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bench", "fairplay", "--bot", "ghost", "--games", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "no bot 'ghost'" in result.stderr and "--games must be" in result.stderr


def test_without_the_test_suite_the_benchmark_refuses_the_planted_table_and_runs_the_honest(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(fairplay, "CHEATERS", tmp_path / "tests" / "audit" / "cheaters.py")
    with pytest.raises(fairplay.NoCheaters, match="built in the test suite only"):
        fairplay.planted_policies()
    parser = argparse.ArgumentParser()
    fairplay.add_arguments(parser)
    options = ["--json", "--games", "1", "--samples", "4", "--workers", "1"]
    assert fairplay.run(parser.parse_args([*options, "--bot", "tenth"])) == 2
    assert "no planted table" in capsys.readouterr().err
    everyone = [*options, "--bot", "random", "--bot", "peek-greedy"]
    assert fairplay.run(parser.parse_args(everyone)) == 0
    out = capsys.readouterr()
    assert "built in the test suite only" in out.err
    assert [row["bot"] for row in json.loads(out.out)["bots"]] == ["random"]
