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

from django.http import QueryDict

from webui.league.models import Game, Match, MatchSeat, Season, Variant

from .paging import Position, keyset_page, page_links, parse_position
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
GAMES_ORDER = ("-id",)
"""Every recorded game, newest first (ids grow as games are recorded): the list's key."""


def season_matches(season: Season, position: Position, limit: int = SEASON_PAGE
                   ) -> dict[str, Any]:
    """One page of a season's matches with the cursors of its neighbours."""
    rows = Match.objects.filter(season=season).select_related("round")
    page = keyset_page(rows, SEASON_ORDER,
                       lambda m: (m.round.number if m.round else 0, m.board, m.pk),
                       position, limit)
    for m in page.rows:
        m.season = season  # every row's: no join for it
    seats = defaultdict(list)
    for s in MatchSeat.objects.filter(match_id__in=[m.pk for m in page.rows]).order_by(
            "match_id", "index"):
        seats[s.match_id].append(s)
    refs = version_refs(s.version_id for lst in seats.values() for s in lst)
    return {"season": season.pk,
            "matches": [match_row(m, seats[m.pk], refs) for m in page.rows],
            "next": page.next, "prev": page.prev, "limit": limit}


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
    return {"games": [game_row(g, refs) for g in page.rows], "next": page.next,
            "prev": page.prev, "limit": limit}

