"""The JSON API of bots, versions, seasons, matches, games and replays: the same data as the
pages, and token-authenticated writes.

Every route is declared once in :data:`ROUTES` with its method, summary and schemas
(:data:`SCHEMAS`); :mod:`webui.web.openapi` joins this table with the ladder's
(:mod:`webui.web.ladder_api`) into the URL table and ``/api/openapi.json``. Reads
are public; writes need ``Authorization: Bearer <token>`` (tokens are made on the account page).
Bad input (a body field, a query parameter, a number out of its range) is answered with a
status 4xx and ``{"error": "one line"}`` naming it (:mod:`webui.web.api_input`); nothing is
changed. Under ``/api/`` a missing route or a server failure is JSON too (:mod:`webui.web.errors`).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404

from arena.archives import MAX_ARCHIVE_BYTES
from webui.league import formats, inputs, ranges, read_models, seasons, variants
from webui.league.models import Bot, BotVersion, Game, GameLog, Match, Season, Variant
from webui.league.seat_limits import SEAT_LIMITS

from . import (
    game_lists,
    game_logs,
    http_cache,
    live_progress,
    live_tv,
    match_lists,
    paging,
    reads,
    shapes,
    shared_reads,
)
from .api_input import (
    MAX_JSON_BYTES,
    ApiError,
    field,
    json_body,
    number,
    query_choice,
    query_int,
    text,
)
from .replay_frames import FramesError, expand_replay
from .routes import Route, request_user, token_user
from .schema import ANY, B, I, N, S, array, nullable, obj, ref, schema_of
from .submission import add_version, create_bot_with_version, identical_code_warning
from .upload_limits import upload_refusal

# ---------------------------------------------------------------------------------------------
# Read handlers


def get_variants(request: HttpRequest) -> Any:
    return {"variants": reads.variants_overview()}


def ladder_of(request: HttpRequest, variant: Variant) -> str:
    """The ``ladder`` query parameter (a rating pool), checked against the variant's."""
    ladders = reads.variant_pools(variant)
    ladder = request.GET.get("ladder") or ladders[0]
    if ladder not in ladders:
        raise ApiError(400, f"ladder {ladder!r}: {variant.slug} has {' and '.join(ladders)}")
    return ladder


def get_leaderboard(request: HttpRequest, slug: str) -> Any:
    variant = get_object_or_404(Variant, slug=slug)
    ladder = ladder_of(request, variant)
    return {
        "variant": reads.variant_json(variant),
        "ladder": ladder,
        "ladders": {name: reads.POOLS[name] for name in reads.variant_pools(variant)},
        "ratings": reads.leaderboard(variant, ladder),
        "recent_games": reads.recent_games(10, variant),
    }


def get_bots(request: HttpRequest) -> Any:
    return {"bots": reads.bots()}


def _can_see_private(user: Any, bot: Bot) -> bool:
    return bool(user.is_authenticated and (user.pk == bot.owner_id or user.is_staff))


def bot_page_data(bot: Bot, private: bool) -> dict[str, Any]:
    """Everything the bot page shows.

    Its versions are read as they are; the rest is its summary (:func:`reads.bot_summary`),
    cached under the versions of its ratings and of its matches.
    """
    return {"bot": reads.bot_json(bot, private), **reads.bot_summary(bot)}


def get_bot(request: HttpRequest, name: str) -> Any:
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    return bot_page_data(bot, _can_see_private(request_user(request), bot))


def get_version(request: HttpRequest, name: str, number: int) -> Any:
    version = get_object_or_404(
        BotVersion.objects.select_related("bot"), bot__name=name, number=number
    )
    return reads.version_json(version, _can_see_private(request_user(request), version.bot))


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
    if not _can_see_private(request_user(request), version.bot):
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
    # The latest league matches and every knockout one; the rest page by key at
    # /api/seasons/<id>/matches.
    return reads.season_detail(season, match_limit=match_lists.SEASON_PAGE)


