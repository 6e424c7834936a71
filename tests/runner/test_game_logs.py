"""Each game of a match keeps what each seat's bot wrote during it, turn by turn, bounded: in
the report (``GameOutcome.logs``, ``to_json(logs=True)``), never in the replay."""

from __future__ import annotations

from pathlib import Path

from runner_helpers import BOTS

from arena.runner import BotRef, MatchSpec, run_match
from arena.runner.gamelogs import GameLogCapture, turn_text


def test_each_game_files_each_line_under_the_turn_it_was_written_in(tmp_path: Path) -> None:
    spec = MatchSpec(
        [BotRef.parse(str(BOTS / "talker")), BotRef.parse("random")],
        "scopa",
        games=2,
        seed=7,
        move_time_ms=5_000,
    )
    report = run_match(spec)
    for game in report.games:
        seat = game.seats.index(0)
        log = game.logs["0/0"]
        assert log["seats"] == [seat] and log["cut"] == 0
        moves = [
            (d, m)
            for d, deal in enumerate(game.replay["deals"])
            for m, move in enumerate(deal["moves"])
            if move["seat"] == seat
        ]
        assert [(d, m) for d, m, _, _ in log["turns"]] == moves
        turns: dict[int, int] = {}
        for deal, move in moves:
            turn = turns.get(deal, 0)
            turns[deal] = turn + 1
            text = turn_text(log, deal, move)
            assert text is not None
            said = [line for line in text.splitlines() if "talker: seat" in line]
            assert said == [f"talker: seat {seat} deal {deal} turn {turn}"]
        assert "talker:" not in str(game.replay)  # never in the public record
    entry = report.to_json(replays=True, logs=True)["games"][0]
    assert entry["logs"]["0/0"] == report.games[0].logs["0/0"]
    assert "logs" not in report.to_json(replays=True)["games"][0]


def test_a_game_log_stops_at_its_cap_and_says_how_much_it_left_out() -> None:
    capture = GameLogCapture([1], limit=30)
    capture.mark(0, 0, 1)
    capture.add("first line\n")
    capture.add("\x1b[31mred\n")  # a terminal command is kept as text
    capture.mark(0, 2, 1)
    capture.add("this one is over the cap\n")
    log = capture.to_json()
    assert log["text"].startswith("first line\n\\x1b[31mred\n")
    assert log["cut"] == len("this one is over the cap\n")
    assert log["text"].endswith(
        "[arena] 25 more characters of this game's output left out "
        "(the log keeps 30 a seat a game)\n"
    )
    assert turn_text(log, 0, 0) == "first line\n\\x1b[31mred\n"
    assert turn_text(log, 0, 1) is None
