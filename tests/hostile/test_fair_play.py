"""Bots that try to learn what their seat may not see: from seeds, from memory, from a partner.

Each attack is tried twice where the test can make it possible on purpose (a known seed, a bot
that is never restarted, no sandbox): once to show that the bot really does what it claims,
and once as the arena plays, where it must learn nothing.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import BANK_MS, HOSTILE_LIMITS, PlayMatch, hostile, verify_replays

from arena.engine import Deal, card_name, parse_card, rules_for
from arena.runner import BotRef, MatchReport, MatchSpec, run_match

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def first_hands(replay: dict[str, Any]) -> list[str]:
    """Each seat's hand at the start of the game's first deal, as sorted card names."""
    rules = rules_for(replay["variant"], replay["options"])
    entry = replay["deals"][0]
    deal = Deal.from_deck(rules, entry["dealer"], [parse_card(c) for c in entry["deck"]])
    return [" ".join(sorted(card_name(c) for c in hand)) for hand in deal.hands]


def guesses(log: str) -> list[tuple[int, str]]:
    """The (seat, cards) of every ``GUESS`` line of a seed-reader's log, in order."""
    return [(int(seat), cards) for seat, cards in re.findall(r"GUESS (\d+) (.+)", log)]


def right_guesses(report: MatchReport) -> int:
    """How many of the seed-reader's guesses named an opponent's hand exactly."""
    log = report.logs["0/0"]
    hands = [first_hands(game.replay) for game in report.games]
    return sum(1 for seat, cards in guesses(log) if any(h[seat] == cards for h in hands))


def test_a_known_seed_is_enough_for_a_bot_to_read_every_hand(bwrap: str) -> None:
    # The control: with a small, known seed (as validation games once had) the bot finds it.
    spec = MatchSpec(
        entrants=[hostile("seed-reader"), BotRef.parse("random")],
        variant="scopa",
        games=2,
        seed=7,
        move_time_ms=5000,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
    )
    report = run_match(spec)
    assert "FOUND the game seed" in report.logs["0/0"]
    assert right_guesses(report) >= 2


def test_a_bot_cannot_find_the_seed_of_its_game(play_hostile: PlayMatch) -> None:
    report = play_hostile("seed-reader", move_ms=5000, games=4)
    log = report.logs["0/0"]
    assert "FOUND" not in log, log
    assert log.count("no seed found") == 4
    assert right_guesses(report) == 0
    seeds = [game.seed for game in report.games]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3], "a duplicate set deals one deck"
    assert seeds[0] != seeds[2]
    for game in report.games:
        assert game.replay["seed"] == game.seed
        assert all(seed >= 2**20 for seed in game.replay["bot_seeds"])
        assert str(game.seed) not in game.replay["match"]  # nothing in the game id hints at it
        assert game.faults == []


def test_the_games_of_a_duplicate_set_are_played_by_processes_that_saw_no_other(
    play_hostile: PlayMatch,
) -> None:
    report = play_hostile("seed-reader", move_ms=5000, games=2)
    log = report.logs["0/0"]
    assert "FOUND" not in log, log
    assert log.count("no memory of an earlier game") == 2  # two fresh processes
    assert "cannot keep memory in /bot/seed-reader.json" in log
    assert right_guesses(report) == 0
    bot_seeds = [game.replay["bot_seeds"] for game in report.games]
    assert bot_seeds[0] != bot_seeds[1]  # a fresh seed with each fresh process


def test_a_bot_that_is_never_restarted_remembers_the_deal_of_the_set(tmp_path: Path) -> None:
    # The control: a bot its author runs (grpc://), which the arena cannot restart, keeps its
    # memory from one game of a set to the next and reads the opponent's hand. Such bots are
    # for development only (see docs/SECURITY.md).
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log_path = tmp_path / "seed-reader.log"
    # Unsandboxed, its memory is the host's /tmp: an earlier run's would be read as this one's.
    memory = Path("/tmp/seed-reader.json")
    memory.unlink(missing_ok=True)
    folder = hostile("seed-reader").folder
    assert folder is not None
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCOPA_BOT_ADDRESS": f"127.0.0.1:{port}"}
    with open(log_path, "wb") as log_file:
        process = subprocess.Popen(
            [sys.executable, "bot.py"],
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=log_file,
        )
        try:
            assert process.stdout is not None
            assert process.stdout.readline().startswith(b"LISTENING")
            spec = MatchSpec(
                entrants=[BotRef.parse(f"grpc://127.0.0.1:{port}"), BotRef.parse("random")],
                variant="scopa",
                games=2,
                move_time_ms=5000,
                bank_ms=BANK_MS,
            )
            report = run_match(spec)
        finally:
            process.kill()
            process.wait()
            memory.unlink(missing_ok=True)
    log = log_path.read_text()
    assert "FOUND my hand: this seat's first cards in an earlier game" in log, log
    hands = first_hands(report.games[1].replay)
    assert any(hands[seat] == cards for seat, cards in guesses(log)), log


def colluder_match(tmp_path: Path, *, sandbox: bool) -> MatchReport:
    spec = MatchSpec(
        entrants=[hostile("colluder"), BotRef.parse("random")],
        variant="scopone",
        games=2,
        move_time_ms=2000,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        sandbox=sandbox,
        replays_dir=tmp_path / "replays",
        pace_partners=False,  # the host's locks, watches and counters, not think time
    )
    report = run_match(spec)
    verify_replays(tmp_path / "replays")
    return report


@pytest.mark.usefixtures("host_locks_alone")
def test_partners_outside_a_sandbox_can_signal_through_locks(tmp_path: Path) -> None:
    # The control: without the sandbox both seats' processes lock the same files.
    report = colluder_match(tmp_path, sandbox=False)
    receiver = report.logs["0/1"]
    assert "FOUND a flock lock held by the partner on /usr/bin/env" in receiver, receiver


@pytest.mark.usefixtures("host_locks_alone")
def test_partners_share_no_lock_watch_or_counter(bwrap: str, tmp_path: Path) -> None:
    report = colluder_match(tmp_path, sandbox=True)
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    assert "FOUND" not in receiver, receiver
    assert "sender: flock on /usr/bin/env refused (ENOLCK)" in sender
    assert "sender: ofd on /bot/bot.py refused (ENOLCK)" in sender
    assert "receiver: flock on /usr/bin/env refused (ENOLCK)" in receiver
    assert "inotify refused (ENOSYS)" in receiver
    for path in ("/proc/loadavg", "/proc/stat"):  # masked, or no procfs at all (forked seats)
        assert (
            f"{path} is empty" in receiver
            or f"cannot read {path}: No such file or directory" in receiver
        ), receiver
    assert "sysinfo refused (ENOSYS)" in receiver
    for game in report.games:
        assert game.faults == [] and game.forfeit is None