def get_match(request: HttpRequest, match_id: int) -> Any:
    match = get_object_or_404(Match.objects.select_related("season__variant", "round"), pk=match_id)
    return reads.match_detail(match)


def get_match_live(request: HttpRequest, match_id: int) -> Any:
    try:
        return live_progress.match_live(match_id)
    except Match.DoesNotExist as missing:
        raise Http404(f"no match {match_id}") from missing


def get_season_live(request: HttpRequest, season_id: int) -> Any:
    try:
        return live_progress.season_live(season_id)
    except Season.DoesNotExist as missing:
        raise Http404(f"no season {season_id}") from missing


def get_tv(request: HttpRequest) -> Any:
    return live_tv.featured(_stay(request))


def _stay(request: HttpRequest) -> int | None:
    """``?match=<id>``: the match a TV shows now, kept while it is played."""
    raw = request.GET.get("match", "")
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 12:
        raise ApiError(400, f"match={raw[:40]!r}: a match id")
    return int(raw)


def get_games(request: HttpRequest) -> Any:
    variant = None
    if request.GET.get("variant"):
        # The variants lists show, read only when one is asked for (the error lists them).
        slugs = list(reads.shown_variants().order_by("slug").values_list("slug", flat=True))
        slug = query_choice(request.GET, "variant", slugs)
        variant = Variant.objects.get(slug=slug)
    limit = query_int(request.GET, "limit", 1, 100, 20)
    position = paging.parse_position(request.GET, len(match_lists.GAMES_ORDER))
    return match_lists.recorded_games(variant, position, limit)


def get_season_matches(request: HttpRequest, season_id: int) -> Any:
    season = get_object_or_404(Season, pk=season_id)
    limit = query_int(request.GET, "limit", 1, 100, match_lists.SEASON_PAGE)
    position = paging.parse_position(request.GET, len(match_lists.SEASON_ORDER))
    return match_lists.season_matches(season, position, limit)


def _game(game_id: int) -> Game:
    return get_object_or_404(Game.objects.select_related("variant", "match__season"), pk=game_id)


def get_game(request: HttpRequest, game_id: int) -> Any:
    return reads.game_detail(_game(game_id))


