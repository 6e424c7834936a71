"""The long lists of the site that are not a bot's games: a season's matches and every recorded
game, each paged by key (:mod:`webui.web.paging`), for the pages and the API.

A season of 40 entrants has 780 matches: its page shows them :data:`SEASON_PAGE` at a time
(``?matches_after=`` and ``?matches_before=``), the latest round first, and
``/api/seasons/<id>/matches`` pages them the same way. ``/api/games`` lists every recorded game,
newest first, a page at a time. Each page is one bounded query of its rows and one of their
seats or versions, whatever the size of the season or of the games table. The standings, the
cross-table and the progress of a season are :mod:`webui.web.reads`'s.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Q
from django.http import QueryDict

from webui.league.models import Game, Match, MatchSeat, Round, Season, Variant

from .paging import Page, Position, cursor_text, keyset_page, page_links, parse_position
from .reads import game_row, match_row, version_refs

SEASON_PAGE = 60
"""A season's matches on one page of its list."""
SEASON_ORDER = ("-round__number", "board", "id")
"""A season's matches, the latest round first, each round by board: the list's key."""
SEASON_PARAMS = {
    "after": "the page after this cursor (a page's next)",
    "before": "the page before this cursor (a page's prev)",
    "limit": f"matches per page, from 1 to 100 (default {SEASON_PAGE})",
}
"""The query parameters of ``/api/seasons/<id>/matches``, as the API describes them."""
SEASON_INDEX_ORDER = ("-round_id", "board", "id")
"""The same order by the round's id, in the season's match index, when round ids grow with
round numbers (rounds are created one after the other): no join, no sort."""
GAMES_ORDER = ("-id",)
"""Every recorded game, newest first (ids grow as games are recorded): the list's key."""


def _season_page(season: Season, position: Position, limit: int) -> Page[Match]:
    """A page of the season's matches in :data:`SEASON_ORDER`.

    The season's rounds are read first (a few rows): when their ids grow with their numbers,
    the page is read off the season's match index in :data:`SEASON_INDEX_ORDER` from the
    cursor on, its rows' rounds taken from those read; otherwise (or for a cursor naming no
    round of the season) by joining the rounds and sorting.
    """
    rounds = list(Round.objects.filter(season=season).order_by("-number"))
    by_id = {r.pk: r for r in rounds}
    by_number = {r.number: r.pk for r in rounds}
    ids = [r.pk for r in rounds]
    cursor = position.after or position.before
    if ids != sorted(ids, reverse=True) or (cursor is not None and cursor[0] not in by_number):
        return keyset_page(
            Match.objects.filter(season=season).select_related("round"),
            SEASON_ORDER,
            lambda m: (m.round.number if m.round else 0, m.board, m.pk),
            position,
            limit,
        )

    def key(m: Match) -> str:
        shown = by_id.get(m.round_id) if m.round_id is not None else None
        m.round = shown  # the round read above: no join
        return cursor_text((shown.number if shown else 0, m.board, m.pk))

    matches = Match.objects.filter(season=season)
    if cursor is None:
        found = list(matches.order_by(*SEASON_INDEX_ORDER)[: limit + 1])
        shown = found[:limit]
        for m in shown:
            key(m)
        return Page(shown, key(shown[-1]) if len(found) > limit else None, None)
    # Two seeks, each a range of the index: the rest of the cursor's round (by board), then
    # the rounds beyond it.
    round_id, board, match_id = by_number[cursor[0]], cursor[1], cursor[2]
    rest = matches.filter(round_id=round_id)
    if position.after is not None:
        found = list(
            rest.filter(
                Q(board__gt=board) | Q(board=board, id__gt=match_id), board__gte=board
            ).order_by("board", "id")[: limit + 1]
        )
        if len(found) <= limit:
            found += matches.filter(round_id__lt=round_id).order_by(*SEASON_INDEX_ORDER)[
                : limit + 1 - len(found)
            ]
        shown = found[:limit]
        for m in shown:
            key(m)
        return Page(
            shown, key(shown[-1]) if len(found) > limit else None, key(shown[0]) if shown else None
        )
    found = list(
        rest.filter(
            Q(board__lt=board) | Q(board=board, id__lt=match_id), board__lte=board
        ).order_by("-board", "-id")[: limit + 1]
    )
    if len(found) <= limit:
        found += matches.filter(round_id__gt=round_id).order_by("round_id", "-board", "-id")[
            : limit + 1 - len(found)
        ]
    shown = found[:limit][::-1]
    for m in shown:
        key(m)
    return Page(
        shown,
        key(shown[-1]) if shown else None,
        key(shown[0]) if shown and len(found) > limit else None,
    )


def season_matches(season: Season, position: Position, limit: int = SEASON_PAGE) -> dict[str, Any]:
    """One page of a season's matches with the cursors of its neighbours."""
    page = _season_page(season, position, limit)
    for m in page.rows:
        m.season = season  # every row's: no join for it
    seats = defaultdict(list)
    for s in MatchSeat.objects.filter(match_id__in=[m.pk for m in page.rows]).order_by(
        "match_id", "index"
    ):
        seats[s.match_id].append(s)
    refs = version_refs(s.version_id for lst in seats.values() for s in lst)
    return {
        "season": season.pk,
        "matches": [match_row(m, seats[m.pk], refs) for m in page.rows],
        "next": page.next,
        "prev": page.prev,
        "limit": limit,
    }


def season_match_page(season: Season, query: QueryDict) -> dict[str, Any]:
    """The season page's list of matches (``?matches_after=``, ``?matches_before=``) with
    its links: :class:`~webui.web.api_input.ApiError` for a bad cursor."""
    position = parse_position(query, len(SEASON_ORDER), "matches_after", "matches_before")
    data = season_matches(season, position, SEASON_PAGE)
    links = page_links(data["next"], data["prev"], "matches_after", "matches_before")
    return {**data, **links, "at_top": position == Position()}


def recorded_games(variant: Variant | None, position: Position, limit: int) -> dict[str, Any]:
    """One page of every recorded game (of ``variant``), newest first."""
    rows = Game.objects.select_related("variant", "match__season").defer("replay")
    if variant is not None:
        rows = rows.filter(variant=variant)
    page = keyset_page(rows, GAMES_ORDER, lambda g: (g.pk,), position, limit)
    refs = version_refs(p for g in page.rows for p in (g.players or []))
    return {
        "games": [game_row(g, refs) for g in page.rows],
        "next": page.next,
        "prev": page.prev,
        "limit": limit,
    }
