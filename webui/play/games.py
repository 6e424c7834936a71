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

A person has at most ``ARENA_PLAY_GAMES_PER_USER`` games waiting or under way. A game ends
early when its person resigns (:func:`resign`), lets a move's clock run out, or closes the
page: every poll of the state is the page's heartbeat (``seen``), and a game whose page has
not checked in for ``ARENA_PLAY_ABANDON_S`` is abandoned. The worker's seat
(:mod:`webui.play.seat`) watches for all three and leaves the game, which the runner then
scores as the person's forfeit. Games go to a queue of their own
(:func:`webui.league.queue.play_queue`), served
by ``arena worker --play``, never by the workers that play bot matches. :func:`sweep` (celery
beat's ``arena.sweep``, the demo's loop) sends again a game whose message was lost, and ends a
game nobody started in time, or whose worker stopped.
"""

from __future__ import annotations

import datetime
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from arena.engine import VARIANTS, EngineError, parse_move, rules_for, side_of_seat
from webui.league import inputs, queue, variants
from webui.league.models import Bot, BotVersion, Variant
from webui.play.models import PlayGame, PlayMove

PLAY_TASK = "arena.play_human"
SEAT_CHOICES = ("random", "first", "second")
SEEN_EVERY_S = 5.0
"""The page's heartbeat is written at most this often (a poll comes about every second), and
at least three times in ``ARENA_PLAY_ABANDON_S``."""
WORKER_LOST_S = 60.0
"""A game under way whose worker has not checked in for this long lost its worker."""
RESIGNED = "resigned"
ABANDONED_PAGE = "abandoned: the page was closed"
ABANDONED_CLOCK = "abandoned: no move in the move's time"


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
    worker once the transaction commits. Raises PlayError naming the bad field (400), or 429
    when the person has ``ARENA_PLAY_GAMES_PER_USER`` games open already; nothing is written
    then."""
    for field, value, most in (
        ("bot", bot_name, inputs.column_max(Bot, "name")),
        ("variant", variant_name, inputs.column_max(Variant, "name")),
        ("seat", seat, max(map(len, SEAT_CHOICES))),
    ):
        try:
            inputs.check_text(field, value, most, name=True)
        except inputs.InputError as error:
            raise PlayError(400, error.message, field) from None
    if variant_name not in variant_names():
        raise PlayError(
            400, f"variant {variant_name!r} is not one of {', '.join(variant_names())}", "variant"
        )
    if seat not in SEAT_CHOICES:
        raise PlayError(400, f"seat {seat!r} is not one of {', '.join(SEAT_CHOICES)}", "seat")
    bot = Bot.objects.filter(name=bot_name).first()
    version = bot.latest_ready_version() if bot is not None else None
    if version is None:
        raise PlayError(400, f"bot {bot_name!r} has no validated version to play", "bot")
    if version not in playable_versions(variant_name):
        raise PlayError(400, f"bot {version.label} does not play {variant_name}", "bot")
    human_seat = {"first": 0, "second": 1}.get(seat, secrets.randbelow(2))
    most = settings.ARENA_PLAY_GAMES_PER_USER
    with transaction.atomic():
        # The person's row serializes their requests: two at once cannot both pass the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        open_games = PlayGame.objects.filter(user=user, status__in=PlayGame.OPEN).count()
        if open_games >= most:
            raise PlayError(
                429,
                f"you have {open_games} games waiting or under way, the most "
                f"a person may have at once ({most}): finish or resign one "
                "first",
            )
        variant: Variant = variants.get_variant(variant_name)
        now = timezone.now()
        game = PlayGame.objects.create(
            user=user,
            version=version,
            variant=variant,
            human_seat=human_seat,
            move_time_ms=settings.ARENA_PLAY_MOVE_TIME_MS,
            bank_ms=settings.ARENA_PLAY_BANK_MS,
            enqueued_at=now,
            seen=now,
        )
        queue.enqueue(PLAY_TASK, game.pk)
    return game


def touch(game_id: int) -> None:
    """The page's heartbeat: the game's page is open (written at most every few seconds)."""
    now = timezone.now()
    every = min(SEEN_EVERY_S, settings.ARENA_PLAY_ABANDON_S / 3)
    PlayGame.objects.filter(
        pk=game_id,
        status__in=PlayGame.OPEN,
    ).filter(Q(seen__isnull=True) | Q(seen__lt=now - datetime.timedelta(seconds=every))).update(
        seen=now
    )


def resign(game_id: int, user: Any) -> PlayGame:
    """The person gives the game up: a game not started yet ends at once (void); a game under
    way is forfeited by the worker's seat within a second or so. PlayError if it is not the
    user's (404) or is over (409)."""
    game = PlayGame.objects.filter(pk=game_id, user=user).first()
    if game is None:
        raise PlayError(404, f"no game {game_id} of yours")
    ended = PlayGame.objects.filter(pk=game_id, status=PlayGame.Status.QUEUED).update(
        status=PlayGame.Status.VOID,
        error="you resigned before a worker started the game",
        awaiting=False,
        finished=timezone.now(),
    )
    if not ended:
        asked = PlayGame.objects.filter(pk=game_id, status=PlayGame.Status.PLAYING).update(
            resign_requested=True
        )
        if not asked:
            game.refresh_from_db()
            raise PlayError(409, f"the game is over ({game.outcome()}): nothing to resign")
    game.refresh_from_db()
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
    touch(game_id)  # a move is a sign of life, whatever becomes of it
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise PlayError(400, f"field 'turn' must be an integer, not {turn!r}", "turn")
    if not isinstance(move, str):
        raise PlayError(
            400, f'field \'move\' must be a move such as "7d" or "7d:3b+4d", not {move!r}', "move"
        )
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
        raise PlayError(
            400,
            f"field 'move': {move!r} is not a legal move now (legal: {', '.join(game.legal)})",
            "move",
        )
    now = timezone.now()
    try:
        with transaction.atomic():
            claimed = PlayGame.objects.filter(
                pk=game.pk,
                status=PlayGame.Status.PLAYING,
                turn=turn,
                awaiting=True,
                deadline__gt=now,
            ).update(awaiting=False)
            if not claimed:
                raise PlayError(
                    409,
                    "too late: the clock of this turn ran out, or the turn was played already",
                    "turn",
                )
            PlayMove.objects.create(game=game, turn=turn, move=legal[wanted])
    except IntegrityError:
        raise PlayError(409, f"turn {turn} was played already", "turn") from None
    game.refresh_from_db()
    return game


