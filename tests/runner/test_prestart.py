"""Seats made ready ahead of their game: started whole (``MatchSpec.prestart``), or only their
sandboxes built, into which the fork server forks each bot when its game starts (the default,
``MatchSpec.prepare_ahead``). Each is still a fresh process that sees one game of a set, a
whole spare is frozen until its game, and either is ended with the match however it ends (its
end, a failure, a cancel): no process, control group or seat folder is left."""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena.runner.cgroups as cgroups
import arena.runner.sandbox as sandbox
from arena.runner import BotRef, LiveMove, MatchReport, MatchSpec
from arena.runner.match import GameOutcome, MatchRun, check_spec
from arena.runner.seats import SeatState

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

TOKEN_BOT = """
import secrets
import sys

from arena.sdk import Bot, serve

TOKEN = secrets.token_hex(8)  # this process's, drawn at its start


class TokenBot(Bot):
    name = "token"

    def choose(self, observation, legal_moves):
        return legal_moves[0]

    def on_game_start(self, game):
        print(f"TOKEN {TOKEN} GAME {game.game_id}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    serve(TokenBot())
"""


@pytest.fixture
def token_bot(tmp_path: Path) -> BotRef:
    folder = tmp_path / "token"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "token"\nversion = "1.0.0"\ncommand = ["python", "bot.py"]\nvariants = ["*"]\n'
    )
    (folder / "bot.py").write_text(TOKEN_BOT)
    return BotRef.parse(str(folder))


@pytest.fixture
def seat_folders(tmp_path: Path) -> Iterator[Path]:
    """Where the runner makes its seat folders during the test (to find any left behind)."""
    folder = tmp_path / "seats"
    folder.mkdir()
    saved = tempfile.tempdir
    tempfile.tempdir = str(folder)
    try:
        yield folder
    finally:
        tempfile.tempdir = saved


def tokens_by_game(report: MatchReport) -> dict[str, set[str]]:
    """The tokens of the processes that played each game, from the seats' logs."""
    games: dict[str, set[str]] = {}
    for log in report.logs.values():
        for token, game in re.findall(r"TOKEN (\w+) GAME (\S+)", log):
            games.setdefault(game, set()).add(token)
    return games


class Watched:
    """A match run whose seats' processes (spares included) are noted after each game."""

    def __init__(self, spec: MatchSpec, fail_after: int | None = None) -> None:
        self.match = MatchRun(spec, check_spec(spec), self.after_game)
        self.pids: set[int] = set()
        self.spares_frozen: list[bool] = []
        self.freezer_states: list[str] = []
        self.during: list[str] = []
        self.fail_after = fail_after

    def after_game(self, index: int, total: int, outcome: GameOutcome) -> None:
        for slot in self.match.slots.values():
            for process in (slot.process, slot._other):
                if process is not None and process.pid is not None:
                    self.pids.add(process.pid)
        if self.fail_after is not None and index >= self.fail_after:
            raise RuntimeError("the match failed")

    def note_spares(self, seats: Path) -> None:
        """Whether each spare started ahead is frozen (read once its start is done), and what
        of the match is there meanwhile."""
        for slot in self.match.slots.values():
            if slot.process is not None and slot.process.pid is not None:
                self.pids.add(slot.process.pid)
            spare = slot._other
            if spare is not None and spare.pid is not None:
                self.pids.add(spare.pid)
                self.spares_frozen.append(spare.frozen)
                state = spare._group.freezer_state() if spare._group is not None else "none"
                self.freezer_states.append(state)
        self.during = leftovers(self.pids, seats)

    def run(self) -> MatchReport:
        return asyncio.run(self.match.run())


