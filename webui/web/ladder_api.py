"""The JSON API of the continuous ladder and of challenges: its own route table
(:data:`ROUTES`, :data:`SCHEMAS`), joined with the others by :mod:`webui.web.openapi`.

``GET /api/ladder/<variant>``: the ladder's leaderboard; ``GET|PATCH /api/bots/<name>/ladder``:
a bot's ladder entry and its candidate, which its owner changes (active version, pause,
retire); ``POST /api/bots/<name>/promote``: the owner promotes a version to the ladder;
``POST /api/challenges``: a challenge (owner's token); ``GET /api/challenges/<id>``: its state
and result. Refusals are JSON 4xx naming the field, and change nothing.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404

from webui.league import challenges, inputs, ladder, versions
from webui.league.models import Bot, LadderEntry, Match, Variant

from . import reads, shared_reads
from .api_input import ApiError, field, json_body, text
from .routes import Route, token_user
from .schema import B, I, N, S, array, nullable, obj, ref

NAME_MAX = inputs.column_max(Bot, "name")
VARIANT_MAX = challenges.VARIANT_MAX


def entry_json(bot: Bot) -> dict[str, Any]:
    """A bot's ladder entry (``entry`` is None before its first version passed validation)
    and its candidate (None when no ready version waits to be promoted)."""
    entry = LadderEntry.objects.filter(bot=bot).select_related("version").first()
    rows = [
        {"number": v.number, "label": v.label, "status": v.status, "status_reason": v.status_reason}
        for v in bot.versions.order_by("-number")
    ]
    new = ladder.candidate(bot)
    same = versions.same_code(new) if new is not None else None
    return {
        "bot": bot.name,
        "entry": None
        if entry is None
        else {
            "version": entry.version.number,
            "label": entry.version.label,
            "status": entry.status,
            "updated": entry.updated.isoformat(),
        },
        "candidate": None
        if new is None
        else {
            "version": new.number,
            "label": new.label,
            "promote_on_pass": new.promote_on_pass,
            "same_code_as": same.label if same is not None else None,
        },
        "versions": rows,
    }


def ladder_json(variant: Variant) -> dict[str, Any]:
    """A ladder: its variant, its ratings, and what is queued or playing."""
    open_matches = Match.objects.filter(variant=variant, status__in=ladder.OPEN).exclude(
        kind=Match.Kind.SEASON
    )
    return {
        "variant": reads.variant_json(variant),
        "ratings": reads.leaderboard(variant, "ladder"),
        "active": [v.label for v in ladder.active_versions(variant)],
        "open_ladder_matches": open_matches.filter(kind=Match.Kind.LADDER).count(),
        "open_challenges": open_matches.filter(kind=Match.Kind.CHALLENGE).count(),
    }


def ladder_variant(slug: str) -> Variant:
    """A variant that has a ladder, else 404."""
    for variant in ladder.ladder_variants():
        if variant.slug == slug:
            return variant
    raise ApiError(
        404,
        f"variant {slug!r} has no ladder (ladders: "
        f"{', '.join(v.slug for v in ladder.ladder_variants()) or 'none'})",
    )


def get_ladder(request: HttpRequest, slug: str) -> Any:
    return ladder_json(ladder_variant(slug))


def get_bot_ladder(request: HttpRequest, name: str) -> Any:
    return entry_json(get_object_or_404(Bot, name=name))


def patch_bot_ladder(request: HttpRequest, name: str) -> Any:
    user = token_user(request)
    bot = get_object_or_404(Bot, name=name)
    if bot.owner_id != user.pk:
        raise ApiError(403, f"only the owner of bot {bot.name!r} may change its ladder entry")
    data = json_body(request, {"version", "status"})
    number = field(data, "version", int, None)
    status = text(data, "status", 10, None)
    if number is None and status is None:
        raise ApiError(
            400, "give field 'version' (a version number) or 'status' (active, paused or retired)"
        )
    if status is not None and status not in LadderEntry.Status.values:
        raise ApiError(
            400, f"field 'status': {status!r} is not one of {', '.join(LadderEntry.Status.values)}"
        )
    try:
        ladder.choose(user, bot, number, status)
    except ladder.LadderError as error:
        which = "version" if number is not None and "version" in str(error) else "status"
        raise ApiError(error.status, f"field {which!r}: {error}") from None
    return entry_json(bot)


def post_promote(request: HttpRequest, name: str) -> Any:
    user = token_user(request)
    bot = get_object_or_404(Bot, name=name)
    if bot.owner_id != user.pk:
        raise ApiError(403, f"only the owner of bot {bot.name!r} may promote its versions")
    data = json_body(request, {"version"})
    number = field(data, "version", int, None)
    if number is None:
        raise ApiError(400, "give field 'version': the number of the version to promote")
    try:
        ladder.promote(user, bot, number)
    except ladder.LadderError as error:
        raise ApiError(error.status, f"field 'version': {error}") from None
    return entry_json(bot)


def post_challenge(request: HttpRequest) -> Any:
    user = token_user(request)
    data = json_body(request, {"bot", "opponent", "variant", "deals", "rated"})
    try:
        match = challenges.create_challenge(
            user,
            bot=text(data, "bot", NAME_MAX, blank=False, is_name=True),
            opponent=text(data, "opponent", NAME_MAX, blank=False, is_name=True),
            variant=text(data, "variant", VARIANT_MAX, "scopa", blank=False, is_name=True),
            deals=field(data, "deals", int, challenges.DEFAULT_DEALS),
            rated=field(data, "rated", bool, False),
        )
    except challenges.ChallengeError as error:
        raise ApiError(error.status, f"field {error.field!r}: {error.message}") from None
    return JsonResponse(challenges.detail(match), status=201)


def get_challenge(request: HttpRequest, match_id: int) -> Any:
    match = get_object_or_404(
        Match.objects.select_related("variant", "requested_by"),
        pk=match_id,
        kind=Match.Kind.CHALLENGE,
    )
    return challenges.detail(match)


SCHEMAS: dict[str, dict[str, Any]] = {
    "Ladder": obj(
        {
            "variant": ref("Variant"),
            "ratings": array(ref("LeaderRow")),
            "active": array(S),
            "open_ladder_matches": I,
            "open_challenges": I,
        }
    ),
    "LadderEntry": obj(
        {
            "bot": S,
            "entry": nullable(obj({"version": I, "label": S, "status": S, "updated": S})),
            "candidate": nullable(
                obj(
                    {
                        "version": I,
                        "label": S,
                        "promote_on_pass": B,
                        "same_code_as": nullable(S),
                    }
                )
            ),
            "versions": array(obj({"number": I, "label": S, "status": S, "status_reason": S})),
        }
    ),
    "Promotion": obj({"version": I}, ["version"]),
    "LadderChoice": obj({"version": I, "status": {"enum": list(LadderEntry.Status.values)}}),
    "ChallengeCreate": obj(
        {"bot": S, "opponent": S, "variant": S, "deals": I, "rated": B}, ["bot", "opponent"]
    ),
    "Challenge": obj(
        {
            "id": I,
            "status": S,
            "variant": S,
            "rated": B,
            "deals": I,
            "games_planned": I,
            "challenger": obj({"label": S, "bot": S}),
            "opponent": obj({"label": S, "bot": S}),
            "requested_by": nullable(S),
            "created": S,
            "finished": nullable(S),
            "error": nullable(S),
            "result": nullable(
                obj(
                    {
                        "wins": I,
                        "draws": I,
                        "losses": I,
                        "void": I,
                        "score": N,
                        "elo": nullable(N),
                        "error": nullable(N),
                        "los": N,
                        "describe": S,
                    }
                )
            ),
        }
    ),
}

ROUTES: list[Route] = [
    Route(
        "ladder/<slug:slug>",
        "ladder",
        {"GET": get_ladder},
        "The continuous ladder of a variant: its TrueSkill ratings (separate from the "
        "seasons'), the active bots, and the open matches.",
        {"GET": "Ladder"},
        shared=shared_reads.ladders,
    ),
    Route(
        "bots/<slug:name>/ladder",
        "bot-ladder",
        {"GET": get_bot_ladder, "PATCH": patch_bot_ladder},
        "GET: a bot's ladder entry and its versions (with why one was refused). PATCH "
        "(owner's token): the active version ('version': a number that passed validation) "
        "and/or 'status' (active, paused or retired; retired is final).",
        {"GET": "LadderEntry", "PATCH": "LadderEntry"},
        {"PATCH": "LadderChoice"},
        frozenset({"PATCH"}),
    ),
    Route(
        "bots/<slug:name>/promote",
        "bot-promote",
        {"POST": post_promote},
        "Promote (owner's token): 'version', a number that passed validation, becomes the "
        "bot's ladder version (a paused bot stays paused). An upload is a candidate until "
        "then, or until a version test of it accepts H1 if it was uploaded with "
        "test_then_promote.",
        {"POST": "LadderEntry"},
        {"POST": "Promotion"},
        frozenset({"POST"}),
    ),
    Route(
        "challenges",
        "challenges",
        {"POST": post_challenge},
        "Challenge a bot (owner's token): your 'bot' against 'opponent' in 'variant' "
        f"(default scopa), 'deals' duplicate deals (1 to {challenges.MAX_DEALS}, default "
        f"{challenges.DEFAULT_DEALS}), unrated unless 'rated' (both bots ladder-active). "
        "Queued before ladder matches; a few per user per hour.",
        {"POST": "Challenge"},
        {"POST": "ChallengeCreate"},
        frozenset({"POST"}),
        tag="create",
    ),
    Route(
        "challenges/<id:match_id>",
        "challenge",
        {"GET": get_challenge},
        "A challenge: its state, and once played the score with the Elo difference, its "
        "95% error and the LOS.",
        {"GET": "Challenge"},
    ),
]
