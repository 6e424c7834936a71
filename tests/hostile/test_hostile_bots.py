"""Hostile bots against the real runner: each is contained, its fault recorded, the match goes on.

Every test plays one duplicate set (two games, seats swapped) of a bot from ``bots/`` against
the random sample bot, sandboxed with bubblewrap, and checks the replays with
``arena replay verify``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hostile_helpers import (
    BANK_MS,
    BOTS,
    HOSTILE_LIMITS,
    MOVE_MS,
    PlayMatch,
    assert_forfeited_by_hostile_side,
    faults_of,
    processes_of_uid,
    require,
    verify_replays,
)
from leftovers import live_children

from arena.runner import BotRef, MatchReport, MatchSpec, run_match, runtime_tree
from arena.runner.bots import SAMPLE_BOTS

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def log_of(report: MatchReport, key: str = "0/0") -> str:
    return report.logs[key]


def test_a_bot_that_crashes_at_start_forfeits_and_is_started_again(
    play_hostile: PlayMatch,
) -> None:
    report = play_hostile("crash-at-start")
    assert_forfeited_by_hostile_side(report, "start")
    for index in range(2):
        assert faults_of(report, index) == ["start"]
        assert "exited with status 3" in report.games[index].faults[0]["detail"]
    assert log_of(report).count("crash-at-start: giving up") == 2
    summary = report.summary()
    assert (summary[0].losses, summary[1].wins, summary[0].faults) == (2, 2, 2)


@pytest.mark.parametrize("name", ["alibi", "alibi-exec"])
def test_a_bot_that_fails_its_start_blaming_the_sandbox_forfeits(
    play_hostile: PlayMatch, name: str
) -> None:
    """A start that fails is the host's (the match is played again elsewhere) only when the
    bot's command never ran: a bot printing bubblewrap's words does not void its games."""
    report = play_hostile(name)
    assert_forfeited_by_hostile_side(report, "start")
    for index in range(2):
        assert faults_of(report, index) == ["start"]
        assert "exited with status 1" in report.games[index].faults[0]["detail"]
    assert log_of(report).count("bwrap: Can't mount proc") == 2


def test_a_bot_that_crashes_mid_game_forfeits_and_is_restarted(play_hostile: PlayMatch) -> None:
    report = play_hostile("crash-mid-game")
    assert_forfeited_by_hostile_side(report, "crash")
    for index, game in enumerate(report.games):
        assert faults_of(report, index) == ["crash"]
        assert "exit status 7" in game.faults[0]["detail"]
        hostile_seat = game.seats.index(0)
        moves = [m for deal in game.replay["deals"] for m in deal["moves"]]
        assert sum(1 for m in moves if m["seat"] == hostile_seat) == 2
    assert log_of(report).count("[arena] starting") == 2


def test_a_bot_that_hangs_loses_on_its_third_clock_fault(play_hostile: PlayMatch) -> None:
    report = play_hostile("hang")
    assert_forfeited_by_hostile_side(report, "timeout")
    for index, game in enumerate(report.games):
        assert faults_of(report, index) == ["timeout"] * 3
        moves = [m for deal in game.replay["deals"] for m in deal["moves"]]
        assert [m["auto"] for m in moves if "auto" in m] == ["timeout", "timeout"]
    # The hung process was killed after each game and a fresh one started.
    assert log_of(report).count("[arena] starting") == 2


def test_a_late_answer_is_played_for_the_seat_and_then_ignored(play_hostile: PlayMatch) -> None:
    report = play_hostile("late")
    for index, game in enumerate(report.games):
        assert faults_of(report, index) == ["timeout"]
        assert game.forfeit is None and game.winner_side is not None
        hostile_seat = game.seats.index(0)
        first = next(
            m for deal in game.replay["deals"] for m in deal["moves"] if m["seat"] == hostile_seat
        )
        assert first["auto"] == "timeout"
        assert first["ms"] >= MOVE_MS
    # One process a game (each game of a duplicate set gets its own): a late answer is no
    # reason for another restart.
    assert log_of(report).count("[arena] starting") == 2


def test_a_bot_that_sends_garbage_forfeits_as_garbled(play_hostile: PlayMatch) -> None:
    report = play_hostile("garbage")
    assert_forfeited_by_hostile_side(report, "garbled")
    assert faults_of(report, 0) == ["garbled"] and faults_of(report, 1) == ["garbled"]


def test_a_bot_that_sends_an_illegal_move_forfeits(play_hostile: PlayMatch) -> None:
    report = play_hostile("illegal")
    assert_forfeited_by_hostile_side(report, "illegal")
    for game in report.games:
        assert re.search(r"move_index \d+ outside 0\.\.\d+", game.faults[0]["detail"])


def test_a_bot_that_allocates_without_end_hits_its_memory_limit(play_hostile: PlayMatch) -> None:
    # A long move limit, so that the allocation ends at the limit before the clock does.
    report = play_hostile("memory-hog", move_ms=5000)
    assert_forfeited_by_hostile_side(report, "memory")
    for game in report.games:
        assert "memory limit of 768 MiB" in game.forfeit["reason"]  # type: ignore[index]


def test_a_fork_bomb_is_stopped_by_the_process_limit_and_killed(play_hostile: PlayMatch) -> None:
    report = play_hostile("fork-bomb")
    assert_forfeited_by_hostile_side(report, "crash")
    found = re.findall(r"fork-bomb: uid (\d+) refused after (\d+) children", log_of(report))
    assert len(found) == 2
    for uid, children in found:
        assert 0 < int(children) < HOSTILE_LIMITS.processes
        assert processes_of_uid(int(uid)) == [], "a forked child outlived the match"


def test_a_bot_cannot_reach_the_network(play_hostile: PlayMatch, postgres_available: bool) -> None:
    # The same connection works from the host, so the sandbox is what stops the bot.
    with socket.create_connection(("127.0.0.1", 5432), timeout=2):
        pass
    report = play_hostile("network")
    log = log_of(report)
    attempts = re.findall(r"network: (tcp \S+|dns \S+) (\w+)", log)
    assert {target for target, _ in attempts} >= {"tcp 127.0.0.1:5432", "tcp 1.1.1.1:53"}
    assert all(outcome == "blocked" for _, outcome in attempts), log
    for game in report.games:
        assert game.faults == [] and game.forfeit is None


def test_a_bot_cannot_reach_a_unix_socket_of_the_host(
    play_hostile: PlayMatch, postgres_available: bool
) -> None:
    path = "/var/run/postgresql/.s.PGSQL.5432"
    require(os.path.exists(path), f"PostgreSQL's unix socket {path}")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)  # the host reaches it
    report = play_hostile("host-socket")
    attempts = re.findall(r"host-socket: (\S+) (\w+)", log_of(report))
    assert (path, "blocked") in attempts
    assert all(outcome == "blocked" for _, outcome in attempts)


def test_a_bot_cannot_read_files_outside_its_folder_nor_write_into_it(
    bwrap: str, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the database password")
    other_bot = SAMPLE_BOTS / "greedy" / "policy.py"
    folder = tmp_path / "file-reader"
    shutil.copytree(BOTS / "file-reader", folder)
    manifest = (folder / "bot.toml").read_text()
    extra = f'"{secret}", "{other_bot}", "{tmp_path}"'
    command = f'command = ["python", "bot.py", {extra}]'
    (folder / "bot.toml").write_text(manifest.replace('command = ["python", "bot.py"]', command))
    spec = MatchSpec(
        entrants=[BotRef.parse(str(folder)), BotRef.parse("random")],
        variant="scopa",
        games=2,
        seed=3,
        move_time_ms=MOVE_MS,
        bank_ms=BANK_MS,
        replays_dir=tmp_path / "replays",
        limits=HOSTILE_LIMITS,
    )
    report = run_match(spec)
    verify_replays(tmp_path / "replays")
    log = report.logs["0/0"]
    for path in (secret, other_bot, tmp_path, Path("/etc/shadow"), Path("/home")):
        assert f"file-reader: read {path}: blocked" in log, log
    assert "write /bot/planted.txt: blocked" in log
    assert not (folder / "planted.txt").exists()
    assert "the database password" not in log


def test_partners_cannot_share_their_hands(play_hostile: PlayMatch) -> None:
    report = play_hostile("hand-sharer", variant="scopone")
    for key in ("0/0", "0/1"):  # the two processes of the hand-sharer's side
        log = report.logs[key]
        assert "FOUND" not in log, log
        assert "wrote /tmp/hand-" in log  # it did try
        assert "no partner file at /tmp/hand-" in log
        assert "no partner abstract socket" in log
    for game in report.games:
        assert game.faults == []


def test_a_bot_whose_code_fails_at_every_turn_is_counted_as_never_choosing(
    play_hostile: PlayMatch,
) -> None:
    report = play_hostile("fumbler")
    for game in report.games:
        seat = game.seats.index(0)
        assert game.forfeit is None and game.void is None  # fallbacks are played, not faults
        assert game.fallbacks[seat] == game.answered[seat] > 0
        assert game.replay["fallbacks"][seat] == game.fallbacks[seat]
        notes = [f for f in game.faults if f["kind"] == "fallback"]
        assert len(notes) == 3 and all(f["seat"] == seat for f in notes)
        assert "RuntimeError: cannot decide among" in notes[0]["detail"]
    fumbler, opponent = report.summary()
    assert fumbler.fallbacks == fumbler.answered > 0
    assert opponent.fallbacks == 0 and opponent.answered > 0


HEAVY_BOT = """from arena.sdk import Bot, serve


