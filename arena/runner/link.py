"""The runner's side of the gRPC conversation with one bot: ``Describe`` and ``Play`` streams.

:class:`BotLink` is an asyncio gRPC channel to one bot process (a unix socket) or a remote bot
(``host:port``). :class:`GameStream` is one ``Play`` stream: :meth:`GameStream.send` an event,
:meth:`GameStream.ask` a turn (one message each way) and get an :class:`Answer` that is either
a move index or a fault kind with a reason. Every call has a deadline; nothing here raises
for what a bot does wrong. This module does not know the rules or the clocks' policy (see
:mod:`arena.runner.match`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from dataclasses import dataclass
from typing import Any

import grpc
import grpc.aio

from arena.protocol import PROTOCOL_VERSION, bot_pb2, bot_pb2_grpc

CHANNEL_OPTIONS = [
    # A bot that is slow to come up is waited for by the start-up protocol (LISTENING), not by
    # gRPC's reconnect backoff; keep any backoff short so a reconnect never costs a turn.
    ("grpc.initial_reconnect_backoff_ms", 50),
    ("grpc.min_reconnect_backoff_ms", 50),
    ("grpc.max_reconnect_backoff_ms", 500),
    ("grpc.max_receive_message_length", 1024 * 1024),
    ("grpc.enable_retries", 0),
]

SEND_TIMEOUT = 5.0  # seconds an event may take to be handed to a bot's stream

PLAY_METHOD = "/scopa.arena.v1.Bot/Play"


def _serialize(message: Any) -> bytes:
    """An ``ArenaMessage``'s bytes; bytes already serialized (a turn request the runner
    encoded itself, :meth:`arena.protocol.convert.TurnRequestBuilder.request_bytes`) as they are."""
    if isinstance(message, bytes):
        return message
    data: bytes = message.SerializeToString()
    return data


@dataclass(frozen=True)
class Answer:
    """What came back for one turn request: a move index, or a fault kind and why."""

    index: int | None
    fault: str | None = None  # timeout, crash, disconnect, garbled, illegal
    detail: str = ""
    elapsed_ms: float = 0.0


class BotLink:
    """An asyncio gRPC channel to one bot."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.channel = grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)
        self.stub = bot_pb2_grpc.BotStub(self.channel)
        # Play as the stub has it, except that it also takes serialized ArenaMessage bytes.
        self._play = self.channel.stream_stream(
            PLAY_METHOD,
            request_serializer=_serialize,
            response_deserializer=bot_pb2.TurnResponse.FromString,
        )

    async def describe(self, timeout: float) -> Any:
        """The bot's ``BotInfo``; raises grpc.aio.AioRpcError or asyncio.TimeoutError."""
        request = bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION)
        return await self.stub.Describe(request, timeout=timeout, wait_for_ready=True)

    def open_game(self, timeout: float | None) -> GameStream:
        """A new ``Play`` stream with an overall deadline of ``timeout`` seconds. Its messages
        may be ``ArenaMessage`` objects or their serialized bytes."""
        return GameStream(self._play(timeout=timeout))

    async def close(self) -> None:
        """Closes the channel (any open stream is cancelled)."""
        await self.channel.close(grace=None)


