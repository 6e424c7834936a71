"""Serves a :class:`~arena.sdk.bot.Bot` over gRPC: the ``Bot`` service and the health service.

:func:`serve` is what a bot's ``main`` calls: it binds ``SCOPA_BOT_ADDRESS`` (or ``--address``,
default ``127.0.0.1:50051``), prints ``LISTENING <address>`` on stdout once it serves, logs to
stderr and runs until terminated. :func:`create_server` is the same without the waiting, for
tests and for embedding. An exception in the bot's own code is logged and answered with the
first legal move, so one bug costs a move, not the game; a move that is not in the legal list
is treated the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from concurrent import futures
from contextvars import ContextVar
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.engine import Move, Rules
from arena.protocol import (
    ADDRESS_ENV,
    PROTOCOL_VERSION,
    READY_PREFIX,
    SERVICE_NAME,
    bot_pb2,
    bot_pb2_grpc,
)
from arena.protocol.convert import (
    move_from_proto,
    observation_from_proto,
    points_from_proto,
    rules_from_proto,
)
from arena.sdk.bot import Bot, Clock, DealInfo, GameInfo, GameResult

DEFAULT_ADDRESS = "127.0.0.1:50051"

_HANDED_OVER: ContextVar[list[Bot] | None] = ContextVar("arena_sdk_handed_over", default=None)
"""While :func:`handing_over` is active: where :func:`serve` puts its bot instead of serving."""

log = logging.getLogger("arena.sdk")


class _GameStream:
    """The state of one ``Play`` stream: the rules it plays under, and the bot's seat."""

    def __init__(self) -> None:
        self.rules: Rules | None = None
        self.game: GameInfo | None = None


