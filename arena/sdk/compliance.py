"""Compliance checks that hold any bot, in any language, to the ``scopa.arena.v1`` contract.

:func:`run_checks` connects to a running bot and plays the arena's side with the real engine:
``Describe`` answers sensibly, the health service reports SERVING, the bot answers exactly one
legal move per turn request over a whole game of each variant it supports, and it copes with
weird-but-legal situations (a single legal move on an empty table, a game that ends before its
first turn, request ids near the top of their range). ``arena bot check`` prints the results;
:class:`arena.sdk.testing.ComplianceSuite` runs the same checks as pytest tests.
This is not the match runner: no clocks are enforced beyond a generous deadline per game.
"""

from __future__ import annotations

import functools
import json
import queue
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.engine import VARIANTS, Game, Move, parse_card, rules_for
from arena.protocol import PROTOCOL_VERSION, SERVICE_NAME, bot_pb2, bot_pb2_grpc
from arena.protocol.convert import (
    deal_end_message,
    deal_start_message,
    game_end_message,
    game_start_message,
    move_played,
    rules_to_proto,
    turn_request_message,
    turn_response_index,
)

NAME_PATTERN = re.compile(r"[a-z0-9-]{1,40}")
CALL_TIMEOUT = 10.0
"""Seconds for a unary call (Describe, health)."""
GAME_TIMEOUT = 300.0
"""Seconds for a whole game stream."""
MOVE_MS = 1000
BANK_MS = 60000


class ComplianceError(AssertionError):
    """A bot broke the protocol; the message says how."""


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check."""

    name: str
    ok: bool
    detail: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict."""
        return asdict(self)


class _Stream:
    """One ``Play`` stream driven from this side: send messages, read one answer at a time."""

    def __init__(self, stub: Any, timeout: float) -> None:
        self._outbox: queue.Queue[Any] = queue.Queue()
        self._responses = stub.Play(self._requests(), timeout=timeout)
        self.requests = 0

    def _requests(self) -> Iterator[Any]:
        while True:
            message = self._outbox.get()
            if message is None:
                return
            yield message

    def send(self, message: Any) -> None:
        self._outbox.put(message)

    def ask(self, message: Any, legal: Sequence[Move]) -> int:
        """Sends a turn request and returns the move index of the bot's one answer."""
        self.requests += 1
        self.send(message)
        request_id = message.turn_request.request_id
        try:
            response = next(self._responses)
        except StopIteration:
            raise ComplianceError(
                f"the bot closed the stream instead of answering request {request_id}"
            ) from None
        except grpc.RpcError as exc:
            raise ComplianceError(
                f"stream failed while waiting for request {request_id}: {_rpc_error(exc)}"
            ) from None
        try:
            return turn_response_index(response, request_id, len(legal))
        except ValueError as exc:
            raise ComplianceError(str(exc)) from None

    def close(self) -> None:
        """Half-closes the stream and checks the bot sends nothing more and ends cleanly."""
        self.send(None)
        try:
            extra = list(self._responses)
        except grpc.RpcError as exc:
            raise ComplianceError(f"the stream ended with an error: {_rpc_error(exc)}") from None
        if extra:
            raise ComplianceError(
                f"{len(extra)} response(s) after the game ended; "
                f"a bot answers turn requests only ({self.requests} were sent)"
            )

    def abort(self) -> None:
        self.send(None)
        self._responses.cancel()


def _rpc_error(exc: grpc.RpcError) -> str:
    code = exc.code() if hasattr(exc, "code") else None
    details = exc.details() if hasattr(exc, "details") else str(exc)
    return f"{code.name if code else 'error'}: {details}"


