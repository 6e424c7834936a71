"""The Play page's task: ``arena.play_human(game_id)`` plays a person against a bot.

The game is a match of the runner (:func:`arena.runner.run_match`) of exactly one game
(``duplicate=False``): the bot's seat is its folder (or address), run in the sandbox as in any
match, and the person's seat is :class:`webui.play.seat.HumanSeat`, served by the SDK inside
this worker process at ``grpc://127.0.0.1:PORT`` and fed by the page through the game's row.
When the match ends, however it ends, the runner has reaped the bot's process and the task
stops the seat's server, then records the replay (unrated: it is no league game). When the
person resigns, lets a move's clock run out or closes the page, the seat leaves the game
(:meth:`~webui.play.seat.HumanSeat.leave` stops its server) and the runner forfeits it at once.

The task goes to the Play queue (:func:`webui.league.queue.play_queue`), which only
``arena worker --play`` serves: a pool of threads (``ARENA_PLAY_SLOTS``), since a game mostly
waits for a person, so it never holds a process that plays bot matches. A person's game is not
retried: if the worker dies mid-game, the game cannot be resumed (the sweep makes it void).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils import timezone

from webui.league.bot_files import BotFilesError, bot_ref_text
from webui.play import games
from webui.play.models import PlayGame
from webui.play.seat import HumanSeat
from workers.sandbox_policy import refusal, sandbox_wanted
from workers.tasks import arena_task

log = logging.getLogger("workers.play")


@arena_task(games.PLAY_TASK)
def play_human(game_id: int) -> str:
    """Claims a queued game, plays it to its end, records it once."""
    from arena.runner import BotError, BotRef, MatchError, MatchSpec, run_match
    from arena.sdk import create_server

    now = timezone.now()
    claimed = PlayGame.objects.filter(pk=game_id, status=PlayGame.Status.QUEUED).update(
        status=PlayGame.Status.PLAYING,
        started=now,
        worker_seen=now,
    )
    if not claimed:
        return f"play game {game_id}: not queued, nothing to do"
    game = PlayGame.objects.select_related("user", "version__bot", "variant").get(pk=game_id)
    if game.seen is None or (now - game.seen).total_seconds() > settings.ARENA_PLAY_ABANDON_S:
        games.void(game_id, "the page was closed before a worker started the game")
        return f"play game {game_id}: abandoned before it started"
    try:
        bot = BotRef.parse(bot_ref_text(game.version))
    except (BotError, BotFilesError) as error:
        games.void(game_id, f"cannot be played: {error}")
        return f"play game {game_id}: void ({error})"
    refused = refusal({game.version.label: bot}, sandbox_wanted())
    if refused:
        games.void(game_id, refused)
        return f"play game {game_id}: void ({refused})"
    rules = games.rules_of(game)
    server: Any = None

    def stop_server() -> None:
        if server is not None:
            server.stop(grace=0)  # the runner sees the seat's stream break: a forfeit

    seat = HumanSeat(
        game_id,
        game.human_seat,
        games.players(game),
        rules.num_sides,
        rules=rules,
        abandon_s=settings.ARENA_PLAY_ABANDON_S,
        on_leave=stop_server,
    )
    try:
        server, address = create_server(seat, "127.0.0.1:0")
    except BaseException:
        seat.close()
        raise
    if seat.left is not None:  # it left while the server was starting
        stop_server()
    human = BotRef.parse(f"grpc://{address}")
    entrants = [human, bot] if game.human_seat == 0 else [bot, human]
    spec = MatchSpec(
        entrants=entrants,
        variant=game.variant.name,
        options=dict(game.variant.options),
        games=1,
        duplicate=False,
        move_time_ms=game.move_time_ms,
        bank_ms=game.bank_ms,
        sandbox=sandbox_wanted(),
        match_id=f"play-{game_id}",
        on_move=seat.publisher.on_move,
    )
    report: Any = None
    # This thread's database connection is not needed while the game is played (the seat's
    # threads have their own): a Play worker of many games keeps few connections open.
    connection.close()
    try:
        report = run_match(spec)
    except (MatchError, Exception) as error:
        log.warning("play game %s failed on this worker: %s", game_id, error)
        close_old_connections()
        games.void(game_id, f"the arena failed: {type(error).__name__}: {error}")
        return f"play game {game_id}: void ({error})"
    finally:
        seat.close()
        server.stop(grace=1.0).wait(timeout=5)
    outcome = report.games[0]
    games.finish(
        game_id,
        outcome.replay,
        list(outcome.totals),
        outcome.winner_side,
        outcome.forfeit,
        outcome.void,
        left=seat.left,
    )
    return f"play game {game_id}: {outcome.void or seat.left or 'over'}"
