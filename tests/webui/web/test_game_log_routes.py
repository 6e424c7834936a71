"""A bot's own log of each game: played by the real runner (a bot that says at each turn which
turn it is), recorded by ``record_result``, read back per game and per turn by its owner (and
staff), and by nobody else, not even as a thing that exists."""

from __future__ import annotations

from typing import Any

import pytest
from talker_match import play_and_record, talker_seat

from arena.runner.gamelogs import GAME_LOG_BYTES


def test_each_game_keeps_each_seat_s_lines_turn_by_turn(users: dict[str, Any]) -> None:
    from webui.league.models import GameLog

    match = play_and_record(users["owner"], users["staff"])
    games = list(match.games.order_by("index"))
    assert len(games) == 2
    for game in games:
        seat = talker_seat(game)
        log = GameLog.objects.get(game=game, seat=seat)
        assert log.version.bot.name == "talker"
        assert log.cut == 0
        # Each of the talker's turns holds exactly the line it wrote at that turn: its seat,
        # the deal, and its own count of turns in that deal (the replay says which moves
        # were its).
        marks = [m for m in log.turns if m[2] == seat]
        assert len(marks) == sum(
            1 for deal in game.replay["deals"] for m in deal["moves"] if m["seat"] == seat
        )
        count: dict[int, int] = {}
        for i, (deal, move, _, start) in enumerate(log.turns):
            end = log.turns[i + 1][3] if i + 1 < len(log.turns) else len(log.text)
            turn = count.get(deal, 0)
            count[deal] = turn + 1
            assert game.replay["deals"][deal]["moves"][move]["seat"] == seat
            lines = [line for line in log.text[start:end].splitlines() if "talker: seat" in line]
            assert lines == [f"talker: seat {seat} deal {deal} turn {turn}"]
        # The random bot's log is its own row, and neither is in the public replay.
        assert GameLog.objects.filter(game=game).count() == 2
        assert "talker:" not in str(game.replay)


def test_the_owner_reads_its_seat_s_log_by_turn_and_downloads_it(
    client: Any, users: dict[str, Any]
) -> None:
    match = play_and_record(users["owner"], users["staff"])
    game = match.games.order_by("index").first()
    seat = talker_seat(game)
    client.force_login(users["owner"])
    body = client.get(f"/api/games/{game.pk}/logs").json()
    assert [log["seat"] for log in body["logs"]] == [seat]  # its own bot's seat only
    log = body["logs"][0]
    assert log["bot"].startswith("talker@")
    first = log["turns"][0]
    assert (first["deal"], first["seat"]) == (0, seat)
    assert f"talker: seat {seat} deal 0 turn 0" in log["text"][first["start"] : first["end"]]
    second = log["turns"][1]
    assert log["text"][second["start"] : second["end"]].strip() == (
        f"talker: seat {seat} deal 0 turn 1"
    )
    text = client.get(f"/api/games/{game.pk}/logs/text")
    assert text.status_code == 200
    assert text["Content-Type"].startswith("text/plain")
    assert f"seat {seat}: talker@" in text.content.decode()
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Your bot's log" in page and f"/api/games/{game.pk}/logs" in page


def test_staff_reads_every_seat_s_log(client: Any, users: dict[str, Any]) -> None:
    match = play_and_record(users["owner"], users["staff"])
    game = match.games.order_by("index").first()
    client.force_login(users["staff"])
    body = client.get(f"/api/games/{game.pk}/logs").json()
    assert sorted(log["seat"] for log in body["logs"]) == [0, 1]


@pytest.mark.parametrize("who", ["other", None])
def test_it_hides_the_logs_from_anyone_else(
    client: Any, users: dict[str, Any], who: str | None
) -> None:
    match = play_and_record(users["owner"], users["staff"])
    game = match.games.order_by("index").first()
    if who is not None:
        client.force_login(users[who])
    for path in (f"/api/games/{game.pk}/logs", f"/api/games/{game.pk}/logs/text"):
        answer = client.get(path)
        assert answer.status_code == 404
        assert answer.json() == {"error": f"nothing at {path}"}  # as for no game at all
    missing = client.get("/api/games/999999/logs")
    assert missing.status_code == 404
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert "Your bot's log" not in page and "/logs" not in page


def test_a_game_s_log_is_cut_at_its_cap_with_a_note(users: dict[str, Any]) -> None:
    from webui.league.models import GameLog

    match = play_and_record(users["owner"], users["staff"], talker="talker-loud")
    game = match.games.order_by("index").first()
    log = GameLog.objects.get(game=game, seat=talker_seat(game))
    assert log.cut > 0
    note = f"(the log keeps {GAME_LOG_BYTES:,} a seat a game)"
    assert log.text.endswith(note + "\n")
    assert f"[arena] {log.cut:,} more characters" in log.text
    assert len(log.text) <= GAME_LOG_BYTES + len(note) + 80
    # The turns before the cut keep their lines; the later ones point at the note.
    assert "talker: seat" in log.text[log.turns[0][3] : log.turns[1][3]]
    assert log.turns[-1][3] <= len(log.text)
