"""The Play page: pick a variant and a bot, then the table (polled JSON, POSTed moves).

``/play/`` (a form and your games), ``/play/<id>/`` (the table), ``/play/<id>/state`` (the
JSON the table polls: also the page's heartbeat), ``/play/<id>/move`` (POST a move),
``/play/<id>/resign`` (POST: give the game up), and once the game is over
``/play/<id>/replay/`` with the replay viewer's ``/play/<id>/frames``. Pages never play: the
game is played by a worker (:mod:`workers.play`); see :mod:`webui.play.games` for why the
table polls instead of holding a push channel.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from arena.text import printable
from webui.play import games
from webui.play.models import PlayGame
from webui.web.api_input import ApiError, json_body
from webui.web.replay_frames import FramesError, expand_replay

MAX_BODY = 4096


def _user(request: HttpRequest) -> Any:
    """The signed-in user (the views check that there is one)."""
    return request.user


def _refusal(error: games.PlayError) -> JsonResponse:
    return JsonResponse(error.to_json(), status=error.status)


@login_required
@require_http_methods(["GET", "POST"])
def index(request: HttpRequest) -> HttpResponse:
    """The form (variant, bot, seat) and the user's games; POST starts a game."""
    error: games.PlayError | None = None
    chosen = {"variant": "scopa", "bot": "", "seat": "random"}
    if request.method == "POST":
        chosen = {key: str(request.POST.get(key, "")) for key in chosen}
        try:
            game = games.start_game(
                request.user, chosen["bot"], chosen["variant"], chosen["seat"] or "random"
            )
        except games.PlayError as refused:
            error = refused
        else:
            return redirect("play-game", game_id=game.pk)
    versions = games.playable_versions()
    recent = PlayGame.objects.filter(user=_user(request)).select_related("version__bot", "variant")[
        :20
    ]
    return render(
        request,
        "play/index.html",
        {
            "variants": games.variant_names(),
            "versions": versions,
            "chosen": chosen,
            "error": error,
            "recent": recent,
            "move_s": _seconds(settings.ARENA_PLAY_MOVE_TIME_MS),
            "bank_min": f"{settings.ARENA_PLAY_BANK_MS / 60000:g}",
            "per_user": settings.ARENA_PLAY_GAMES_PER_USER,
            "abandon_s": f"{settings.ARENA_PLAY_ABANDON_S:g}",
        },
        status=error.status if error else 200,
    )


def _seconds(ms: int) -> str:
    return f"{ms / 1000:g}"


def _own_game(request: HttpRequest, game_id: int) -> PlayGame:
    return get_object_or_404(
        PlayGame.objects.select_related("version__bot", "variant", "user"),
        pk=game_id,
        user=request.user,
    )


@login_required
@require_GET
def table(request: HttpRequest, game_id: int) -> HttpResponse:
    """The table of one of the user's games."""
    game = _own_game(request, game_id)
    games.touch(game.pk)
    return render(
        request,
        "play/table.html",
        {
            "game": game,
            "state": games.state(game),
            "move_s": _seconds(game.move_time_ms),
            "bank_min": f"{game.bank_ms / 60000:g}",
            "abandon_s": f"{settings.ARENA_PLAY_ABANDON_S:g}",
        },
    )


@require_GET
def state(request: HttpRequest, game_id: int) -> JsonResponse:
    """The JSON the table polls: only what the person's seat may see."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "log in to see your games"}, status=403)
    game = (
        PlayGame.objects.select_related("version__bot", "variant")
        .filter(pk=game_id, user=request.user)
        .first()
    )
    if game is None:
        return JsonResponse({"error": f"no game {game_id} of yours"}, status=404)
    games.touch(game.pk)  # the page is open: its heartbeat
    return JsonResponse(games.state(game))


@require_POST
def move(request: HttpRequest, game_id: int) -> JsonResponse:
    """POST ``{"turn": N, "move": "7d:3b+4d"}``: the person's move at turn N."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "log in to play"}, status=403)
    if len(request.body) > MAX_BODY:
        return JsonResponse({"error": f"the body is larger than {MAX_BODY} bytes"}, status=413)
    try:
        data = json_body(request, {"turn", "move"})  # the API's checks: no NUL, surrogate...
    except ApiError as exc:
        unknown = sorted(set(_keys(request)) - {"turn", "move"})
        body: dict[str, Any] = {"error": exc.message}
        if unknown:
            body["field"] = unknown[0]
        return JsonResponse(body, status=exc.status)
    for name in ("turn", "move"):
        if name not in data:
            return JsonResponse({"error": f"missing field {name!r}", "field": name}, status=400)
    try:
        game = games.submit_move(game_id, request.user, data["turn"], data["move"])
    except games.PlayError as error:
        return _refusal(error)
    return JsonResponse({"accepted": data["move"], "state": games.state(game)})


def _keys(request: HttpRequest) -> list[str]:
    """The fields of a JSON object body, or none."""
    try:
        data = json.loads(request.body)
    except (ValueError, RecursionError):
        return []
    return [str(key) for key in data] if isinstance(data, dict) else []


@require_POST
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """The person gives the game up: JSON for the table's button (``Accept:
    application/json``), else back to the table."""
    if not request.user.is_authenticated:
        return JsonResponse({"error": "log in to play"}, status=403)
    try:
        game = games.resign(game_id, request.user)
    except games.PlayError as error:
        return _refusal(error)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"resigned": True, "state": games.state(game)})
    return redirect("play-game", game_id=game.pk)


@require_GET
def replay(request: HttpRequest, game_id: int) -> HttpResponse:
    """A finished game in the replay viewer (public, like every game's replay)."""
    game = get_object_or_404(
        PlayGame.objects.select_related("version__bot", "variant", "user"),
        pk=game_id,
        replay__isnull=False,
    )
    names = games.players(game)
    if game.status == PlayGame.Status.VOID:
        result = f"void: {printable(game.error)}"
    elif game.winner_side is None:
        result = "a draw"
    else:
        result = f"{names[game.winner_side]} won"
    forfeit = game.forfeit if isinstance(game.forfeit, dict) else {}
    reason = printable(str(forfeit.get("reason", ""))) if forfeit else ""  # a bot's words
    return render(
        request,
        "play/replay.html",
        {"game": game, "names": names, "result": result, "forfeit_reason": reason},
    )


@require_GET
def frames(request: HttpRequest, game_id: int) -> JsonResponse:
    """The finished game's replay expanded into the viewer's frames."""
    game = PlayGame.objects.filter(pk=game_id, replay__isnull=False).first()
    if game is None or game.replay is None:
        return JsonResponse({"error": f"no finished game {game_id}"}, status=404)
    try:
        body = dict(expand_replay(game.replay))
    except FramesError as error:
        return JsonResponse({"error": str(error)}, status=500)
    return JsonResponse(body)
