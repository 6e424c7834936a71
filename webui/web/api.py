"""The JSON API: the same data as the pages, token-authenticated writes, and its OpenAPI text.

Every route is declared once in :data:`ROUTES` with its method, summary and schemas; the URL
table and ``/api/openapi.json`` are both built from it, so nothing is served undescribed. Reads
are public; writes need ``Authorization: Bearer <token>`` (tokens are made on the account page).
Bad input (a body field, a query parameter, a number out of its range) is answered with a
status 4xx and ``{"error": "one line"}`` naming it (:mod:`webui.web.api_input`); nothing is
changed. Under ``/api/`` a missing route or a server failure is JSON too (:mod:`webui.web.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import wraps
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from arena.archives import MAX_ARCHIVE_BYTES
from webui.league import inputs, limits, services
from webui.league.models import Bot, BotVersion, Game, Match, Season, Variant
from webui.league.seat_limits import SEAT_LIMITS

from . import game_lists, live_progress, reads
from .api_input import (
    MAX_JSON_BYTES,
    ApiError,
    check_query,
    field,
    json_body,
    number,
    query_choice,
    query_int,
    text,
)
from .models import ApiToken, hash_token
from .replay_frames import FramesError, expand_replay
from .submission import SubmissionError, add_version, create_bot_with_version


def _user(request: HttpRequest) -> Any:
    """The user of a bearer token, else the session's user (for reads)."""
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() in {"bearer", "token"} and key.strip():
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_token(key.strip()))
            .first()
        )
        if token is None or not token.user.is_active:
            raise ApiError(401, "the API token is not valid")
        ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        return token.user
    if header:
        raise ApiError(401, "use 'Authorization: Bearer <token>'")
    return getattr(request, "user", AnonymousUser())


def _token_user(request: HttpRequest) -> Any:
    """The user of the request's bearer token; writes accept nothing else."""
    if not request.headers.get("Authorization"):
        raise ApiError(401, "this needs an API token: 'Authorization: Bearer <token>'")
    return _user(request)


Handler = Callable[..., Any]


@dataclass(frozen=True)
class Route:
    """One API route: its path (Django syntax), handlers per method and its description."""

    path: str
    name: str
    methods: dict[str, Handler]
    summary: str
    responses: dict[str, str] = dataclass_field(default_factory=dict)  # method -> schema
    request: dict[str, str] = dataclass_field(default_factory=dict)  # method -> schema
    auth: frozenset[str] = frozenset()  # methods that need a token
    tag: str = "read"
    params: dict[str, str] = dataclass_field(default_factory=dict)  # query parameter -> text


def _dispatch(route: Route) -> Callable[..., HttpResponse]:
    @csrf_exempt
    @wraps(next(iter(route.methods.values())))
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponse:
        handler = route.methods.get(request.method or "GET")
        if handler is None:
            response = JsonResponse(
                {"error": f"method {request.method} is not allowed here"}, status=405
            )
            response["Allow"] = ", ".join(route.methods)
            return response
        try:
            check_query(request.GET, route.params)
            result = handler(request, **kwargs)
        except ApiError as exc:
            return JsonResponse({"error": exc.message}, status=exc.status)
        except Http404:
            return JsonResponse({"error": f"nothing at {request.path}"}, status=404)
        except RequestDataTooBig:
            return JsonResponse({"error": "the request body is too large"}, status=413)
        except (SubmissionError, services.LeagueError) as exc:
            return JsonResponse({"error": str(exc)}, status=400)
        if isinstance(result, HttpResponse):
            return result
        status = 201 if request.method == "POST" and route.tag == "create" else 200
        return JsonResponse(result, status=status, safe=False,
                            json_dumps_params={"ensure_ascii": False})

    return view


# ---------------------------------------------------------------------------------------------
# Read handlers


def get_variants(request: HttpRequest) -> Any:
    return {"variants": reads.variants_overview()}


def ladder_of(request: HttpRequest, variant: Variant) -> str:
    """The ``ladder`` query parameter, checked against the variant's ladders."""
    ladders = reads.variant_ladders(variant)
    ladder = request.GET.get("ladder") or ladders[0]
    if ladder not in ladders:
        raise ApiError(400, f"ladder {ladder!r}: {variant.slug} has {' and '.join(ladders)}")
    return ladder


