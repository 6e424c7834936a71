"""The runner's side of the gRPC conversation with one bot: ``Describe`` and ``Play`` streams.

:class:`BotLink` is an asyncio gRPC channel to one bot process (a unix socket) or a remote bot
(``host:port``). :class:`GameStream` is one ``Play`` stream: :meth:`GameStream.send` an event,
:meth:`GameStream.ask` a turn (one message each way) and get an :class:`Answer` that is either
a move index or a fault kind with a reason. Every call has a deadline; nothing here raises
for what a bot does wrong. This module does not know the rules or the clocks' policy (see
:mod:`arena.runner.game`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Callable
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
    # What a bot sends is bounded: a TurnResponse is a few bytes and a BotInfo a few hundred,
    # so 64 KiB a message and 16 KiB of metadata; no window growth (BDP probing), so that a
    # bot that floods the stream is held to HTTP/2's initial 64 KiB window.
    ("grpc.max_receive_message_length", 64 * 1024),
    ("grpc.max_metadata_size", 16 * 1024),
    ("grpc.http2.bdp_probe", 0),
    ("grpc.enable_retries", 0),
    # Each channel connects on its own. gRPC shares a connection among the channels of a
    # process whose targets are the same text, and a seat's target names a descriptor
    # (``unix:/proc/self/fd/N``) whose number the next seat's socket may take: a new seat's
    # channel was handed the live connection to another seat's bot (an entrant's seat played,
    # and its hand read, by its opponent's process).
    ("grpc.use_local_subchannel_pool", 1),
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
    fallback: str = ""  # the bot says it did not choose this move itself, and why


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

    def connect(self) -> None:
        """Starts connecting now (in the background), ahead of the first call."""
        self.channel.get_state(try_to_connect=True)

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


class TurnHandedOff(Exception):
    """Raised in the task that was waiting for a turn's answer when the turn's deadline passed
    and the stream handed the turn (as a timeout) to its ``hand_off`` callback: the game goes
    on in whatever task that callback starts, and the raising task has nothing left to do."""


class GameStream:
    """One ``Play`` stream: events out, one answer per turn request in.

    Moves are queued (:meth:`queue`, ``MovePlayed`` messages) until the seat's next turn
    request, which carries them in ``moves_before`` (:meth:`take_moves`): a turn is one message
    each way. Moves with no turn after them are written as ``MovePlayed`` messages of their
    own by :meth:`flush` (and before any other event, :meth:`send`).

    Reading an answer. A pending read cannot be abandoned in grpc.aio: cancelling it cancels
    the whole stream. So a turn whose deadline may pass reads in one of two ways:

    - directly, when the stream has a ``hand_off`` callback and nothing else is reading: the
      asking task awaits the read itself, as a bare ping-pong does, with no hand-over between
      tasks on the turn's path. If the deadline passes first, the watchdog gives the turn up
      as a timeout to ``hand_off`` (which must carry the game on in another task) and the
      asking task, once its read returns, hands what it read to the stream and raises
      :class:`TurnHandedOff`;
    - through the inbox otherwise (no ``hand_off``, or a read still pending from a turn given
      up earlier): a reader task reads, the asking task waits on a future that the reader or
      the watchdog resolves.

    Answers to requests already given up are skipped, whichever way they arrive.
    """

    def __init__(self, call: Any) -> None:
        self.call = call
        self.broken: str | None = None  # why the stream can no longer be used
        self.broken_kind = "disconnect"
        self.pending: list[Any] = []  # MovePlayed messages not sent yet, in order
        # Called with the timeout Answer when a turn read directly passes its deadline; it
        # must carry the game on in another task. None: every turn reads through the inbox.
        self.hand_off: Callable[[Answer], None] | None = None
        self._expired: set[int] = set()  # requests answered too late, whose answer is ignored
        self._loop = asyncio.get_running_loop()
        self._inbox: collections.deque[Any] = collections.deque()  # answers nobody waited for
        self._waiter: asyncio.Future[Any] | None = None  # the turn waiting for an answer
        self._reading = False  # a read is pending on the call (one at most)
        self._reader: asyncio.Task[None] | None = None  # the reader task, while it reads
        self._direct: object | None = None  # the token of the turn reading directly
        self._request_id = 0  # the current turn's request
        self._timeout = 0.0  # the current turn's limit, seconds
        self._writing = False  # a turn request is being written
        self._deadline_passed = False  # the current turn's deadline has passed
        self._send_timer: asyncio.TimerHandle | None = None  # a late turn request's last chance
        self._deadline: float | None = None  # the current turn's deadline (loop time)
        self._turn_start = 0.0  # when the current turn's request began to be written
        self._watchdog: asyncio.TimerHandle | None = None  # fires at or before the deadline

    def _deliver(self, item: Any) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(item)
        else:
            self._inbox.append(item)

    def _start_reader(self) -> None:
        """Starts a reader task for one answer, unless a read is pending already."""
        if not self._reading and self.broken is None:
            self._reading = True
            self._reader = asyncio.ensure_future(self._read_one())

    async def _read_one(self) -> None:
        try:
            response = await self.call.read()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the stream failed: hand the error to whoever waits
            response = error
        finally:
            self._reading = False
            self._reader = None
        self._deliver(response)

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
        turn's deadline a pending answer is a ``timeout``: returned, or, for a turn read
        directly, given to ``hand_off`` while this raises :class:`TurnHandedOff`. A request
        the bot has not even taken by then gets until ``SEND_TIMEOUT`` before the stream is
        cancelled. The deadline is kept by one watchdog timer per stream, re-armed only when
        it fires early, rather than a timer made and cancelled every turn.
        """
        start = time.perf_counter()
        if self.broken is not None:
            return self._failure(start)
        self._turn_start = start
        self._request_id = request_id
        self._timeout = timeout
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
        if self._deadline_passed:  # the bot took the request only after the turn's deadline
            self._end_turn()
            return self._timed_out()
        if self.hand_off is not None and not self._reading and not self._inbox:
            return await self._ask_directly(request_id, num_legal, start)
        try:
            return await self._ask_through_inbox(request_id, num_legal, start)
        finally:
            self._end_turn()

    async def _ask_directly(self, request_id: int, num_legal: int, start: float) -> Answer:
        """The turn's answer, read by this task; see the class's notes."""
        token = self._direct = object()
        while True:
            self._reading = True
            try:
                response = await self.call.read()
            except asyncio.CancelledError:
                self._direct = None
                raise
            except Exception as error:  # the stream failed
                response = error
            finally:
                self._reading = False
            if self._direct is not token:  # the turn was given up at its deadline
                self._deliver(response)
                raise TurnHandedOff()
            if self._skip_late(response):
                continue
            self._direct = None
            self._end_turn()
            return self._check(response, request_id, num_legal, start)

    async def _ask_through_inbox(self, request_id: int, num_legal: int, start: float) -> Answer:
        """The turn's answer, read by a reader task; see the class's notes."""
        while True:
            if not self._inbox:
                self._start_reader()
            response = await self._next_answer()
            if response is _TIMEOUT:
                return self._timed_out()
            if self._skip_late(response):
                continue
            return self._check(response, request_id, num_legal, start)

    def _skip_late(self, response: Any) -> bool:
        """Whether ``response`` answers a request already given up (and played for the seat):
        it is skipped, once."""
        if isinstance(response, bot_pb2.TurnResponse) and response.request_id in self._expired:
            self._expired.discard(response.request_id)
            return True
        return False

    def _timed_out(self) -> Answer:
        """The current turn given up: its request's answer will be skipped."""
        self._expired.add(self._request_id)
        return Answer(
            None,
            "timeout",
            f"no answer within {self._timeout * 1000:.0f} ms",
            _ms(self._turn_start),
        )

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
        if self._direct is not None and self.hand_off is not None:
            self._direct = None  # the reading task hands over what it reads, and stops
            answer = self._timed_out()
            self._end_turn()
            self.hand_off(answer)
            return
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(_TIMEOUT)

    async def _next_answer(self) -> Any:
        """The next thing read, or _TIMEOUT once the turn's deadline has passed.

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
        return Answer(int(response.move_index), None, "", elapsed, response.fallback[:300])

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
        """Half-closes the stream, lets the bot end its side (briefly), then cancels it.

        A read still pending from a turn given up earlier is not waited for."""
        if self.broken is None:
            with contextlib.suppress(
                TimeoutError, grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError
            ):
                await asyncio.wait_for(self.call.done_writing(), 1.0)
                if not self._reading:
                    await asyncio.wait_for(self._drain(), 1.0)
        self.cancel()

    async def _drain(self) -> None:
        """Reads (and drops) whatever the bot still sends, up to the stream's end."""
        self._reading = True
        try:
            while await self.call.read() is not grpc.aio.EOF:
                pass
        finally:
            self._reading = False

    def cancel(self) -> None:
        """Cancels the stream, its reader task and its timers."""
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self._end_turn()
        self.call.cancel()
        if self._reader is not None:
            self._reader.cancel()


_TIMEOUT = object()


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


__all__ = ["Answer", "BotLink", "GameStream", "TurnHandedOff"]