def check_describe(channel: grpc.Channel) -> str:
    """``Describe`` answers with a valid name, protocol version 1 and known variants."""
    stub = bot_pb2_grpc.BotStub(channel)
    try:
        info = stub.Describe(
            bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=CALL_TIMEOUT
        )
    except grpc.RpcError as exc:
        raise ComplianceError(f"Describe failed: {_rpc_error(exc)}") from None
    if not NAME_PATTERN.fullmatch(info.name):
        raise ComplianceError(f"name {info.name!r} does not match [a-z0-9-]{{1,40}}")
    if info.protocol_version != PROTOCOL_VERSION:
        raise ComplianceError(
            f"protocol_version is {info.protocol_version}, expected {PROTOCOL_VERSION}"
        )
    if not info.variants:
        raise ComplianceError("variants is empty; list variant names or '*'")
    unknown = [v for v in info.variants if v != "*" and v not in VARIANTS]
    if unknown:
        raise ComplianceError(f"unknown variant(s) {', '.join(unknown)}")
    version = f" ({info.version})" if info.version else ""  # as Manifest.label names it
    return f"{info.name}{version} by {info.author or '?'}: {', '.join(info.variants)}"


def supported_variants(channel: grpc.Channel) -> list[str]:
    """The variants a bot says it plays, with ``*`` expanded to every named variant."""
    stub = bot_pb2_grpc.BotStub(channel)
    info = stub.Describe(
        bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=CALL_TIMEOUT
    )
    if "*" in info.variants:
        return sorted(VARIANTS)
    return [v for v in info.variants if v in VARIANTS]


def check_health(channel: grpc.Channel) -> str:
    """The standard health service reports SERVING overall and for the Bot service."""
    stub = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE_NAME):
        try:
            answer = stub.Check(
                health_pb2.HealthCheckRequest(service=service), timeout=CALL_TIMEOUT
            )
        except grpc.RpcError as exc:
            raise ComplianceError(
                f"health check of {service!r} failed: {_rpc_error(exc)}"
            ) from None
        if answer.status != health_pb2.HealthCheckResponse.SERVING:
            status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
            raise ComplianceError(f"health of {service!r} is {status}, expected SERVING")
    return "SERVING"


def check_full_game(channel: grpc.Channel, variant: str, seed: int = 1) -> str:
    """A whole game of ``variant``: one legal answer per turn request, the others play random."""
    rules = rules_for(variant)
    rng = random.Random(seed)
    seat = seed % rules.players
    game = Game(rules, seed)
    players = [f"seat-{s}" for s in range(rules.players)]
    players[seat] = "bot-under-test"
    stream = _Stream(bot_pb2_grpc.BotStub(channel), GAME_TIMEOUT)
    try:
        stream.send(
            game_start_message(f"check-{variant}-{seed}", rules, seat, players, MOVE_MS, BANK_MS)
        )
        request_id = 0
        slowest = 0.0
        while not game.is_over():
            deal = game.new_deal()
            start = deal.observation(seat)
            stream.send(deal_start_message(start))
            unsent: list[Any] = []  # moves the bot has not been told about yet
            while not deal.is_over():
                to_move = deal.to_move
                legal = deal.legal_moves()
                if to_move == seat:
                    request_id += 1
                    message = turn_request_message(
                        request_id, deal.observation(seat), legal, MOVE_MS, BANK_MS, unsent
                    )
                    unsent = []
                    began = time.perf_counter()
                    move = legal[stream.ask(message, legal)]
                    slowest = max(slowest, time.perf_counter() - began)
                else:
                    move = rng.choice(legal)
                deal.apply(move)
                unsent.append(move_played(to_move, move))
            for played in unsent:  # the last moves of the deal: no turn request carries them
                stream.send(bot_pb2.ArenaMessage(move_played=played))
            score = game.finish_deal(deal)
            stream.send(deal_end_message(start.deal_index, score, list(game.totals)))
        stream.send(game_end_message(list(game.totals), game.winner))
        stream.close()
    except BaseException:
        stream.abort()
        raise
    return f"seat {seat}, {stream.requests} answers, slowest {slowest * 1000:.0f} ms"


