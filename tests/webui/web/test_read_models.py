"""The site's read models and its shared cache of reads (Redis): a result recorded as a worker
records it shows at once on every page and API answer it changes, pages cost the same number
of queries on a database ten times larger, and ``recompute-reads`` finds and puts right a
damaged read model."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from web_helpers import record_ladder_match

from webui.league import matches, ratings, read_models, seasons, variants
from webui.league.models import Bot, Game, HeadToHead, Match, Rating, Season

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reads_on_redis")]


@pytest.fixture
def ladder_pair(ready_versions: list[Any], settings: Any) -> list[Any]:
    """The random and greedy sample bots on the scopa ladder."""
    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    return ready_versions


def started_season(name: str, entrants: list[Any], seed: int = 3) -> Season:
    """A scopa round-robin of ``entrants``, two games a pairing, started."""
    season = seasons.create_season(
        name=name,
        variant=variants.get_variant("scopa"),
        entrants=entrants,
        games_per_pairing=2,
        seed=seed,
    )
    seasons.start_season(season)
    return season


def record_next_season_match(season: Season) -> Match | None:
    """The season's next scheduled match, recorded as a worker does, and what follows it."""
    from webui.web.sampledata import match_report

    match = (
        Match.objects.filter(season=season, status=Match.Status.SCHEDULED).order_by("id").first()
    )
    if match is None:
        return None
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    assert matches.record_result(claim, match_report(match))
    ratings.update_ratings(season.variant_id)
    seasons.schedule_next_round(season.pk)
    return match


def h2h_games(answer: dict[str, Any]) -> int:
    return sum(row["games"] for row in answer["head_to_head"])


def test_a_recorded_ladder_result_shows_at_once_on_every_page_it_changes(
    client: Any, ladder_pair: list[Any]
) -> None:
    record_ladder_match(ladder_pair)
    # Every read is cached now...
    reads = {
        "ladder": client.get("/api/ladder/scopa").json(),
        "board": client.get("/api/variants/scopa/leaderboard?ladder=solo").json(),
        "bot": client.get("/api/bots/greedy").json(),
        "variants": client.get("/api/variants").json(),
    }
    assert client.get("/api/ladder/scopa").json() == reads["ladder"]
    client.get("/")
    client.get("/ladder/scopa/")
    client.get("/bots/greedy/")

    match = record_ladder_match(ladder_pair)
    new_game = Game.objects.filter(match=match).order_by("-index").first()
    assert new_game is not None

    # ...and the next read of each shows the new result.
    ladder_now = client.get("/api/ladder/scopa").json()
    stored = {r.key: r.games for r in Rating.objects.filter(pool=Rating.Pool.LADDER)}
    assert {r["key"]: r["games"] for r in ladder_now["ratings"]} == stored
    assert [r["games"] for r in ladder_now["ratings"]] != [
        r["games"] for r in reads["ladder"]["ratings"]
    ]
    bot_now = client.get("/api/bots/greedy").json()
    assert h2h_games(bot_now) == h2h_games(reads["bot"]) + 2
    ladder_rating = next(r for r in bot_now["ratings"] if r["ladder"] == "ladder")
    chart = next(c for c in bot_now["charts"] if c["ladder"] == "ladder")
    assert len(chart["series"][0]["points"]) == ladder_rating["games"] == 4
    assert f'href="/games/{new_game.pk}/"' in client.get("/").content.decode()
    ladder_page = client.get("/ladder/scopa/").content.decode()
    assert f'href="/matches/{match.pk}/"' in ladder_page
    row = bot_now["head_to_head"][0]
    bot_page = client.get("/bots/greedy/").content.decode()
    assert (
        f'<td class="num">{row["games"]}</td><td class="num">'
        f"{row['wins']}\u2013{row['draws']}\u2013{row['losses']}</td>"
    ) in bot_page


def test_a_recorded_season_result_shows_at_once_on_the_season_and_home_pages(
    client: Any, ready_versions: list[Any]
) -> None:
    season = started_season("Fresh", ready_versions)
    before = client.get(f"/api/seasons/{season.pk}").json()
    listed_before = client.get("/api/seasons").json()
    client.get(f"/seasons/{season.pk}/")
    assert before["season"]["matches_done"] == 0

    match = record_next_season_match(season)
    assert match is not None

    after = client.get(f"/api/seasons/{season.pk}").json()
    assert after["season"]["matches_done"] == 1
    games = Game.objects.filter(match__season=season).count()
    assert games == 2 and sum(row["played"] for row in after["standings"]) == 2 * games
    assert any(cell is not None for row in after["crosstable"]["rows"] for cell in row["cells"])
    assert after["rounds"][0]["done"] == 1
    listed = client.get("/api/seasons").json()["seasons"]
    assert [(s["matches_done"], s["status"]) for s in listed] == [(1, "finished")]
    assert [(s["matches_done"], s["status"]) for s in listed_before["seasons"]] == [(0, "running")]
    assert before["season"]["status"] == "running" and after["season"]["status"] == "finished"
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert '<span data-live="matches-done">1</span>' in page


def test_a_claimed_match_shows_as_running_on_its_season_page(
    client: Any, ready_versions: list[Any]
) -> None:
    season = started_season("Claims", ready_versions)
    assert client.get(f"/api/seasons/{season.pk}").json()["rounds"][0]["running"] == 0
    match = Match.objects.filter(season=season).first()
    assert match is not None and matches.claim_match(match.pk, "test") is not None
    assert client.get(f"/api/seasons/{season.pk}").json()["rounds"][0]["running"] == 1


