"""Game lists of bots and versions (:mod:`webui.web.game_lists`) on PostgreSQL: filtered by
variant, opponent and result, paged by cursor, the same on the pages and in the API; bad filters are
a 400 naming the parameter and its values; empty lists and leaderboards are pages, not 404s.

The expected results are worked out here from each game's own seats and winning side, not
from the match seats the list's SQL reads."""

from __future__ import annotations

from typing import Any

import pytest

from webui.league.models import Game, Season

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def on_postgres(postgres_available: bool) -> None:
    from django.db import connection

    assert connection.vendor == "postgresql"


def expected(bot: str) -> dict[int, str]:
    """Each game of ``bot`` with its result for the bot, from the game's seats."""
    out = {}
    for game in Game.objects.select_related("variant", "match").prefetch_related(
        "match__seats__version__bot"
    ):
        names = {s.index: s.version.bot.name for s in game.match.seats.all()}
        seats = [seat for seat, entrant in enumerate(game.seats) if names[entrant] == bot]
        if not seats:
            continue
        side = seats[0] % game.variant.sides
        if game.void:
            result = "void"
        elif game.winner_side is None:
            result = "draw"
        else:
            result = "win" if game.winner_side == side else "loss"
        if game.forfeit and result != "win":
            result = "forfeit"
        out[game.pk] = result
    return out


def set_winner(pk: int, *, greedy_wins: bool, forfeit: bool = False) -> None:
    """Makes greedy's game ``pk`` a win of greedy's side or of the other (by greedy's forfeit):
    its winning side and the match entrant in that side's first seat."""
    game = Game.objects.select_related("variant", "match").get(pk=pk)
    names = {s.index: s.version.bot.name for s in game.match.seats.select_related("version__bot")}
    greedy_side = (
        next(seat for seat, entrant in enumerate(game.seats) if names[entrant] == "greedy")
        % game.variant.sides
    )
    side = greedy_side if greedy_wins else 1 - greedy_side
    Game.objects.filter(pk=pk).update(
        winner_side=side,
        winner_entrant=game.seats[side],
        forfeit={"side": greedy_side, "reason": "crash"} if forfeit else None,
    )


def ids(client: Any, url: str) -> list[int]:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return [g["id"] for g in response.json()["games"]]


def test_a_bots_games_filter_by_result_opponent_and_variant_as_its_seats_say(
    client: Any, played_season: Season
) -> None:
    # One of greedy's games (a loss if it lost one) becomes a forfeit of greedy's: the forfeit
    # filter finds it alone. The season's seeds are secret, so greedy may have won all its
    # games, or none: then another of its games is made a win of greedy's, and the lists are
    # checked against what the games say after that.
    results = expected("greedy")
    games = sorted(results)
    lost = next((pk for pk in games if results[pk] == "loss"), games[0])
    if not any(results[pk] == "win" for pk in games if pk != lost):
        set_winner(next(pk for pk in games if pk != lost), greedy_wins=True)
    set_winner(lost, greedy_wins=False, forfeit=True)
    results = expected("greedy")
    assert results[lost] == "forfeit" and set(results.values()) >= {"win", "forfeit"}

    everything = client.get("/api/bots/greedy/games?limit=100").json()
    assert len(everything["games"]) == len(results) and everything["next"] is None
    assert {g["id"]: g["result"] for g in everything["games"]} == results
    for result in ("win", "draw"):
        assert set(ids(client, f"/api/bots/greedy/games?result={result}&limit=100")) == {
            pk for pk, r in results.items() if r == result
        }
    assert set(ids(client, "/api/bots/greedy/games?result=loss&limit=100")) == {
        pk for pk, r in results.items() if r in {"loss", "forfeit"}
    }
    assert ids(client, "/api/bots/greedy/games?result=forfeit") == [lost]

    against_random = {g.pk for g in Game.objects.filter(match__seats__version__bot__name="random")}
    assert set(ids(client, "/api/bots/greedy/games?opponent=random&limit=100")) == (
        against_random & set(results)
    )
    assert set(ids(client, "/api/bots/greedy/games?variant=scopa&limit=100")) == set(results)
    # Both filters at once, from the bot's side: its wins against random.
    both = set(ids(client, "/api/bots/greedy/games?opponent=random&result=win&limit=100"))
    assert both == {pk for pk in against_random if results.get(pk) == "win"}