def check_single_legal_move(channel: grpc.Channel) -> str:
    """One card in hand, an empty table: the only legal move is to lay it down."""
    rules = rules_for("scopa")
    card = parse_card("5c")
    observation = bot_pb2.Observation(
        seat=1,
        to_move=1,
        dealer=1,
        deal_index=0,
        hand=[card],
        table=[],
        hand_sizes=[0, 1],
        stock_size=0,
        captured=[bot_pb2.CardList(), bot_pb2.CardList()],
        scope=[0, 0],
        totals=[0, 0],
    )
    request = bot_pb2.ArenaMessage(
        turn_request=bot_pb2.TurnRequest(
            request_id=(1 << 64) - 1,  # ids are opaque: the largest one must come back intact
            observation=observation,
            legal_moves=[bot_pb2.Move(card=card)],
            clock=bot_pb2.Clock(move_ms=MOVE_MS, bank_ms=BANK_MS),
        )
    )
    stream = _Stream(bot_pb2_grpc.BotStub(channel), 60.0)
    try:
        stream.send(
            bot_pb2.ArenaMessage(
                game_start=bot_pb2.GameStart(
                    game_id="check-single",
                    rules=rules_to_proto(rules),
                    seat=1,
                    players=["other", "bot-under-test"],
                    clock=bot_pb2.Clock(move_ms=MOVE_MS, bank_ms=BANK_MS),
                    protocol_version=PROTOCOL_VERSION,
                )
            )
        )
        index = stream.ask(request, [Move(card, ())])
        stream.send(game_end_message([0, 0], None, reason="compliance check"))
        stream.close()
    except BaseException:
        stream.abort()
        raise
    return f"answered index {index}"


def check_game_without_turns(channel: grpc.Channel) -> str:
    """A game that ends before the bot's first turn (a forfeit): no answer, a clean close."""
    rules = rules_for("scopa")
    stream = _Stream(bot_pb2_grpc.BotStub(channel), 60.0)
    try:
        stream.send(
            game_start_message(
                "check-empty", rules, 0, ["bot-under-test", "other"], MOVE_MS, BANK_MS
            )
        )
        stream.send(game_end_message([0, 0], 0, forfeit_side=1, reason="side 1 did not start"))
        stream.close()
    except BaseException:
        stream.abort()
        raise
    return "no answers, stream closed cleanly"


Check = Callable[[grpc.Channel], str]


def checks_for(
    channel: grpc.Channel, variants: Sequence[str] | None = None, seed: int = 1
) -> list[tuple[str, Check]]:
    """The named checks to run against a bot; ``variants`` limits the full-game checks."""
    named: list[tuple[str, Check]] = [
        ("describe", check_describe),
        ("health", check_health),
        ("single legal move, empty table", check_single_legal_move),
        ("game ends before any turn", check_game_without_turns),
    ]
    try:
        playable = supported_variants(channel)
    except grpc.RpcError:
        playable = []
    if variants is not None:
        playable = [v for v in playable if v in variants]
    for index, variant in enumerate(playable):
        check: Check = functools.partial(check_full_game, variant=variant, seed=seed + index)
        named.append((f"full game: {variant}", check))
    return named


def run_checks(
    address: str,
    variants: Sequence[str] | None = None,
    seed: int = 1,
    progress: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Runs every check against the bot at ``address`` (a gRPC target such as
    ``127.0.0.1:50051`` or ``unix:///path/bot.sock``) and returns their results."""
    results: list[CheckResult] = []
    with grpc.insecure_channel(address) as channel:
        began = time.perf_counter()
        try:
            # Without wait_for_ready a refused connection fails at once instead of retrying.
            health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=""), timeout=CALL_TIMEOUT
            )
        except grpc.RpcError as exc:
            if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                result = CheckResult(
                    "connect",
                    False,
                    f"no gRPC server at {address} ({_rpc_error(exc)})",
                    time.perf_counter() - began,
                )
                if progress:
                    progress(result)
                return [result]
        for name, check in checks_for(channel, variants, seed):
            began = time.perf_counter()
            try:
                detail, ok = check(channel), True
            except ComplianceError as exc:
                detail, ok = str(exc), False
            except Exception as exc:  # a check must report, never crash the run
                detail, ok = f"{type(exc).__name__}: {exc}", False
            result = CheckResult(name, ok, detail, time.perf_counter() - began)
            results.append(result)
            if progress:
                progress(result)
    return results


def results_json(results: Sequence[CheckResult]) -> str:
    """The results as the JSON document ``arena bot check --json`` prints."""
    return json.dumps(
        {"ok": all(r.ok for r in results), "checks": [r.to_json() for r in results]}, indent=2
    )
