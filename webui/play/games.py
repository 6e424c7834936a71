"""The life of a game on the Play page: start it, take the person's moves, record its end.

The page talks to the person's seat by short polling: the browser reads a small JSON state
(:func:`state`) about once a second, and POSTs a move (:func:`submit_move`). Why not a push
channel (SSE, WebSockets with Django Channels): a game moves at a person's pace, a second of
latency is invisible at a card table, and polling needs nothing the site does not already run
(plain WSGI under gunicorn or ``arena web``, the development server in ``arena demo``, no ASGI
server, no channel layer, no long-lived connection held by a worker process). The worker and
the page share only the game's database row (:mod:`webui.play.models`), on SQLite as on
PostgreSQL.

A move is accepted once: the page claims the turn with one conditional update (the turn in
play, still awaited, not past its deadline) and writes the move in the same transaction. A
move that is not legal, a turn that is not the one in play, or a game that is over is refused
with a :class:`PlayError` and changes nothing.
"""

from __future__ import annotations

import datetime
import secrets
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from arena.engine import VARIANTS, EngineError, parse_move, rules_for
from webui.league import services
from webui.league.models import Bot, BotVersion, Variant
from webui.play.models import PlayGame, PlayMove

PLAY_TASK = "arena.play_human"
SEAT_CHOICES = ("random", "first", "second")


class PlayError(Exception):
    """A request the game refuses: an HTTP status, the field at fault, one line why."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, Any]:
        """The JSON body of the refusal."""
        body: dict[str, Any] = {"error": self.message}
        if self.field is not None:
            body["field"] = self.field
        return body


def variant_names() -> list[str]:
    """The presets a person can play against one bot: those of two players."""
    return [name for name, rules in VARIANTS.items() if rules.players == 2]


def playable_versions(variant: str | None = None) -> list[BotVersion]:
    """Each active bot's newest validated version (that plays ``variant``, when given)."""
    out = []
    for bot in Bot.objects.order_by("name"):
        version = bot.latest_ready_version()
        if version is None:
            continue
        variants = list(version.manifest.get("variants") or ["*"])
        if variant is None or "*" in variants or variant in variants:
            out.append(version)
    return out


def start_game(user: Any, bot_name: str, variant_name: str, seat: str = "random") -> PlayGame:
    """A new game of ``user`` against ``bot_name``'s newest validated version, queued for a
    worker once the transaction commits. Raises PlayError (400) naming the bad field."""
    if variant_name not in variant_names():
        raise PlayError(400, f"variant {variant_name!r} is not one of "
                             f"{', '.join(variant_names())}", "variant")
    if seat not in SEAT_CHOICES:
        raise PlayError(400, f"seat {seat!r} is not one of {', '.join(SEAT_CHOICES)}", "seat")
    bot = Bot.objects.filter(name=bot_name).first()
    version = bot.latest_ready_version() if bot is not None else None
    if version is None:
        raise PlayError(400, f"bot {bot_name!r} has no validated version to play", "bot")
    if version not in playable_versions(variant_name):
        raise PlayError(400, f"bot {version.label} does not play {variant_name}", "bot")
    human_seat = {"first": 0, "second": 1}.get(seat, secrets.randbelow(2))
    variant: Variant = services.get_variant(variant_name)
    with transaction.atomic():
        game = PlayGame.objects.create(
            user=user, version=version, variant=variant, human_seat=human_seat,
            move_time_ms=settings.ARENA_PLAY_MOVE_TIME_MS, bank_ms=settings.ARENA_PLAY_BANK_MS,
        )
        services.enqueue(PLAY_TASK, game.pk)
    return game


