"""The Play page's JSON, through a real Play worker: bad moves are refused and change nothing,
a good one is taken once, the person sees only their seat's view, and a move not made in its
time forfeits the game and leaves no bot process behind."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from live_workers import Live
from play_helpers import bot_processes, wait_state

pytestmark = [pytest.mark.services, pytest.mark.slow]

VIEW_KEYS = {
    "seat",
    "players",
    "deal",
    "dealer",
    "hand",
    "table",
    "hand_sizes",
    "stock",
    "captured",
    "scope",
    "totals",
    "moves",
    "last_deal",
    "deals",
    "result",
}


def post_move(client: Any, game_id: int, body: Any) -> Any:
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(f"/play/{game_id}/move", data=data, content_type="application/json")


def start(client: Any, seat: str = "first") -> int:
    response = client.post("/play/", {"variant": "scopa", "bot": "random", "seat": seat})
    assert response.status_code == 302, response.content
    match = re.fullmatch(r"/play/(\d+)/", response["Location"])
    assert match, response["Location"]
    return int(match.group(1))


def seen_at(state: dict[str, Any]) -> tuple[list[str], list[str]]:
    return sorted(state["view"]["hand"]), sorted(state["view"]["table"])


def next_turn_or_end(turn: int) -> Callable[[dict[str, Any]], bool]:
    return lambda s: (s["your_turn"] and s["turn"] > turn) or s["status"] != "playing"


def unchanged(game_id: int, turn: int) -> None:
    from webui.play.models import PlayGame, PlayMove

    game = PlayGame.objects.get(pk=game_id)
    assert (game.turn, game.awaiting) == (turn, True)
    assert not PlayMove.objects.filter(game=game).exists()


def test_bad_moves_are_refused_and_a_good_one_is_taken_once(
    play_workers: Live,
    person: Any,
    client: Any,
    settings: Any,
    bwrap: str,
) -> None:
    from django.contrib.auth.models import User
    from django.test import Client

    from webui.play.models import PlayGame, PlayMove

    settings.ARENA_PLAY_MOVE_TIME_MS = 30_000
    settings.ARENA_PLAY_BANK_MS = 120_000
    client.force_login(person)
    for form, field in [
        ({"variant": "nosuch", "bot": "random"}, "variant"),
        ({"variant": "scopa", "bot": "nosuch"}, "bot"),
        ({"variant": "scopone", "bot": "random"}, "variant"),
    ]:
        refused = client.post("/play/", {**form, "seat": "first"})
        assert refused.status_code == 400
        assert repr(form[field]) in html.unescape(refused.content.decode())
    assert not PlayGame.objects.exists()

    game_id = start(client)
    play_workers.workers(play=True)
    state = wait_state(
        client, game_id, lambda s: s["your_turn"], "the person's turn", play_workers.logs
    )
    assert set(state["view"]) == VIEW_KEYS  # the person's view, and nothing else
    assert "deck" not in json.dumps(state)
    assert len(state["view"]["hand"]) == 3 == state["view"]["hand_sizes"][0]
    assert bot_processes(play_workers), "the bot plays in a process of the worker"
    assert bot_processes(play_workers, "bwrap"), "the bot's seat is sandboxed"
    turn = state["turn"]
    legal = state["legal"]
    hand = state["view"]["hand"]
    seen = [seen_at(state)]
    other = next(
        f"{rank}{suit}" for rank in range(1, 11) for suit in "dcbs" if f"{rank}{suit}" not in hand
    )

    cases = [
        ("not json", 400, "not JSON"),
        ([1, 2], 400, "JSON object"),
        ({"turn": turn}, 400, "missing field 'move'"),
        ({"turn": turn, "move": legal[0], "extra": 1}, 400, "unknown field 'extra'"),
        ({"turn": "1", "move": legal[0]}, 400, "'turn' must be an integer"),
        ({"turn": turn, "move": 7}, 400, "'move' must be a move"),
        ({"turn": turn, "move": "zz"}, 400, "not a move: 'zz'"),
        ({"turn": turn, "move": other}, 400, "is not a legal move now"),
        ({"turn": turn + 1, "move": legal[0]}, 409, "it is not your turn"),
    ]
    for body, status, message in cases:
        response = post_move(client, game_id, body)
        assert response.status_code == status, (body, response.content)
        assert message in response.json()["error"], (body, response.json())
        if status == 400 and isinstance(body, dict) and "move" in body:
            assert response.json().get("field") in {"move", "turn", "extra"}
        unchanged(game_id, turn)

    stranger = Client()
    stranger.force_login(User.objects.create_user("bob", password="bob-pass-123"))
    assert post_move(stranger, game_id, {"turn": turn, "move": legal[0]}).status_code == 404
    assert stranger.get(f"/play/{game_id}/state").status_code == 404
    assert post_move(Client(), game_id, {"turn": turn, "move": legal[0]}).status_code == 403
    unchanged(game_id, turn)

    accepted = post_move(client, game_id, {"turn": turn, "move": legal[0]})
    assert accepted.status_code == 200, accepted.content
    assert accepted.json()["state"]["your_turn"] is False
    again = post_move(client, game_id, {"turn": turn, "move": legal[0]})
    assert again.status_code == 409 and "not your turn" in again.json()["error"]
    assert list(PlayMove.objects.filter(game_id=game_id).values_list("turn", "move")) == [
        (turn, legal[0])
    ]

    # Play it out (the first legal move each turn), then a move after the end is refused.
    while True:
        state = wait_state(
            client, game_id, next_turn_or_end(turn), "a next turn or the end", play_workers.logs
        )
        if state["status"] != "playing":
            break
        turn = state["turn"]
        seen.append(seen_at(state))
        response = post_move(client, game_id, {"turn": turn, "move": state["legal"][0]})
        assert response.status_code == 200, response.content
    assert state["status"] == "over" and state["forfeit"] is None, state
    assert state["replay_url"] == f"/play/{game_id}/replay/"
    late = post_move(client, game_id, {"turn": turn, "move": "1d"})
    assert late.status_code == 409 and "the game is over" in late.json()["error"]

    game = PlayGame.objects.get(pk=game_id)
    moves = PlayMove.objects.filter(game=game).count()
    assert moves == turn  # every turn of the person's was played from the page, once each
    replay = game.replay
    assert replay["players"] == ["ada (human)", "random@1"]
    played = [m for deal in replay["deals"] for m in deal["moves"] if m["seat"] == 0]
    assert len(played) == moves and not any(m.get("auto") for m in played)
    assert game.totals == replay["result"]["totals"]
    page = Client().get(f"/play/{game_id}/replay/")
    assert page.status_code == 200 and b"ada (human) v random@1" in page.content
    frames = Client().get(f"/play/{game_id}/frames").json()
    assert len(frames["frames"]) > moves
    # At each of their turns the person saw their own hand and the table, as they were.
    truth = [
        (sorted(f["hands"][0]), sorted(f["table"]))
        for f in frames["frames"]
        if f["to_move"] == 0 and f["score"] is None
    ]
    assert seen == truth
    assert not bot_processes(play_workers), "the bot's process is reaped"


def test_a_move_not_made_in_its_time_forfeits_the_game_and_leaves_no_bot_process(
    play_workers: Live,
    person: Any,
    client: Any,
    settings: Any,
) -> None:
    from webui.league.models import Game
    from webui.play.models import PlayGame

    settings.ARENA_PLAY_MOVE_TIME_MS = 1500
    settings.ARENA_PLAY_BANK_MS = 20_000
    client.force_login(person)
    game_id = start(client, seat="second")
    play_workers.workers(play=True)
    state = wait_state(
        client, game_id, lambda s: s["your_turn"], "the person's turn", play_workers.logs
    )
    assert bot_processes(play_workers)
    # The page stays open (it polls) but nobody moves: the move's clock runs out.
    state = wait_state(
        client, game_id, lambda s: s["status"] != "playing", "the end", play_workers.logs
    )
    assert state["status"] == "over" and state["outcome"] == "you lost", state
    assert state["forfeit"] == {"side": 1, "reason": "abandoned: no move in the move's time"}
    game = PlayGame.objects.get(pk=game_id)
    assert game.replay["result"]["forfeit"] == state["forfeit"]
    assert not bot_processes(play_workers), "the bot's process is reaped"
    assert not Game.objects.exists()  # unrated: no league game, no rating
