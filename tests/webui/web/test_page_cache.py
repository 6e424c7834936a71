"""Whole pages kept for readers without a session (:mod:`webui.web.page_cache`), on Redis:
a crowd's repeated reads cost two queries, a logged-in reader always gets a page of their own
that no one else is served, made-up query parameters are never kept, and every write that
changes a kept page (a result, a description, a validation, a ladder choice) shows at once."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from web_helpers import record_ladder_match

from webui.league import ladder, read_models, variants, versions
from webui.league.models import Bot, BotVersion, LadderEntry

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reads_on_redis")]


@pytest.fixture
def ladder_pair(ready_versions: list[Any], settings: Any) -> list[Any]:
    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    for version in ready_versions:
        ladder.enter_version(version)
    record_ladder_match(ready_versions)
    read_models.recompute_reads()
    # A pool with no rating yet has no version (its page is drawn each time): give the
    # solo leaderboard one, as its first rated game would.
    read_models.bump([read_models.board_scope(variants.get_variant("scopa").pk, "solo")])
    return ready_versions


def queries_of(client: Any, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries), response.content.decode()


@pytest.mark.parametrize(
    "url", ["/", "/variants/scopa/", "/ladder/scopa/", "/bots/greedy/", "/bots/greedy/?result=win"]
)
def test_a_reader_without_a_session_is_served_the_kept_page(
    client: Any, ladder_pair: list[Any], url: str
) -> None:
    kept, drawn = read_twice(client, url)
    assert kept <= 4 < drawn, (kept, drawn)


def read_twice(client: Any, url: str) -> tuple[int, int]:
    """Reads ``url`` twice, asserts the second answer is the first; the queries of the second
    read (the kept answer) and of the first (drawn)."""
    drawn, first = queries_of(client, url)
    kept, again = queries_of(client, url)
    assert again == first
    return kept, drawn


def test_a_game_page_is_kept(client: Any, ladder_pair: list[Any]) -> None:
    from webui.league.models import Game

    game = Game.objects.order_by("id").first()
    assert game is not None
    drawn, first = queries_of(client, f"/games/{game.pk}/")
    kept, again = queries_of(client, f"/games/{game.pk}/")
    assert again == first and kept == 0 < drawn


def test_made_up_query_parameters_are_drawn_and_never_kept(
    client: Any, ladder_pair: list[Any]
) -> None:
    client.get("/bots/greedy/?utm=1")  # the reads within the page are cached
    first, _ = queries_of(client, "/bots/greedy/?utm=1")
    second, _ = queries_of(client, "/bots/greedy/?utm=1")
    assert first == second > 4


def test_a_logged_in_owner_gets_their_own_page_and_readers_never_see_it(
    client: Any, users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from django.test import Client

    with django_capture_on_commit_callbacks(execute=True):
        Bot.objects.filter(name="my-bot").update(description="first words")
        read_models.bot_changed(Bot.objects.filter(name="my-bot").values_list("pk", flat=True))
    public = client.get("/bots/my-bot/").content.decode()
    assert "first words" in public and "csrfmiddlewaretoken" not in public
    owner = Client()
    owner.force_login(users["owner"])
    own = owner.get("/bots/my-bot/").content.decode()
    assert "csrfmiddlewaretoken" in own and "Save" in own
    # The owner's page was drawn for the owner alone: the public copy is unchanged.
    assert client.get("/bots/my-bot/").content.decode() == public


def test_a_description_edit_shows_at_once(
    client: Any, users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        Bot.objects.filter(name="my-bot").update(description="old words")
        read_models.bot_changed(Bot.objects.filter(name="my-bot").values_list("pk", flat=True))
    assert "old words" in client.get("/bots/my-bot/").content.decode()
    from django.test import Client

    owner = Client()
    owner.force_login(users["owner"])
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post("/bots/my-bot/edit/", {"description": "new words"})
    assert response.status_code in (200, 302)
    page = client.get("/bots/my-bot/").content.decode()
    assert "new words" in page and "old words" not in page


def test_a_validation_result_shows_at_once(
    client: Any, users: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    from pathlib import Path

    samples = Path(__file__).resolve().parents[3] / "sample_bots"
    with django_capture_on_commit_callbacks(execute=True):
        version = versions.register_folder_bot(users["staff"], samples / "random", validate=False)
        BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.VALIDATING)
        read_models.bot_changed([version.bot_id])
    before = client.get("/bots/random/").content.decode()
    assert "validating" in before
    with django_capture_on_commit_callbacks(execute=True):
        assert versions.finish_validation(version.pk, ok=False, reason="no answer in time")
    after = client.get("/bots/random/").content.decode()
    assert "no answer in time" in after and after != before


def test_a_ladder_choice_shows_at_once(
    client: Any, ladder_pair: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    bot = Bot.objects.get(name="greedy")
    before = client.get("/ladder/scopa/").content.decode()
    assert client.get("/ladder/scopa/").content.decode() == before  # kept
    with django_capture_on_commit_callbacks(execute=True):
        ladder.choose(bot.owner, bot, status=LadderEntry.Status.PAUSED)
    after = client.get("/ladder/scopa/").content.decode()
    assert "2 bots active" in before and "1 bot active" in after


@pytest.mark.parametrize(
    "url",
    [
        "/api/bots/greedy",
        "/api/ladder/scopa",
        "/api/variants/scopa/leaderboard",
        "/api/games?limit=5",
        "/api/bots/greedy/games?result=win",
    ],
)
def test_an_api_read_without_a_token_is_served_the_kept_answer(
    client: Any, ladder_pair: list[Any], url: str
) -> None:
    kept, drawn = read_twice(client, url)
    assert kept < drawn and kept <= 4, (kept, drawn)


def test_an_api_read_with_a_token_is_answered_afresh(
    client: Any, ladder_pair: list[Any], tokens: dict[str, str]
) -> None:
    client.get("/api/bots/greedy")  # kept for readers without a token
    first, _ = queries_of(client.__class__(HTTP_AUTHORIZATION=tokens["staff"]), "/api/bots/greedy")
    second, _ = queries_of(client.__class__(HTTP_AUTHORIZATION=tokens["staff"]), "/api/bots/greedy")
    assert first == second > 4


def test_a_kept_replay_download_keeps_its_headers_and_answers_its_etag(
    client: Any, ladder_pair: list[Any]
) -> None:
    from webui.league.models import Game

    game = Game.objects.order_by("id").first()
    assert game is not None
    url = f"/api/games/{game.pk}/replay"
    drawn = client.get(url)
    with CaptureQueriesContext(connection) as queries:
        kept = client.get(url)
    assert len(queries) == 0 and kept.content == drawn.content
    for header in ("Content-Type", "Content-Disposition", "ETag", "Cache-Control"):
        assert kept[header] == drawn[header], header
    assert "immutable" in kept["Cache-Control"]
    assert client.get(url, HTTP_IF_NONE_MATCH=kept["ETag"]).status_code == 304


def test_a_seasons_live_progress_shows_a_recorded_result_at_once(
    client: Any, ready_versions: list[Any]
) -> None:
    from test_read_models import record_next_season_match, started_season

    season = started_season("Live", ready_versions)
    before = client.get(f"/api/seasons/{season.pk}/live").json()
    assert client.get(f"/api/seasons/{season.pk}/live").json() == before
    assert record_next_season_match(season) is not None
    after = client.get(f"/api/seasons/{season.pk}/live").json()
    assert after != before
