"""The games as a data set: ``GET /api/games/export`` streams replays as gzip-compressed JSON
Lines, a page at a time, in game id order; its own route table (:data:`ROUTES`,
:data:`SCHEMAS`), joined with the others by :mod:`webui.web.openapi`.

Each line is one game: its id, match, kind, variant, whether it was rated, when it was played,
its players' labels and its replay (REPLAY.md). The filters are ``variant``, ``bot`` (a bot
that played in it), ``since`` and ``until`` (dates or date-times, ``until`` excluded) and
``rated`` (``true``, the default, ``false`` or ``any``); void games are never exported. The
cursor is ``after``: the games with a greater id. The answer's ``X-Export-Next`` header is the
next page's ``after`` (absent on the last page), ``X-Export-Count`` the games in this page and
``X-Export-Remaining`` those matching from this page on, so a download knows when it is done,
how far it is, and resumes from the last id it holds. Game ids follow the order in which
results commit (:func:`webui.league.matches.record_result` inserts its games last, under one
lock held to its commit), so a game that is not yet visible always gets an id above every
visible one: a resumed download misses none.

What keeps a download from starving the site: a page holds at most
``ARENA_EXPORT_MAX_LIMIT`` games (default 2,000), its rows are read from a server-side cursor
in chunks and compressed as they go (memory stays flat whatever the page), and a client
(its API token's user, else its address) may ask for ``ARENA_EXPORT_PAGES_PER_MINUTE`` pages
a minute (default 30; django-ratelimit in the shared ``limits`` cache); beyond that the answer
is 429 with ``Retry-After``.
"""

from __future__ import annotations

import datetime
import json
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet, TextField
from django.db.models.functions import Cast
from django.http import HttpRequest, JsonResponse, QueryDict, StreamingHttpResponse
from django.utils import dateparse, timezone

from webui.league.models import Bot, BotVersion, Game, MatchSeat, Variant

from .api_input import ApiError, query_choice, query_int
from .client_ip import client_ip
from .routes import Route, request_user
from .schema import B, I, S, array, obj, ref

CHUNK_ROWS = 200
"""Rows read from the database at a time (the server-side cursor's chunk)."""
FLUSH_BYTES = 256 * 1024
"""Uncompressed bytes gathered before they are compressed and sent."""
MAX_CURSOR = 10**18 - 1
RATED = ("true", "false", "any")
PARAMS = {
    "variant": "only games of this variant (its slug, as in /api/variants)",
    "bot": "only games in which this bot played (its name)",
    "since": "only games played at or after this date or date-time (ISO 8601, UTC if no offset)",
    "until": "only games played before this date or date-time (ISO 8601, UTC if no offset)",
    "rated": "true (the default: rated games only), false (unrated only) or any",
    "after": "the cursor: only games with a greater id (the X-Export-Next of the page before; "
    "default 0)",
    "limit": "games in this page, from 1 to the site's maximum (default 1000, at most 2000 "
    "unless the site says otherwise)",
}


def max_limit() -> int:
    """The most games one page may hold."""
    return int(getattr(settings, "ARENA_EXPORT_MAX_LIMIT", 2000))


def query_moment(query: QueryDict, name: str) -> datetime.datetime | None:
    """A date (midnight UTC) or a date-time query parameter, else None."""
    raw = query.get(name) or None
    if raw is None:
        return None
    moment: datetime.datetime | None = None
    try:
        moment = dateparse.parse_datetime(raw)
        if moment is None:
            day = dateparse.parse_date(raw)
            if day is not None:
                moment = datetime.datetime(day.year, day.month, day.day)
    except ValueError:
        moment = None
    if moment is None:
        raise ApiError(
            400,
            f"query parameter {name!r} must be a date (2026-11-26) or a "
            f"date-time (2026-11-26T18:00:00Z), not {raw!r}",
        )
    if timezone.is_naive(moment):
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment


def export_filters(query: QueryDict) -> tuple[QuerySet[Game], int, int]:
    """The games a request's filters select (void ones never), its cursor and its limit;
    a bad parameter is an :class:`ApiError` naming it."""
    games = Game.objects.filter(void="").order_by("id")
    slug = query.get("variant") or None
    if slug is not None:
        if not Variant.objects.filter(slug=slug).exists():
            query_choice(
                query,
                "variant",
                list(Variant.objects.order_by("slug").values_list("slug", flat=True)),
            )
        games = games.filter(variant__slug=slug)
    name = query.get("bot") or None
    if name is not None:
        bot = Bot.objects.filter(name=name).first()
        if bot is None:
            raise ApiError(400, f"query parameter 'bot': there is no bot {name[:80]!r}")
        games = games.filter(
            Exists(
                MatchSeat.objects.order_by().filter(match_id=OuterRef("match_id"), version__bot=bot)
            )
        )
    since, until = query_moment(query, "since"), query_moment(query, "until")
    if since is not None:
        games = games.filter(created__gte=since)
    if until is not None:
        games = games.filter(created__lt=until)
    rated = query_choice(query, "rated", RATED) or "true"
    if rated != "any":
        games = games.filter(match__rated=rated == "true")
    after = query_int(query, "after", 0, MAX_CURSOR, 0)
    limit = query_int(query, "limit", 1, max_limit(), min(1000, max_limit()))
    return games, after, limit


