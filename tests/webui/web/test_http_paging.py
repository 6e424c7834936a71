"""HTTP caching and paging by key, on PostgreSQL.

- Pages and lists answer a repeated request that names their ETag with a 304.
- A recorded game's replay and frames are immutable (a year's ``Cache-Control`` and an ETag),
  the frames computed once and kept in the shared ``frames`` cache (Redis in a deployment).
- Lists paged by cursor (a bot's and a version's games, ``/api/games``, a season's matches on
  the API and on its page) walk a list once forwards and once backwards, with no duplicate and
  no gap; a bad cursor is a 400 saying what a cursor is.
- Each paged list costs the same number of queries on a small database and on one ten times
  larger (the site bench's bulk fill).
- A deep page of each list (unfiltered) is read through an index from its cursor on: on a
  database of 20,000 games its query plans scan none of the big tables whole, read no more
  than a thousand of their rows and sort no more than a page's (a season's 780 matches are
  not sorted per request).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from webui.league.models import Game, Match, Season

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def on_postgres(postgres_available: bool) -> None:
    assert connection.vendor == "postgresql"


@pytest.fixture(autouse=True)
def no_frames_kept() -> None:
    from django.core.cache import caches

    caches["frames"].clear()


def walk(get: Callable[[str], dict[str, Any]], url: str, rows: str) -> tuple[list[int], list[int]]:
    """The ids of a cursor-paged list, walked by ``next`` to the end, then back by ``prev``."""
    joiner = "&" if "?" in url else "?"
    page = get(url)
    forwards: list[int] = []
    pages = []
    while True:
        ids = [row["id"] for row in page[rows]]
        pages.append(ids)
        forwards += ids
        if page["next"] is None:
            break
        page = get(f"{url}{joiner}after={page['next']}")
    backwards: list[int] = []
    while True:
        backwards = [row["id"] for row in page[rows]] + backwards
        if page["prev"] is None:
            break
        page = get(f"{url}{joiner}before={page['prev']}")
    assert all(pages[:-1]), "an empty page before the last"
    return forwards, backwards


def json_of(client: Any) -> Callable[[str], dict[str, Any]]:
    def get(url: str) -> dict[str, Any]:
        response = client.get(url)
        assert response.status_code == 200, (url, response.content)
        data: dict[str, Any] = response.json()
        return data

    return get


# ---------------------------------------------------------------------------------------------
# Conditional requests


@pytest.mark.parametrize(
    "url",
    [
        "/",
        "/variants/scopa/",
        "/bots/greedy/",
        "/seasons/{season}/",
        "/api/bots/greedy/games",
        "/api/games",
        "/api/seasons/{season}",
        "/api/seasons/{season}/matches",
        "/api/variants/scopa/leaderboard",
        "/games/{game}/",
    ],
)
def test_a_repeated_request_naming_the_etag_is_a_304_without_a_body(
    client: Any, played_season: Season, url: str
) -> None:
    game = Game.objects.order_by("id").first()
    assert game is not None
    url = url.format(season=played_season.pk, game=game.pk)
    first = client.get(url)
    assert first.status_code == 200
    etag = first["ETag"]
    assert etag.startswith('"') and etag.endswith('"')
    again = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    # A proxy that compressed it made it weak: still the same answer.
    assert client.get(url, HTTP_IF_NONE_MATCH=f"W/{etag}").status_code == 304
    assert client.get(url, HTTP_IF_NONE_MATCH='"something-else"').status_code == 200


def test_a_list_gets_a_new_etag_when_a_game_is_recorded(
    client: Any, played_season: Season, settings: Any
) -> None:
    from web_helpers import record_ladder_match

    from webui.league.models import BotVersion

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    before = client.get("/api/games")
    assert client.get("/api/games", HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 304
    record_ladder_match(
        list(BotVersion.objects.filter(bot__name__in=["random", "greedy"]).order_by("bot__name"))
    )
    after = client.get("/api/games", HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] != before["ETag"]
    newest = Game.objects.order_by("-id").first()
    assert newest is not None and after.json()["games"][0]["id"] == newest.pk


def test_a_games_replay_and_frames_are_immutable_and_answer_304_to_their_etag(
    client: Any, played_season: Season
) -> None:
    game = Game.objects.order_by("id").first()
    assert game is not None
    for kind in ("frames", "replay"):
        url = f"/api/games/{game.pk}/{kind}"
        first = client.get(url)
        assert first.status_code == 200
        assert first["Cache-Control"] == "public, max-age=31536000, immutable"
        assert re.fullmatch(rf'"game-{game.pk}-\d+-{kind}(-f\d+)?"', first["ETag"])
        with CaptureQueriesContext(connection) as queries:
            again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
        assert again.status_code == 304 and again.content == b""
        assert again["ETag"] == first["ETag"] and "immutable" in again["Cache-Control"]
        # At most when it was recorded, by its key (nothing when the answer is kept for
        # readers without a session); never the replay.
        assert len(queries) <= 1 and all("replay" not in q["sql"] for q in queries)
    frames = client.get(f"/api/games/{game.pk}/frames").json()
    assert frames["game"] == game.pk and frames["frames"]
    assert client.get("/api/games/999999999/frames").status_code == 404


def test_frames_are_computed_once_and_kept_in_the_shared_cache(
    client: Any, played_season: Season
) -> None:
    from django.core.cache import caches

    game = Game.objects.order_by("id").first()
    assert game is not None
    url = f"/api/games/{game.pk}/frames"
    with CaptureQueriesContext(connection) as first_queries:
        first = client.get(url)
    assert any("replay" in q["sql"] for q in first_queries)
    etag = first["ETag"].strip('"')
    assert caches["frames"].get(f"web:frames:{etag}") is not None
    with CaptureQueriesContext(connection) as queries:
        second = client.get(url)
    assert second.content == first.content
    assert len(queries) == 1 and "replay" not in queries[0]["sql"]


def test_the_frames_cache_is_the_redis_every_web_process_shares(
    client: Any, played_season: Season, private_redis: Any, settings: Any
) -> None:
    import redis

    from webui.settings import live_cache

    settings.CACHES = {
        **settings.CACHES,
        "frames": live_cache(
            private_redis.url, "", "test-", settings.DATA_DIR, "frames", timeout=60
        ),
    }
    game = Game.objects.order_by("id").first()
    assert game is not None
    first = client.get(f"/api/games/{game.pk}/frames")
    assert first.status_code == 200
    keys = redis.Redis.from_url(private_redis.url).keys("*")
    assert [k for k in keys if b"test-arena-frames" in k and b"frames" in k], keys
    # What another process finds there: the same bytes, without the replay being read.
    with CaptureQueriesContext(connection) as queries:
        second = client.get(f"/api/games/{game.pk}/frames")
    assert second.content == first.content and len(queries) == 1


# ---------------------------------------------------------------------------------------------
# Paging by key


def test_a_bots_games_and_every_game_walk_forwards_and_back_with_no_duplicate_or_gap(
    client: Any, played_season: Season
) -> None:
    get = json_of(client)
    everyone = list(Game.objects.order_by("-id").values_list("pk", flat=True))
    assert len(everyone) >= 6
    for limit in (1, 2, 4):
        forwards, backwards = walk(get, f"/api/games?limit={limit}", "games")
        assert forwards == backwards == everyone
    bot_games = [g["id"] for g in get("/api/bots/greedy/games?limit=100")["games"]]
    forwards, backwards = walk(get, "/api/bots/greedy/games?limit=2", "games")
    assert forwards == backwards == bot_games
    version = "/api/bots/greedy/versions/1/games?limit=3"
    forwards, backwards = walk(get, version, "games")
    assert forwards == backwards == bot_games


def test_a_seasons_matches_page_by_key_on_the_api_and_on_its_page(
    client: Any, played_season: Season, monkeypatch: pytest.MonkeyPatch
) -> None:
    get = json_of(client)
    season = played_season.pk
    expected = list(
        Match.objects.filter(season=played_season)
        .order_by("-round__number", "board", "id")
        .values_list("pk", flat=True)
    )
    assert len(expected) >= 3
    forwards, backwards = walk(get, f"/api/seasons/{season}/matches?limit=1", "matches")
    assert forwards == backwards == expected

    # The page: one match a page, followed by its links.
    from webui.web import match_lists

    monkeypatch.setattr(match_lists, "SEASON_PAGE", 1)
    shown: list[int] = []
    url = f"/seasons/{season}/"
    while True:
        html = client.get(url).content.decode()
        section = html[html.index('id="matches"') :]
        shown += [int(i) for i in re.findall(r'<a href="/matches/(\d+)/">', section)]
        later = re.search(r'href="\?(matches_after=[^"#]+)#matches" rel="next"', section)
        if later is None:
            break
        url = f"/seasons/{season}/?{later.group(1)}"
    assert shown == expected
    assert 'rel="prev"' in section and 'rel="first"' in section


@pytest.mark.parametrize(
    ("url", "named"),
    [
        ("/api/games?after=abc", "'after': 'abc' is not a cursor of this list"),
        ("/api/games?before=1.2", "'before': '1.2' is not a cursor of this list"),
        ("/api/games?after=1&before=2", "'after' and 'before': give one of them, not both"),
        ("/api/games?after=" + "9" * 19, "is not a cursor of this list"),
        ("/api/bots/greedy/games?after=12", "'after': '12' is not a cursor of this list"),
        ("/api/bots/greedy/games?before=1.-2", "'before': '1.-2' is not a cursor"),
        ("/api/seasons/{season}/matches?after=1.2", "'after': '1.2' is not a cursor"),
        ("/bots/greedy/?after=x.y", "'after': 'x.y' is not a cursor of this list"),
        ("/seasons/{season}/?matches_after=zz", "'matches_after': 'zz' is not a cursor"),
    ],
)
def test_a_bad_cursor_is_a_400_saying_what_a_cursor_is(
    client: Any, played_season: Season, url: str, named: str
) -> None:
    response = client.get(url.format(season=played_season.pk))
    assert response.status_code == 400
    text = (
        response.json()["error"]
        if url.startswith("/api/")
        else response.content.decode().replace("&#x27;", "'")
    )
    assert named in text
    assert "pass back a page's next or prev" in text or "not both" in text


def test_a_cursor_past_the_end_is_an_empty_page_not_an_error(
    client: Any, played_season: Season
) -> None:
    page = client.get("/api/games?after=1").json()
    assert (page["games"], page["next"]) == ([], None)


# ---------------------------------------------------------------------------------------------
# Query counts: the same on a database ten times larger


def paged_urls() -> list[str]:
    """Each paged list of the bulk-filled database, its first page and one further on."""
    get_cursor = {}
    season = Season.objects.order_by("id").values_list("pk", flat=True).first()
    game = Game.objects.order_by("id").values_list("pk", flat=True).first()
    from django.test import Client

    client = Client()
    firsts = {
        "bot": "/api/bots/bot-000/games?limit=5",
        "version": "/api/bots/bot-000/versions/1/games?limit=5",
        "games": "/api/games?limit=5",
        "season": f"/api/seasons/{season}/matches?limit=3",
    }
    for name, url in firsts.items():
        get_cursor[name] = client.get(url).json()["next"]
        assert get_cursor[name], name
    return [
        *firsts.values(),
        f"/api/bots/bot-000/games?limit=5&after={get_cursor['bot']}",
        f"/api/bots/bot-000/games?limit=5&before={get_cursor['bot']}",
        f"/api/bots/bot-000/games?limit=5&result=win&after={get_cursor['bot']}",
        f"/api/bots/bot-000/versions/1/games?limit=5&after={get_cursor['version']}",
        f"/api/games?limit=5&after={get_cursor['games']}",
        f"/api/seasons/{season}/matches?limit=3&after={get_cursor['season']}",
        f"/seasons/{season}/?matches_after={get_cursor['season']}",
        f"/bots/bot-000/?limit=5&after={get_cursor['bot']}",
        f"/api/games/{game}/frames",
        f"/api/games/{game}/replay",
    ]


def query_counts() -> dict[str, int]:
    from django.core.cache import cache, caches
    from django.test import Client

    client = Client()
    counts = {}
    for url in paged_urls():
        cache.clear()
        caches["frames"].clear()
        # The position in the list, not the numbers: the cursors differ between databases.
        name = re.sub(r"\d+(\.\d+)*", "N", url)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, (url, response.content[:300])
        counts[name] = len(queries)
    return counts


def test_each_paged_list_costs_the_same_queries_on_a_ten_times_larger_database(
    users: dict[str, Any],
) -> None:
    from webui.bench.site import fill

    sizes = {}
    counts = []
    for games in (60, 600):
        with transaction.atomic():
            fill(games, 5, lambda done: None)
            sizes[games] = Game.objects.count()
            counts.append(query_counts())
            transaction.set_rollback(True)
    assert sizes == {60: 60, 600: 600}
    small, large = counts
    assert len(small) == 14
    assert small == large


# ---------------------------------------------------------------------------------------------
# Query plans: a deep page is read through an index, from its cursor on

BIG_TABLES = {"league_game", "league_matchseat", "league_match"}
"""The tables that grow with the site's history."""


