"""The Play page's rules that need no worker: who may see what, and a game whose worker died."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.services


def make_game(person: Any) -> Any:
    from webui.league import services
    from webui.league.models import BotVersion
    from webui.play.models import PlayGame

    return PlayGame.objects.create(
        user=person, version=BotVersion.objects.get(bot__name="random"),
        variant=services.get_variant("scopa"), move_time_ms=1000, bank_ms=10_000,
    )


def test_pages_and_state_are_the_players_own(person: Any, client: Any) -> None:
    from django.contrib.auth.models import User

    game = make_game(person)
    assert client.get("/play/").status_code == 302  # log in first
    assert client.get(f"/play/{game.pk}/state").status_code == 403
    client.force_login(User.objects.create_user("bob"))
    assert client.get(f"/play/{game.pk}/").status_code == 404
    assert client.get(f"/play/{game.pk}/state").status_code == 404
    assert client.get(f"/play/{game.pk}/replay/").status_code == 404  # not over: no replay
    client.force_login(person)
    page = client.get("/play/")
    assert page.status_code == 200 and b"random@1" in page.content
    state = client.get(f"/play/{game.pk}/state").json()
    assert state["status"] == "queued" and state["your_turn"] is False and state["legal"] == []


def test_a_game_that_outlived_its_clocks_is_void(person: Any, client: Any) -> None:
    from django.utils import timezone

    from webui.play.models import PlayGame

    game = make_game(person)
    PlayGame.objects.filter(pk=game.pk).update(
        status=PlayGame.Status.PLAYING, awaiting=True, turn=3,
        started=timezone.now() - datetime.timedelta(minutes=10),
    )
    client.force_login(person)
    state = client.get(f"/play/{game.pk}/state").json()
    assert state["status"] == "void" and "stopped before its end" in state["error"]
    refused = client.post(f"/play/{game.pk}/move", {"turn": 3, "move": "1d"},
                          content_type="application/json")
    assert refused.status_code == 409 and "the game is over" in refused.json()["error"]