class BotServicer(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """Adapts a :class:`Bot` to the ``scopa.arena.v1.Bot`` service."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._lock = threading.Lock()  # the bot's methods run one at a time

    def Describe(self, request: Any, context: Any) -> Any:
        """The bot's name, version, author, variants and protocol version."""
        return bot_pb2.BotInfo(
            name=self.bot.name,
            version=self.bot.version,
            author=self.bot.author,
            variants=list(self.bot.variants),
            protocol_version=PROTOCOL_VERSION,
            language="python",
        )

    def Play(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        """One game: dispatches events to the hooks, answers each turn request once.

        The moves a turn request carries (``moves_before``) go to ``on_move`` before
        ``choose``, exactly as if they had come as ``MovePlayed`` events.
        """
        stream = _GameStream()
        for message in request_iterator:
            kind = message.WhichOneof("kind")
            if kind == "turn_request":
                request = message.turn_request
                for played in request.moves_before:  # the hooks see every move, in order
                    self._event(stream, "move_played", played)
                yield self._answer(stream, request)
            elif kind is not None:
                self._event(stream, kind, getattr(message, kind))
            # An unknown kind (a newer arena): ignored, as protos/README.md promises.

    def _answer(self, stream: _GameStream, request: Any) -> Any:
        index = 0
        fallback = ""
        try:
            legal = [move_from_proto(m) for m in request.legal_moves]
            if stream.rules is None:
                raise ValueError("turn request before game_start")
            observation = observation_from_proto(request.observation, stream.rules)
            clock = Clock(move_ms=request.clock.move_ms, bank_ms=request.clock.bank_ms)
            with self._lock:
                self.bot.clock = clock
                self.bot.game = stream.game
                move = self.bot.choose(observation, legal)
            index = _index_of(move, legal)
        except Exception as error:
            log.error("choose failed; answering the first legal move\n%s", traceback.format_exc())
            fallback = f"{type(error).__name__}: {error}".splitlines()[0][:200]
        return bot_pb2.TurnResponse(
            request_id=request.request_id, move_index=index, fallback=fallback
        )

    def _event(self, stream: _GameStream, kind: str, event: Any) -> None:
        try:
            with self._lock:
                if stream.game is not None:
                    self.bot.game = stream.game
                self._dispatch(stream, kind, event)
        except Exception:
            log.error("the %s hook failed\n%s", kind, traceback.format_exc())

    def _dispatch(self, stream: _GameStream, kind: str, event: Any) -> None:
        bot = self.bot
        if kind == "game_start":
            stream.rules = rules_from_proto(event.rules)
            clock = Clock(move_ms=event.clock.move_ms, bank_ms=event.clock.bank_ms)
            stream.game = GameInfo(
                game_id=event.game_id,
                rules=stream.rules,
                seat=event.seat,
                players=tuple(event.players),
                clock=clock,
            )
            bot.game = stream.game
            bot.on_game_start(stream.game)
        elif kind == "deal_start":
            bot.on_deal_start(
                DealInfo(
                    deal_index=event.deal_index,
                    dealer=event.dealer,
                    hand=tuple(event.hand),
                    table=tuple(event.table),
                    stock_size=event.stock_size,
                    totals=tuple(event.totals),
                )
            )
        elif kind == "move_played":
            bot.on_move(event.seat, move_from_proto(event.move), event.by_arena)
        elif kind == "deal_end":
            points = [points_from_proto(p) for p in event.points]
            bot.on_deal_end(event.deal_index, points, tuple(event.totals))
        elif kind == "game_end":
            bot.on_game_end(
                GameResult(
                    totals=tuple(event.totals),
                    winner=event.winner if event.HasField("winner") else None,
                    forfeit_side=event.forfeit_side if event.HasField("forfeit_side") else None,
                    reason=event.reason,
                )
            )


def _index_of(move: Move, legal: Sequence[Move]) -> int:
    """The index of ``move`` in ``legal``; an int in range is taken as an index."""
    if isinstance(move, int) and not isinstance(move, bool) and 0 <= move < len(legal):
        return move
    try:
        return legal.index(move)
    except ValueError:
        raise ValueError(f"choose returned {move!r}, which is not a legal move") from None


class _LateServicer(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """The ``Bot`` service of a server started before its bot exists (:func:`open_ahead`):
    it answers with the bot's servicer once :func:`create_server` gives it one. A call that
    comes before waits for it, as long as its caller does."""

    def __init__(self) -> None:
        self.target: BotServicer | None = None
        self.served = threading.Event()

    def serve(self, servicer: BotServicer) -> None:
        self.target = servicer
        self.served.set()

    def _servicer(self, context: Any) -> BotServicer:
        while not self.served.wait(0.05):
            if not context.is_active():
                context.abort(grpc.StatusCode.CANCELLED, "the bot has not started")
        assert self.target is not None
        return self.target

    def Describe(self, request: Any, context: Any) -> Any:
        return self._servicer(context).Describe(request, context)

    def Play(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        return self._servicer(context).Play(request_iterator, context)


class _Server:
    """A started server and what :func:`create_server` fills in."""

    def __init__(self, address: str, max_workers: int) -> None:
        self.executor = futures.ThreadPoolExecutor(
            max_workers=max_workers, thread_name_prefix="bot"
        )
        self.server = grpc.server(self.executor, options=[("grpc.so_reuseport", 0)])
        self.late = _LateServicer()
        bot_pb2_grpc.add_BotServicer_to_server(self.late, self.server)
        self.health = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        try:
            self.port = self.server.add_insecure_port(address)
        except RuntimeError as exc:
            raise OSError(f"cannot listen on {address!r}: {exc}") from None
        if self.port == 0 and not address.startswith("unix:"):
            raise OSError(f"cannot listen on {address!r}")
        self.server.start()

    def serve(self, bot: Bot) -> None:
        self.late.serve(BotServicer(bot))
        for service in ("", SERVICE_NAME):
            self.health.set(service, health_pb2.HealthCheckResponse.SERVING)


_AHEAD: dict[str, _Server] = {}
"""Servers :func:`open_ahead` started, by address, until :func:`create_server` takes one."""

_WORKERS = 8


def open_ahead(address: str) -> None:
    """Starts, ahead of its bot, the server :func:`create_server` would start at ``address``
    (a unix socket), with a worker thread ready for its first call: it answers nothing until
    ``create_server`` takes it for its bot. The arena does this in a seat made ready ahead of
    its game (:mod:`arena.runner.forkserver`), before any of the bot's code runs, so that a
    bot's start is its own code and little else. Raises OSError."""
    if not address.startswith("unix:") or address in _AHEAD:
        raise OSError(f"cannot listen ahead on {address!r}")
    ahead = _Server(address, _WORKERS)
    ahead.executor.submit(int).result()  # its first worker thread, now rather than at a call
    _AHEAD[address] = ahead


def create_server(
    bot: Bot, address: str = "127.0.0.1:0", max_workers: int = _WORKERS
) -> tuple[grpc.Server, str]:
    """A started gRPC server for ``bot`` at ``address``, and the address it really bound.

    A TCP address with port 0 binds a free port; the returned address names it.
    """
    made = _AHEAD.pop(address, None) if max_workers == _WORKERS else None
    if made is None:
        made = _Server(address, max_workers)
    made.serve(bot)
    bound = address
    if not address.startswith("unix:") and address.rsplit(":", 1)[-1] == "0":
        bound = f"{address.rsplit(':', 1)[0]}:{made.port}"
    return made.server, bound


@contextlib.contextmanager
def handing_over() -> Iterator[list[Bot]]:
    """While active (in this thread), :func:`serve` appends its bot to the list yielded and
    returns instead of serving: how a bot's own script is run to make its bot in process."""
    bots: list[Bot] = []
    token = _HANDED_OVER.set(bots)
    try:
        yield bots
    finally:
        _HANDED_OVER.reset(token)


def serve(bot: Bot, address: str | None = None, argv: Sequence[str] | None = None) -> None:
    """Serves ``bot`` until SIGTERM/SIGINT: the address is ``address``, else ``--address``,
    else ``$SCOPA_BOT_ADDRESS``, else 127.0.0.1:50051. Prints ``LISTENING <address>``.

    Unknown command-line arguments are left for the bot (``parse_known_args``). Inside
    :func:`handing_over` (:func:`arena.sdk.launch.load_bot`) it hands ``bot`` over and returns
    at once instead.
    """
    handed_over = _HANDED_OVER.get()
    if handed_over is not None:
        handed_over.append(bot)
        return
    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format=f"{bot.name}: %(levelname)s %(message)s"
    )
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--address", default=None)
    known, _ = parser.parse_known_args(sys.argv[1:] if argv is None else list(argv))
    target = address or known.address or os.environ.get(ADDRESS_ENV) or DEFAULT_ADDRESS
    try:
        server, bound = create_server(bot, target)
    except OSError as exc:
        print(f"{bot.name}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    stop = threading.Event()

    def _stop(signum: int, frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    print(f"{READY_PREFIX}{bound}", flush=True)
    # Waiting in slices keeps the main thread where Python runs signal handlers promptly.
    while not stop.wait(0.2):
        pass
    server.stop(grace=1.0).wait(timeout=5)