def get_replay(request: HttpRequest, game_id: int) -> Any:
    from arena.engine import write_replay

    recorded = get_object_or_404(Game.objects.only("id", "created"), pk=game_id).created
    etag = http_cache.game_etag(game_id, recorded, "replay")

    def download() -> HttpResponse:
        game = get_object_or_404(Game.objects.only("id", "replay"), pk=game_id)
        response = HttpResponse(write_replay(game.replay), content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="game-{game.pk}.replay.json"'
        return response

    return http_cache.immutable(request, etag, download)


def _readable_logs(request: HttpRequest, game_id: int) -> list[GameLog]:
    """The game's logs the request's user may read; 404 when none (another user, anonymous,
    a game without logs or no game: all alike, so the answer tells nothing)."""
    found = list(
        game_logs.readable_logs(request_user(request), game_id).select_related("version__bot")
    )
    if not found:
        raise Http404
    return found


def get_game_logs(request: HttpRequest, game_id: int) -> Any:
    return {
        "game": game_id,
        "logs": [game_logs.log_json(log) for log in _readable_logs(request, game_id)],
    }


def get_game_logs_text(request: HttpRequest, game_id: int) -> Any:
    text = game_logs.logs_text(game_id, _readable_logs(request, game_id))
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="game-{game_id}.logs.txt"'
    response["Cache-Control"] = "private, no-store"
    return response


def game_frames(game_id: int, etag: str) -> bytes:
    """The viewer's frames of a stored game (JSON, packed: :func:`http_cache.unpack` gives
    the bytes), ``etag`` being theirs (:func:`http_cache.game_etag`).

    A game never changes: its frames are computed once and kept in the ``frames`` cache that
    every web process shares (:mod:`webui.web.http_cache`). The ETag names the moment the game
    was recorded, and so does the key: a database made afresh reuses ids, and the shared cache
    may outlive it.
    """
    from django.core.cache import caches

    cache = caches[http_cache.FRAMES_CACHE]
    key = f"web:frames:{etag.strip(chr(34))}"
    packed: bytes | None = cache.get(key)
    if packed is None:
        game = Game.objects.only("id", "replay").get(pk=game_id)
        try:
            frames = dict(expand_replay(game.replay))
        except FramesError as exc:
            raise ApiError(422, str(exc)) from None
        frames["game"] = game.pk
        body = JsonResponse(frames, json_dumps_params={"ensure_ascii": False}).content
        packed = http_cache.pack(body)
        cache.set(key, packed, http_cache.FRAMES_TTL_S)
    return packed


def get_frames(request: HttpRequest, game_id: int) -> Any:
    recorded = get_object_or_404(Game.objects.only("id", "created"), pk=game_id).created
    etag = http_cache.game_etag(game_id, recorded, "frames")
    return http_cache.immutable(
        request,
        etag,
        lambda: HttpResponse(
            http_cache.unpack(game_frames(game_id, etag)), content_type="application/json"
        ),
    )


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
    user = request_user(request)
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
    user = token_user(request)
    data = json_body(request, {"name", "description"})
    name = text(data, "name", inputs.column_max(Bot, "name"), is_name=True)
    description = text(data, "description", ranges.DESCRIPTION_MAX, "")
    bot, _ = create_bot_with_version(user, name, description, None)
    return reads.bot_json(bot, private=True)


def _owned_bot(request: HttpRequest, name: str) -> tuple[Any, Bot]:
    user = token_user(request)
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    if bot.owner_id != user.pk:
        raise ApiError(403, f"only the owner of bot {bot.name!r} may change it")
    return user, bot


def patch_bot(request: HttpRequest, name: str) -> Any:
    _, bot = _owned_bot(request, name)
    data = json_body(request, {"description"})
    description = text(data, "description", ranges.DESCRIPTION_MAX)
    Bot.objects.filter(pk=bot.pk).update(description=description)
    read_models.bot_changed([bot.pk])
    bot.refresh_from_db()
    return reads.bot_json(bot, private=True)


def post_version(request: HttpRequest, name: str) -> Any:
    user, bot = _owned_bot(request, name)
    refusal = upload_refusal(request, user)
    if refusal is not None:
        raise ApiError(429, refusal)
    upload = request.FILES.get("archive")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_ARCHIVE_BYTES:
            raise ApiError(
                413,
                f"the archive is {upload.size:,} bytes; the limit is {MAX_ARCHIVE_BYTES:,} bytes",
            )
        data = upload.read()
    elif request.content_type in {
        "application/zip",
        "application/gzip",
        "application/x-gzip",
        "application/octet-stream",
        "application/x-tar+gzip",
    }:
        data = request.body
    else:
        raise ApiError(
            400,
            "send the archive as the multipart field 'archive' or as the body "
            "with Content-Type application/zip or application/gzip",
        )
    version, created = add_version(
        bot,
        data,
        promote_on_pass=_test_then_promote(request.POST.get("test_then_promote"))
        if upload is not None
        else _test_then_promote(request.GET.get("test_then_promote")),
    )
    out = reads.version_json(version, private=True)
    out["created_now"] = created
    out["warning"] = identical_code_warning(version, created)
    return JsonResponse(out, status=201 if created else 200)


def _test_then_promote(raw: str | None) -> bool:
    """The upload's ``test_then_promote`` (a form field, or a query parameter with a raw body)."""
    if raw is None or raw.strip().lower() in {"", "0", "false", "no"}:
        return False
    if raw.strip().lower() in {"1", "true", "yes"}:
        return True
    raise ApiError(400, f"field 'test_then_promote': {raw[:40]!r} is not true or false")


def _staff(request: HttpRequest) -> Any:
    user = token_user(request)
    if not user.is_staff:
        raise ApiError(403, "only staff may create and run seasons")
    return user


def _version_by_label(label: Any) -> BotVersion:
    # Ids and numbers beyond their columns' range name no version (and never reach a query).
    if isinstance(label, int) and not isinstance(label, bool):
        version = (
            BotVersion.objects.select_related("bot").filter(pk=label).first()
            if 1 <= label < 2**63
            else None
        )
    elif isinstance(label, str) and "@" in label:
        name, _, digits = label.partition("@")
        version = (
            BotVersion.objects.select_related("bot")
            .filter(bot__name=name, number=int(digits))
            .first()
            if digits.isascii() and digits.isdigit() and len(digits) <= 9
            else None
        )
    else:
        version = None
    if version is None:
        raise ApiError(
            400, f"field 'entrants': entrant {label!r}: no such bot version (use 'name@number')"
        )
    return version


SEASON_FIELDS = frozenset(
    {
        "name",
        "variant",
        "options",
        "entrants",
        "games_per_pairing",
        "move_time_ms",
        "bank_ms",
        "seed",
        "start",
        "format",
        "rounds",
        "limits",
    }
)
"""A new season's fields besides its format's options (:func:`season_fields`)."""


def season_fields() -> frozenset[str]:
    """What a new season's body may hold: :data:`SEASON_FIELDS` and every format's options
    (each by its name, top-level)."""
    return SEASON_FIELDS | set(formats.every_option())


def format_options(data: dict[str, Any]) -> dict[str, object]:
    """The format options a body gives, each checked against its declaration."""
    chosen: dict[str, object] = {}
    for name, declared in formats.every_option().items():
        if name in data:
            try:
                chosen[name] = declared.check(data[name], label=f"field {name!r}")
            except formats.FormatError as exc:
                raise ApiError(400, str(exc)) from None
    return chosen


def post_season(request: HttpRequest) -> Any:
    user = _staff(request)
    data = json_body(request, season_fields())
    name = text(data, "name", inputs.column_max(Season, "name"), is_name=True)
    variant_name = text(data, "variant", inputs.column_max(Variant, "name"), is_name=True)
    entrants = field(data, "entrants", list)
    if len(entrants) > ranges.ENTRANTS_MAX:
        raise ApiError(
            400,
            f"field 'entrants' must list at most {ranges.ENTRANTS_MAX} "
            f"versions, not {len(entrants)}",
        )
    options = field(data, "options", dict, {})
    chosen_options = format_options(data)
    games_per_pairing = number(data, "games_per_pairing", 2)
    move_time_ms = number(data, "move_time_ms", 1000)
    bank_ms = number(data, "bank_ms", 30_000)
    seed = number(data, "seed", None)
    start = field(data, "start", bool, False)
    try:
        ranges.check_bank(move_time_ms, bank_ms, "field 'bank_ms'", "field 'move_time_ms'")
    except ranges.RangeError as exc:
        raise ApiError(400, str(exc)) from None
    versions = [_version_by_label(e) for e in entrants]
    with transaction.atomic():
        variant = variants.get_variant(variant_name, options)
        season = seasons.create_season(
            name=name,
            variant=variant,
            entrants=versions,
            games_per_pairing=games_per_pairing,
            move_time_ms=move_time_ms,
            bank_ms=bank_ms,
            seed=seed,
            created_by=user,
            format=text(data, "format", 20, None, is_name=True),
            seat_limits=field(data, "limits", dict, None),
            format_options=chosen_options,
        )
        if start:
            seasons.start_season(season)
    return reads.season_detail(Season.objects.select_related("variant").get(pk=season.pk))


def post_season_start(request: HttpRequest, season_id: int) -> Any:
    _staff(request)
    season = get_object_or_404(Season, pk=season_id)
    if season.status != Season.Status.DRAFT:
        raise ApiError(409, f"season {season.name!r} is {season.status}, not a draft")
    seasons.start_season(season)
    return JsonResponse(
        reads.season_row(Season.objects.select_related("variant").get(pk=season.pk)), status=202
    )


# ---------------------------------------------------------------------------------------------
# Routes and the OpenAPI description


ROUTES: list[Route] = [
    Route("me", "me", {"GET": get_me}, "Who the token (or session) belongs to.", {"GET": "Me"}),
    Route(
        "variants",
        "variants",
        {"GET": get_variants},
        "Every variant played here.",
        {"GET": "VariantList"},
    ),
    Route(
        "variants/<slug:slug>/leaderboard",
        "leaderboard",
        {"GET": get_leaderboard},
        "The TrueSkill leaderboard of a variant, best conservative rating first "
        "(?ladder=solo, or partners for the rotating partnerships of a four-player "
        "partnership variant).",
        {"GET": "Leaderboard"},
        params={
            "ladder": "solo (the default) or partners (rotating partnerships of a "
            "four-player partnership variant)"
        },
        shared=shared_reads.leaderboard,
    ),
    Route(
        "bots",
        "bots",
        {"GET": get_bots, "POST": post_bot},
        "GET: every bot. POST (token): create a bot you own.",
        {"GET": "BotList", "POST": "Bot"},
        {"POST": "BotCreate"},
        frozenset({"POST"}),
        tag="create",
    ),
    Route(
        "bots/<slug:name>",
        "bot",
        {"GET": get_bot, "PATCH": patch_bot},
        "GET: a bot, its ratings, rating history, recent matches and head-to-head. "
        "PATCH (owner's token): change its description.",
        {"GET": "BotPage", "PATCH": "Bot"},
        {"PATCH": "BotUpdate"},
        frozenset({"PATCH"}),
        shared=shared_reads.bot,
    ),
    Route(
        "bots/<slug:name>/games",
        "bot-games",
        {"GET": get_bot_games},
        "The bot's games, newest first, a page at a time, filtered by variant, opponent "
        "and result (from the bot's side).",
        {"GET": "GamePage"},
        params=game_lists.PARAMS,
        shared=shared_reads.bot_games,
    ),
    Route(
        "bots/<slug:name>/versions",
        "versions",
        {"POST": post_version},
        "Upload a new version (owner's token): a zip or tar.gz with bot.toml, as the "
        "multipart field 'archive' or the raw body. It is validated by a worker; the bot's "
        "first version then enters the ladder, a later one is a candidate until promoted "
        "(POST bots/<name>/promote), or, with 'test_then_promote' true (a form field, or a "
        "query parameter with a raw body), until a version test of it accepts H1. 'warning' "
        "names a version of identical code. A user may upload ARENA_UPLOADS_PER_HOUR and "
        "ARENA_UPLOADS_PER_DAY archives (429 beyond).",
        {"POST": "Version"},
        {"POST": "Archive"},
        frozenset({"POST"}),
        tag="create",
        params={
            "test_then_promote": "true: promote the version when a version test of it "
            "accepts H1 (with a raw body; a form field with multipart)"
        },
    ),
    Route(
        "bots/<slug:name>/versions/<num:number>",
        "version",
        {"GET": get_version},
        "A bot version; its owner also sees the validation log.",
        {"GET": "Version"},
    ),
    Route(
        "bots/<slug:name>/versions/<num:number>/games",
        "version-games",
        {"GET": get_version_games},
        "The version's games, as the bot's (same filters and pages).",
        {"GET": "GamePage"},
        params=game_lists.PARAMS,
        shared=shared_reads.bot_games,
    ),
    Route(
        "bots/<slug:name>/versions/<num:number>/validation/frames",
        "validation-frames",
        {"GET": get_validation_frames},
        "The version's validation game against the random bot, as viewer frames (the "
        "owner and staff only).",
        {"GET": "Frames"},
    ),
    Route(
        "seasons",
        "seasons",
        {"GET": get_seasons, "POST": post_season},
        "GET: seasons, newest first (?status=draft|running|finished). POST (staff token): "
        "create a season (its format and the format's options: SeasonCreate), optionally "
        "starting it.",
        {"GET": "SeasonList", "POST": "SeasonPage"},
        {"POST": "SeasonCreate"},
        frozenset({"POST"}),
        tag="create",
        params={"status": "only seasons in this state: draft, running or finished"},
    ),
    Route(
        "seasons/<id:season_id>",
        "season",
        {"GET": get_season},
        "A season: standings, cross-table, rounds, its knockout matches and latest league "
        "matches (every match a page at a time: /api/seasons/<id>/matches), knockout "
        "bracket, and its format's schedule (Swiss rounds, tables, the partnership rota).",
        {"GET": "SeasonPage"},
        shared=shared_reads.season,
    ),
    Route(
        "seasons/<id:season_id>/matches",
        "season-matches",
        {"GET": get_season_matches},
        "A season's matches, the latest round first, a page at a time (cursors: a page's "
        "next and prev).",
        {"GET": "MatchPageList"},
        params=match_lists.SEASON_PARAMS,
        shared=shared_reads.season,
    ),
    Route(
        "seasons/<id:season_id>/start",
        "season-start",
        {"POST": post_season_start},
        "Start a draft season (staff token): its first round is scheduled.",
        {"POST": "Season"},
        {},
        frozenset({"POST"}),
    ),
    Route(
        "seasons/<id:season_id>/live",
        "season-live",
        {"GET": get_season_live},
        "A season's live progress: matches done of planned, and the matches being played "
        "with their current game's latest moves (the season page polls it).",
        {"GET": "SeasonLive"},
    ),
    Route(
        "matches/<id:match_id>",
        "match",
        {"GET": get_match},
        "A match and its games.",
        {"GET": "MatchPage"},
    ),
    Route(
        "matches/<id:match_id>/live",
        "match-live",
        {"GET": get_match_live},
        "A match's live progress: games done of planned, the current game's moves as its "
        "worker plays them, and the games finished so far (the match page polls it).",
        {"GET": "MatchLive"},
    ),
    Route(
        "tv",
        "tv",
        {"GET": get_tv},
        "The game featured live (the home page and /tv/ poll it): a match being played, "
        "its entrants and its live progress; ?match=<id> keeps that match while it is played. "
        "match is null when nothing is being played.",
        {"GET": "TvLive"},
        params={"match": "the match shown now: kept while it is played, else the next"},
    ),
    Route(
        "games",
        "games",
        {"GET": get_games},
        "Recorded games, newest first, a page at a time (?variant=slug&limit=20; cursors: "
        "a page's next and prev).",
        {"GET": "GameList"},
        params={
            "variant": "only games of this variant (its slug, as in /api/variants)",
            "limit": "how many, from 1 to 100 (default 20)",
            "after": "the page after this cursor (a page's next)",
            "before": "the page before this cursor (a page's prev)",
        },
        shared=shared_reads.games,
    ),
    Route(
        "games/<id:game_id>",
        "game",
        {"GET": get_game},
        "A game without its replay.",
        {"GET": "Game"},
        shared=shared_reads.game,
    ),
    Route(
        "games/<id:game_id>/replay",
        "game-replay",
        {"GET": get_replay},
        "The game's replay, in the REPLAY.md format (a download).",
        {"GET": "Replay"},
        shared=shared_reads.game,
    ),
    Route(
        "games/<id:game_id>/frames",
        "game-frames",
        {"GET": get_frames},
        "The replay expanded by the engine into the viewer's frames.",
        {"GET": "Frames"},
    ),
    Route(
        "games/<id:game_id>/logs",
        "game-logs",
        {"GET": get_game_logs},
        "What the bots wrote (stderr and stdout) during the game, turn by turn: the seats of "
        "the user's own bots (every seat for staff); 404 for anyone else.",
        {"GET": "GameLogs"},
    ),
    Route(
        "games/<id:game_id>/logs/text",
        "game-logs-text",
        {"GET": get_game_logs_text},
        "The same logs as one text/plain download, a heading line per seat; 404 for anyone "
        "but the bots' owners and staff.",
        {"GET": "GameLogsText"},
    ),
    Route(
        "replays/frames",
        "replay-frames",
        {"POST": post_frames},
        "Expand any replay (the body, REPLAY.md JSON) into frames; nothing is stored.",
        {"POST": "Frames"},
        {"POST": "Replay"},
        tag="compute",
    ),
]


SEAT_LIMITS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "description": "a season's seat limits, each optional: memory_mb, processes, tmp_mb, "
    "cpu_seconds, file_mb, open_files (docs/SECURITY.md)",
    "properties": {
        name: {"type": "integer", "minimum": lo, "maximum": hi}
        for name, (lo, hi, _, _, _) in SEAT_LIMITS.items()
    },
}


