"""What each public page and API read shows, as the scopes of :mod:`webui.league.read_models`.

Each function takes a view's request and arguments and returns ``(a name for the kept copy,
the scopes it shows)`` for :func:`webui.web.page_cache.shared_page`, or None when the
request is to be answered afresh (what it names does not exist: the view answers its 404).
A scope listed here must be bumped by every write that changes what the read shows; the
tests of ``test_page_cache`` and ``test_read_models`` read each after such writes.
"""

from __future__ import annotations

from django.http import HttpRequest

from webui.league import read_models
from webui.league.models import Bot, Rating, Variant

from .rank_changes import since

Shown = tuple[str, list[str]]


def _bot_id(name: str) -> int | None:
    return Bot.objects.filter(name=name).values_list("pk", flat=True).first()


def _board(request: HttpRequest, slug: str) -> tuple[int, str, str] | None:
    """A variant's id, the pool its leaderboard shows, and the hour of its rank changes."""
    variant_id = Variant.objects.filter(slug=slug).values_list("pk", flat=True).first()
    pool = request.GET.get("ladder", "") or Rating.Pool.SOLO.value
    if variant_id is None or pool not in Rating.Pool.values:
        return None
    # The rank changes are against the ranking of the hour 24 hours ago.
    return variant_id, pool, since().strftime("%Y%m%d%H")


def home(request: HttpRequest) -> Shown:
    """The home page: recent games, seasons' progress, the variants (every result). Its
    "Now playing" card is as it was when the page was drawn and is brought up to date by
    its first poll of ``/api/tv``: a claim does not draw the page again."""
    return "home", [read_models.HOME]


def variant(request: HttpRequest, slug: str) -> Shown | None:
    """A variant's leaderboard page: its ratings in one pool, and its recent games."""
    board = _board(request, slug)
    if board is None:
        return None
    variant_id, pool, hour = board
    return f"board:{hour}", [read_models.board_scope(variant_id, pool), read_models.HOME]


def leaderboard(request: HttpRequest, slug: str) -> Shown | None:
    """A variant's leaderboard (API): its ratings in one pool."""
    board = _board(request, slug)
    if board is None:
        return None
    variant_id, pool, hour = board
    return f"api-board:{hour}", [read_models.board_scope(variant_id, pool)]


def bot(request: HttpRequest, name: str) -> Shown | None:
    """A bot's page and API answer: its rows and ratings (``bot_changed``, the rating
    updates), its matches, head-to-head and games (its matches' writes)."""
    bot_id = _bot_id(name)
    if bot_id is None:
        return None
    return "bot", [read_models.bot_scope(bot_id), read_models.matches_scope(bot_id)]


def bot_games(request: HttpRequest, name: str, number: int | None = None) -> Shown | None:
    """A bot's (or one of its versions') games: its matches' writes."""
    bot_id = _bot_id(name)
    if bot_id is None:
        return None
    return "bot-games", [read_models.matches_scope(bot_id)]


def season(request: HttpRequest, season_id: int) -> Shown:
    """A season's page, API answer and matches: its own writes (results, claims, rounds)."""
    return "season", [read_models.season_scope(season_id)]


def games(request: HttpRequest) -> Shown:
    """Every recorded game: each finished match bumps the home page's scope."""
    return "games", [read_models.HOME]


def game(request: HttpRequest, game_id: int) -> Shown:
    """A recorded game (its page, its API answer, its replay) never changes (drawn again
    after an hour, when its kept copy expires, in case its bots were renamed or removed)."""
    return "game", []


def ladders(request: HttpRequest, slug: str = "") -> Shown:
    """The ladders' pages and API: their leaderboards (every ladder rating update bumps
    ``ladder`` too), active versions and open matches, and the bots one can challenge (ready
    versions, which enter the ladder). One scope, named without a query: a kept copy is found
    with the version query alone."""
    return "ladder", [read_models.LADDER]


def tv(request: HttpRequest) -> Shown:
    """``/tv/``: which matches are being played (the game itself is polled)."""
    return "tv", [read_models.LIVE]
