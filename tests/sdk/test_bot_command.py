"""``arena bot check`` and ``arena bot describe`` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


def test_check_passes_a_sample_bot_folder_and_prints_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(["bot", "check", str(SAMPLE_BOTS / "random"), "--variants", "scopa", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["ok"] is True
    assert [c["name"] for c in report["checks"]][-1] == "full game: scopa"


def test_check_fails_when_nothing_listens(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "check", "grpc://127.0.0.1:1", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["checks"][0]["name"] == "connect" and not report["ok"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bot", "check", "no/such/folder"], "neither a bot folder nor grpc://HOST:PORT"),
        (["bot", "check", str(SAMPLE_BOTS), "--variants", "scopa"], "no bot.toml"),
        (["bot", "check", str(SAMPLE_BOTS / "random"), "--variants", "nope"], "unknown variant"),
    ],
)
def test_bad_targets_get_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


def test_describe_prints_the_bots_answer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bot", "describe", str(SAMPLE_BOTS / "greedy")]) == 0
    out = capsys.readouterr().out
    assert "name: greedy" in out and "protocol: 1" in out