def plan_nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A plan node (EXPLAIN's JSON) and every node under it."""
    yield node
    for child in node.get("Plans", []):
        yield from plan_nodes(child)


def deep_urls() -> list[str]:
    """Far-down pages of each paged list of the bulk-filled database (the site bench's
    cursors)."""
    from webui.bench.site import deep_cursors

    season = Season.objects.order_by("id").values_list("pk", flat=True)[0]
    deep = deep_cursors(["bot-000"], season)
    bot = deep["bots"]["bot-000"]
    return [
        f"/api/bots/bot-000/games?after={bot}",
        f"/api/bots/bot-000/games?before={bot}",
        f"/api/bots/bot-000/versions/1/games?after={bot}",
        f"/api/games?after={deep['games']}",
        f"/api/seasons/{season}/matches?after={deep['season']}",
    ]


def test_a_deep_page_scans_no_big_table_whole_and_sorts_no_more_than_a_page(
    users: dict[str, Any], tokens: dict[str, str]
) -> None:
    from django.test import Client

    from webui.bench.site import fill

    # A token holder's reads are answered afresh (never from the pages kept for readers
    # without a session): their queries are what is planned here.
    client = Client(HTTP_AUTHORIZATION=tokens["other"])
    with transaction.atomic():
        fill(20_000, 40, lambda done: None)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        assert Match.objects.filter(season__isnull=False).count() == 10_000
        checked = 0
        urls = deep_urls()
        for url in urls:
            # The second request's: a season's standings are built once, then cached.
            assert client.get(url).status_code == 200, url
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            assert response.status_code == 200, (url, response.content[:300])
            for query in queries.captured_queries:
                if not query["sql"].startswith("SELECT"):
                    continue
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query["sql"])
                    plan = cursor.fetchone()[0]
                plan = json.loads(plan) if isinstance(plan, str) else plan
                for node in plan_nodes(plan[0]["Plan"]):
                    table = node.get("Relation Name")
                    assert not (node["Node Type"] == "Seq Scan" and table in BIG_TABLES), (
                        url,
                        query["sql"][:300],
                        node,
                    )
                    if table in BIG_TABLES:
                        # Rows read near the cursor (a page's matches and their neighbours'
                        # seats), not the list down to it.
                        read = (node["Actual Rows"] + node.get("Rows Removed by Filter", 0)) * node[
                            "Actual Loops"
                        ]
                        assert read <= 1000, (url, query["sql"][:300], node)
                    if node["Node Type"] == "Sort":
                        # A page's rows at most (61 matches, 21 games, their seats), never
                        # the whole list.
                        sorted_rows = sum(c["Actual Rows"] for c in node.get("Plans", []))
                        assert sorted_rows <= 130, (url, query["sql"][:300], json.dumps(plan))
                checked += 1
        transaction.set_rollback(True)
    assert checked >= 3 * len(urls)
