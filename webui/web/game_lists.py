"""The game list of a bot or of one of its versions: filtered and paginated, for pages and API.

Filters (query parameters, each optional): ``variant`` (a variant's slug), ``opponent`` (the
name of a bot it played), ``result`` (``win``, ``loss``, ``draw`` or ``forfeit``: a game it
forfeited, which it also lost unless nobody won), ``after`` or ``before`` (a page's ``next`` or
``prev`` cursor: :mod:`webui.web.paging`) and ``limit`` (games per page, 1 to
:data:`MAX_LIMIT`). An unknown value is an :class:`~webui.web.api_input.ApiError` naming the
parameter and the values it takes; so is a malformed cursor.

The result is the bot's own: the winning entrant's side in the match (:class:`MatchSeat.side`,
which partners share) against the bot's sides. The filters are computed by the database, so
filtering stays in SQL whatever the size of the games table; the results shown are worked out
for the page's games only. The list is newest first: the latest matches first (match ids grow
as matches are scheduled), each match's games last to first; it is paged by that key
(``match_id``, ``index``), never by offset, and not counted, so every page costs the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, Prefetch, Q, QuerySet, Subquery
from django.http import QueryDict

from webui.league.models import Bot, BotVersion, Game, Match, MatchSeat

from .api_input import query_choice, query_int
from .paging import Position, keyset_page, parse_position
from .reads import game_row, shown_variants, version_refs
from .shapes import BotGameRow, GameResult

RESULTS = ("win", "loss", "draw", "forfeit")
"""The values of the ``result`` filter."""
PARAMS = {
    "variant": "only games of this variant (its slug)",
    "opponent": "only games against this bot (its name)",
    "result": "only games this bot won (win), lost (loss), drew (draw) or forfeited (forfeit)",
    "after": "the page after this cursor (a page's next)",
    "before": "the page before this cursor (a page's prev)",
    "limit": "games per page, from 1 to 100 (default 20)",
}
"""The query parameters of a game list, as the API describes them."""
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
ORDER = ("-match_id", "-index")
"""The list's order, newest first: its key."""


@dataclass(frozen=True)
class Filters:
    """A game list's filters and position, checked."""

    variant: str | None = None
    opponent: str | None = None
    result: str | None = None
    position: Position = field(default_factory=Position)
    limit: int = DEFAULT_LIMIT

    def query(self, after: str | None = None, before: str | None = None) -> str:
        """These filters as a query string (for the page's links), with a cursor if given."""
        params = QueryDict(mutable=True)
        for name in ("variant", "opponent", "result"):
            value = getattr(self, name)
            if value:
                params[name] = value
        if self.limit != DEFAULT_LIMIT:
            params["limit"] = str(self.limit)
        if after is not None:
            params["after"] = after
        if before is not None:
            params["before"] = before
        return params.urlencode()

    @property
    def active(self) -> bool:
        """Whether any filter narrows the list."""
        return bool(self.variant or self.opponent or self.result)


def _own_seats(bot: Bot, version: BotVersion | None) -> QuerySet[MatchSeat]:
    # No ordering: a match seat's default one joins the match and its round, in every
    # subquery below. The versions by id (a bot has few), not through a join: the seats are
    # then read off the (version, match) index in match order, from the page's cursor on.
    ids = (
        [version.pk]
        if version is not None
        else list(BotVersion.objects.order_by().filter(bot=bot).values_list("pk", flat=True))
    )
    return MatchSeat.objects.order_by().filter(version_id__in=ids)


def _from_cursor(seats: QuerySet[MatchSeat], position: Position) -> QuerySet[MatchSeat]:
    """The seats of the matches at or beyond the page's cursor in the list's order (the
    newest first): the seat lookups start where the page does, not at the newest match."""
    if position.after is not None:
        return seats.filter(match_id__lte=position.after[0])
    if position.before is not None:
        return seats.filter(match_id__gte=position.before[0])
    return seats


def opponents(bot: Bot, version: BotVersion | None = None) -> list[str]:
    """The names of the bots it played, in name order."""
    matches = _own_seats(bot, version).values("match_id")
    return list(
        Bot.objects.filter(versions__match_seats__match_id__in=matches)
        .exclude(pk=bot.pk)
        .order_by("name")
        .values_list("name", flat=True)
        .distinct()
    )


def variants() -> list[str]:
    """The slugs of the variants lists show (:func:`reads.shown_variants`)."""
    return list(shown_variants().order_by("slug").values_list("slug", flat=True))


def choices(
    bot: Bot, version: BotVersion | None = None, played: list[str] | None = None
) -> dict[str, list[str]]:
    """The values each filter offers: every variant, the bots it played (``played`` when
    the caller knows them), the results."""
    return {
        "variant": variants(),
        "opponent": opponents(bot, version) if played is None else played,
        "result": list(RESULTS),
    }