class Heavy(Bot):
    name = "heavy"

    def choose(self, observation, legal_moves):
        return legal_moves[-1]


serve(Heavy())
"""


def test_a_match_cancelled_while_a_bot_starts_ends_that_start_before_it_returns(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lost lease cancels a match at any moment, a seat's start included. The start runs in
    a thread of its own, which must be called off and waited for: else it goes on after the
    match has returned, and a start still building its seat (copying and compiling a big bot
    folder) then launches a bot that nobody stops, in a seat folder nobody removes."""
    heavy = tmp_path / "heavy"
    (heavy / "parts").mkdir(parents=True)
    (heavy / "bot.toml").write_text(
        'name = "heavy"\nversion = "1"\ncommand = ["python", "bot.py"]\nvariants = ["*"]\n'
    )
    (heavy / "bot.py").write_text(HEAVY_BOT)
    for n in range(3000):  # seconds of copying and compiling before the bot can start
        (heavy / "parts" / f"part{n}.py").write_text(f"VALUE = {n}\n" * 20)
    seats = tmp_path / "seats"
    seats.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(seats))
    in_memory = runtime_tree.memory_base()[0]  # where the seats' copies of bot folders go
    cancel = threading.Event()

    def heavy_seat_folders() -> list[str]:
        return sorted(
            p.name
            for base in (seats, in_memory)
            for p in base.iterdir()
            if p.name.startswith("scopa-seat-") and (base == seats or "heavy" in p.name)
        )

    def cancel_once_a_seat_is_built() -> None:
        while not cancel.is_set():
            if any("-bot-" in name for name in heavy_seat_folders()):  # a copy begins
                cancel.set()
            time.sleep(0.001)

    watcher = threading.Thread(target=cancel_once_a_seat_is_built, daemon=True)
    watcher.start()
    spec = MatchSpec(
        entrants=[BotRef.parse(str(heavy)), BotRef.parse("random")],
        variant="scopa",
        games=2,
        move_time_ms=MOVE_MS,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        cancel=cancel,
    )
    try:
        report = run_match(spec)
    finally:
        cancel.set()
        watcher.join()
    assert report.cancelled and report.games == []
    assert heavy_seat_folders() == []
    time.sleep(1.0)  # a start left going would launch its bot meanwhile
    assert live_children() == []
    assert heavy_seat_folders() == []