def get_leaderboard(request: HttpRequest, slug: str) -> Any:
    variant = get_object_or_404(Variant, slug=slug)
    ladder = ladder_of(request, variant)
    return {"variant": reads.variant_json(variant), "ladder": ladder,
            "ladders": {name: reads.LADDERS[name] for name in reads.variant_ladders(variant)},
            "ratings": reads.leaderboard(variant, ladder),
            "recent_games": reads.recent_games(10, variant)}


def get_bots(request: HttpRequest) -> Any:
    return {"bots": reads.bots()}


def _can_see_private(user: Any, bot: Bot) -> bool:
    return bool(user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


def bot_page_data(bot: Bot, private: bool) -> dict[str, Any]:
    """Everything the bot page shows.

    The rating charts and the head-to-head records change only when the bot's games are
    rated, so they are cached under the bot's rating state (each rating's game count): a
    newly rated game makes a new key, and the page is never staler than the ratings.
    """
    from django.core.cache import cache

    ratings = reads.bot_ratings(bot)
    state = ",".join(f"{r['rating_id']}.{r['games']}" for r in ratings)
    key = f"web:bot:v1:{bot.pk}:{state}"
    rated: dict[str, Any] | None = cache.get(key)
    if rated is None:
        rated = {"charts": reads.bot_charts(bot, ratings),
                 "head_to_head": reads.head_to_head(bot)}
        cache.set(key, rated, 3600)
    return {
        "bot": reads.bot_json(bot, private),
        "ratings": ratings,
        "charts": rated["charts"],
        "recent_matches": reads.recent_matches(bot),
        "head_to_head": rated["head_to_head"],
    }


def get_bot(request: HttpRequest, name: str) -> Any:
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    return bot_page_data(bot, _can_see_private(_user(request), bot))


def get_version(request: HttpRequest, name: str, number: int) -> Any:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), bot__name=name, number=number
    )
    return reads.version_json(version, _can_see_private(_user(request), version.bot))


def get_bot_games(request: HttpRequest, name: str) -> Any:
    bot = get_object_or_404(Bot, name=name)
    return game_lists.game_list(bot, None, game_lists.parse(request.GET, bot))


def get_version_games(request: HttpRequest, name: str, number: int) -> Any:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), bot__name=name, number=number
    )
    filters = game_lists.parse(request.GET, version.bot, version)
    return game_lists.game_list(version.bot, version, filters)


def get_validation_frames(request: HttpRequest, name: str, number: int) -> Any:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), bot__name=name, number=number
    )
    if not _can_see_private(_user(request), version.bot):
        raise ApiError(403, "only the bot's owner and staff see its validation game")
    if not version.validation_replay:
        raise ApiError(404, f"{version.label} has no validation game (yet)")
    try:
        return dict(expand_replay(version.validation_replay))
    except FramesError as exc:
        raise ApiError(422, str(exc)) from None


def get_seasons(request: HttpRequest) -> Any:
    status = query_choice(request.GET, "status", Season.Status.values)
    return {"seasons": reads.seasons(status)}


def get_season(request: HttpRequest, season_id: int) -> Any:
    season = get_object_or_404(Season.objects.select_related("variant"), pk=season_id)
    return reads.season_detail(season)


def get_match(request: HttpRequest, match_id: int) -> Any:
    match = get_object_or_404(Match.objects.select_related("season__variant", "round"),
                              pk=match_id)
    return reads.match_detail(match)


def get_match_live(request: HttpRequest, match_id: int) -> Any:
    return live_progress.match_live(get_object_or_404(Match, pk=match_id))


def get_season_live(request: HttpRequest, season_id: int) -> Any:
    return live_progress.season_live(
        get_object_or_404(Season.objects.select_related("variant"), pk=season_id))


def get_games(request: HttpRequest) -> Any:
    slugs = list(reads.shown_variants().order_by("slug").values_list("slug", flat=True))
    slug = query_choice(request.GET, "variant", slugs)
    limit = query_int(request.GET, "limit", 1, 100, 20)
    variant = Variant.objects.get(slug=slug) if slug else None
    return {"games": reads.recent_games(limit, variant)}


def _game(game_id: int) -> Game:
    return get_object_or_404(Game.objects.select_related("variant", "match__season"), pk=game_id)


def get_game(request: HttpRequest, game_id: int) -> Any:
    return reads.game_detail(_game(game_id))