def parse(query: QueryDict, bot: Bot, version: BotVersion | None = None) -> Filters:
    """The filters of a request's query, each checked: a variant that exists, a bot that
    exists (the error lists the ones it played), a result of :data:`RESULTS`."""
    opponent = query.get("opponent") or None
    if opponent is not None and not Bot.objects.filter(name=opponent).exists():
        query_choice(query, "opponent", opponents(bot, version))  # raises, listing them
    return Filters(
        variant=query_choice(query, "variant", variants()) if query.get("variant") else None,
        opponent=opponent,
        result=query_choice(query, "result", RESULTS),
        position=parse_position(query, len(ORDER)),
        limit=query_int(query, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT),
    )


def games(bot: Bot, version: BotVersion | None, filters: Filters) -> QuerySet[Game]:
    """The bot's (or version's) games matching ``filters`` (each game once)."""
    own = _own_seats(bot, version)
    # Won: one of the bot's seats of the match is on the side of the winning entrant. A
    # correlated EXISTS over the bot's own seats (few), the winner's side an index lookup by
    # (match, index): measured faster than hashing every seat of the table.
    winner_side = Subquery(
        MatchSeat.objects.order_by()
        .filter(match_id=OuterRef(OuterRef("match_id")), index=OuterRef(OuterRef("winner_entrant")))
        .values("side")[:1]
    )
    # The bot's seat on the winning side, if any: a scalar subquery evaluated for each game
    # the list walks (an EXISTS would be planned as a join of all the bot's seats, sorted).
    won = Subquery(
        own.filter(match_id=OuterRef("match_id"), side=winner_side).values("match_id")[:1]
    )
    matches = _from_cursor(own, filters.position)
    if filters.opponent:
        # The matches of both: the two bots' seats, each off the (version, match) index.
        their_versions = BotVersion.objects.order_by().filter(bot__name=filters.opponent)
        theirs = MatchSeat.objects.order_by().filter(
            version_id__in=list(their_versions.values_list("pk", flat=True))
        )
        matches = matches.filter(
            match_id__in=_from_cursor(theirs, filters.position).values("match_id")
        )
    qs = Game.objects.filter(match_id__in=matches.values("match_id")).alias(won_match=won)
    if filters.variant:
        qs = qs.filter(variant__slug=filters.variant)
    played = Q(void="")
    if filters.result == "win":
        qs = qs.filter(played, won_match__isnull=False, winner_side__isnull=False)
    elif filters.result == "loss":
        qs = qs.filter(played, won_match__isnull=True, winner_side__isnull=False)
    elif filters.result == "draw":
        qs = qs.filter(played, winner_side__isnull=True)
    elif filters.result == "forfeit":
        qs = qs.filter(played, won_match__isnull=True, forfeit__isnull=False)
    return qs


def results(bot: Bot, version: BotVersion | None, page: list[Game]) -> dict[int, GameResult]:
    """The bot's result in each game of a page: win, loss, draw, forfeit or void (as the
    filters see them: the winning entrant's side against the bot's first seat's)."""
    seats: dict[int, list[MatchSeat]] = {}
    for seat in MatchSeat.objects.order_by("index").filter(match_id__in={g.match_id for g in page}):
        seats.setdefault(seat.match_id, []).append(seat)
    own_versions = (
        {version.pk} if version is not None else set(bot.versions.values_list("pk", flat=True))
    )
    out: dict[int, GameResult] = {}
    for g in page:
        match_seats = seats.get(g.match_id, [])
        own = {s.side for s in match_seats if s.version_id in own_versions}
        winner = next((s.side for s in match_seats if s.index == g.winner_entrant), None)
        if g.void:
            out[g.pk] = "void"
        elif g.winner_side is not None and winner in own:
            out[g.pk] = "win"
        elif g.forfeit:
            out[g.pk] = "forfeit"
        else:
            out[g.pk] = "draw" if g.winner_side is None else "loss"
    return out


def game_list(bot: Bot, version: BotVersion | None, filters: Filters) -> dict[str, Any]:
    """One page of the list: its games (newest first), the cursors of the pages after and
    before it (``next``, ``prev``: null at either end) and the filters."""
    # The page's matches and seasons in a query of their own (by the page's match ids): a
    # join of the matches table would be walked from its newest row down to the cursor.
    matches = Prefetch("match", queryset=Match.objects.order_by().select_related("season"))
    qs = (
        games(bot, version, filters)
        .select_related("variant")
        .prefetch_related(matches)
        .defer("replay")
    )
    page = keyset_page(qs, ORDER, lambda g: (g.match_id, g.index), filters.position, filters.limit)
    rows = page.rows
    refs = version_refs(p for g in rows for p in (g.players or []))
    own_results = results(bot, version, rows)
    out = []
    for g in rows:
        row: BotGameRow = {**game_row(g, refs), "result": own_results[g.pk]}
        out.append(row)
    return {
        "games": out,
        "next": page.next,
        "prev": page.prev,
        "limit": filters.limit,
        "filters": {
            "variant": filters.variant,
            "opponent": filters.opponent,
            "result": filters.result,
        },
    }