def submit_move(game_id: int, user: Any, turn: Any, move: Any) -> PlayGame:
    """Plays ``move`` (``"7d"`` or ``"7d:3b+4d"``) at ``turn`` for ``user``; PlayError if not.

    Refused, changing nothing: a game not the user's (404), a game that is over or not started
    (409), a turn that is not the one in play or no longer awaited (409), a move past the
    turn's deadline (409), a move that is malformed or not legal now (400).
    """
    game = PlayGame.objects.filter(pk=game_id, user=user).first()
    if game is None:
        raise PlayError(404, f"no game {game_id} of yours")
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise PlayError(400, f"field 'turn' must be an integer, not {turn!r}", "turn")
    if not isinstance(move, str):
        raise PlayError(400, f"field 'move' must be a move such as \"7d\" or \"7d:3b+4d\", "
                             f"not {move!r}", "move")
    if game.is_finished:
        raise PlayError(409, f"the game is over ({game.outcome()}): no more moves")
    if game.status == PlayGame.Status.QUEUED:
        raise PlayError(409, "the game has not started yet: wait for your turn")
    if turn != game.turn or not game.awaiting:
        raise PlayError(409, f"it is not your turn (turn {turn} is not the turn in play)", "turn")
    try:
        wanted = parse_move(move)
    except EngineError as error:
        raise PlayError(400, f"field 'move': {error}", "move") from None
    legal = {parse_move(name): name for name in game.legal}
    if wanted not in legal:
        raise PlayError(400, f"field 'move': {move!r} is not a legal move now (legal: "
                             f"{', '.join(game.legal)})", "move")
    now = timezone.now()
    try:
        with transaction.atomic():
            claimed = PlayGame.objects.filter(
                pk=game.pk, status=PlayGame.Status.PLAYING, turn=turn, awaiting=True,
                deadline__gt=now,
            ).update(awaiting=False)
            if not claimed:
                raise PlayError(409, "too late: the clock of this turn ran out, or the turn "
                                     "was played already", "turn")
            PlayMove.objects.create(game=game, turn=turn, move=legal[wanted])
    except IntegrityError:
        raise PlayError(409, f"turn {turn} was played already", "turn") from None
    game.refresh_from_db()
    return game


LOST_AFTER_S = 300
"""A game still playing this long after both banks could have run out lost its worker."""


def lost(game: PlayGame) -> bool:
    """Whether a game said to be playing has outlived any game its clocks allow (its worker
    died); such a game is made void, as it cannot be resumed."""
    if game.status != PlayGame.Status.PLAYING or game.started is None:
        return False
    longest = datetime.timedelta(milliseconds=2 * game.bank_ms, seconds=LOST_AFTER_S)
    return timezone.now() > game.started + longest


def state(game: PlayGame) -> dict[str, Any]:
    """What the page shows: the person's view, their turn and clock, and how it ended.

    Never the bot's hand nor the deck: the view holds only what the person's seat was told.
    """
    if lost(game):
        void(game.pk, "the worker playing this game stopped before its end")
        game.refresh_from_db()
    now = timezone.now()
    your_turn = game.status == PlayGame.Status.PLAYING and game.awaiting
    seconds_left = None
    if your_turn and game.deadline is not None:
        seconds_left = max(0.0, round((game.deadline - now).total_seconds(), 1))
    body: dict[str, Any] = {
        "id": game.pk,
        "status": game.status,
        "outcome": game.outcome(),
        "variant": game.variant.label,
        "bot": game.version.label,
        "you": game.human_seat,
        "move_time_ms": game.move_time_ms,
        "turn": game.turn,
        "your_turn": your_turn,
        "legal": list(game.legal) if your_turn else [],
        "seconds_left": seconds_left,
        "view": dict(game.view or {}),
    }
    if game.is_finished:
        body["totals"] = list(game.totals or [])
        body["winner_side"] = game.winner_side
        body["forfeit"] = game.forfeit
        body["error"] = game.error
        body["replay_url"] = f"/play/{game.pk}/replay/" if game.replay else None
    return body


def players(game: PlayGame) -> list[str]:
    """The names of the seats, as the replay shows them."""
    out = [game.version.label, game.version.label]
    out[game.human_seat] = f"{game.user.get_username()} (human)"
    return out


def finish(game_id: int, replay: dict[str, Any], totals: list[int], winner_side: int | None,
           forfeit: dict[str, Any] | None, void: str | None) -> bool:
    """Records the game's end once (the replay with its players named); False if it was
    recorded already."""
    game = PlayGame.objects.select_related("user", "version__bot").get(pk=game_id)
    replay = {**replay, "players": players(game)}
    status = PlayGame.Status.VOID if void else PlayGame.Status.OVER
    done = PlayGame.objects.filter(pk=game_id, status=PlayGame.Status.PLAYING).update(
        status=status, replay=replay, totals=totals, winner_side=winner_side, forfeit=forfeit,
        error=void or "", awaiting=False, finished=timezone.now(),
    )
    return bool(done)


def void(game_id: int, reason: str) -> None:
    """The arena could not play the game: it is void, with the reason in one line."""
    PlayGame.objects.filter(pk=game_id, status__in=[
        PlayGame.Status.QUEUED, PlayGame.Status.PLAYING,
    ]).update(status=PlayGame.Status.VOID, error=reason[:300], awaiting=False,
              finished=timezone.now())


def rules_of(game: PlayGame) -> Any:
    """The engine's rules of the game's variant."""
    return rules_for(game.variant.name, dict(game.variant.options) or None)