def expire(game: PlayGame, now: datetime.datetime | None = None) -> str | None:
    """Why an open game can no longer be played (one line), or None: nobody started it in
    time, its page was closed before it started, or the worker playing it stopped."""
    now = now or timezone.now()
    if game.status == PlayGame.Status.QUEUED:
        waited = (now - game.created).total_seconds()
        if waited > settings.ARENA_PLAY_START_TIMEOUT_S:
            return (
                f"no worker started the game within {waited / 60:.0f} minutes (is a Play "
                "worker running?); start a new one"
            )
        if (
            game.seen is not None
            and (now - game.seen).total_seconds() > settings.ARENA_PLAY_ABANDON_S
        ):
            return "the page was closed before a worker started the game"
    elif game.status == PlayGame.Status.PLAYING:
        beat = game.worker_seen or game.started
        if beat is not None and (now - beat).total_seconds() > WORKER_LOST_S:
            return "the worker playing this game stopped before its end"
    return None


def state(game: PlayGame) -> dict[str, Any]:
    """What the page shows: the person's view, their turn and clock, and how it ended.

    Never the bot's hand nor the deck: the view holds only what the person's seat was told.
    """
    reason = expire(game)
    if reason:
        void(game.pk, reason, status=game.status)
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
        "target": rules_of(game).target,  # the points that win the game: the page says so
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


def finish(
    game_id: int,
    replay: dict[str, Any],
    totals: list[int],
    winner_side: int | None,
    forfeit: dict[str, Any] | None,
    void: str | None,
    left: str | None = None,
) -> bool:
    """Records the game's end once (the replay with its players named); False if it was
    recorded already.

    ``left``: why the person's seat left the game (resigned, abandoned). The runner saw only
    its stream close; the forfeit it recorded for the person's side then says why instead.
    """
    game = PlayGame.objects.select_related("user", "version__bot").get(pk=game_id)
    replay = {**replay, "players": players(game)}
    sides = max(1, len(totals))
    if left and forfeit is not None and forfeit.get("side") == side_of_seat(game.human_seat, sides):
        forfeit = {**forfeit, "reason": left}
        result = dict(replay.get("result") or {})
        result["forfeit"] = forfeit
        replay["result"] = result
    status = PlayGame.Status.VOID if void else PlayGame.Status.OVER
    # The bot's messages (a fault's detail, a fallback's) are in the replay: made storable.
    done = PlayGame.objects.filter(pk=game_id, status=PlayGame.Status.PLAYING).update(
        status=status,
        replay=inputs.storable_json(replay),
        totals=totals,
        winner_side=winner_side,
        forfeit=inputs.storable_json(forfeit),
        error=inputs.storable(void or ""),
        awaiting=False,
        finished=timezone.now(),
    )
    return bool(done)


def void(game_id: int, reason: str, status: str | None = None) -> bool:
    """The game cannot be played: it is void, with the reason in one line. ``status``: only
    if it still has this status. False if it was over already."""
    statuses = [status] if status else list(PlayGame.OPEN)
    return bool(
        PlayGame.objects.filter(pk=game_id, status__in=statuses).update(
            status=PlayGame.Status.VOID,
            error=inputs.storable(reason[:300]),
            awaiting=False,
            finished=timezone.now(),
        )
    )


def sweep(
    now: datetime.datetime | None = None, grace_s: float = 30.0, waiting: int | None = None
) -> int:
    """Keeps Play games moving; returns how many it acted on.

    A queued game that can no longer be played (:func:`expire`: too old, its page closed) is
    void with the reason; a game under way whose worker stopped, too. A queued game last sent
    ``grace_s`` ago or more is sent again while the Play queue holds no message (``waiting``,
    when known: 0), since its message was lost (a broker restarted without persistence); a
    second message is harmless, as a game is claimed once.
    """
    now = now or timezone.now()
    count = 0
    for game in PlayGame.objects.filter(status__in=PlayGame.OPEN):
        reason = expire(game, now)
        if reason:
            count += void(game.pk, reason, status=game.status)
            continue
        sent = game.enqueued_at or game.created
        if (
            game.status == PlayGame.Status.QUEUED
            and not waiting
            and (now - sent).total_seconds() >= grace_s
        ):
            with transaction.atomic():
                if PlayGame.objects.filter(
                    pk=game.pk, status=PlayGame.Status.QUEUED, enqueued_at=game.enqueued_at
                ).update(enqueued_at=now):
                    queue.enqueue(PLAY_TASK, game.pk)
                    count += 1
    return count


def rules_of(game: PlayGame) -> Any:
    """The engine's rules of the game's variant."""
    return rules_for(game.variant.name, dict(game.variant.options) or None)