def test_a_result_leaves_the_other_scopes_cached(ladder_pair: list[Any]) -> None:
    record_ladder_match(ladder_pair)
    variant = variants.get_variant("scopa")
    season = seasons.create_season(
        name="Aside", variant=variant, entrants=ladder_pair, games_per_pairing=2, seed=3
    )
    scopes = [
        read_models.HOME,
        read_models.season_scope(season.pk),
        read_models.board_scope(variant.pk, "ladder"),
        read_models.board_scope(variant.pk, "solo"),
    ]
    before = read_models.versions(scopes)
    record_ladder_match(ladder_pair)
    after = read_models.versions(scopes)
    changed = {scope for scope in scopes if before[scope] != after[scope]}
    assert changed == {read_models.HOME, read_models.board_scope(variant.pk, "ladder")}


@pytest.mark.django_db(transaction=True)
def test_readers_that_miss_together_build_once(
    ladder_pair: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from webui.web import read_cache

    monkeypatch.setattr(read_cache, "WAIT_S", 60.0)  # the readers wait for the one builder

    record_ladder_match(ladder_pair)
    builds = []
    started = threading.Event()

    def build() -> str:
        builds.append(1)
        started.wait(2)
        return "built"

    answers: list[str] = []
    scope = [read_models.board_scope(variants.get_variant("scopa").pk, "ladder")]

    def read() -> None:
        try:
            answers.append(read_cache.cached("single-flight-test", scope, build))
        finally:
            connection.close()

    readers = [threading.Thread(target=read) for _ in range(5)]
    for reader in readers:
        reader.start()
    started.set()
    for reader in readers:
        reader.join()
    assert answers == ["built"] * 5
    assert len(builds) == 1


PAGES = [
    "/",
    "/variants/scopa/",
    "/ladder/scopa/",
    "/bots/greedy/",
    "/seasons/{season}/",
    "/api/variants",
    "/api/seasons",
    "/api/variants/scopa/leaderboard",
    "/api/ladder/scopa",
    "/api/bots/greedy",
    "/api/seasons/{season}",
]


def query_counts(client: Any, season: Season) -> dict[str, tuple[int, int]]:
    """Each page's queries when its reads are built (cold) and when they are cached (warm)."""
    from django.core.cache import cache

    read_models.recompute_reads()  # every scope moves on: the first reads build
    cache.clear()  # and this process's hourly ranks of 24 hours ago are computed again
    counts = {}
    for page in PAGES:
        url = page.format(season=season.pk)
        runs = []
        for _ in range(2):
            with CaptureQueriesContext(connection) as queries:
                assert client.get(url).status_code == 200, url
            runs.append(len(queries))
        counts[url] = (runs[0], runs[1])
    return counts


def test_every_page_makes_as_many_queries_on_ten_times_the_games(
    client: Any, ladder_pair: list[Any]
) -> None:
    from webui.web.sampledata import play_season

    season = started_season("Counted", ladder_pair, seed=5)
    play_season(season)
    for _ in range(2):
        record_ladder_match(ladder_pair)
    small_games = Game.objects.count()
    small = query_counts(client, season)
    for _ in range(10 * small_games // 2 - small_games // 2):
        record_ladder_match(ladder_pair)
    assert Game.objects.count() >= 10 * small_games
    large = query_counts(client, season)
    assert large == small
    assert all(warm <= cold for cold, warm in small.values())
    assert small["/"][1] < small["/"][0]  # the cache answers


def test_recompute_reads_finds_and_puts_right_a_damaged_head_to_head(
    ladder_pair: list[Any], capsys: Any
) -> None:
    import argparse

    from webui.league import cli

    record_ladder_match(ladder_pair)
    record_ladder_match(ladder_pair)
    assert cli.recompute_reads(argparse.Namespace(json=True)) == 0
    healthy = json.loads(capsys.readouterr().out)
    assert healthy["differences"] == 0 and healthy["head_to_head_records"] == 2

    greedy = Bot.objects.get(name="greedy")
    right = HeadToHead.objects.get(bot=greedy)
    HeadToHead.objects.filter(pk=right.pk).update(wins=right.wins + 7)
    assert cli.recompute_reads(argparse.Namespace(json=True)) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["differences"] == 1
    fixed = HeadToHead.objects.get(bot=greedy)
    assert (fixed.games, fixed.wins, fixed.draws, fixed.losses) == (
        right.games,
        right.wins,
        right.draws,
        right.losses,
    )
    assert cli.recompute_reads(argparse.Namespace(json=True)) == 0
    assert json.loads(capsys.readouterr().out)["differences"] == 0


def test_pages_are_served_when_the_reads_cache_fails(
    client: Any, ladder_pair: list[Any], settings: Any
) -> None:
    record_ladder_match(ladder_pair)
    caches = dict(settings.CACHES)
    caches["reads"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": "redis://127.0.0.1:1/0",
    }  # nothing listens there
    settings.CACHES = caches
    stored = {r.key: r.games for r in Rating.objects.filter(pool=Rating.Pool.LADDER)}
    answer = client.get("/api/ladder/scopa")
    assert answer.status_code == 200
    assert {r["key"]: r["games"] for r in answer.json()["ratings"]} == stored
    assert client.get("/").status_code == 200
