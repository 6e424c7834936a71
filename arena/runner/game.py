"""One game's play over its seats' streams: deals, turns, clocks, faults, the freezer.

:func:`play_game` plays one game of a match on the seats' :class:`~arena.runner.seats.Slot`
objects and returns its :class:`~arena.runner.report.GameOutcome`; a bot's fault is data in
the outcome, never an exception. It reaches the match only through :class:`Table`.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import math
import time
from collections.abc import Coroutine
from typing import Any, Protocol

from arena.engine import (
    Deal,
    Game,
    Move,
    Rules,
    card_name,
)
from arena.engine.replay import (
    Replay,
    ReplayForfeit,
    ReplayMove,
    ReplayRecorder,
    result_winner,
)
from arena.protocol import convert
from arena.runner.gamelogs import GameLogCapture, SeatGameLogJson
from arena.runner.link import Answer, GameStream, TurnHandedOff
from arena.runner.report import (
    GameOutcome,
    LiveMove,
    MatchReport,
    MatchSpec,
    entrant_sides,
)
from arena.runner.sandbox import HostError
from arena.runner.seats import Slot, seat_slots
from arena.text import printable

log = logging.getLogger("arena.runner")

PACE_FIRST_MS = 5
"""The first release point of a paced turn (ms after its request; see :func:`release_points`)."""
PACE_RATIO = 16
"""Each release point of a paced turn after the first is this many times the one before."""

MAX_CLOCK_FAULTS = 3
SETTLE_S = 0.25
"""How long a turn waits, at most, for what its bot wrote to be read into its game log (off
the bot's clock: before the request is sent). Its output's reader is a thread of the runner:
on a busy host it can wait its turn for the CPU, and a line read after the next turn's mark
would be filed under that turn. Only a bot whose output never stops waits this long."""
SETTLE_STEP_S = 0.001
MAX_FALLBACK_NOTES = 3
"""Fallback answers recorded as faults per seat and game (all are counted in ``fallbacks``)."""


class Table(Protocol):
    """What a game needs of its match (:class:`arena.runner.match.MatchRun`)."""

    spec: MatchSpec
    rules: Rules
    match_id: str
    report: MatchReport

    def slot(self, entrant: int, k: int) -> Slot: ...

    def prestart_next(self) -> None: ...

    def check_cancel(self) -> None: ...


def release_points(limit_ms: int) -> list[int]:
    """When a paced turn's move may reach the table, in ms after the turn's request: from
    :data:`PACE_FIRST_MS`, each :data:`PACE_RATIO` times the last, below the move's limit,
    then the limit (where a late answer is played for the seat anyway).

    >>> release_points(1000)
    [5, 80, 1000]
    >>> release_points(3000)
    [5, 80, 1280, 3000]
    """
    points = []
    point = PACE_FIRST_MS
    while point < limit_ms:
        points.append(point)
        point *= PACE_RATIO
    return [*points, limit_ms]


def release_ms(elapsed_ms: float, limit_ms: int) -> int:
    """The release point of a turn answered ``elapsed_ms`` after its request.

    >>> release_ms(3.5, 1000), release_ms(5, 1000), release_ms(5.5, 1000)
    (5, 5, 80)
    """
    return next((p for p in release_points(limit_ms) if elapsed_ms <= p), limit_ms)


def pace_bits(limit_ms: int) -> float:
    """The most a paced turn's timing can tell: log2 of its release points.

    >>> round(pace_bits(1000), 2)
    1.58
    """
    return math.log2(len(release_points(limit_ms)))


class _Forfeit(Exception):
    def __init__(self, seat: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.seat = seat
        self.kind = kind
        self.detail = detail


class _Void(Exception):
    """The game cannot be played for reasons that are nobody's fault at the table."""


class _GamePlay:
    """The play of one game over the seats' streams."""

    def __init__(
        self,
        match: Table,
        game: Game,
        slots: list[Slot],
        recorder: ReplayRecorder,
    ) -> None:
        self.match = match
        self.rules = match.rules
        self.game = game
        self.slots = slots
        self.recorder = recorder
        self.streams: list[GameStream | None] = [None] * len(slots)
        self.banks = [match.spec.bank_ms] * len(slots)
        self.clock_faults = [0] * self.rules.num_sides
        self.request_id = 0
        self.moves = 0
        self.turn_ms: list[float] = []  # round trip of each answered turn request
        self.start_ms = 0.0  # time spent (re)starting the seats' bots
        self.fallbacks = [0] * len(slots)  # answers each seat said were fallbacks
        self.answered = [0] * len(slots)  # answers each seat gave in time
        self.requests = convert.TurnRequestBuilder()  # encodes turn requests, reusing bytes
        self.faulty: set[int] = set()  # seats whose process must be restarted
        paced = match.spec.pace_partners
        paced = self.rules.partners if paced is None else paced  # (release_points)
        # A seat run by its author (grpc://, a person's seat on the Play page) is not paced:
        # it is not sandboxed anyway, and a person would wait out each move's limit.
        self.paced = [paced and not slot.bot.is_remote for slot in slots]
        self.deal: Deal | None = None  # the deal in play
        self.turn: tuple[Deal, int, list[Move], int, int] | None = None  # the turn in play
        self.running: int | None = None  # the one seat not frozen, once seats are frozen
        self._freezing = False  # seats are frozen between their turns (from the game's start)
        self._done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._drivers: set[asyncio.Task[None]] = set()  # tasks playing the game (see run)

    def fault(self, seat: int, kind: str, detail: str) -> None:
        """Records a fault of ``seat`` at the current point of the game."""
        # A bot's words (a fallback's reason, a gRPC status, its last line): text only.
        self.recorder.record_fault(seat, kind, printable(detail)[:300])

    def forfeit(self, seat: int, kind: str, detail: str) -> _Forfeit:
        """Records the fault and returns the exception that ends the game."""
        self.fault(seat, kind, detail)
        self.faulty.add(seat)
        return _Forfeit(seat, kind, detail)

    async def run(self) -> None:
        """Starts the seats' bots, plays deals until the game is over.

        The play runs in a task of its own (a driver); when a turn's deadline passes while the
        driver waits on the bot's read, the stream hands the turn over as a timeout
        (:meth:`_hand_off`) and a new driver carries the game on from there, while the old
        one is left with the read. Whatever ends the game, the last driver hands it here.
        """
        await self._start_bots()
        # Every seat is started and described, and none knows a card yet: from here on, no
        # seat can make an object numbered from a host-wide counter (BotProcess.seal).
        for slot in self._unique_slots():
            if slot.process is not None:
                slot.process.seal()
        self.match.prestart_next()
        spec = self.match.spec
        players = [slot.label for slot in self.slots]
        for seat, slot in enumerate(self.slots):
            assert slot.link is not None
            stream = slot.link.open_game(timeout=None)
            stream.hand_off = self._hand_off
            self.streams[seat] = stream
        game_id = f"{self.match.match_id}-g{len(self.match.report.games) + 1}"
        await self._send_each(
            [
                convert.game_start_message(
                    game_id, self.rules, seat, players, spec.move_time_ms, spec.bank_ms
                )
                for seat in range(self.rules.players)
            ]
        )
        if spec.freeze_idle_seats:
            self._freeze_all()
        self._drive(self._play())  # the game's end comes in self._done
        try:
            await self._done
        finally:
            if not self._done.done():  # this task is being cancelled: so is the game
                for driver in list(self._drivers):
                    driver.cancel()

    def _drive(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Runs ``coroutine`` as the game's driver."""
        driver = asyncio.ensure_future(self._driver(coroutine))
        self._drivers.add(driver)
        driver.add_done_callback(self._drivers.discard)

    async def _driver(self, coroutine: Coroutine[Any, Any, None]) -> None:
        try:
            await coroutine
        except TurnHandedOff:
            return  # another driver carries the game on
        except BaseException as error:
            if not self._done.done():
                self._done.set_exception(error)
            if isinstance(error, asyncio.CancelledError):
                raise
            return
        if not self._done.done():
            self._done.set_result(None)

    def _hand_off(self, answer: Answer) -> None:
        """A turn's deadline passed while its driver waited on the read: the game goes on in a
        new driver, from the timeout."""
        self._drive(self._resume(answer))

    async def _resume(self, answer: Answer) -> None:
        await self._answered(answer)
        await self._play()

    async def _play(self) -> None:
        """Plays on from where the game is: deals, turns, the end of the game."""
        game = self.game
        while True:
            deal = self.deal
            if deal is None:
                if game.is_over():
                    break
                await self._start_deal()
            elif deal.is_over():
                self._check_memory()
                deal_index = game.deal_index
                score = game.finish_deal(deal)
                self.deal = None
                message = convert.deal_end_message(deal_index, score, list(game.totals))
                await self._send_each([message] * len(self.slots))
            else:
                await self._turn(deal)
        self._check_memory()
        message = convert.game_end_message(list(self.game.totals), self.game.winner)
        await self._send_each([message] * len(self.slots))

    def _check_memory(self) -> None:
        """A seat the kernel found over its memory limit forfeits, even when its main process
        lived on (the kernel may kill a child only, and the bot answer with a fallback).

        Checked at each deal's end and on a fallback answer: one read of the group's OOM count
        per seat, off the turn's path.
        """
        for seat, slot in enumerate(self.slots):
            if slot.process is None or slot in self.slots[:seat]:
                continue
            memory = slot.process.memory_fault()
            if memory is not None:
                raise self.forfeit(seat, "memory", memory)

    async def _start_deal(self) -> None:
        game = self.game
        deal = self.deal = game.new_deal()
        self.recorder.start_deal(game, deal)
        self.requests.new_deal()
        await self._send_each(
            [convert.deal_start_message(deal.observation(s)) for s in range(len(self.slots))]
        )

    async def _start_bots(self) -> None:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(slot.ensure_ready() for slot in self._unique_slots()), return_exceptions=True
        )
        self.start_ms = (time.perf_counter() - started) * 1000.0
        problems: dict[int, tuple[str, str]] = {}
        for slot, result in zip(self._unique_slots(), results, strict=True):
            if isinstance(result, HostError):
                raise result
            if isinstance(result, BaseException):
                raise _Void(f"the arena failed to start {slot.label}: {result!r}")
            if result is not None:
                problems[self.slots.index(slot)] = result
        self.recorder.set_bot_seeds([slot.bot_seed for slot in self.slots])
        if not problems:
            return
        for seat, (kind, detail) in problems.items():
            self.fault(seat, kind, detail)
            self.faulty.add(seat)
        sides = {self.rules.side_of(seat) for seat in problems}
        if len(sides) > 1:
            raise _Void("bots of more than one side failed to start")
        seat = min(problems)
        raise _Forfeit(seat, *problems[seat])

    def _freeze_all(self) -> None:
        """From now until the game ends, only the seat on move runs (see :meth:`_run_only`).

        Before the first deal: until then no seat knows a card, and start-up, ``Describe``
        and ``GameStart`` run with every seat thawed."""
        self._freezing = True
        self.running = None
        for slot in self._unique_slots():
            if slot.process is not None:
                slot.process.freeze()

    def _run_only(self, seat: int) -> None:
        """Freezes the seat that ran last and thaws ``seat``, before its turn request.

        Lazily, at the next turn of another seat: the last seat on move runs on while the
        runner plays its move and ends a deal, when no other seat of the game runs."""
        previous = self.running
        self.running = seat
        if previous is not None:
            process = self.slots[previous].process
            if process is not None:
                process.freeze()
        process = self.slots[seat].process
        if process is not None:
            process.thaw()

    def _thaw_all(self) -> None:
        """Every seat runs again: to read the game's end and close its stream, or to be
        killed."""
        self._freezing = False
        self.running = None
        for slot in self._unique_slots():
            if slot.process is not None:
                slot.process.thaw()

    def _unique_slots(self) -> list[Slot]:
        unique: list[Slot] = []
        for slot in self.slots:
            if slot not in unique:
                unique.append(slot)
        return unique

    async def _send_each(self, messages: list[Any]) -> None:
        """Sends each seat its event (by seat); a seat that cannot take it forfeits."""
        streams = self.streams
        results = await asyncio.gather(
            *(stream.send(messages[seat]) for seat, stream in enumerate(streams) if stream)
        )
        for seat, ok in enumerate(results):
            if not ok:
                stream = streams[seat]
                assert stream is not None
                kind, detail = await self._classify(seat, stream.broken_kind, stream.broken or "")
                raise self.forfeit(seat, kind, detail)

    async def _classify(self, seat: int, kind: str, detail: str) -> tuple[str, str]:
        """A broken stream is a crash when the bot's process died, else what gRPC said; a
        death at the seat's memory limit is ``memory``, by ``SIGSYS`` ``forbidden``."""
        slot = self.slots[seat]
        if slot.process is None or kind not in {"disconnect", "crash"}:
            return kind, detail
        for _ in range(20):  # the socket closes a moment before the process is reaped
            if not slot.process.is_running():
                break
            await asyncio.sleep(0.01)
        memory = slot.process.memory_fault()
        if memory is not None:
            return "memory", memory
        exit_detail = slot.exit_detail()
        if exit_detail == "killed by SIGSYS":
            return "forbidden", "made a system call the sandbox forbids (killed by SIGSYS)"
        if exit_detail is not None:
            return "crash", f"{exit_detail} ({detail})" if detail else exit_detail
        return kind, detail

    async def _turn(self, deal: Deal) -> None:
        self.match.check_cancel()  # between moves
        seat = deal.to_move
        stream = self.streams[seat]
        assert stream is not None
        # A turn is one message each way: the moves made since the seat's last turn ride in
        # its request (other seats' moves wait for their own turn or the end of the deal).
        legal = deal.legal_moves()
        observation = deal.observation(seat)
        bank = self.banks[seat]
        limit = min(self.match.spec.move_time_ms, bank)
        if not self._mark_turn(seat):
            await self._settle_and_mark(seat)
        self.request_id += 1
        message = self.requests.request_bytes(
            self.request_id, observation, legal, limit, bank, stream.take_moves()
        )
        self.turn = (deal, seat, legal, limit, bank)  # for _answered, in whichever driver
        if self._freezing and self.running != seat:
            self._run_only(seat)  # before the clock starts (in ask)
        asked = time.perf_counter()
        answer = await stream.ask(message, self.request_id, len(legal), limit / 1000.0)
        if self.paced[seat]:
            # The move waits for its release point: what its timing tells the table (the
            # partner among it) is which point, not when the bot answered. A fault's too (a
            # bot could answer garbage, or illegally, at a time it chose), by the time it took.
            took_ms = max(answer.elapsed_ms, (time.perf_counter() - asked) * 1000.0)
            release = asked + release_ms(took_ms, limit) / 1000.0
            await asyncio.sleep(max(0.0, release - time.perf_counter()))
        await self._answered(answer)

    def _mark_turn(self, seat: int) -> bool:
        """Marks the start of ``seat``'s turn in its game log when what its bot wrote so far
        is in the log (one look at its output pipes, no wait: the common case, every turn);
        False when it is not yet (:meth:`_settle_and_mark`)."""
        process = self.slots[seat].process
        if process is None or process.log.tap is None:
            return True
        if not process.output_settled():
            return False
        process.log.tap.mark(self.recorder.deals - 1, self.recorder.moves_of_deal, seat)
        return True

    async def _settle_and_mark(self, seat: int) -> None:
        """Marks the start of ``seat``'s turn once what its bot wrote so far is in the log,
        waiting at most ``SETTLE_S`` (a bot that floods its output gets its lines in the next
        turn rather than a slower game)."""
        process = self.slots[seat].process
        if process is None or process.log.tap is None:
            return
        waited = 0.0
        while not process.output_settled() and waited < SETTLE_S:
            await asyncio.sleep(SETTLE_STEP_S)
            waited += SETTLE_STEP_S
        process.log.tap.mark(self.recorder.deals - 1, self.recorder.moves_of_deal, seat)

    async def _answered(self, answer: Answer) -> None:
        """Plays the current turn's move: the bot's, or the first legal one after a timeout."""
        assert self.turn is not None
        deal, seat, legal, limit, bank = self.turn
        auto = False
        if answer.fault is None:
            assert answer.index is not None
            move = legal[answer.index]
            used = min(limit, answer.elapsed_ms)
        elif answer.fault == "timeout":
            self.fault(seat, "timeout", answer.detail)
            side = self.rules.side_of(seat)
            self.clock_faults[side] += 1
            if self.clock_faults[side] >= MAX_CLOCK_FAULTS:
                self.faulty.add(seat)
                raise _Forfeit(seat, "timeout", f"{MAX_CLOCK_FAULTS} clock faults in the game")
            move = legal[0]
            used = limit
            auto = True
        else:
            kind, detail = await self._classify(seat, answer.fault, answer.detail)
            raise self.forfeit(seat, kind, detail)
        self.banks[seat] = max(0, bank - round(used))
        if answer.fault is None:
            self.turn_ms.append(answer.elapsed_ms)
            self.answered[seat] += 1
            if answer.fallback:
                self.fallbacks[seat] += 1
                if self.fallbacks[seat] <= MAX_FALLBACK_NOTES:
                    self.fault(seat, "fallback", f"not chosen by the bot: {answer.fallback}")
                self._check_memory()
        live = self.match.spec.on_move is not None
        scope_before = deal.scope if live else ()
        deal.apply_unchecked(move)  # one of the engine's own legal moves
        record = self.recorder.record_move(
            seat,
            move,
            ms=round(answer.elapsed_ms),
            clock_ms=self.banks[seat],
            auto="timeout" if auto else None,
        )
        self.moves += 1
        played = self.requests.move_played(seat, move, by_arena=auto)
        for each in self.streams:
            if each is not None:
                each.queue(played)
        if live:
            self._tell_live(record, deal, deal.scope != scope_before)

    def _tell_live(self, record: ReplayMove, deal: Deal, scopa: bool) -> None:
        """Hands the move to the match's ``on_move``; a failing callback costs nothing here."""
        assert self.match.spec.on_move is not None
        over = deal.is_over()
        table = {  # what every seat sees after the move: no hand, no stock's order
            "table": [card_name(c) for c in deal.table],
            "hands": list(deal.hand_sizes),
            "captured": [pile.bit_count() for pile in deal.captured_masks],
            "scope": list(deal.scope),
            "stock": len(deal.stock),
            "dealer": int(deal.dealer),
            "to_move": None if over else int(deal.to_move),
            "scopa": scopa,
        }
        live = LiveMove(
            game=len(self.match.report.games),
            deal=self.recorder.deals - 1,
            move=self.recorder.moves_of_deal - 1,
            record=record.copy(),
            players=[slot.label for slot in self.slots],
            totals=list(self.game.totals),
            seats=[slot.entrant for slot in self.slots],
            table=table,
        )
        try:
            self.match.spec.on_move(live)
        except Exception:  # the live view is a courtesy; the game goes on without it
            log.exception("on_move failed")

    async def close(self, forfeit: ReplayForfeit | None) -> None:
        """Ends the streams (telling the bots how the game ended) and kills faulty bots."""
        self._thaw_all()
        open_streams = [
            (seat, stream)
            for seat, stream in enumerate(self.streams)
            if stream is not None and seat not in self.faulty
        ]
        if forfeit is not None:
            message = convert.game_end_message(
                list(self.game.totals),
                result_winner(self.rules.num_sides, self.game.winner, forfeit["side"], False),
                forfeit_side=forfeit["side"],
                reason=forfeit["reason"],
            )
            await asyncio.gather(*(stream.send(message) for _, stream in open_streams))
        await asyncio.gather(*(stream.finish() for _, stream in open_streams))
        for seat, stream in enumerate(self.streams):
            if stream is not None and seat in self.faulty:
                stream.cancel()
        for seat in sorted(self.faulty):
            await self.slots[seat].shutdown()
        if self._drivers:  # drivers left with a read end once their streams are cancelled
            await asyncio.wait(list(self._drivers), timeout=1.0)


# ---- entry point --------------------------------------------------------------------------


# ---- one game ------------------------------------------------------------------------------


async def play_game(
    table: Table, index: int, set_index: int, seed: int, seats: list[int]
) -> GameOutcome:
    """One game of ``table``'s match; never raises for what a bot does."""
    started = time.perf_counter()
    slots = [table.slot(entrant, k) for entrant, k in seat_slots(seats)]
    game = Game(table.rules, seed)
    recorder = ReplayRecorder(
        table.rules,
        seed,
        [slot.label for slot in slots],
        match=table.match_id,
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    )
    play = _GamePlay(table, game, slots, recorder)
    dropped = [slot.dropped_output() for slot in slots]
    captures = _tap_logs(slots)
    void: str | None = None
    forfeit: ReplayForfeit | None = None
    try:
        await play.run()
    except _Forfeit as stop:
        side = table.rules.side_of(stop.seat)
        forfeit = {"side": side, "reason": printable(f"{stop.kind}: {stop.detail}")[:300]}
    except HostError as error:
        void = printable(str(error))
    except _Void as error:
        void = printable(str(error))
    except Exception as error:  # a bug of the arena's own voids the game, not the match
        void = printable(f"the arena failed: {type(error).__name__}: {error}")[:300]
    finally:
        try:
            await play.close(forfeit)
        except Exception:  # cleanup is best effort: start this game's bots afresh
            for slot in slots:
                await slot.shutdown()
    logs = await _untap_logs(slots, captures)
    recorder.set_players([slot.label for slot in slots])
    for seat, slot in enumerate(slots):
        extra = slot.dropped_output() - dropped[seat]
        if extra > 0 and slot not in slots[:seat]:
            play.fault(
                seat,
                "output",
                f"wrote {extra:,} bytes of output more than its log keeps; they were dropped",
            )
    duration = round((time.perf_counter() - started) * 1000)
    replay = recorder.finish(game, forfeit, void, fallbacks=play.fallbacks, duration_ms=duration)
    outcome = _outcome(play, replay, (index, set_index, seed, seats), duration, void, forfeit)
    outcome.logs = logs
    return outcome


def _tap_logs(slots: list[Slot]) -> dict[str, GameLogCapture]:
    """A game log for each of the game's processes, tapping its log from here on."""
    captures: dict[str, GameLogCapture] = {}
    for seat, slot in enumerate(slots):
        if slot.process is None:  # a remote seat: its author has its log
            continue
        if slot.key in captures:
            captures[slot.key].seats.append(seat)
            continue
        captures[slot.key] = GameLogCapture([seat])
        slot.process.log.tap = captures[slot.key]
    return captures


async def _untap_logs(
    slots: list[Slot], captures: dict[str, GameLogCapture]
) -> dict[str, SeatGameLogJson]:
    """The game logs, once what the bots wrote during the game is read (or ``SETTLE_S``)."""
    for slot in slots:
        if slot.process is not None and slot.key in captures:
            waited = 0.0
            while not slot.process.output_settled() and waited < SETTLE_S:
                await asyncio.sleep(SETTLE_STEP_S)
                waited += SETTLE_STEP_S
            if slot.process.log.tap is captures[slot.key]:
                slot.process.log.tap = None
    return {key: capture.to_json() for key, capture in captures.items()}


def _outcome(
    play: _GamePlay,
    replay: Replay,
    where: tuple[int, int, int, list[int]],
    duration: int,
    void: str | None,
    forfeit: ReplayForfeit | None,
) -> GameOutcome:
    """What :func:`play_game` returns, from the game played and its replay; ``where``: the
    game's index, its set, its seed and its seats."""
    rules, game = play.rules, play.game
    index, set_index, seed, seats = where
    result = replay.get("result")
    winner = None if result is None else result["winner"]
    scope = [0] * rules.num_sides
    for score in game.scores:
        for side, points in enumerate(score.points):
            scope[side] += points["scope"]
    winners = []
    if winner is not None:
        winners = sorted(
            e for e, side in entrant_sides(seats, rules.num_sides).items() if side == winner
        )
    return GameOutcome(
        index=index,
        set_index=set_index,
        seed=seed,
        seats=seats,
        replay=replay,
        totals=list(game.totals),
        winner_side=winner,
        winner_entrants=winners,
        void=void,
        forfeit=forfeit,
        faults=list(play.recorder.faults),
        duration_ms=duration,
        moves=play.moves,
        scope=scope,
        turn_ms=play.turn_ms,
        start_ms=play.start_ms,
        fallbacks=list(play.fallbacks),
        answered=list(play.answered),
    )
