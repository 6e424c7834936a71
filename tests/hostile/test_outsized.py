"""A bot whose command or environment is outsized: the runner never blocks on a seat's size.

The fork server's spec once went through a pipe written whole before anyone read it, so a
40,000-character argument (twice in the spec: as the script's arguments and as its command
line) blocked the runner for good. The manifests here are made in code, past any bound the
manifest parser sets: the runner's own handling is what is tested.
"""

from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile_helpers import (
    BANK_MS,
    BOTS,
    HOSTILE_LIMITS,
    MOVE_MS,
    hostile,
    seat_folders,
    verify_replays,
)

from arena.runner import BotRef, MatchReport, MatchSpec, run_match
from arena.runner.process import MAX_START_BYTES


def outsized(*, argument: int = 0, environment: int = 0) -> BotRef:
    """The ``outsized`` bot with one argument of ``argument`` characters added to its command
    and one variable of ``environment`` characters to its environment."""
    bot = hostile("outsized")
    assert bot.manifest is not None
    command = bot.manifest.command + (("a" * argument,) if argument else ())
    env = {"OUTSIZED": "e" * environment} if environment else {}
    manifest = dataclasses.replace(bot.manifest, command=command, env=env)
    return dataclasses.replace(bot, manifest=manifest)


def play(bot: BotRef, tmp_path: Path) -> MatchReport:
    """One duplicate set of ``bot`` against ``random``, sandboxed."""
    spec = MatchSpec(
        entrants=[bot, BotRef.parse("random")],
        variant="scopa",
        games=2,
        move_time_ms=MOVE_MS,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        replays_dir=tmp_path / "replays",
    )
    report = run_match(spec)
    assert len(report.games) == 2
    verify_replays(tmp_path / "replays")
    return report


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("argument", "environment"), [(40_000, 0), (0, 100_000)], ids=["argument", "environment"]
)
def test_a_start_larger_than_a_pipe_holds_is_passed_whole_and_plays(
    bwrap: str, tmp_path: Path, argument: int, environment: int
) -> None:
    """A 40,000-character argument, or a 100,000-character variable: more than a pipe's
    buffer, within the bound a start may take. The bot gets all of it and plays both games."""
    report = play(outsized(argument=argument, environment=environment), tmp_path)
    for game in report.games:
        assert game.void is None and game.forfeit is None, game.replay
        assert [fault["kind"] for fault in game.faults] == []
    said = f"outsized: argument {argument}, environment {environment}"
    assert report.logs["0/0"].count(said) == 2


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    ("argument", "environment"),
    [(MAX_START_BYTES, 0), (0, 4 * MAX_START_BYTES)],
    ids=["argument", "environment"],
)
def test_a_start_over_the_bound_is_the_bots_fault(
    bwrap: str, tmp_path: Path, argument: int, environment: int
) -> None:
    """Over the bound, the start is refused before anything is built: a ``start`` fault of the
    bot's (its games forfeited, none void), with the sizes in its reason."""
    report = play(outsized(argument=argument, environment=environment), tmp_path)
    for game in report.games:
        hostile_seat = game.seats.index(0)
        assert game.void is None
        assert game.forfeit is not None
        assert game.forfeit["side"] == report.rules.side_of(hostile_seat)
        assert [fault["kind"] for fault in game.faults] == ["start"]
        detail = game.faults[0]["detail"]
        assert "its command and environment take" in detail, detail
        assert f"over the {MAX_START_BYTES:,} bytes a start may take" in detail, detail
        assert game.winner_entrants == [1]
    assert "outsized: argument" not in report.logs["0/0"]  # the bot never ran


@pytest.mark.timeout(300)
def test_a_start_past_its_deadline_is_the_bots_fault(bwrap: str, tmp_path: Path) -> None:
    """A bot that never says it listens: its start ends at its deadline, a ``start`` fault of
    the bot's with the deadline in its reason, and the match goes on to its end."""
    spec = MatchSpec(
        entrants=[hostile("mute"), BotRef.parse("random")],
        variant="scopa",
        games=2,
        move_time_ms=MOVE_MS,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        start_timeout_s=2.0,
    )
    report = run_match(spec)
    assert len(report.games) == 2
    for game in report.games:
        assert game.void is None and game.forfeit is not None
        assert [fault["kind"] for fault in game.faults] == ["start"]
        assert game.faults[0]["detail"] == "did not print LISTENING within 2 s"
        assert game.winner_entrants == [1]


@pytest.mark.timeout(120)
def test_arena_match_ends_at_sigterm_while_a_seat_starts(bwrap: str, tmp_path: Path) -> None:
    """SIGTERM while a seat is starting: ``arena match`` calls the start off, cleans up the
    seat (its folder is gone) and exits with 143."""
    arena = Path(sys.executable).with_name("arena")
    process = subprocess.Popen(
        [str(arena), "match", str(BOTS / "mute"), "random", "--games", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    before = seat_folders("mute")  # an earlier test's, being removed
    try:
        while not seat_folders("mute") - before:  # the seat is being started
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, err
    assert b"terminated" in err
    assert not seat_folders("mute") - before