def _generated() -> dict[str, dict[str, Any]]:
    """The components generated from the reads' shapes (:mod:`webui.web.shapes`), with the
    season's seat limits described by their table."""
    out = {name: schema_of(shape, shapes.NAMED) for name, shape in shapes.NAMED.items()}
    for key in ("seat_limits", "seat_limit_overrides"):
        out["Season"]["properties"][key] = SEAT_LIMITS_SCHEMA
    return out


GENERATED = _generated()
"""The shapes of :data:`webui.web.shapes.NAMED`, as components."""

SCHEMAS: dict[str, dict[str, Any]] = {
    **GENERATED,
    "Me": obj({"username": S, "staff": B, "bots": array(S)}),
    "BotCreate": obj({"name": S, "description": S}, ["name"]),
    "BotUpdate": obj({"description": S}, ["description"]),
    "Archive": {
        "type": "string",
        "format": "binary",
        "description": "a zip or tar.gz with bot.toml at its top",
    },
    "BracketSlot": obj(
        {"a": ANY, "b": ANY, "match": nullable(I), "winner": nullable(S), "score": ANY, "bye": B}
    ),
    "SeasonPage": obj(
        {
            "season": ref("Season"),
            "entrants": array(obj({"number": I, "version": ref("VersionRef")})),
            "standings": array(
                obj(
                    {
                        "rank": I,
                        "entrant": I,
                        "version": ref("VersionRef"),
                        "played": I,
                        "wins": I,
                        "draws": I,
                        "losses": I,
                        "score": N,
                        "head_to_head": N,
                        "sonneborn_berger": N,
                        "buchholz": N,
                        "byes": I,
                        "places": array(I),
                        "points_for": I,
                        "points_against": I,
                    }
                )
            ),
            "crosstable": nullable(
                obj(
                    {
                        "order": array(I),
                        "rows": array(obj({"entrant": I, "cells": array(nullable(N))})),
                    }
                )
            ),
            "rounds": array(
                obj({"number": I, "phase": S, "status": S, "matches": I, "done": I, "running": I})
            ),
            "matches": array(ref("Match")),
            "bracket": nullable(
                array(obj({"title": S, "projected": B, "slots": array(ref("BracketSlot"))}))
            ),
            "format": obj(
                {
                    "name": S,
                    "label": S,
                    "options": {"type": "object"},
                    "rounds": I,
                    "bye_score": N,
                    "seats": I,
                    "design": S,
                    "pair_meetings": I,
                    "tables": I,
                    "tables_per_round": I,
                    "sits_out": B,
                }
            ),
            "schedule": nullable(
                array(
                    obj(
                        {
                            "number": I,
                            "status": S,
                            "rematches": I,
                            "bye": nullable(ref("VersionRef")),
                            "pairings": array(
                                obj(
                                    {
                                        "board": I,
                                        "a": ref("VersionRef"),
                                        "b": ref("VersionRef"),
                                        "scores": array(N),
                                        "match": nullable(I),
                                        "status": nullable(S),
                                        "result": ANY,
                                    }
                                )
                            ),
                            "tables": array(
                                obj(
                                    {
                                        "board": I,
                                        "entrants": array(ref("VersionRef")),
                                        "sides": array(array(ref("VersionRef"))),
                                        "match": nullable(I),
                                        "status": nullable(S),
                                        "result": ANY,
                                    }
                                )
                            ),
                            "sitting_out": array(ref("VersionRef")),
                        }
                    )
                )
            ),
        }
    ),
    "MatchPage": {
        "allOf": [
            ref("Match"),
            obj(
                {
                    "variant": S,
                    "duration_ms": nullable(I),
                    "summary": {"type": "object"},
                    "games": array(ref("Game")),
                }
            ),
        ]
    },
    "MatchPageList": obj(
        {
            "season": I,
            "matches": array(ref("Match")),
            "next": nullable(S),
            "prev": nullable(S),
            "limit": I,
        }
    ),
    "GamePage": obj(
        {
            "games": array(
                {
                    "allOf": [
                        ref("Game"),
                        obj({"result": {"enum": ["win", "loss", "draw", "forfeit", "void"]}}),
                    ]
                }
            ),
            "next": nullable(S),
            "prev": nullable(S),
            "limit": I,
            "filters": obj(
                {"variant": nullable(S), "opponent": nullable(S), "result": nullable(S)}
            ),
        }
    ),
    "Replay": {
        "type": "object",
        "description": "a game record in the REPLAY.md format",
        "properties": {
            "format": {"const": "scopa-replay"},
            "version": I,
            "variant": S,
            "options": {"type": "object"},
            "players": array(S),
            "seed": ANY,
            "deals": array(ANY),
            "result": ANY,
        },
    },
    "GameLogsText": {"type": "string", "description": "each seat's log under a heading line"},
    "GameLogs": obj(
        {
            "game": I,
            "logs": array(
                obj(
                    {
                        "seat": I,
                        "seats": array(I),
                        "bot": S,
                        "text": S,
                        "cut": I,
                        "turns": array(
                            obj({"deal": I, "move": I, "seat": I, "start": I, "end": I})
                        ),
                    }
                )
            ),
        }
    ),
    "Frame": obj(
        {
            "deal": I,
            "step": I,
            "to_move": nullable(I),
            "dealer": I,
            "hands": array(array(S)),
            "table": array(S),
            "stock": I,
            "captured": array(I),
            "scope": array(I),
            "totals": array(I),
            "clocks": array(nullable(I)),
            "move": ANY,
            "faults": array(ref("Fault")),
            "score": ANY,
        }
    ),
    "Frames": obj(
        {
            "format": S,
            "version": I,
            "variant": S,
            "options": {"type": "object"},
            "standard": B,
            "players": array(S),
            "sides": I,
            "side_of": array(I),
            "partners": B,
            "seed": ANY,
            "deals": array(ANY),
            "frames": array(ref("Frame")),
            "result": ANY,
            "winner": nullable(I),
            "faults": array(ref("Fault")),
            "error": ANY,
        }
    ),
}


def season_schemas() -> dict[str, dict[str, Any]]:
    """The schemas read from the format registry when the description is built: a new
    season's body (its ``format`` one of the formats, and each format's options)."""
    return {
        "SeasonCreate": obj(
            {
                "name": S,
                "variant": S,
                "options": {"type": "object"},
                "entrants": array({"anyOf": [S, I]}),
                "games_per_pairing": I,
                "move_time_ms": I,
                "bank_ms": I,
                "seed": I,
                "start": B,
                "format": {
                    "enum": ["auto", *formats.format_names()],
                    "description": "; ".join(
                        f"{key}: {cls.description}" for key, cls in formats.FORMATS.items()
                    ),
                },
                "limits": SEAT_LIMITS_SCHEMA,
                **{
                    name: declared.json_schema()
                    for name, declared in formats.every_option().items()
                },
            },
            ["name", "variant", "entrants"],
        )
    }
