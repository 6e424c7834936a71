"""Every pair of sample bots plays a short match through ``arena match``, in real processes over
the real protocol, and every replay it writes passes ``arena replay verify``."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from runner_helpers import require, verify_replays

from arena.runner import BotRef, LiveMove, MatchSpec, run_match
from arena.runner.bots import SAMPLE_BOTS

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

SAMPLES = ["random", "greedy", "ismcts", "js-random"]
PAIRS = list(itertools.combinations(SAMPLES, 2))
PACED = ("random", "greedy")
"""The pair whose Scopone match is paced as every partnership match is by default (release
points: a turn answered after 5 ms waits until 80 ms): the others play ``--unpaced``, their
subject being the bots and the protocol, not the pacing (tests/hostile/test_think_time.py)."""


@pytest.mark.parametrize("variant", ["scopa", "scopone"])
@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_sample_bots_play_a_match_whose_replays_verify(
    bwrap: str, tmp_path: Path, variant: str, first: str, second: str
) -> None:
    if "js-random" in (first, second):
        require(shutil.which("node") is not None, "node")
        require((SAMPLE_BOTS / "js-random" / "node_modules").is_dir(), "js-random's packages")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "match",
            first,
            second,
            "--variant",
            variant,
            "--games",
            "2",
            "--seed",
            "7",
            "--move-time",
            "80",  # the search bot thinks for half of it
            "--json",
            "--replays",
            str(tmp_path),
            *(["--unpaced"] if variant == "scopone" and (first, second) != PACED else []),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["entrants"] == [f"{first} (1.0.0)", f"{second} (1.0.0)"]
    assert report["sandboxed"] == [True, True]
    games = report["games"]
    assert len(games) == 2
    # One duplicate set: the same decks, the entrants' seats swapped.
    assert games[0]["seed"] == games[1]["seed"]
    assert games[0]["seats"] == [1 - e for e in games[1]["seats"]]
    for game in games:
        assert game["void"] is None
        # Clock faults may happen on a busy machine; anything else is a bug.
        assert {fault["kind"] for fault in game["faults"]} <= {"timeout"}, game["faults"]
    replays = verify_replays(tmp_path)
    assert replays[0]["deals"][0]["deck"] == replays[1]["deals"][0]["deck"]
    summary = report["summary"]
    assert sum(line["wins"] + line["draws"] for line in summary) >= 2


def test_four_entrants_rotate_round_a_partnership_table(bwrap: str, tmp_path: Path) -> None:
    bots = [BotRef.parse(name) for name in ("random", "greedy", "random", "greedy")]
    report = run_match(
        MatchSpec(bots, "scopone", games=4, seed=3, replays_dir=tmp_path, pace_partners=False)
    )
    assert [game.seats for game in report.games] == [
        [0, 1, 2, 3],
        [1, 2, 3, 0],
        [2, 3, 0, 1],
        [3, 0, 1, 2],
    ]
    assert len({game.seed for game in report.games}) == 1
    for game in report.games:
        assert game.void is None and game.forfeit is None
        assert len(game.winner_entrants) == 2 and game.winner_entrant is None
    replays = verify_replays(tmp_path)
    assert len({json.dumps(replay["deals"][0]["deck"]) for replay in replays}) == 1
    # Partners share a side's result: entrants 0 and 2 always win or lose together.
    lines = report.summary()
    assert (lines[0].wins, lines[0].losses) == (lines[2].wins, lines[2].losses)
    assert sum(line.wins for line in lines) == 2 * len(report.games)


def test_three_players_each_sit_in_every_seat(bwrap: str, tmp_path: Path) -> None:
    bots = [BotRef.parse(name) for name in ("random", "greedy", "random")]
    report = run_match(MatchSpec(bots, "scopa-3", games=3, seed=4, replays_dir=tmp_path))
    assert [game.seats for game in report.games] == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    verify_replays(tmp_path)
    lines = report.summary()
    assert sum(line.wins for line in lines) == 3
    assert all(line.games == 3 for line in lines)


def test_each_move_is_told_to_a_live_view_as_it_is_played(tmp_path: Path) -> None:
    seen: list[LiveMove] = []
    spec = MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")],
        "scopa",
        games=2,
        replays_dir=tmp_path,
        on_move=seen.append,
    )
    report = run_match(spec)
    for game in report.games:
        moves = [m for deal in game.replay["deals"] for m in deal["moves"]]
        told = [live for live in seen if live.game == game.index]
        assert [live.record for live in told] == moves
        assert all(live.players == game.replay["players"] for live in told)
        for live in told:
            assert set(live.record) <= {"seat", "card", "capture", "ms", "clock", "auto"}
    assert [live.move for live in seen[:3]] == [0, 1, 2]


def test_a_live_view_that_fails_does_not_stop_the_match() -> None:
    def broken(live: LiveMove) -> None:
        raise RuntimeError("the live view is down")

    spec = MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")], "scopa", games=2, on_move=broken
    )
    report = run_match(spec)
    assert all(game.void is None and game.faults == [] for game in report.games)


def test_a_cancelled_match_stops_its_seats_and_returns_what_it_played(tmp_path: Path) -> None:
    cancel = threading.Event()

    def cancel_in_the_second_game(live: LiveMove) -> None:
        if live.game == 1 and live.move == 3:
            cancel.set()

    spec = MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")],
        "scopa",
        games=4,
        seed=5,
        replays_dir=tmp_path,
        on_move=cancel_in_the_second_game,
        cancel=cancel,
    )

    report = run_match(spec)
    assert report.cancelled
    assert len(report.games) == 1  # the second game was cut short: it is not in the report
    assert report.to_json()["cancelled"] is True
    assert [path.name for path in sorted(tmp_path.glob("game-*.json"))] == ["game-0001.json"]
    verify_replays(tmp_path)
    # Every seat's process was ended: the bots' logs were collected, as at a match's end.
    assert report.logs and all(key.count("/") == 1 for key in report.logs)


def test_a_match_whose_cancel_is_never_set_plays_to_its_end() -> None:
    spec = MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")],
        "scopa",
        games=2,
        seed=6,
        cancel=threading.Event(),
    )
    report = run_match(spec)
    assert not report.cancelled and len(report.games) == 2
    assert "cancelled" not in report.to_json()
