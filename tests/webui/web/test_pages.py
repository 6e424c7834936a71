"""The pages and their API twins over a season played through the league's services: what
the standings, leaderboard, bot, match and game pages show agrees with the data."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from arena.engine import CATEGORIES, POINT_CATEGORIES, verify_replay
from webui.league import cli, seasons
from webui.league.models import Game, Match, Rating, Season

pytestmark = pytest.mark.django_db


def test_the_home_page_shows_variants_seasons_and_recent_games(
    client: Any, played_season: Season
) -> None:
    page = client.get("/").content.decode()
    assert "Test season" in page
    assert 'href="/variants/scopa/"' in page
    latest = Game.objects.order_by("-created", "-id").first()
    assert latest is not None and f'href="/games/{latest.pk}/"' in page


def test_the_leaderboard_ranks_by_the_conservative_rating(
    client: Any, played_season: Season
) -> None:
    ratings = list(Rating.objects.filter(variant=played_season.variant).order_by("-conservative"))
    page = client.get("/variants/scopa/").content.decode()
    positions = [page.index(f">{r.version.label}</a>") for r in ratings]
    assert positions == sorted(positions)
    api = client.get("/api/variants/scopa/leaderboard").json()
    assert [r["label"] for r in api["ratings"]] == [r.version.label for r in ratings]
    assert [r["games"] for r in api["ratings"]] == [r.games for r in ratings]
    top = api["ratings"][0]
    assert top["conservative"] == pytest.approx(top["mu"] - 3 * top["sigma"], abs=1e-2)
    assert page.count("provisional</span>") == sum(r["provisional"] for r in api["ratings"])


def test_the_season_page_shows_standings_crosstable_rounds_and_bracket(
    client: Any, played_season: Season
) -> None:
    page = client.get(f"/seasons/{played_season.pk}/").content.decode()
    table = seasons.league_standings(played_season)
    positions = [page.index(f">{row.version.label}</a></td>") for row in table]
    assert positions == sorted(positions)
    assert "Cross-table" in page and "Final" in page
    assert "round-robin, then knockout (top 2)" in page  # the format's label and headline
    done, total = played_season.progress()
    assert total == seasons.planned_matches(played_season)  # finished: every planned match is there
    assert (
        f'<span data-live="matches-done">{done}</span> of '
        f'<span data-live="matches-planned">{total}</span> matches played'
    ) in page
    api = client.get(f"/api/seasons/{played_season.pk}").json()
    assert [s["version"]["label"] for s in api["standings"]] == [row.version.label for row in table]
    # The command line's JSON gives the same rows (one function writes both), naming the bot.
    shell = cli.season_json(played_season)["standings"]
    assert [{**r, "version": r["version"]["label"]} for r in api["standings"]] == [
        {k if k != "bot" else "version": v for k, v in r.items()} for r in shell
    ]
    final = api["bracket"][-1]["slots"][0]
    champion = seasons.season_champion(played_season)
    assert champion is not None and final["winner"] == champion.label
    assert [r["phase"] for r in api["rounds"]][-1] == "knockout"
    assert all(r["done"] == r["matches"] for r in api["rounds"])


def test_the_bot_page_shows_versions_chart_matches_and_head_to_head(
    client: Any, played_season: Season
) -> None:
    page = client.get("/bots/greedy/").content.decode()
    assert "greedy@1" in page and "<polyline" in page
    api = client.get("/api/bots/greedy").json()
    games = Game.objects.filter(match__seats__version__bot__name="greedy", void="")
    assert sum(h["games"] for h in api["head_to_head"]) == games.count()
    for row in api["head_to_head"]:
        assert row["wins"] + row["draws"] + row["losses"] == row["games"]
        assert f'href="/bots/{row["opponent"]}/"' in page
    matches = Match.objects.filter(seats__version__bot__name="greedy")
    assert {m["id"] for m in api["recent_matches"]} == set(matches.values_list("id", flat=True))
    history = api["charts"][0]["series"][0]["points"]
    rating = Rating.objects.get(version__bot__name="greedy", pool="solo")
    assert len(history) == rating.games
    assert history[-1]["mu"] == pytest.approx(rating.mu)


def test_the_match_and_game_pages_link_the_replays(client: Any, played_season: Season) -> None:
    match = Match.objects.filter(season=played_season).first()
    assert match is not None
    page = client.get(f"/matches/{match.pk}/").content.decode()
    for game in match.games.all():
        assert f'href="/games/{game.pk}/"' in page
    game = match.games.first()
    assert game is not None
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert f'data-frames-url="/api/games/{game.pk}/frames"' in page
    assert f'href="/api/games/{game.pk}/replay"' in page


def test_a_replay_downloads_as_the_stored_record_and_verifies(
    client: Any, played_season: Season
) -> None:
    game = Game.objects.filter(match__season=played_season).first()
    assert game is not None
    response = client.get(f"/api/games/{game.pk}/replay")
    assert response["Content-Disposition"].startswith("attachment")
    replay = json.loads(response.content)
    assert replay == game.replay
    report = verify_replay(replay)
    assert report["ok"] and report["totals"] == game.totals


def test_the_frames_of_a_stored_game_end_with_its_result(
    client: Any, played_season: Season
) -> None:
    game = Game.objects.filter(match__season=played_season).first()
    assert game is not None
    frames = client.get(f"/api/games/{game.pk}/frames").json()
    assert frames["frames"][-1]["score"]["totals"] == game.totals
    assert frames["winner"] == game.winner_side


@pytest.mark.parametrize(
    "url",
    [
        "/bots/nobody/",
        "/seasons/999999/",
        "/games/999999/",
        "/api/games/999999/frames",
        "/api/bots/nobody",
    ],
)
def test_it_answers_404_for_what_does_not_exist(url: str, client: Any, users: Any) -> None:
    response = client.get(url)
    assert response.status_code == 404
    if url.startswith("/api/"):
        assert response.json() == {"error": f"nothing at {url}"}


def test_it_rejects_a_replay_that_is_not_one(client: Any, db: Any) -> None:
    response = client.post("/api/replays/frames", "not json", content_type="application/json")
    assert response.status_code == 400
    assert "not a readable replay" in response.json()["error"]


def _routes(patterns: list[URLPattern | URLResolver], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for p in patterns:
        if isinstance(p, URLResolver):
            out += _routes(p.url_patterns, prefix + str(p.pattern))
        else:
            out.append((prefix + str(p.pattern), p))
    return out


def test_every_route_the_site_answers_is_in_the_openapi_description(client: Any, db: Any) -> None:
    spec = client.get("/api/openapi.json").json()
    assert spec["openapi"].startswith("3.")
    served = {
        "/" + re.sub(r"<\w+:(\w+)>", r"{\1}", route)
        for route, pattern in _routes(get_resolver().url_patterns)
        # Django's own admin (staff only) is described by its login, which is the site's.
        if not route.startswith("admin/") or route == "admin/login/"
    }
    assert {
        "/api/bots",
        "/play/{game_id}/move",
        "/accounts/login/",
        "/admin/login/",
        "/bots/{name}/v{number}/",
    } <= served
    assert served == set(spec["paths"]), served ^ set(spec["paths"])
    for path, item in spec["paths"].items():
        for method, op in item.items():
            assert op["summary"], f"{method} {path} has no summary"
            for response in op["responses"].values():
                for content in response.get("content", {}).values():
                    ref = content["schema"].get("$ref", "")
                    assert not ref or ref.split("/")[-1] in spec["components"]["schemas"]


def test_the_api_page_lists_the_api_routes_only(client: Any, db: Any) -> None:
    page = client.get("/api/").content.decode()
    assert "<code>/api/bots/{name}/games</code>" in page
    assert "<code>/accounts/login/</code>" not in page


def test_the_health_check_answers_ok(client: Any, db: Any) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok\n"


def test_the_bot_page_follows_new_rated_games(client: Any, played_season: Season) -> None:
    from webui.league.models import BotVersion
    from webui.web.sampledata import play_season

    before = client.get("/api/bots/greedy").json()
    versions = list(BotVersion.objects.filter(bot__name__in=["greedy", "random"]))
    season = seasons.create_season(
        name="Second", variant=played_season.variant, entrants=versions, games_per_pairing=2, seed=9
    )
    seasons.start_season(season)
    play_season(season)
    after = client.get("/api/bots/greedy").json()
    games = Game.objects.filter(match__seats__version__bot__name="greedy", void="").count()
    assert sum(h["games"] for h in after["head_to_head"]) == games
    assert games > sum(h["games"] for h in before["head_to_head"])
    assert len(after["charts"][0]["series"][0]["points"]) == after["ratings"][0]["games"]


def test_the_viewer_pages_give_their_scripts_the_engine_s_point_categories(
    client: Any, db: Any
) -> None:
    page = client.get("/replay/").content.decode()
    found = re.search(r'<script id="point-categories" type="application/json">(.*?)</script>', page)
    assert found is not None
    assert json.loads(found.group(1)) == [c.to_json() for c in POINT_CATEGORIES]
    assert [c["key"] for c in json.loads(found.group(1))] == list(CATEGORIES)
