"""The game featured live (``/api/tv``, ``/tv/``, the home page's card): a match being played,
kept while it is played when a TV names it, the next one once it ends, none when nothing
plays; bad input refused (PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from live_moves import publish

from webui.league import matches, variants
from webui.league.live import LivePublisher
from webui.league.models import Match
from webui.web.sampledata import match_report

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reads_on_redis")]


CLAIMS: dict[int, matches.Claim] = {}


def start(versions: list[Any]) -> Match:
    """A ladder match claimed by a worker, with its first moves published."""
    match = matches.create_open_match(
        Match.Kind.LADDER, variants.get_variant("scopa"), versions, games=2, rated=True
    )
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    CLAIMS[match.pk] = claim
    publish(LivePublisher(match.pk, 2, [v.label for v in versions]), 5)
    return match


def record(match: Match) -> None:
    """Its result recorded by the worker that claimed it."""
    assert matches.record_result(CLAIMS.pop(match.pk), match_report(match))


def test_nothing_playing_is_said_plainly(client: Any) -> None:
    tv = client.get("/api/tv").json()
    assert tv["match"] is None and tv["playing"] == 0 and tv["live"] is None
    page = client.get("/tv/").content.decode()
    assert "No game is being played right now" in page
    home = client.get("/").content.decode()
    assert "Now playing" in home and "No game is being played right now" in home


def test_the_newest_game_is_featured_kept_while_played_and_the_next_follows(
    client: Any, ready_versions: list[Any]
) -> None:
    older = start(ready_versions)
    newer = start(list(reversed(ready_versions)))
    tv = client.get("/api/tv").json()
    assert tv["match"] == newer.pk and tv["playing"] == 2
    assert tv["kind"] == "ladder" and tv["entrants"] == ["greedy@1", "random@1"]
    live = tv["live"]
    assert live["status"] == "running" and live["current"]["moves"], live
    assert len(live["current"]["moves"]) == 5
    # A TV showing the older one keeps it while it is played.
    assert client.get(f"/api/tv?match={older.pk}").json()["match"] == older.pk
    # It ends: the same TV is handed the one still played.
    record(older)
    assert client.get(f"/api/tv?match={older.pk}").json()["match"] == newer.pk
    page = client.get("/").content.decode()
    assert f'href="/matches/{newer.pk}/"' in page and "greedy@1 v random@1" in page
    record(newer)
    assert client.get(f"/api/tv?match={newer.pk}").json()["match"] is None


@pytest.mark.parametrize("bad", ["abc", "-1", "1" * 20, "1.5"])
def test_a_bad_match_is_refused(client: Any, bad: str) -> None:
    response = client.get(f"/api/tv?match={bad}")
    assert response.status_code == 400
    assert "a match id" in response.json()["error"]


def test_an_unknown_query_parameter_is_refused(client: Any) -> None:
    response = client.get("/api/tv?channel=2")
    assert response.status_code == 400