def leftovers(pids: set[int], seats: Path) -> list[str]:
    """What of the match is still there: live processes, control groups, seat folders."""
    left = [f"process {pid}" for pid in sorted(pids) if Path(f"/proc/{pid}").exists()]
    found = cgroups.backend()
    if found is not None:
        marker = f"-r{os.getpid()}-"
        for parent in found.parents():
            left += [f"group {p.name}" for p in parent.iterdir() if marker in p.name]
    # (the runner's one copy of /proc's static files for its forked seats stays with it)
    left += [
        f"seat folder {path.name}"
        for path in seats.iterdir()
        if not path.name.startswith(sandbox.SHARED_PROC_PREFIX)
    ]
    return left


AHEAD = pytest.mark.parametrize("whole", [True, False], ids=["prestart", "prepared"])


@AHEAD
def test_each_game_of_a_set_is_played_by_processes_that_saw_no_other(
    bwrap: str, token_bot: BotRef, seat_folders: Path, whole: bool
) -> None:
    spec = MatchSpec(
        [token_bot, token_bot],
        "scopa",
        games=4,
        seed=3,
        move_time_ms=5000,
        prestart=whole,
        rest_seats=False,
    )
    watched = Watched(spec)
    report = watched.run()
    assert all(slot._other is not None for slot in watched.match.slots.values())  # spares
    games = tokens_by_game(report)
    assert len(games) == 4 and all(len(tokens) == 2 for tokens in games.values()), games
    ids = sorted(games)
    for first, second in (ids[0:2], ids[2:4]):  # the two duplicate sets
        assert not games[first] & games[second], (first, second)
    assert all(game.start_ms >= 0 for game in report.games)
    assert leftovers(watched.pids, seat_folders) == []


def test_processes_rest_between_sets_and_each_sees_one_game_of_a_set(
    bwrap: str, token_bot: BotRef, seat_folders: Path
) -> None:
    # Three sets of two games: after the first set no process starts; the two processes of
    # each slot take turns, each playing one game of every set, the other frozen meanwhile.
    spec = MatchSpec([token_bot, token_bot], "scopa", games=6, seed=3, move_time_ms=5000)
    watched = Watched(spec)
    resting: list[tuple[bool, str]] = []
    states: list[list[SeatState]] = []

    def note_resting(index: int, total: int, outcome: GameOutcome) -> None:
        for slot in watched.match.slots.values():
            states.append(slot.states())
            for entry in slot._resting:
                assert entry.process.pid is not None
                watched.pids.add(entry.process.pid)
                group = entry.process._group
                state = group.freezer_state() if group is not None else "none"
                resting.append((entry.process.frozen, state))

    watched.match.progress = lambda *args: (watched.after_game(*args), note_resting(*args))
    report = watched.run()
    games = tokens_by_game(report)
    ids = sorted(games)
    assert len(ids) == 6 and all(len(games[game]) == 2 for game in ids), games
    for first, second in (ids[0:2], ids[2:4], ids[4:6]):  # the three duplicate sets
        assert not games[first] & games[second], (first, second)
    tokens = set().union(*games.values())
    assert len(tokens) == 4, tokens  # two processes a slot, for the whole match
    for token in tokens:  # each plays one game of every set
        assert [sum(token in games[game] for game in ids[i : i + 2]) for i in (0, 2, 4)] == [
            1,
            1,
            1,
        ], (token, games)
    assert sum(slot.woken for slot in watched.match.slots.values()) == 4  # sets 2 and 3
    # Each slot's states, after each game: its own process playing, the one that played the
    # set's other game resting (from the second game on); at the end every slot is retired.
    assert all(noted[0] is SeatState.PLAYING for noted in states), states
    assert [noted.count(SeatState.RESTING) for noted in states[2:]] == [1] * 10, states
    assert {slot.state for slot in watched.match.slots.values()} == {SeatState.RETIRED}
    # The seeds of each game's processes (drawn at each start; by seat, which the sets swap).
    bot_seeds = [frozenset(game.replay["bot_seeds"]) for game in report.games]
    first, second = bot_seeds[0], bot_seeds[1]
    assert first != second and bot_seeds == [first, second, second, first, first, second]
    assert len(resting) == 2 * 5 and all(frozen for frozen, _ in resting), resting
    assert {state for _, state in resting} <= {"frozen", "freezing"}, resting
    assert leftovers(watched.pids, seat_folders) == []