class GameStream:
    """One ``Play`` stream: events out, one answer per turn request in.

    Moves are queued (:meth:`queue`, ``MovePlayed`` messages) until the seat's next turn
    request, which carries them in ``moves_before`` (:meth:`take_moves`): a turn is one message
    each way. Moves with no turn after them are written as ``MovePlayed`` messages of their
    own by :meth:`flush` (and before any other event, :meth:`send`). A single reader task
    moves the bot's answers into an inbox, one read per turn request written: a turn that
    times out stops waiting on the inbox, never on the call itself (cancelling a pending read
    would cancel the whole stream in grpc.aio).
    """

    def __init__(self, call: Any) -> None:
        self.call = call
        self.broken: str | None = None  # why the stream can no longer be used
        self.broken_kind = "disconnect"
        self.pending: list[Any] = []  # MovePlayed messages not sent yet, in order
        self._expired: set[int] = set()  # requests answered too late, whose answer is ignored
        self._loop = asyncio.get_running_loop()
        self._inbox: collections.deque[Any] = collections.deque()  # answers nobody waited for
        self._waiter: asyncio.Future[Any] | None = None  # the turn waiting for an answer
        self._writing = False  # a turn request is being written
        self._deadline_passed = False  # the current turn's deadline has passed
        self._send_timer: asyncio.TimerHandle | None = None  # a late turn request's last chance
        self._deadline: float | None = None  # the current turn's deadline (loop time)
        self._turn_start = 0.0  # when the current turn's request began to be written
        self._watchdog: asyncio.TimerHandle | None = None  # fires at or before the deadline
        # The reader arms a read only once a turn request has been written, while the bot
        # thinks, as a bare ping-pong does: armed earlier, the read's set-up would delay the
        # write's completion, on the turn's path. One read per request; unlimited at the end.
        self._reads = 0
        self._gate: asyncio.Future[None] | None = None
        self._reader = asyncio.ensure_future(self._read_loop())

    def _allow_reads(self, count: int = 1) -> None:
        """Lets the reader read ``count`` more messages."""
        self._reads += count
        gate = self._gate
        if gate is not None and not gate.done():
            gate.set_result(None)

    def _deliver(self, item: Any) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
        else:
            self._inbox.append(item)

    async def _read_loop(self) -> None:
        try:
            while True:
                while self._reads == 0:  # until a turn request (or the end) has been written
                    self._gate = self._loop.create_future()
                    await self._gate
                self._reads -= 1
                response = await self.call.read()
                self._deliver(response)
                if response is grpc.aio.EOF:
                    return
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the stream failed: hand the error to whoever waits
            self._deliver(error)

    def queue(self, move_played: Any) -> None:
        """Queues a ``MovePlayed`` for the seat's next turn request (or :meth:`flush`)."""
        self.pending.append(move_played)

    def take_moves(self) -> list[Any]:
        """The queued ``MovePlayed`` messages, for a turn request's ``moves_before``; clears
        the queue."""
        moves = self.pending
        self.pending = []
        return moves

    async def flush(self) -> bool:
        """Writes each queued move as a ``MovePlayed`` message of its own; False (and the
        stream marked broken) when that fails."""
        moves = self.take_moves()
        for move_played in moves:
            if not await self._write(bot_pb2.ArenaMessage(move_played=move_played)):
                return False
        return True

    async def send(self, message: Any) -> bool:
        """Writes the queued moves, then the event ``message``; False when the stream broke."""
        if self.pending and not await self.flush():
            return False
        return await self._write(message)

    async def _write(self, message: Any) -> bool:
        """Writes an event. A bot that stops reading blocks writes once its flow-control
        window is full: past SEND_TIMEOUT the stream is cancelled."""
        if self.broken is not None:
            return False
        timer = self._loop.call_later(SEND_TIMEOUT, self._write_expired)
        try:
            return await self._write_unguarded(message)
        finally:
            timer.cancel()

    async def _write_unguarded(self, message: Any) -> bool:
        """Writes ``message``, with whatever timer the caller set; False when the stream
        broke (and why in ``broken``)."""
        try:
            await self.call.write(message)
        except asyncio.CancelledError:
            if self.broken is None:  # not our timer: the runner itself is being cancelled
                raise
            return False
        except (grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError) as error:
            if self.broken is None:
                self._break(error)
            return False
        return True

    def _write_expired(self) -> None:
        self.broken = f"the bot did not take a message within {SEND_TIMEOUT:g} s"
        self.broken_kind = "timeout"
        self.call.cancel()

    async def ask(self, message: Any, request_id: int, num_legal: int, timeout: float) -> Answer:
        """Writes a turn request and waits up to ``timeout`` seconds, counted from just before
        the write (the seat's clock starts then), for its answer, and checks it.

        The caller has put the seat's queued moves in the request (:meth:`take_moves`). At the
        turn's deadline a pending answer is a ``timeout``; a request the bot has not even
        taken by then gets until ``SEND_TIMEOUT`` before the stream is cancelled. The deadline
        is kept by one watchdog timer per stream, re-armed only when it fires early, rather
        than a timer made and cancelled every turn.
        """
        start = time.perf_counter()
        if self.broken is not None:
            return self._failure(start)
        self._turn_start = start
        self._deadline_passed = False
        self._writing = True
        self._arm(self._loop.time() + timeout)
        try:
            written = await self._write_unguarded(message)
        finally:
            self._writing = False
        if not written:
            self._end_turn()
            return self._failure(start)
        self._allow_reads()
        try:
            while True:
                response = await self._next_answer()
                if response is _TIMEOUT:
                    self._expired.add(request_id)
                    elapsed = _ms(start)
                    return Answer(
                        None, "timeout", f"no answer within {timeout * 1000:.0f} ms", elapsed
                    )
                if (
                    isinstance(response, bot_pb2.TurnResponse)
                    and response.request_id in self._expired
                ):
                    self._expired.discard(response.request_id)
                    continue  # a late answer to an earlier request: already played for the seat
                return self._check(response, request_id, num_legal, start)
        finally:
            self._end_turn()

    def _arm(self, deadline: float) -> None:
        """Sets the turn's deadline (loop time); arms the watchdog unless it fires sooner."""
        self._deadline = deadline
        watchdog = self._watchdog
        if watchdog is not None:
            if watchdog.when() <= deadline:
                return  # it fires first and re-arms itself for this deadline
            watchdog.cancel()
        self._watchdog = self._loop.call_at(deadline, self._on_watchdog)

    def _end_turn(self) -> None:
        self._deadline = None
        extra = self._send_timer
        if extra is not None:
            extra.cancel()
            self._send_timer = None

    def _on_watchdog(self) -> None:
        """The watchdog fired: the current turn's deadline has passed, or it is re-armed."""
        self._watchdog = None
        deadline = self._deadline
        if deadline is None:
            return  # no turn in progress; the next one arms it again
        if self._loop.time() < deadline:
            self._watchdog = self._loop.call_at(deadline, self._on_watchdog)
            return
        self._turn_deadline()

    def _turn_deadline(self) -> None:
        """The turn's deadline: a pending answer times out; a pending write gets until
        ``SEND_TIMEOUT`` after it began."""
        self._deadline_passed = True
        if self._writing:
            left = SEND_TIMEOUT - (time.perf_counter() - self._turn_start)
            self._send_timer = self._loop.call_later(max(0.0, left), self._write_expired)
            return
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(_TIMEOUT)

    async def _next_answer(self) -> Any:
        """The next thing the reader got, or _TIMEOUT once the turn's deadline has passed.

        A plain future resolved by the reader or by the watchdog: nothing pending is ever
        cancelled.
        """
        if self._inbox:
            return self._inbox.popleft()
        if self._deadline_passed:
            return _TIMEOUT
        waiter: asyncio.Future[Any] = self._loop.create_future()
        self._waiter = waiter
        try:
            return await waiter
        finally:
            self._waiter = None

    def _failure(self, start: float) -> Answer:
        """The answer for a turn whose request could not be written."""
        return Answer(None, self.broken_kind, self.broken or "stream closed", _ms(start))

    def _check(self, response: Any, request_id: int, num_legal: int, start: float) -> Answer:
        """The answer a response makes: a move index, or the fault it is."""
        if isinstance(response, BaseException):
            self._break(response)
            return Answer(None, self.broken_kind, self.broken or "", _ms(start))
        if response is grpc.aio.EOF:
            self.broken = "the bot closed the stream"
            return Answer(None, "disconnect", self.broken, _ms(start))
        if not isinstance(response, bot_pb2.TurnResponse):
            # grpc.aio hands back None for bytes that do not decode as a TurnResponse.
            self.broken = self.broken or "an answer that is not a TurnResponse"
            self.broken_kind = "garbled"
            return Answer(None, "garbled", self.broken, _ms(start))
        elapsed = _ms(start)
        if response.request_id != request_id:
            return Answer(
                None,
                "garbled",
                f"answer to request {response.request_id}, expected {request_id}",
                elapsed,
            )
        if not response.HasField("move_index"):
            return Answer(None, "garbled", "answer without move_index", elapsed)
        if response.move_index >= num_legal:
            return Answer(
                None,
                "illegal",
                f"move_index {response.move_index} outside 0..{num_legal - 1}",
                elapsed,
            )
        return Answer(int(response.move_index), None, "", elapsed)

    def _break(self, error: BaseException) -> None:
        if isinstance(error, grpc.aio.AioRpcError):
            code = error.code()
            details = (error.details() or "").strip()
            if code == grpc.StatusCode.INTERNAL and "eserializ" in details:
                self.broken_kind = "garbled"
                self.broken = f"undecodable answer: {details}"
                return
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                self.broken_kind = "disconnect"
            else:
                self.broken_kind = "crash"
            self.broken = f"{code.name}: {details}"[:500]
        else:
            self.broken_kind = "disconnect"
            self.broken = str(error)[:500]

    async def finish(self) -> None:
        """Half-closes the stream, lets the bot end its side (briefly), then cancels it."""
        if self.broken is None:
            with contextlib.suppress(
                TimeoutError, grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError
            ):
                await asyncio.wait_for(self.call.done_writing(), 1.0)
                self._allow_reads(1 << 30)  # whatever the bot still sends, up to its end
                await asyncio.wait_for(asyncio.shield(self._reader), 1.0)
        self.cancel()

    def cancel(self) -> None:
        """Cancels the stream, its reader task and its timers."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._end_turn()
        self.call.cancel()
        self._reader.cancel()


_TIMEOUT = object()


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


__all__ = ["Answer", "BotLink", "GameStream"]