def test_pages_of_games_cover_the_list_once_newest_first(
    client: Any, played_season: Season
) -> None:
    full = ids(client, "/api/bots/random/games?limit=100")
    assert len(full) >= 4
    newest_first = list(
        Game.objects.filter(pk__in=full)
        .order_by("-match_id", "-index")
        .values_list("pk", flat=True)
    )
    assert full == newest_first
    forwards: list[int] = []
    cursor = ""
    seen_pages = 0
    while True:
        page = client.get(f"/api/bots/random/games?limit=3{cursor}").json()
        forwards += [g["id"] for g in page["games"]]
        seen_pages += 1
        if page["next"] is None:
            break
        cursor = f"&after={page['next']}"
    assert forwards == full and seen_pages == -(-len(full) // 3)
    # Back from the last page by each page's prev: the same pages, in reverse.
    backwards: list[int] = []
    while True:
        backwards = [g["id"] for g in page["games"]] + backwards
        if page["prev"] is None:
            break
        page = client.get(f"/api/bots/random/games?limit=3&before={page['prev']}").json()
    assert backwards == full

    # The page links carry the filters and the cursors.
    second = client.get("/api/bots/random/games?variant=scopa&limit=1").json()["next"]
    html = client.get(f"/bots/random/?variant=scopa&limit=1&after={second}").content.decode()
    after = client.get(f"/api/bots/random/games?limit=1&after={second}").json()
    assert f"#{after['games'][0]['id']}</a>" in html
    assert f'href="?variant=scopa&amp;limit=1&amp;before={after["prev"]}#games"' in html
    assert f'href="?variant=scopa&amp;limit=1&amp;after={after["next"]}#games"' in html
    assert 'href="?variant=scopa&amp;limit=1#games" rel="first"' in html


def test_a_versions_games_are_its_own(client: Any, played_season: Season) -> None:
    from webui.league.models import BotVersion

    third = BotVersion.objects.get(bot__name="third")
    bot_games = ids(client, "/api/bots/third/games?limit=100")
    assert ids(client, f"/api/bots/third/versions/{third.number}/games?limit=100") == bot_games
    assert client.get("/api/bots/third/versions/2/games").status_code == 404  # no version 2
    html = client.get(f"/bots/third/v{third.number}/?result=win").content.decode()
    wins = [pk for pk, r in expected("third").items() if r == "win"]
    assert html.count('<span class="badge result-win">win</span>') == len(wins)


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("result=won", "'result': 'won' is not one of: draw, forfeit, loss, win"),
        ("opponent=nobody", "'opponent': 'nobody' is not one of: random, third"),
        ("variant=briscola", "'variant': 'briscola' is not one of: scopa"),
        ("after=0", "'after': '0' is not a cursor of this list"),
        ("page=2", "unknown query parameter 'page'"),
        ("limit=500", "'limit' must be a whole number from 1 to 100"),
        ("colour=red", "unknown query parameter 'colour'"),
    ],
)
def test_a_bad_filter_is_a_400_naming_the_parameter_and_its_values(
    client: Any, played_season: Season, query: str, named: str
) -> None:
    response = client.get(f"/api/bots/greedy/games?{query}")
    assert response.status_code == 400
    assert named in response.json()["error"]
    if not query.startswith(("colour", "page")):  # the page takes other parameters (none unknown)
        page = client.get(f"/bots/greedy/?{query}")
        assert page.status_code == 400
        assert named.replace("'", "&#x27;") in page.content.decode()


def test_empty_lists_and_leaderboards_are_pages(client: Any, users: dict[str, Any]) -> None:
    from webui.league import variants

    page = client.get("/bots/my-bot/")
    assert page.status_code == 200
    assert "my-bot has played no games yet." in page.content.decode()
    api = client.get("/api/bots/my-bot/games").json()
    assert (api["games"], api["next"], api["prev"]) == ([], None, None)
    # A bot with no games has no opponents to filter by: any name is refused, listing none.
    refused = client.get("/api/bots/my-bot/games?opponent=random")
    assert refused.status_code == 400 and "none yet" in refused.json()["error"]

    variant = variants.get_variant("scopa", {"target": 21})
    board = client.get(f"/variants/{variant.slug}/")
    assert board.status_code == 200
    html = board.content.decode()
    assert "Nobody is rated in this variant yet." in html and "upload a bot" in html
    assert client.get(f"/api/variants/{variant.slug}/leaderboard").json()["ratings"] == []