def throttle(request: HttpRequest) -> JsonResponse | None:
    """At most ``ARENA_EXPORT_PAGES_PER_MINUTE`` pages a minute per client (a token's user,
    else the address): beyond, the 429 to answer (with ``Retry-After``)."""
    from django_ratelimit.core import get_usage

    user = request_user(request)
    who = f"user:{user.pk}" if user.is_authenticated else f"ip:{client_ip(request) or '-'}"
    most = int(getattr(settings, "ARENA_EXPORT_PAGES_PER_MINUTE", 30))
    usage = get_usage(
        request,
        group="games-export",
        key=lambda _group, _req: who,
        rate=f"{most}/m",
        method="GET",
        increment=True,
    )
    if not usage or not usage["should_limit"]:
        return None
    wait = max(1, int(usage["time_left"]))
    response = JsonResponse(
        {"error": f"at most {most} export pages a minute per client; ask again in {wait} s"},
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response


def game_line(head: dict[str, Any], replay_text: str) -> bytes:
    """One game as a line of the export: its fields, then its replay as the database keeps
    its text (valid JSON: decoded and encoded again, it would cost most of the export's
    time)."""
    fields = json.dumps(head, ensure_ascii=False, separators=(",", ":"))
    return f'{fields[:-1]},"replay":{replay_text}}}\n'.encode()


def gzip_lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    """``lines`` as one gzip member, compressed as they come."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    pending: list[bytes] = []
    size = 0
    for data in lines:
        pending.append(data)
        size += len(data)
        if size >= FLUSH_BYTES:
            out = packer.compress(b"".join(pending))
            pending, size = [], 0
            if out:
                yield out
    yield packer.compress(b"".join(pending)) + packer.flush()


def get_export(request: HttpRequest) -> Any:
    games, after, limit = export_filters(request.GET)
    refused = throttle(request)
    if refused is not None:
        return refused
    page = list(games.filter(id__gt=after).values_list("id", "players")[:limit])
    remaining = games.filter(id__gt=after).count() if page else 0
    version_ids = {p for _, players in page for p in players if isinstance(p, int)}
    labels = {
        v.pk: v.label for v in BotVersion.objects.filter(pk__in=version_ids).select_related("bot")
    }

    def lines() -> Iterator[bytes]:
        if not page:
            return
        rows = (
            games.filter(id__gt=after, id__lte=page[-1][0])
            .annotate(replay_text=Cast("replay", TextField()))
            .values_list(
                "id",
                "match_id",
                "match__kind",
                "variant__slug",
                "match__rated",
                "created",
                "players",
                "replay_text",
            )
        )
        for pk, match, kind, variant, rated, created, players, replay_text in rows.iterator(
            chunk_size=CHUNK_ROWS
        ):
            yield game_line(
                {
                    "id": pk,
                    "match": match,
                    "kind": kind,
                    "variant": variant,
                    "rated": rated,
                    "created": created.isoformat(),
                    "players": [labels.get(p, f"version {p}") for p in players],
                },
                replay_text,
            )

    response = StreamingHttpResponse(gzip_lines(lines()), content_type="application/gzip")
    response["Content-Disposition"] = f'attachment; filename="games-after-{after}.jsonl.gz"'
    response["X-Export-Count"] = str(len(page))
    response["X-Export-Remaining"] = str(remaining)
    if remaining > len(page):
        response["X-Export-Next"] = str(page[-1][0])
    response["Cache-Control"] = "no-store"
    return response


SCHEMAS: dict[str, dict[str, Any]] = {
    "GameExport": {
        "type": "string",
        "format": "binary",
        "description": "gzip-compressed JSON Lines, one game a line: "
        + json.dumps(
            obj(
                {
                    "id": I,
                    "match": I,
                    "kind": S,
                    "variant": S,
                    "rated": B,
                    "created": S,
                    "players": array(S),
                    "replay": ref("Replay"),
                }
            )
        ),
    },
}

ROUTES: list[Route] = [
    Route(
        "games/export",
        "games-export",
        {"GET": get_export},
        "The games as a data set: replays as gzip-compressed JSON Lines (one game a line: "
        "id, match, kind, variant, rated, created, players, replay), in id order, filtered "
        "by variant, bot, date and rated or not; void games never. Page with 'after': the "
        "header X-Export-Next is the next page's (absent on the last page); X-Export-Count "
        "and X-Export-Remaining count this page's games and those left from it on. A client "
        "may ask for a few pages a minute (429 with Retry-After beyond).",
        {"GET": "GameExport"},
        params=PARAMS,
    ),
]
