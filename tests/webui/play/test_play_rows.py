"""The Play page's rules that need no worker: who may see what, and a game whose worker died."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.services


def make_game(person: Any) -> Any:
    from webui.league import variants
    from webui.league.models import BotVersion
    from webui.play.models import PlayGame

    return PlayGame.objects.create(
        user=person,
        version=BotVersion.objects.get(bot__name="random"),
        variant=variants.get_variant("scopa"),
        move_time_ms=1000,
        bank_ms=10_000,
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
        status=PlayGame.Status.PLAYING,
        awaiting=True,
        turn=3,
        started=timezone.now() - datetime.timedelta(minutes=10),
    )
    client.force_login(person)
    state = client.get(f"/play/{game.pk}/state").json()
    assert state["status"] == "void" and "stopped before its end" in state["error"]
    refused = client.post(
        f"/play/{game.pk}/move", {"turn": 3, "move": "1d"}, content_type="application/json"
    )
    assert refused.status_code == 409 and "the game is over" in refused.json()["error"]


def test_a_persons_fourth_game_is_refused_until_one_ends(
    person: Any, client: Any, settings: Any
) -> None:
    from webui.league.models import Variant
    from webui.play.models import PlayGame

    settings.ARENA_PLAY_GAMES_PER_USER = 3
    client.force_login(person)
    for _ in range(3):
        assert client.post("/play/", {"variant": "scopa", "bot": "random"}).status_code == 302
    variants = Variant.objects.count()
    refused = client.post("/play/", {"variant": "scopa-veneta", "bot": "random"})
    assert refused.status_code == 429
    assert "3 games waiting or under way, the most a person may have at once (3)" in (
        refused.content.decode().replace("&#x27;", "'")
    )
    assert PlayGame.objects.filter(user=person).count() == 3
    assert Variant.objects.count() == variants  # a refused game stores no variant either
    # Another person is not held back; and a resigned game frees a place.
    from django.contrib.auth.models import User

    other = User.objects.create_user("bob")
    from webui.play import games

    games.start_game(other, "random", "scopa")
    first = PlayGame.objects.filter(user=person).order_by("pk").first()
    assert first is not None
    resigned = client.post(f"/play/{first.pk}/resign", HTTP_ACCEPT="application/json")
    assert resigned.status_code == 200, resigned.content
    assert resigned.json()["state"]["status"] == "void"
    assert "resigned before a worker started" in resigned.json()["state"]["error"]
    again = client.post(f"/play/{first.pk}/resign", HTTP_ACCEPT="application/json")
    assert again.status_code == 409 and "the game is over" in again.json()["error"]
    assert client.post("/play/", {"variant": "scopa", "bot": "random"}).status_code == 302
    assert PlayGame.objects.filter(user=person, status__in=PlayGame.OPEN).count() == 3


def test_the_sweep_sends_lost_games_again_and_ends_those_that_cannot_be_played(
    person: Any,
    settings: Any,
) -> None:
    from django.utils import timezone

    from webui.play import games
    from webui.play.models import PlayGame

    settings.ARENA_PLAY_START_TIMEOUT_S = 300
    settings.ARENA_PLAY_ABANDON_S = 30
    now = timezone.now()
    ago = lambda s: now - datetime.timedelta(seconds=s)  # noqa: E731
    lost = make_game(person)  # its message went with a broker restart
    PlayGame.objects.filter(pk=lost.pk).update(created=ago(40), enqueued_at=ago(40), seen=now)
    fresh = make_game(person)  # sent a moment ago: left alone
    PlayGame.objects.filter(pk=fresh.pk).update(created=ago(5), enqueued_at=ago(5), seen=now)
    old = make_game(person)
    PlayGame.objects.filter(pk=old.pk).update(created=ago(301), enqueued_at=ago(10), seen=now)
    closed = make_game(person)
    PlayGame.objects.filter(pk=closed.pk).update(created=ago(60), enqueued_at=ago(60), seen=ago(31))
    orphan = make_game(person)  # under way, but its worker stopped checking in
    PlayGame.objects.filter(pk=orphan.pk).update(
        status="playing", started=ago(200), worker_seen=ago(61), seen=now
    )
    alive = make_game(person)
    PlayGame.objects.filter(pk=alive.pk).update(
        status="playing", started=ago(200), worker_seen=ago(3), seen=now
    )

    assert games.sweep(now=now, waiting=1) == 3  # messages wait in the queue: none sent again
    assert games.sweep(now=now, waiting=0) == 1  # the lost one is sent again, once
    assert games.sweep(now=now, waiting=0) == 0
    rows = {g.pk: g for g in PlayGame.objects.all()}
    assert rows[lost.pk].status == "queued" and rows[lost.pk].enqueued_at == now
    assert rows[fresh.pk].status == "queued" and rows[fresh.pk].enqueued_at == ago(5)
    assert rows[old.pk].status == "void"
    assert "no worker started the game within 5 minutes" in rows[old.pk].error
    assert rows[closed.pk].status == "void"
    assert "the page was closed before a worker started the game" in rows[closed.pk].error
    assert rows[orphan.pk].status == "void" and "stopped before its end" in rows[orphan.pk].error
    assert rows[alive.pk].status == "playing"