def get_replay(request: HttpRequest, game_id: int) -> Any:
    from arena.engine import write_replay

    game = get_object_or_404(Game.objects.only("id", "replay"), pk=game_id)
    response = HttpResponse(write_replay(game.replay), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.replay.json"'
    return response


def game_frames(game_id: int) -> dict[str, Any]:
    """The viewer's frames of a stored game (a game never changes, so they are cached)."""
    from django.core.cache import cache

    key = f"web:frames:v1:{game_id}"
    frames: dict[str, Any] | None = cache.get(key)
    if frames is None:
        game = get_object_or_404(Game.objects.only("id", "replay"), pk=game_id)
        try:
            frames = dict(expand_replay(game.replay))
        except FramesError as exc:
            raise ApiError(422, str(exc)) from None
        frames["game"] = game.pk
        cache.set(key, frames, 3600)
    return frames


def get_frames(request: HttpRequest, game_id: int) -> Any:
    return game_frames(game_id)


def post_frames(request: HttpRequest) -> Any:
    import json

    if len(request.body) > MAX_JSON_BYTES:
        raise ApiError(413, f"the replay is larger than {MAX_JSON_BYTES:,} bytes")
    try:
        text = request.body.decode("utf-8")
    except UnicodeDecodeError:
        raise ApiError(400, "the replay is not UTF-8 text") from None
    try:
        # Its text is echoed in the frames: what cannot be encoded is refused here.
        inputs.check_json("replay", json.loads(text))
    except inputs.InputError as exc:
        raise ApiError(400, exc.message) from None
    except (ValueError, RecursionError):
        pass  # not JSON: expand_replay says so, in its own words
    try:
        return dict(expand_replay(text))
    except FramesError as exc:
        raise ApiError(400, str(exc)) from None


def get_me(request: HttpRequest) -> Any:
    user = _user(request)
    if not user.is_authenticated:
        raise ApiError(401, "not logged in and no API token given")
    return {
        "username": user.get_username(),
        "staff": bool(user.is_staff),
        "bots": list(Bot.objects.filter(owner=user).values_list("name", flat=True)),
    }


# ---------------------------------------------------------------------------------------------
# Write handlers


def post_bot(request: HttpRequest) -> Any:
    user = _token_user(request)
    data = json_body(request, {"name", "description"})
    name = text(data, "name", inputs.column_max(Bot, "name"), is_name=True)
    description = text(data, "description", limits.DESCRIPTION_MAX, "")
    bot, _ = create_bot_with_version(user, name, description, None)
    return reads.bot_json(bot, private=True)


def _owned_bot(request: HttpRequest, name: str) -> tuple[Any, Bot]:
    user = _token_user(request)
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    if bot.owner_id != user.pk:
        raise ApiError(403, f"only the owner of bot {bot.name!r} may change it")
    return user, bot


def patch_bot(request: HttpRequest, name: str) -> Any:
    _, bot = _owned_bot(request, name)
    data = json_body(request, {"description"})
    description = text(data, "description", limits.DESCRIPTION_MAX)
    Bot.objects.filter(pk=bot.pk).update(description=description)
    bot.refresh_from_db()
    return reads.bot_json(bot, private=True)


def post_version(request: HttpRequest, name: str) -> Any:
    _, bot = _owned_bot(request, name)
    upload = request.FILES.get("archive")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_ARCHIVE_BYTES:
            raise ApiError(413, f"the archive is {upload.size:,} bytes; the limit is "
                                f"{MAX_ARCHIVE_BYTES:,} bytes")
        data = upload.read()
    elif request.content_type in {"application/zip", "application/gzip", "application/x-gzip",
                                  "application/octet-stream", "application/x-tar+gzip"}:
        data = request.body
    else:
        raise ApiError(400, "send the archive as the multipart field 'archive' or as the body "
                            "with Content-Type application/zip or application/gzip")
    version, created = add_version(bot, data)
    out = reads.version_json(version, private=True)
    out["created_now"] = created
    return JsonResponse(out, status=201 if created else 200)


def _staff(request: HttpRequest) -> Any:
    user = _token_user(request)
    if not user.is_staff:
        raise ApiError(403, "only staff may create and run seasons")
    return user


def _version_by_label(label: Any) -> BotVersion:
    # Ids and numbers beyond their columns' range name no version (and never reach a query).
    if isinstance(label, int) and not isinstance(label, bool):
        version = (BotVersion.objects.select_related("bot").filter(pk=label).first()
                   if 1 <= label < 2**63 else None)
    elif isinstance(label, str) and "@" in label:
        name, _, digits = label.partition("@")
        version = (
            BotVersion.objects.select_related("bot").filter(bot__name=name, number=int(digits))
            .first() if digits.isascii() and digits.isdigit() and len(digits) <= 9 else None
        )
    else:
        version = None
    if version is None:
        raise ApiError(400, f"field 'entrants': entrant {label!r}: no such bot version (use "
                            "'name@number')")
    return version


SEASON_FIELDS = frozenset({"name", "variant", "options", "entrants", "knockout_size",
                           "double_round_robin", "games_per_pairing", "move_time_ms",
                           "bank_ms", "seed", "start", "format", "rounds", "limits"})


def post_season(request: HttpRequest) -> Any:
    user = _staff(request)
    data = json_body(request, SEASON_FIELDS)
    name = text(data, "name", inputs.column_max(Season, "name"), is_name=True)
    variant_name = text(data, "variant", inputs.column_max(Variant, "name"), is_name=True)
    entrants = field(data, "entrants", list)
    if len(entrants) > limits.ENTRANTS_MAX:
        raise ApiError(400, f"field 'entrants' must list at most {limits.ENTRANTS_MAX} "
                            f"versions, not {len(entrants)}")
    options = field(data, "options", dict, {})
    knockout_size = number(data, "knockout_size", 0)
    games_per_pairing = number(data, "games_per_pairing", 2)
    move_time_ms = number(data, "move_time_ms", 1000)
    bank_ms = number(data, "bank_ms", 30_000)
    seed = number(data, "seed", None)
    double_round_robin = field(data, "double_round_robin", bool, False)
    start = field(data, "start", bool, False)
    try:
        limits.check_bank(move_time_ms, bank_ms, "field 'bank_ms'", "field 'move_time_ms'")
    except limits.LimitError as exc:
        raise ApiError(400, str(exc)) from None
    versions = [_version_by_label(e) for e in entrants]
    with transaction.atomic():
        variant = services.get_variant(variant_name, options)
        season = services.create_season(
            name=name,
            variant=variant,
            entrants=versions,
            knockout_size=knockout_size,
            double_round_robin=double_round_robin,
            games_per_pairing=games_per_pairing,
            move_time_ms=move_time_ms,
            bank_ms=bank_ms,
            seed=seed,
            created_by=user,
            format=text(data, "format", 20, None, is_name=True),
            swiss_rounds=number(data, "rounds", None),
            limits=field(data, "limits", dict, None),
        )
        if start:
            services.start_season(season)
    return reads.season_detail(Season.objects.select_related("variant").get(pk=season.pk))


def post_season_start(request: HttpRequest, season_id: int) -> Any:
    _staff(request)
    season = get_object_or_404(Season, pk=season_id)
    if season.status != Season.Status.DRAFT:
        raise ApiError(409, f"season {season.name!r} is {season.status}, not a draft")
    services.start_season(season)
    return JsonResponse(reads.season_row(Season.objects.select_related("variant")
                                         .get(pk=season.pk)), status=202)


# ---------------------------------------------------------------------------------------------
# Routes and the OpenAPI description


def get_openapi(request: HttpRequest) -> Any:
    return openapi()


ROUTES: list[Route] = [
    Route("openapi.json", "openapi", {"GET": get_openapi}, "This description (OpenAPI 3.1).",
          {"GET": "OpenAPI"}),
    Route("me", "me", {"GET": get_me}, "Who the token (or session) belongs to.", {"GET": "Me"}),
    Route("variants", "variants", {"GET": get_variants}, "Every variant played here.",
          {"GET": "VariantList"}),
    Route("variants/<slug:slug>/leaderboard", "leaderboard", {"GET": get_leaderboard},
          "The TrueSkill leaderboard of a variant, best conservative rating first "
          "(?ladder=solo, or partners for the rotating partnerships of a four-player "
          "partnership variant).",
          {"GET": "Leaderboard"},
          params={"ladder": "solo (the default) or partners (rotating partnerships of a "
                  "four-player partnership variant)"}),
    Route("bots", "bots", {"GET": get_bots, "POST": post_bot},
          "GET: every bot. POST (token): create a bot you own.",
          {"GET": "BotList", "POST": "Bot"}, {"POST": "BotCreate"}, frozenset({"POST"}),
          tag="create"),
    Route("bots/<slug:name>", "bot", {"GET": get_bot, "PATCH": patch_bot},
          "GET: a bot, its ratings, rating history, recent matches and head-to-head. "
          "PATCH (owner's token): change its description.",
          {"GET": "BotPage", "PATCH": "Bot"}, {"PATCH": "BotUpdate"}, frozenset({"PATCH"})),
    Route("bots/<slug:name>/games", "bot-games", {"GET": get_bot_games},
          "The bot's games, newest first, a page at a time, filtered by variant, opponent "
          "and result (from the bot's side).", {"GET": "GamePage"},
          params=game_lists.PARAMS),
    Route("bots/<slug:name>/versions", "versions", {"POST": post_version},
          "Upload a new version (owner's token): a zip or tar.gz with bot.toml, as the "
          "multipart field 'archive' or the raw body. It is validated by a worker.",
          {"POST": "Version"}, {"POST": "Archive"}, frozenset({"POST"}), tag="create"),
    Route("bots/<slug:name>/versions/<num:number>", "version", {"GET": get_version},
          "A bot version; its owner also sees the validation log.", {"GET": "Version"}),
    Route("bots/<slug:name>/versions/<num:number>/games", "version-games",
          {"GET": get_version_games},
          "The version's games, as the bot's (same filters and pages).", {"GET": "GamePage"},
          params=game_lists.PARAMS),
    Route("bots/<slug:name>/versions/<num:number>/validation/frames", "validation-frames",
          {"GET": get_validation_frames},
          "The version's validation game against the random bot, as viewer frames (the "
          "owner and staff only).", {"GET": "Frames"}),
    Route("seasons", "seasons", {"GET": get_seasons, "POST": post_season},
          "GET: seasons, newest first (?status=draft|running|finished). POST (staff token): "
          "create a season (format round-robin, swiss, tables or partnerships), optionally "
          "starting it.",
          {"GET": "SeasonList", "POST": "SeasonPage"}, {"POST": "SeasonCreate"},
          frozenset({"POST"}), tag="create",
          params={"status": "only seasons in this state: draft, running or finished"}),
    Route("seasons/<id:season_id>", "season", {"GET": get_season},
          "A season: standings, cross-table, rounds, matches, knockout bracket, and its "
          "format's schedule (Swiss rounds, tables, the partnership rota).",
          {"GET": "SeasonPage"}),
    Route("seasons/<id:season_id>/start", "season-start", {"POST": post_season_start},
          "Start a draft season (staff token): its first round is scheduled.",
          {"POST": "Season"}, {}, frozenset({"POST"})),
    Route("seasons/<id:season_id>/live", "season-live", {"GET": get_season_live},
          "A season's live progress: matches done of planned, and the matches being played "
          "with their current game's latest moves (the season page polls it).",
          {"GET": "SeasonLive"}),
    Route("matches/<id:match_id>", "match", {"GET": get_match}, "A match and its games.",
          {"GET": "MatchPage"}),
    Route("matches/<id:match_id>/live", "match-live", {"GET": get_match_live},
          "A match's live progress: games done of planned, and the current game's latest "
          "moves as its worker plays them (the match page polls it).", {"GET": "MatchLive"}),
    Route("games", "games", {"GET": get_games}, "Recent games (?variant=slug&limit=20).",
          {"GET": "GameList"},
          params={"variant": "only games of this variant (its slug, as in /api/variants)",
                  "limit": "how many, from 1 to 100 (default 20)"}),
    Route("games/<id:game_id>", "game", {"GET": get_game}, "A game without its replay.",
          {"GET": "Game"}),
    Route("games/<id:game_id>/replay", "game-replay", {"GET": get_replay},
          "The game's replay, in the REPLAY.md format (a download).", {"GET": "Replay"}),
    Route("games/<id:game_id>/frames", "game-frames", {"GET": get_frames},
          "The replay expanded by the engine into the viewer's frames.", {"GET": "Frames"}),
    Route("replays/frames", "replay-frames", {"POST": post_frames},
          "Expand any replay (the body, REPLAY.md JSON) into frames; nothing is stored.",
          {"POST": "Frames"}, {"POST": "Replay"}, tag="compute"),
]


def urlpatterns() -> list[URLPattern]:
    """The API's URL patterns (mounted under ``api/``)."""
    return [path(r.path, _dispatch(r), name="api-" + r.name) for r in ROUTES]


PATH_SCHEMAS: dict[str, dict[str, Any]] = {
    "id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    "num": {"type": "integer", "minimum": 0, "maximum": 10**9 - 1},
    "int": {"type": "integer", "minimum": 0},
    "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
}
"""What each path converter matches (anything else is no route: a 404)."""


def _openapi_path(django_path: str, prefix: str = "/api/") -> tuple[str, list[dict[str, Any]]]:
    import re

    params = []
    out = prefix + django_path

    def repl(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        params.append({"name": name, "in": "path", "required": True,
                       "schema": dict(PATH_SCHEMAS.get(kind, {"type": "string"}))})
        return "{" + name + "}"

    out = re.sub(r"<(\w+):(\w+)>", repl, out)
    return out, params


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741
N = {"type": "number"}
B = {"type": "boolean"}
ANY: dict[str, Any] = {}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _list(item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": item}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


SEAT_LIMITS_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "description": "a season's seat limits, each optional: memory_mb, processes, tmp_mb, "
                   "cpu_seconds, file_mb, open_files (docs/SECURITY.md)",
    "properties": {name: {"type": "integer", "minimum": lo, "maximum": hi}
                   for name, (lo, hi, _, _, _) in SEAT_LIMITS.items()},
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "Error": _obj({"error": S}, ["error"]),
    "OpenAPI": _obj({"openapi": S, "paths": {"type": "object"}}),
    "Me": _obj({"username": S, "staff": B, "bots": _list(S)}),
    "VersionRef": _obj({"id": I, "label": S, "bot": S, "number": I}),
    "Variant": _obj({"slug": S, "name": S, "label": S, "options": {"type": "object"},
                     "standard": B, "players": I, "sides": I, "rated": I}),
    "VariantList": _obj({"variants": _list(_ref("Variant"))}),
    "LeaderRow": _obj({"rank": I, "key": S, "label": S, "versions": _list(_ref("VersionRef")),
                       "ladder": S, "mu": N, "sigma": N, "conservative": N, "games": I, "wins": I,
                       "draws": I, "losses": I, "win_rate": _nullable(N), "provisional": B}),
    "Leaderboard": _obj({"variant": _ref("Variant"), "ladder": S,
                         "ladders": {"type": "object"}, "ratings": _list(_ref("LeaderRow")),
                         "recent_games": _list(_ref("Game"))}),
    "BotList": _obj({"bots": _list(_obj({"name": S, "owner": S, "description": S,
                                          "versions": I}))}),
    "Version": _obj({"id": I, "label": S, "number": I, "sha256": S, "status": S,
                     "status_reason": S, "manifest": {"type": "object"}, "created": S,
                     "validated": _nullable(S), "validation_log": S, "address": S,
                     "created_now": B, "validation_games": _list(_ref("ValidationGame"))}),
    "ValidationGame": _obj({"index": I, "players": _list(S), "totals": _list(I),
                            "winner": _nullable(S), "forfeit": ANY, "void": _nullable(S),
                            "answered": I, "fallbacks": I, "faults": _list(_ref("Fault"))}),
    "Bot": _obj({"name": S, "owner": S, "description": S, "created": S,
                 "versions": _list(_ref("Version"))}),
    "BotCreate": _obj({"name": S, "description": S}, ["name"]),
    "BotUpdate": _obj({"description": S}, ["description"]),
    "Archive": {"type": "string", "format": "binary",
                "description": "a zip or tar.gz with bot.toml at its top"},
    "RatingPoint": _obj({"seq": I, "mu": N, "sigma": N, "conservative": N}),
    "BotPage": _obj({
        "bot": _ref("Bot"),
        "ratings": _list(_obj({"variant": S, "variant_label": S, "ladder": S, "version": I,
                               "label": S,
                               "rating_id": I, "mu": N, "sigma": N, "conservative": N,
                               "games": I, "wins": I, "draws": I, "losses": I,
                               "win_rate": _nullable(N), "provisional": B})),
        "charts": _list(_obj({"variant": S, "ladder": S, "label": S, "series": _list(
            _obj({"label": S, "points": _list(_ref("RatingPoint"))}))})),
        "recent_matches": _list(_ref("Match")),
        "head_to_head": _list(_obj({"opponent": S, "games": I, "wins": I, "draws": I,
                                    "losses": I, "score": _nullable(N)})),
    }),
    "Season": _obj({"id": I, "name": S, "variant": S, "variant_label": S, "status": S,
                    "format": S, "knockout_size": I, "swiss_rounds": I, "games_per_pairing": I,
                    "move_time_ms": I, "bank_ms": I, "seat_limits": SEAT_LIMITS_SCHEMA,
                    "seat_limit_overrides": SEAT_LIMITS_SCHEMA, "entrants": _nullable(I),
                    "matches_done": I, "matches_total": I, "matches_scheduled": I,
                    "created": S,
                    "started": _nullable(S), "finished": _nullable(S)}),
    "SeasonList": _obj({"seasons": _list(_ref("Season"))}),
    "SeasonCreate": _obj({"name": S, "variant": S, "options": {"type": "object"},
                          "entrants": _list({"anyOf": [S, I]}), "knockout_size": I,
                          "double_round_robin": B, "games_per_pairing": I, "move_time_ms": I,
                          "bank_ms": I, "seed": I, "start": B,
                          "format": {"enum": ["round-robin", "swiss", "tables",
                                              "partnerships"]},
                          "rounds": I, "limits": SEAT_LIMITS_SCHEMA},
                         ["name", "variant", "entrants"]),
    "BracketSlot": _obj({"a": ANY, "b": ANY, "match": _nullable(I), "winner": _nullable(S),
                         "score": ANY, "bye": B}),
    "SeasonPage": _obj({
        "season": _ref("Season"),
        "entrants": _list(_obj({"number": I, "version": _ref("VersionRef")})),
        "standings": _list(_obj({"rank": I, "entrant": I, "version": _ref("VersionRef"),
                                 "played": I, "wins": I, "draws": I, "losses": I,
                                 "score": N, "head_to_head": N, "sonneborn_berger": N,
                                 "buchholz": N, "byes": I, "places": _list(I),
                                 "points_for": I, "points_against": I})),
        "crosstable": _nullable(_obj({"order": _list(I), "rows": _list(_obj({
            "entrant": I, "cells": _list(_nullable(N))}))})),
        "rounds": _list(_obj({"number": I, "phase": S, "status": S, "matches": I, "done": I,
                              "running": I})),
        "matches": _list(_ref("Match")),
        "bracket": _nullable(_list(_obj({"title": S, "projected": B,
                                         "slots": _list(_ref("BracketSlot"))}))),
        "format": _obj({"name": S, "label": S, "rounds": I, "bye_score": N, "seats": I,
                        "design": S, "pair_meetings": I, "tables": I,
                        "tables_per_round": I, "sits_out": B}),
        "schedule": _nullable(_list(_obj({
            "number": I, "status": S, "rematches": I, "bye": _nullable(_ref("VersionRef")),
            "pairings": _list(_obj({"board": I, "a": _ref("VersionRef"),
                                    "b": _ref("VersionRef"), "scores": _list(N),
                                    "match": _nullable(I), "status": _nullable(S),
                                    "result": ANY})),
            "tables": _list(_obj({"board": I, "entrants": _list(_ref("VersionRef")),
                                  "sides": _list(_list(_ref("VersionRef"))),
                                  "match": _nullable(I), "status": _nullable(S),
                                  "result": ANY})),
            "sitting_out": _list(_ref("VersionRef"))}))),
    }),
    "Match": _obj({"id": I, "kind": S, "season": _nullable(_obj({"id": I, "name": S})),
                   "round": _nullable(I), "phase": _nullable(S), "rated": B,
                   "board": I, "status": S, "entrants": _list(_ref("VersionRef")),
                   "score": _nullable(_obj({"wins": _list(I), "points": _list(I)})),
                   "winner": _nullable(S), "games_planned": I, "finished": _nullable(S),
                   "error": _nullable(S)}),
    "LiveGame": _obj({"game": I, "deal": I, "players": _list(S), "totals": _list(I),
                      "moves": _list(_obj({"deal": I, "move": I, "seat": I, "text": S})),
                      "updated": S}),
    "MatchLive": _obj({"match": I, "status": S, "finished": B, "games_planned": I,
                       "games_done": I, "current": _nullable(_ref("LiveGame"))}),
    "SeasonLive": _obj({"season": I, "status": S, "matches_done": I, "matches_planned": I,
                        "matches_scheduled": I, "playing": _list(_obj({
                            "match": I, "round": I, "entrants": _list(S), "status": S,
                            "finished": B, "games_planned": I, "games_done": I,
                            "current": _nullable(_ref("LiveGame"))}))}),
    "MatchPage": {"allOf": [_ref("Match"), _obj({"variant": S, "duration_ms": _nullable(I),
                                                 "summary": {"type": "object"},
                                                 "games": _list(_ref("Game"))})]},
    "Game": _obj({"id": I, "match": I, "index": I, "kind": S,
                  "season": _nullable(_obj({"id": I, "name": S})),
                  "variant": S, "players": _list(_ref("VersionRef")), "sides": _list(S),
                  "totals": _list(I), "winner_side": _nullable(I), "outcome": S,
                  "forfeit": ANY, "void": _nullable(S), "faults": I, "duration_ms": I,
                  "created": S, "seats": _list(I), "fault_list": _list(_ref("Fault"))}),
    "GameList": _obj({"games": _list(_ref("Game"))}),
    "GamePage": _obj({"games": _list({"allOf": [_ref("Game"), _obj({
                          "result": {"enum": ["win", "loss", "draw", "forfeit", "void"]}})]}),
                      "count": I, "page": I, "pages": I, "limit": I,
                      "filters": _obj({"variant": _nullable(S), "opponent": _nullable(S),
                                       "result": _nullable(S)})}),
    "Fault": _obj({"deal": I, "move": I, "seat": I, "kind": S, "detail": S}),
    "Replay": {"type": "object", "description": "a game record in the REPLAY.md format",
               "properties": {"format": {"const": "scopa-replay"}, "version": I,
                              "variant": S, "options": {"type": "object"},
                              "players": _list(S), "seed": ANY, "deals": _list(ANY),
                              "result": ANY}},
    "Frame": _obj({"deal": I, "step": I, "to_move": _nullable(I), "dealer": I,
                   "hands": _list(_list(S)), "table": _list(S), "stock": I,
                   "captured": _list(I), "scope": _list(I), "totals": _list(I),
                   "clocks": _list(_nullable(I)), "move": ANY,
                   "faults": _list(_ref("Fault")), "score": ANY}),
    "Frames": _obj({"format": S, "version": I, "variant": S, "options": {"type": "object"},
                    "standard": B, "players": _list(S), "sides": I, "side_of": _list(I),
                    "partners": B, "seed": ANY, "deals": _list(ANY),
                    "frames": _list(_ref("Frame")), "result": ANY, "winner": _nullable(I),
                    "faults": _list(_ref("Fault")), "error": ANY}),
}


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description of every route the site answers: the API's
    (:data:`ROUTES`) and the pages and forms (:data:`webui.web.pages.PAGES`, tag ``page``)."""
    from .pages import PAGES, operations

    paths: dict[str, Any] = {}
    for route in ROUTES:
        url, params = _openapi_path(route.path)
        item: dict[str, Any] = {}
        for method in route.methods:
            op: dict[str, Any] = {
                "operationId": f"{method.lower()}_{route.name.replace('-', '_')}",
                "summary": route.summary,
                "tags": ["write" if method in route.auth else "read"],
                "responses": {
                    "200" if method == "GET" else "201" if route.tag == "create" else "200": {
                        "description": "success",
                        "content": {"application/json": {"schema": _ref(
                            route.responses.get(method, "Error"))}},
                    },
                    "400": {"description": "bad input",
                            "content": {"application/json": {"schema": _ref("Error")}}},
                    "404": {"description": "not found",
                            "content": {"application/json": {"schema": _ref("Error")}}},
                },
            }
            query = [{"name": name, "in": "query", "required": False, "description": about,
                      "schema": I if name in {"limit", "page"} else S}
                     for name, about in route.params.items()] if method == "GET" else []
            if params or query:
                op["parameters"] = params + query
            if method in route.request:
                schema_name = route.request[method]
                if schema_name == "Archive":
                    op["requestBody"] = {"required": True, "content": {
                        "multipart/form-data": {"schema": _obj({"archive": _ref("Archive")},
                                                               ["archive"])},
                        "application/zip": {"schema": _ref("Archive")},
                        "application/gzip": {"schema": _ref("Archive")},
                    }}
                else:
                    op["requestBody"] = {"required": True, "content": {
                        "application/json": {"schema": _ref(schema_name)}}}
            if method in route.auth:
                op["security"] = [{"token": []}]
                op["responses"]["401"] = {"description": "no valid token"}
                op["responses"]["403"] = {"description": "not allowed for this user"}
            item[method.lower()] = op
        paths[url] = item
    for page in PAGES:
        url, params = _openapi_path(page.path, "/")
        paths[url] = operations(page, params)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Scopa Arena API",
            "version": "1",
            "description": "Bots, seasons, ratings and replays of Scopa Arena. Reads are "
                           "public; writes need 'Authorization: Bearer <token>' from the "
                           "account page. The site's pages and forms (tag 'page') are "
                           "described too: forms need the session cookie and Django's CSRF "
                           "token.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "token": {"type": "http", "scheme": "bearer"},
                "session": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
            },
        },
    }


from . import ladder_api  # noqa: E402,F401  (adds the ladder's and challenges' routes)