def test_processes_reused_across_a_set_would_see_both_of_its_games(
    bwrap: str, token_bot: BotRef, seat_folders: Path
) -> None:
    # The control: what the bench's unsafe baseline does, and what the test above rules out.
    spec = MatchSpec(
        [token_bot, token_bot], "scopa", games=2, seed=3, move_time_ms=5000, fresh_per_game=False
    )
    games = tokens_by_game(Watched(spec).run())
    first, second = sorted(games)
    assert games[first] == games[second]


def test_a_spare_started_ahead_is_frozen_until_its_game(
    bwrap: str, token_bot: BotRef, seat_folders: Path
) -> None:
    spec = MatchSpec(
        [token_bot, token_bot], "scopa", games=2, seed=4, move_time_ms=5000, prestart=True
    )
    watched = Watched(spec)

    async def run() -> MatchReport:
        original = watched.match.play_game

        async def play_game(index: int, *args: object) -> GameOutcome:
            outcome = await original(index, *args)  # type: ignore[arg-type]
            if index == 0:  # the spares for the set's second game: wait for their starts
                for slot in watched.match.slots.values():
                    if slot._spare is not None and slot._other is not None:
                        slot._other.hurry()  # a seat's weight: a busy host starves a spare
                        await asyncio.shield(slot._spare)
                watched.note_spares(seat_folders)
            return outcome

        watched.match.play_game = play_game  # type: ignore[method-assign]
        return await watched.match.run()

    report = asyncio.run(run())
    assert len(report.games) == 2 and not any(game.void for game in report.games)
    assert watched.spares_frozen == [True, True], report.logs
    # freezing: asked, the kernel stopping them; none: a host without freezer (signals)
    assert set(watched.freezer_states) <= {"frozen", "freezing", "none"}
    # Mid-match the spares' processes, groups and folders are there; after it, nothing.
    assert sum(item.startswith("process") for item in watched.during) == 4
    assert sum(item.startswith("seat folder") for item in watched.during) >= 4
    assert leftovers(watched.pids, seat_folders) == []


@AHEAD
def test_spares_are_ended_when_the_match_fails(
    bwrap: str, token_bot: BotRef, seat_folders: Path, whole: bool
) -> None:
    spec = MatchSpec(
        [token_bot, token_bot], "scopa", games=4, seed=5, move_time_ms=5000, prestart=whole
    )
    watched = Watched(spec, fail_after=0)  # fails after the first game: spares are starting
    with pytest.raises(RuntimeError, match="the match failed"):
        watched.run()
    assert len(watched.pids) == 4  # two seats and their two spares
    assert leftovers(watched.pids, seat_folders) == []


@AHEAD
def test_spares_are_ended_when_the_match_is_cancelled(
    bwrap: str, token_bot: BotRef, seat_folders: Path, whole: bool
) -> None:
    cancel = threading.Event()
    box: list[Watched] = []

    def cancel_once_the_spares_start(live: LiveMove) -> None:
        match = box[0].match
        spares = [slot._other for slot in match.slots.values() if slot._other is not None]
        started = {p.pid for p in spares if p.pid is not None}
        box[0].pids.update(started)
        if len(started) == 2:  # the spares of the set's next game are starting, or listen
            cancel.set()

    spec = MatchSpec(
        [token_bot, token_bot],
        "scopa",
        games=4,
        seed=6,
        move_time_ms=5000,
        prestart=whole,
        cancel=cancel,
        on_move=cancel_once_the_spares_start,
    )
    watched = Watched(spec)
    box.append(watched)
    report = watched.run()
    assert report.cancelled and len(report.games) in (0, 2)  # in a set's first game
    assert len(watched.pids) == 2  # the spares were started before the cancel
    for slot in watched.match.slots.values():
        assert slot._spare is None and (slot._other is None or slot._other.pid is None)
    assert leftovers(watched.pids, seat_folders) == []
