"""The game list of a bot or of one of its versions: filtered and paginated, for pages and API.

Filters (query parameters, each optional): ``variant`` (a variant's slug), ``opponent`` (the
name of a bot it played), ``result`` (``win``, ``loss``, ``draw`` or ``forfeit``: a game it
forfeited, which it also lost unless nobody won), ``page`` (from 1) and ``limit`` (games per
page, 1 to :data:`MAX_LIMIT`). An unknown value is an :class:`~webui.web.api_input.ApiError`
naming the parameter and the values it takes.

The result is the bot's own: the winning entrant's side in the match (:class:`MatchSeat.side`,
which partners share) against the bot's. It is computed by the database, so filtering and
counting stay in SQL whatever the size of the games table; the list is newest first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django.db.models import Case, CharField, F, OuterRef, Q, QuerySet, Subquery, Value, When
from django.http import QueryDict

from webui.league.models import Bot, BotVersion, Game, MatchSeat, Variant

from .api_input import ApiError, query_choice, query_int
from .reads import game_row, version_refs

RESULTS = ("win", "loss", "draw", "forfeit")
"""The values of the ``result`` filter."""
PARAMS = {
    "variant": "only games of this variant (its slug)",
    "opponent": "only games against this bot (its name)",
    "result": "only games this bot won (win), lost (loss), drew (draw) or forfeited (forfeit)",
    "page": "the page, from 1 (default 1)",
    "limit": "games per page, from 1 to 100 (default 20)",
}
"""The query parameters of a game list, as the API describes them."""
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_PAGE = 1_000_000


@dataclass(frozen=True)
class Filters:
    """A game list's filters and page, checked."""

    variant: str | None = None
    opponent: str | None = None
    result: str | None = None
    page: int = 1
    limit: int = DEFAULT_LIMIT

    def query(self, page: int | None = None) -> str:
        """These filters as a query string (for the page's links), on ``page`` if given."""
        params = QueryDict(mutable=True)
        for name in ("variant", "opponent", "result"):
            value = getattr(self, name)
            if value:
                params[name] = value
        if self.limit != DEFAULT_LIMIT:
            params["limit"] = str(self.limit)
        params["page"] = str(page if page is not None else self.page)
        return params.urlencode()

    @property
    def active(self) -> bool:
        """Whether any filter narrows the list."""
        return bool(self.variant or self.opponent or self.result)


def _own_seats(bot: Bot, version: BotVersion | None) -> QuerySet[MatchSeat]:
    seats = MatchSeat.objects.all()
    return seats.filter(version=version) if version is not None else seats.filter(
        version__bot=bot)


def choices(bot: Bot, version: BotVersion | None = None) -> dict[str, list[str]]:
    """The values each filter takes: every variant, the bots it played, the results."""
    matches = _own_seats(bot, version).values("match_id")
    opponents = (
        Bot.objects.filter(versions__match_seats__match_id__in=matches)
        .exclude(pk=bot.pk).order_by("name").values_list("name", flat=True).distinct()
    )
    return {
        "variant": list(Variant.objects.order_by("slug").values_list("slug", flat=True)),
        "opponent": list(opponents),
        "result": list(RESULTS),
    }


def parse(query: QueryDict, valid: dict[str, list[str]]) -> Filters:
    """The filters of a request's query, each checked against ``valid`` (:func:`choices`)."""
    return Filters(
        variant=query_choice(query, "variant", valid["variant"]),
        opponent=query_choice(query, "opponent", valid["opponent"]),
        result=query_choice(query, "result", valid["result"]),
        page=query_int(query, "page", 1, MAX_PAGE, 1),
        limit=query_int(query, "limit", 1, MAX_LIMIT, DEFAULT_LIMIT),
    )


def games(bot: Bot, version: BotVersion | None, filters: Filters) -> QuerySet[Game]:
    """The bot's (or version's) games matching ``filters``, each with its ``own_result``."""
    own = _own_seats(bot, version)
    side_of_me = Subquery(own.filter(match_id=OuterRef("match_id")).values("side")[:1])
    side_of_winner = Subquery(
        MatchSeat.objects.filter(match_id=OuterRef("match_id"), index=OuterRef("winner_entrant"))
        .values("side")[:1]
    )
    qs = (
        Game.objects.filter(match_id__in=own.values("match_id"))
        .annotate(my_side=side_of_me, win_side=side_of_winner)
        .annotate(own_result=Case(
            When(~Q(void=""), then=Value("void")),
            When(winner_side__isnull=True, then=Value("draw")),
            When(win_side=F("my_side"), then=Value("win")),
            default=Value("loss"),
            output_field=CharField(),
        ))
    )
    if filters.variant:
        qs = qs.filter(variant__slug=filters.variant)
    if filters.opponent:
        qs = qs.filter(match_id__in=MatchSeat.objects.filter(
            version__bot__name=filters.opponent).values("match_id"))
    if filters.result == "forfeit":
        qs = qs.filter(forfeit__isnull=False, own_result__in=["loss", "draw"])
    elif filters.result:
        qs = qs.filter(own_result=filters.result)
    return qs


def game_list(bot: Bot, version: BotVersion | None, filters: Filters) -> dict[str, Any]:
    """One page of the list: its games (newest first), the count, the pages and the filters."""
    qs = games(bot, version, filters)
    count = qs.count()
    pages = max(1, math.ceil(count / filters.limit))
    if filters.page > pages:
        raise ApiError(400, f"query parameter 'page': {filters.page} is past the last page, "
                            f"{pages}")
    start = (filters.page - 1) * filters.limit
    rows = list(
        qs.select_related("variant", "match__season").defer("replay")
        .order_by("-created", "-id")[start:start + filters.limit]
    )
    refs = version_refs(p for g in rows for p in (g.players or []))
    out = []
    for g in rows:
        row = game_row(g, refs)
        row["result"] = g.own_result  # type: ignore[attr-defined]
        if g.forfeit and row["result"] != "win":
            row["result"] = "forfeit"
        out.append(row)
    return {
        "games": out,
        "count": count,
        "page": filters.page,
        "pages": pages,
        "limit": filters.limit,
        "filters": {"variant": filters.variant, "opponent": filters.opponent,
                    "result": filters.result},
    }
