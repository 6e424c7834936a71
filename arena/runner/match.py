"""A match between bots: duplicate sets of games, clocks, faults as data, replays.

:func:`run_match` plays a :class:`MatchSpec` and returns a :class:`MatchReport`. Games come in
duplicate sets: every game of a set deals the same shuffled decks (the same game seed), with
the entrants' seats rotated, so deal luck cancels. Each seat is its own bot process (see
:mod:`arena.runner.process`), reached over one ``Play`` stream per game
(:mod:`arena.runner.link`).

Clocks: a seat has ``move_time_ms`` per move and ``bank_ms`` for the whole game; a move's limit
is the smaller of the two, and the time it takes is charged to the bank. Only the seat on move
runs: from the game's start to its end every other seat's bot is frozen (its control group's
freezer, or signals; see :mod:`arena.runner.cgroups`), so no two bots of a game ever compute
at once, a bot cannot slow another, and partners cannot time each other's use of the CPU. A
seat is thawed before its turn request is written, so its clock never counts time it was
frozen. A late answer is a ``timeout`` fault: the seat's first legal move is played for it. A
crash, a disconnect, a garbled or illegal answer, a bot that fails to start, or a side's third
timeout forfeits the game for that side; the faulty process is killed and started again for
the next game. A game the arena itself cannot play (the sandbox fails) is void and counts for
nobody.

This module drives the engine and the protocol; it has no command line (see
:mod:`arena.commands.match`) and knows nothing of leagues, Celery or Django.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import logging
import math
import secrets
import signal
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from arena.engine import (
    Deal,
    EngineError,
    Game,
    Move,
    Rules,
    card_name,
    rules_for,
    side_of_seat,
)
from arena.engine.replay import (
    Replay,
    ReplayFault,
    ReplayForfeit,
    ReplayMove,
    ReplayRecorder,
    result_winner,
    write_replay,
)
from arena.protocol import convert
from arena.runner.bots import BotError, BotRef
from arena.runner.link import Answer, BotLink, GameStream, TurnHandedOff
from arena.runner.process import BotProcess, StartError
from arena.runner.sandbox import HostError, Limits, sandbox_available
from arena.runner.stats import EloEstimate, finite_or_none
from arena.seeds import SEED_BITS, draw_seed
from arena.text import printable

log = logging.getLogger("arena.runner")

MAX_CLOCK_FAULTS = 3
MAX_FALLBACK_NOTES = 3
"""Fallback answers recorded as faults per seat and game (all are counted in ``fallbacks``)."""
DESCRIBE_TIMEOUT = 10.0
CANCEL_POLL_S = 0.05
"""How often a match looks at its spec's ``cancel`` event."""

FORFEIT_KINDS = frozenset(
    {"crash", "disconnect", "garbled", "illegal", "start", "memory", "forbidden"}
)
"""Fault kinds that forfeit the game at once (a timeout does on the side's third)."""


class MatchError(ValueError):
    """A match that cannot be played as asked (wrong number of bots, unknown variant...)."""


@dataclass
class MatchSpec:
    """What to play: entrants, variant and options, number of games, seed and clocks."""

    entrants: list[BotRef]
    variant: str
    options: dict[str, Any] = field(default_factory=dict)
    games: int = 2
    # True: games come in duplicate sets (``games`` rounded up to whole sets). False: exactly
    # ``games`` games, each dealt from its own seed, the seats rotating from game to game (a
    # single game against a person, where a second deal of the same cards means nothing).
    duplicate: bool = True
    seed: int | None = None  # None: drawn from secrets (a known seed lets a bot re-deal)
    move_time_ms: int = 1000
    bank_ms: int = 60_000
    replays_dir: Path | None = None
    sandbox: bool = True
    limits: Limits | None = None
    start_timeout_s: float = 30.0
    match_id: str | None = None
    # Called on the runner's event loop with each move as it is played (see LiveMove); it must
    # return at once (queue the move, write it elsewhere): the seats' clocks run meanwhile.
    on_move: Callable[[LiveMove], None] | None = None
    # Called after each whole duplicate set with the report so far; True ends the match there,
    # the sets not yet played left out (an SPRT that has decided: ``arena match --sprt``).
    stop: Callable[[MatchReport], bool] | None = None
    # Freeze every seat but the one on move (see the module's notes). False only to measure
    # what the freezer closes: then bots compute at the same time, and partners can time
    # each other.
    freeze_idle_seats: bool = True
    # Set from any thread to stop the match: it ends before its next move or game, or at once
    # while it waits (a seat thinking or starting); every seat is stopped as at the end of a
    # match, and run_match returns the report of the games finished so far, ``cancelled``.
    cancel: threading.Event | None = None
    # Start the seats of a set's next game while its current game plays (Slot.prestart):
    # fresh processes, at the lowest CPU weight, frozen once they listen, at most one game
    # ahead. Off by default: on two busy cores the starts are CPU, and it measured no gain
    # (README, benchmarks); ``arena bench match`` measures it beside the default.
    prestart: bool = False
    # Make the seats of a set's next game ready while its current game plays: seat folders,
    # groups and sandboxes, each bot forked in by the fork server, confined and waiting for
    # its start (Python seats forked by the runner only; no bot code runs before its game).
    # Off only to measure what it saves.
    prepare_ahead: bool = True
    # Fork Python seats from the runner's fork server where it can (arena.runner.forkserver);
    # False starts every seat by exec, only to measure what forking saves.
    fork_seats: bool = True
    # False only for the baseline of ``arena bench match``: a seat's process then plays every
    # game of a duplicate set and knows each hand of the set's later games. Never in a match
    # that counts.
    fresh_per_game: bool = True
    # A process that played a game of a set rests, frozen and alive, and plays a game of a
    # later set for which the slot's other process has seen one (Slot): each process still
    # sees one game of a set, and a set after the first starts none. False: each such game
    # starts a new process (made ready ahead), and the last one is ended.
    rest_seats: bool = True


@dataclass(frozen=True)
class LiveMove:
    """A move as it is played, for a live view: only what every seat sees (no hand, no deck)."""

    game: int  # index of the game in the match, from 0
    deal: int  # index of the deal in the game, from 0
    move: int  # index of the move in the deal, from 0
    record: ReplayMove  # as in the replay: seat, card, capture, ms, clock (and auto)
    players: list[str]  # by seat
    totals: list[int]  # game points per side before this deal
    seats: list[int] = field(default_factory=list)  # the entrant index of each seat
    # The table after the move, as every seat sees it: its cards, each hand's size, each
    # side's pile size and scope, the stock's size, the dealer, who moves next, and whether
    # the move swept the table (a scopa).
    table: dict[str, Any] = field(default_factory=dict)


@dataclass
class GameOutcome:
    """One game of a match: who sat where, how it ended, and its replay."""

    index: int
    set_index: int
    seed: int
    seats: list[int]  # entrant index per seat
    replay: Replay
    totals: list[int]
    winner_side: int | None
    winner_entrants: list[int]  # every entrant of the winning side
    void: str | None
    forfeit: ReplayForfeit | None
    faults: list[ReplayFault]
    duration_ms: int
    moves: int
    scope: list[int]  # scope per side over the game
    turn_ms: list[float] = field(default_factory=list)  # each answered turn's round trip
    start_ms: float = 0.0  # of duration_ms, the time spent (re)starting bot processes
    fallbacks: list[int] = field(default_factory=list)  # per seat: moves the bot said it
    # did not choose itself (its code failed and a fallback answered)
    answered: list[int] = field(default_factory=list)  # per seat: moves the bot answered

    @property
    def winner_entrant(self) -> int | None:
        """The winning entrant, or None for a draw, a void game, or a two-entrant side."""
        return self.winner_entrants[0] if len(self.winner_entrants) == 1 else None


class GameJson(TypedDict):
    """One game of :class:`MatchReportJson`."""

    index: int
    set: int
    seed: int
    seats: list[int]  # entrant index per seat
    totals: list[int]
    winner_side: int | None
    winner_entrants: list[int]
    void: str | None
    forfeit: ReplayForfeit | None
    faults: list[ReplayFault]
    fallbacks: list[int]
    duration_ms: int
    moves: int
    replay: NotRequired[Replay]  # when asked for


class EntrantJson(TypedDict):
    """One entrant's line of :class:`MatchReportJson` (:meth:`EntrantSummary.to_json`)."""

    entrant: int
    label: str
    games: int
    wins: int
    losses: int
    draws: int
    void: int
    points: int
    points_against: int
    scope: int
    faults: int
    answered: int
    fallbacks: int
    score: float
    elo: float | None
    elo_error: float | None
    los: float


class MatchReportJson(TypedDict):
    """The one JSON form of a :class:`MatchReport`: what ``arena match --json`` prints and what
    a worker hands over to be recorded (then with the replays and the bots' logs)."""

    variant: str
    options: dict[str, Any]
    seed: int
    move_time_ms: int
    bank_ms: int
    entrants: list[str]
    sandboxed: list[bool]
    summary: list[EntrantJson]
    elo: EntrantJson | None
    games: list[GameJson]
    duration_ms: int
    cancelled: NotRequired[bool]  # only when the match was cancelled
    logs: NotRequired[dict[str, str]]  # "entrant/slot" -> log text, when asked for


@dataclass
class EntrantSummary:
    """One entrant's line of the match table."""

    entrant: int
    label: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    void: int = 0
    points: int = 0
    points_against: int = 0
    scope: int = 0
    faults: int = 0
    answered: int = 0  # moves it answered in time
    fallbacks: int = 0  # of those, the ones it said it did not choose itself

    def elo(self) -> EloEstimate:
        """This entrant's Elo difference against the rest of the match."""
        return EloEstimate.from_counts(self.wins, self.losses, self.draws)

    def to_json(self) -> EntrantJson:
        """A JSON-ready form, with the Elo estimate."""
        estimate = self.elo()
        return {
            "entrant": self.entrant,
            "label": self.label,
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "void": self.void,
            "points": self.points,
            "points_against": self.points_against,
            "scope": self.scope,
            "faults": self.faults,
            "answered": self.answered,
            "fallbacks": self.fallbacks,
            "score": round(estimate.score, 4),
            "elo": finite_or_none(estimate.elo),
            "elo_error": finite_or_none(estimate.error),
            "los": round(estimate.los, 4),
        }


@dataclass
class MatchReport:
    """Everything a match produced: the games with their replays, and the bots' logs."""

    spec: MatchSpec
    rules: Rules
    seed: int  # the match's seed; each duplicate set's game seed is derived from it
    labels: list[str]  # by entrant
    games: list[GameOutcome] = field(default_factory=list)
    logs: dict[str, str] = field(default_factory=dict)  # "entrant/slot" -> log text
    duration_ms: int = 0
    sandboxed: list[bool] = field(default_factory=list)  # by entrant
    cancelled: bool = False  # stopped by the spec's cancel event before its last game

    def summary(self) -> list[EntrantSummary]:
        """One line per entrant: games, wins, losses, draws, points, scope, faults."""
        lines = [EntrantSummary(i, label) for i, label in enumerate(self.labels)]
        for game in self.games:
            sides_of = entrant_sides(game.seats, self.rules.num_sides)
            for fault in game.faults:
                lines[game.seats[fault["seat"]]].faults += 1
            for seat, entrant in enumerate(game.seats):
                if seat < len(game.answered):
                    lines[entrant].answered += game.answered[seat]
                    lines[entrant].fallbacks += game.fallbacks[seat]
            for entrant, side in sides_of.items():
                line = lines[entrant]
                if game.void is not None:
                    line.void += 1
                    continue
                line.games += 1
                line.points += game.totals[side]
                line.points_against += sum(game.totals) - game.totals[side]
                line.scope += game.scope[side]
                if game.winner_side is None:
                    line.draws += 1
                elif game.winner_side == side:
                    line.wins += 1
                else:
                    line.losses += 1
        return lines

    def to_json(self, *, replays: bool = False, logs: bool = False) -> MatchReportJson:
        """The report for machines (``arena match --json``); replays and the bots' logs only
        when asked (a worker hands both over to be recorded)."""
        games: list[GameJson] = []
        for game in self.games:
            entry: GameJson = {
                "index": game.index,
                "set": game.set_index,
                "seed": game.seed,
                "seats": game.seats,
                "totals": game.totals,
                "winner_side": game.winner_side,
                "winner_entrants": game.winner_entrants,
                "void": game.void,
                "forfeit": game.forfeit,
                "faults": game.faults,
                "fallbacks": game.fallbacks,
                "duration_ms": game.duration_ms,
                "moves": game.moves,
            }
            if replays:
                entry["replay"] = game.replay
            games.append(entry)
        first = self.summary()[0] if self.labels else None
        out: MatchReportJson = {
            "variant": self.rules.variant,
            "options": self.rules.options(),
            "seed": self.seed,
            "move_time_ms": self.spec.move_time_ms,
            "bank_ms": self.spec.bank_ms,
            "entrants": self.labels,
            "sandboxed": self.sandboxed,
            "summary": [line.to_json() for line in self.summary()],
            "elo": None if first is None else first.to_json(),
            "games": games,
            "duration_ms": self.duration_ms,
        }
        if self.cancelled:
            out["cancelled"] = True
        if logs:
            out["logs"] = dict(self.logs)
        return out


def entrant_sides(seats: list[int], sides: int) -> dict[int, int]:
    """Each entrant's side in a game, from the entrant of each seat (by the engine's rule,
    :func:`arena.engine.side_of_seat`); an entrant in more than one seat keeps its first."""
    out: dict[int, int] = {}
    for seat, entrant in enumerate(seats):
        out.setdefault(entrant, side_of_seat(seat, sides))
    return out


ProgressCallback = Callable[[int, int, GameOutcome], None]


# ---- planning -----------------------------------------------------------------------------


def check_spec(spec: MatchSpec) -> Rules:
    """The rules of the match, after checking everything about it. Raises MatchError."""
    try:
        rules = rules_for(spec.variant, spec.options or None)
    except EngineError as error:
        raise MatchError(str(error)) from None
    count = len(spec.entrants)
    allowed = {rules.players} | ({2} if rules.partners else set())
    if count not in allowed:
        want = " or ".join(str(n) for n in sorted(allowed))
        raise MatchError(f"variant {rules.variant!r} takes {want} bots, got {count}")
    if spec.games < 1:
        raise MatchError(f"--games must be at least 1, got {spec.games}")
    if spec.move_time_ms < 1:
        raise MatchError(f"--move-time must be at least 1 ms, got {spec.move_time_ms}")
    if spec.bank_ms < spec.move_time_ms:
        raise MatchError(
            f"--bank ({spec.bank_ms} ms) must be at least --move-time ({spec.move_time_ms} ms)"
        )
    for bot in spec.entrants:
        if bot.manifest is not None and not bot.manifest.supports(rules.variant):
            raise MatchError(f"bot {bot.label} does not play {rules.variant!r}")
        if bot.is_remote or bot.trusted or not spec.sandbox:
            continue
        if not sandbox_available():
            raise MatchError(
                f"bubblewrap (bwrap) is not available, so {bot.text!r} cannot be sandboxed; "
                "refusing to run an untrusted bot (pass --unsafe-no-sandbox to run it anyway)"
            )
    return rules


def default_limits(games: int, bank_ms: int) -> Limits:
    """The limits of a match of ``games`` games with this bank: the defaults of
    :class:`Limits`, with CPU time for every game's bank and a minute more, at one and a half
    times (a process may serve several games of a match)."""
    return Limits(cpu_seconds=60 + math.ceil(1.5 * games * bank_ms / 1000.0))


def set_size(rules: Rules, entrants: int) -> int:
    """Games in one duplicate set: one per rotation of the entrants round the table."""
    return entrants


def seating(rules: Rules, entrants: int, rotation: int) -> list[int]:
    """The entrant of each seat in the ``rotation``-th game of a duplicate set.

    >>> seating(rules_for("scopone"), 2, 1)
    [1, 0, 1, 0]
    >>> seating(rules_for("scopa-3"), 3, 1)
    [1, 2, 0]
    """
    return [(seat + rotation) % entrants for seat in range(rules.players)]


def set_seed(seed: int, set_index: int) -> int:
    """The game seed of every game of one duplicate set, derived from the match seed.

    Unguessable as long as the match seed is: the runner draws it from :mod:`secrets` unless
    it is given, and no bot ever sees it (nor any id derived from it) before the game is over.
    """
    digest = hashlib.sha256(f"scopa-match:{seed}:{set_index}".encode()).digest()
    return int.from_bytes(digest[:7], "big") >> (56 - SEED_BITS)


PREPARED = -1
"""What a spare's start gives instead of a bot seed when only its sandbox was built."""


def _seat_slots(seats: list[int]) -> list[tuple[int, int]]:
    """(entrant, k) per seat: the entrant's k-th process in this game."""
    seen: dict[int, int] = {}
    slots = []
    for entrant in seats:
        k = seen.get(entrant, 0)
        seen[entrant] = k + 1
        slots.append((entrant, k))
    return slots


# ---- processes ----------------------------------------------------------------------------


async def _forget_link(link: BotLink, call: asyncio.Future[Any] | None) -> None:
    """Calls off ``call`` (a call on ``link``, if any) and closes ``link``."""
    if call is not None:
        call.cancel()
        with contextlib.suppress(BaseException):
            await call
    await _close_link(link)


async def _close_link(link: BotLink) -> None:
    """Closes ``link`` (a connection no game will use), whatever state it is in."""
    with contextlib.suppress(Exception):
        await link.close()


@dataclass
class _Resting:
    """A slot's process sitting out games, frozen (:meth:`Slot._wake`): its connection, its
    bot seed and label, and the duplicate set of the last game it played."""

    process: BotProcess
    link: BotLink
    bot_seed: int | None
    label: str
    set_index: int

    async def end(self) -> None:
        """Ends it for good: its connection, its process and its copy of the bot folder."""
        await _close_link(self.link)
        await asyncio.to_thread(self.process.close)


class Slot:
    """One bot process (or remote connection) serving seats of one entrant."""

    def __init__(
        self,
        bot: BotRef,
        entrant: int,
        k: int,
        process: BotProcess | None,
        variant: str,
        make_spare: Callable[[BotProcess], BotProcess] | None = None,
        rest_limit: int = 0,
    ) -> None:
        self.bot = bot
        self.variant = variant
        self.entrant = entrant
        self.k = k
        self.process = process
        # The slot's second process (its own folder copy, group and seat folder): the spare
        # started for the next game while this one plays, then the two swap roles.
        self._make_spare = make_spare
        self._other: BotProcess | None = None
        self._spare: asyncio.Future[int | None] | None = None  # its start: the bot seed
        self._stopping: asyncio.Future[None] | None = None  # the other's clean-up, under way
        # A connection to the spare made ready ahead (its SDK's server, started while it
        # waits), made while the current game plays: the spare's link once it starts.
        self._ahead: tuple[BotProcess, BotLink] | None = None
        self.link: BotLink | None = None
        self.label = bot.label
        self.fresh = True  # needs (re)starting before its next game
        self.bot_seed: int | None = None  # SCOPA_BOT_SEED of the running process
        # The duplicate set of the game about to be played, and of the last game the process
        # played (set by the match), and the slot's processes resting meanwhile (at most
        # ``rest_limit``: a set's games less one).
        self.game_set: int | None = None
        self.process_set: int | None = None
        self.rest_limit = rest_limit
        self._resting: list[_Resting] = []
        self.woken = 0  # games started by waking a resting process

    @property
    def key(self) -> str:
        return f"{self.entrant}/{self.k}"

    async def ensure_ready(self) -> tuple[str, str] | None:
        """Starts (or restarts) the bot when needed: None when ready, else the fault kind
        (``start``, ``memory``) and why it did not start.

        Each start draws a fresh bot seed from :mod:`secrets`. Raises HostError when the
        host, not the bot, is at fault.
        """
        if not self.fresh and (self.process is None or self.process.is_running()):
            return None
        if await self._wake():
            return None
        spare_seed = await self._take_spare()
        if spare_seed == PREPARED and self.process is not None and self._other is not None:
            # The last game's process plays no more in this set: it is frozen before the seat
            # made ready ahead starts (it knows the last game's cards). It rests until a
            # later set (see _wake), or, where it cannot, is killed once the new one has
            # started (processes ending take CPU the start wants) and cleaned up in the
            # background, before its next use (prestart).
            old = self.process
            resting = self._resting_entry()
            self.process, self._other = self._other, old
            old.retire()
            if resting is not None:
                self._other = None  # the next spare, if one is ever wanted, is a new process
            try:
                return await self._start(None, swapped=True)
            finally:
                if resting is not None:
                    self._resting.append(resting)
                else:
                    self._stopping = asyncio.ensure_future(asyncio.to_thread(old.stop))
        if spare_seed is None and self._make_spare is not None:
            resting = self._resting_entry()
            if resting is not None:  # it rests, and a new process of the slot's starts
                assert self.process is not None
                old = self.process
                await self._await_stopping()  # (the spare's clean-up, if it is under way)
                self.process = self._other if self._other is not None else self._make_spare(old)
                self._other = None
                self._resting.append(resting)
        return await self._start(spare_seed, swapped=False)

    def _resting_entry(self) -> _Resting | None:
        """The running process as it would rest (its link taken from the slot), or None where
        it should not: resting is off, the slot holds enough, or it cannot be frozen alive."""
        process = self.process
        if (
            self.rest_limit <= len(self._resting)
            or process is None
            or self.link is None
            or self.process_set is None
            or not process.rest()
        ):
            return None
        entry = _Resting(process, self.link, self.bot_seed, self.label, self.process_set)
        self.link = None
        return entry

    async def _wake(self) -> bool:
        """Makes a resting process that has seen no game of this set the slot's own (the
        running one rests in its place, or is ended): True if there was one. Resting processes
        that ended meanwhile are ended for good."""
        found: _Resting | None = None
        for entry in list(self._resting):
            if not entry.process.is_running():
                self._resting.remove(entry)
                await entry.end()
            elif found is None and entry.set_index != self.game_set:
                found = entry
        if found is None or self.process is None or not self.process.is_running():
            return False
        self._resting.remove(found)
        resting = self._resting_entry()
        if resting is None:
            self.process.retire()
        old, old_link = self.process, self.link
        self.process, self.link = found.process, found.link
        self.bot_seed, self.label = found.bot_seed, found.label
        self.process_set = found.set_index
        if resting is not None:
            self._resting.append(resting)
        else:  # (it could not rest: ended, as a process of the set it saw)
            if old_link is not None:
                await _close_link(old_link)
            self._stopping = asyncio.ensure_future(asyncio.to_thread(old.stop))
        self.fresh = False
        self.woken += 1
        return True

    async def _start(self, spare_seed: int | None, *, swapped: bool) -> tuple[str, str] | None:
        """:meth:`ensure_ready` from its spare on: ``spare_seed`` as :meth:`_take_spare` gave
        it; ``swapped``: the process is the seat made ready ahead (the old one retired)."""
        await self.shutdown(keep_process=swapped)
        if self.process is not None and spare_seed is not None and self._other is not None:
            # The spare has seen no game: it becomes this game's process, the old one (dead
            # now) the next spare.
            self.process, self._other = self._other, self.process
            self.process.promote()
        # A connection made ahead to a seat made ready ahead asks Describe at once: the call
        # waits in the bot's server (its SDK's, started ahead) until the bot's own start
        # takes that server, and is answered then, while the start is still being checked.
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] is not self.process:
            await _forget_link(ahead[1], None)
            ahead = None
        early = None
        if ahead is not None:
            early = asyncio.ensure_future(
                ahead[1].describe(ahead[0].start_timeout + DESCRIBE_TIMEOUT)
            )
        try:
            if self.process is not None and spare_seed is not None:
                self.bot_seed = spare_seed
                target = self.process.address
            elif self.process is not None:
                seed = draw_seed()
                try:
                    await self._start_process({"SCOPA_BOT_SEED": str(seed)})
                except StartError as error:
                    memory = self.process.memory_fault()
                    return ("memory", memory) if memory is not None else ("start", str(error))
                self.bot_seed = seed
                target = self.process.address
            else:
                assert self.bot.address is not None
                target = self.bot.address
            if ahead is not None and ahead[1].target == target:  # the bot serves there
                self.link, ahead = ahead[1], None
            else:
                self.link = BotLink(target)
        finally:
            if ahead is not None:  # not where the bot serves, or its start failed
                await _forget_link(ahead[1], early)
                early = None
        try:
            if early is not None:
                info = await asyncio.wait_for(early, DESCRIBE_TIMEOUT)
            else:
                info = await self.link.describe(DESCRIBE_TIMEOUT)
        except TimeoutError:
            return "start", f"Describe did not answer within {DESCRIBE_TIMEOUT:g} s"
        except Exception as error:
            code = getattr(error, "code", None)
            name = code().name if callable(code) else type(error).__name__
            return "start", f"Describe failed: {name}"
        if info.protocol_version not in (0, 1):
            return "start", f"the bot speaks protocol version {info.protocol_version}, not 1"
        variants = list(info.variants)
        if variants and "*" not in variants and self.variant not in variants:
            return "start", (
                f"the bot does not play {self.variant!r} (it plays {', '.join(variants)})"
            )
        if self.bot.manifest is None and info.name:  # what the bot says of itself: text only
            name, version = printable(info.name[:40]), printable(info.version[:40])
            self.label = f"{name}@{version}" if version else name
        self.fresh = False
        return None

    async def _start_process(self, env: dict[str, str]) -> None:
        """Starts the process in a thread. Cancelled (the match is), it calls the start off
        and waits for its thread to give up: a start going on behind the match's clean-up
        would leave a bot running, and its seat folder, after the match has ended."""
        assert self.process is not None
        process = self.process
        process.go(env)  # a seat made ready ahead starts now, while its thread is found
        start = asyncio.ensure_future(asyncio.to_thread(process.start, env))
        try:
            await asyncio.shield(start)
        except asyncio.CancelledError:
            process.abort()
            with contextlib.suppress(BaseException):
                await start
            raise

    def prestart(self, *, whole: bool = True) -> None:
        """Starts a spare process for this slot's next game, in the background (once);
        ``whole=False`` only builds its sandbox (:meth:`BotProcess.prepare`: no bot code runs
        before the game), where the seat is forked, else does nothing."""
        if self.process is None or self._make_spare is None or self._spare is not None:
            return
        if any(entry.set_index != self.game_set for entry in self._resting):
            return  # a process resting since an earlier set plays the next game
        if self._other is None:
            self._other = self._make_spare(self.process)
        spare = self._other
        spare.abort(stop=False)
        if not whole:

            def prepare() -> int | None:
                try:
                    return PREPARED if spare.prepare() else None
                except HostError as error:  # the game's own start tries again
                    spare.log.add(f"[arena] a seat's sandbox was not built ahead: {error}\n")
                    return None

            self._spare = asyncio.ensure_future(self._prepare_ahead(spare, prepare))
            return
        seed = draw_seed()

        def start() -> int | None:
            try:
                spare.start({"SCOPA_BOT_SEED": str(seed)}, spare=True)
            except (StartError, HostError) as error:  # the game's own start tries again
                spare.log.add(f"[arena] a spare did not start ahead of its game: {error}\n")
                return None
            return seed

        self._spare = asyncio.ensure_future(self._after_stopping(start))

    async def _prepare_ahead(
        self, spare: BotProcess, prepare: Callable[[], int | None]
    ) -> int | None:
        """Makes ``spare`` ready ahead, then starts connecting to it (:attr:`_ahead`)."""
        await self._forget_ahead()
        made = await self._after_stopping(prepare)
        address = spare.ahead_address if made == PREPARED else None
        if address is not None:
            link = BotLink(address)
            link.connect()
            self._ahead = (spare, link)
        return made

    async def _forget_ahead(self) -> None:
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            await _forget_link(ahead[1], None)

    async def _after_stopping(self, work: Callable[[], int | None]) -> int | None:
        """Runs ``work`` in a thread once the other process's clean-up (if any) is done."""
        await self._await_stopping()
        return await asyncio.to_thread(work)

    async def _await_stopping(self) -> None:
        stopping, self._stopping = self._stopping, None
        if stopping is not None:
            with contextlib.suppress(Exception):
                await stopping

    async def _take_spare(self) -> int | None:
        """Waits for the spare's start: its bot seed, :data:`PREPARED` (its sandbox only), or
        None (no spare, or it failed)."""
        task, self._spare = self._spare, None
        if task is None:
            return None
        if self._other is not None:
            self._other.hurry()
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if self._other is not None:
                self._other.abort()
            with contextlib.suppress(BaseException):
                await task
            raise

    async def _drop_spare(self) -> None:
        """Calls off a spare's start and stops it (the match ends, fails or is cancelled)."""
        task, self._spare = self._spare, None
        if self._other is not None:
            self._other.abort()
        if task is not None:
            with contextlib.suppress(BaseException):
                await task
        await self._forget_ahead()
        await self._await_stopping()
        if self._other is not None:
            await asyncio.to_thread(self._other.close)

    def exit_detail(self) -> str | None:
        """How the process ended, if it did: ``exit status 1``, ``killed by SIGKILL``."""
        if self.process is None:
            return None
        status = self.process.exit_status()
        if status is None:
            return None
        if status < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-status).name}"
        if status > 128:  # bwrap reports its child's death by signal as 128 + signal
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(status - 128).name}"
        return f"exit status {status}"

    async def shutdown(self, *, keep_process: bool = False) -> None:
        """Closes the connection and kills the process group (``keep_process``: the
        connection only)."""
        if self.link is not None:
            with contextlib.suppress(Exception):
                await self.link.close()
            self.link = None
        if self.process is not None and not keep_process:
            await asyncio.to_thread(self.process.stop)
        self.fresh = True

    def dropped_output(self) -> int:
        """Bytes of the process's output its log has left out, over all its starts."""
        return 0 if self.process is None else self.process.log.dropped_bytes

    async def close(self) -> None:
        """Shuts down for good: the process, its spare, the processes resting, and their
        copies of the bot folder."""
        await self._drop_spare()
        await self.shutdown()
        if self.process is not None:
            await asyncio.to_thread(self.process.close)
        resting, self._resting = self._resting, []
        for entry in resting:
            await entry.end()


# ---- the match ----------------------------------------------------------------------------


def _spare_of(process: BotProcess) -> BotProcess:
    """A second process for the slot of ``process``: same bot and limits, its own folders and
    group, writing to the same log."""
    return BotProcess(
        label=f"{process.label}s",
        command=list(process.command),
        folder=process.folder,
        limits=process.limits,
        sandboxed=process.sandboxed,
        python=process.python,
        start_timeout=process.start_timeout,
        env=dict(process.env),
        log=process.log,
        fork=process.fork,
    )


class _Forfeit(Exception):
    def __init__(self, seat: int, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.seat = seat
        self.kind = kind
        self.detail = detail


class MatchRun:
    """The state of one running match (what :func:`run_match` plays)."""

    def __init__(self, spec: MatchSpec, rules: Rules, progress: ProgressCallback | None) -> None:
        self.spec = spec
        self.rules = rules
        self.progress = progress
        self.seed = spec.seed if spec.seed is not None else draw_seed()
        # The id reaches the bots (GameStart.game_id): nothing in it may hint at the seed.
        self.match_id = spec.match_id or f"m{secrets.token_hex(6)}"
        count = len(spec.entrants)
        per_set = set_size(rules, count) if spec.duplicate else 1
        # Each game of a set wants processes that saw no other game of it: a slot keeps up
        # to a set's games less one resting (Slot._wake).
        self.rest_limit = per_set - 1 if spec.rest_seats and spec.fresh_per_game else 0
        self.sets = math.ceil(spec.games / per_set)
        self.total = self.sets * per_set
        self.slots: dict[tuple[int, int], Slot] = {}
        self._stopping = False  # cancelled: the match is ending (see check_cancel)
        self._next_seats: list[int] | None = None  # the next game's, when it needs spares
        self.sandboxed = [self._sandboxed(bot) for bot in spec.entrants]
        self.report = MatchReport(
            spec=spec,
            rules=rules,
            seed=self.seed,
            labels=[bot.label for bot in spec.entrants],
            sandboxed=self.sandboxed,
        )

    def _sandboxed(self, bot: BotRef) -> bool:
        if bot.is_remote or not self.spec.sandbox:
            return False
        return sandbox_available() or not bot.trusted

    def _limits(self) -> Limits:
        if self.spec.limits is not None:
            return self.spec.limits
        return default_limits(self.total, self.spec.bank_ms)

    def slot(self, entrant: int, k: int) -> Slot:
        """The process slot of an entrant's k-th seat, made on first use."""
        key = (entrant, k)
        if key not in self.slots:
            bot = self.spec.entrants[entrant]
            process = None
            if not bot.is_remote:
                assert bot.folder is not None and bot.manifest is not None
                process = BotProcess(
                    label=f"{bot.manifest.name}-{entrant}-{k}",
                    command=list(bot.manifest.command),
                    folder=bot.folder,
                    limits=self._limits(),
                    sandboxed=self.sandboxed[entrant],
                    python=bot.manifest.is_python,
                    start_timeout=self.spec.start_timeout_s,
                    # The manifest's [env], under the variables the arena sets itself (the bot
                    # seed comes with each start).
                    env=dict(bot.manifest.env),
                    fork=self.spec.fork_seats,
                )
            self.slots[key] = Slot(
                bot,
                entrant,
                k,
                process,
                self.rules.variant,
                make_spare=_spare_of,
                rest_limit=self.rest_limit,
            )
        return self.slots[key]

    def prestart_next(self) -> None:
        """Starts the spares of the next game's seats (or builds their sandboxes), once this
        game's seats are ready."""
        if self._next_seats is None:
            return
        for entrant, k in _seat_slots(self._next_seats):
            self.slot(entrant, k).prestart(whole=self.spec.prestart)

    async def run(self) -> MatchReport:
        """Plays every game, then ends every process; stops early, the same way, when the
        spec's ``cancel`` event is set (the report then says ``cancelled``)."""
        cancel = self.spec.cancel
        if cancel is None:
            return await self._run()
        playing = asyncio.ensure_future(self._run())
        watcher = asyncio.ensure_future(self._cancel_when_set(cancel, playing))
        try:
            return await playing
        except asyncio.CancelledError:
            if not cancel.is_set() or not playing.cancelled():
                raise  # this task itself is cancelled (Ctrl-C): not a cancelled match
            self.report.cancelled = True
            return self.report
        finally:
            watcher.cancel()

    def check_cancel(self) -> None:
        """Ends the match here (as a cancelled task) when the spec's ``cancel`` is set."""
        if self.spec.cancel is not None and self.spec.cancel.is_set() and not self._stopping:
            self._stopping = True
            raise asyncio.CancelledError("the match was cancelled")

    async def _cancel_when_set(self, cancel: threading.Event, playing: asyncio.Future[Any]) -> None:
        """Cancels ``playing`` once ``cancel`` is set: at whatever it waits on (a seat's answer,
        a seat starting, a message sent), its clean-up then stops every seat. Only once: a
        match already stopping (:meth:`check_cancel`) is left to its clean-up."""
        while not playing.done() and not self._stopping:
            if cancel.is_set():
                self._stopping = True
                playing.cancel()
                return
            await asyncio.sleep(CANCEL_POLL_S)

    async def _run(self) -> MatchReport:
        started = time.perf_counter()
        per_set = self.total // self.sets
        try:
            index = 0
            for set_index in range(self.sets):
                seed = set_seed(self.seed, set_index)
                for rotation in range(per_set):
                    if rotation > 0 and self.spec.fresh_per_game:
                        # The games of a set deal the same cards: a process that played one
                        # of them knows every hand of the next. Each game of a set gets
                        # processes that have seen no other game of it.
                        for slot in self.slots.values():
                            slot.fresh = True
                    self.check_cancel()  # between games
                    turn = rotation if self.spec.duplicate else set_index
                    seats = seating(self.rules, len(self.spec.entrants), turn)
                    self._next_seats = None
                    ahead = self.spec.prestart or self.spec.prepare_ahead
                    if (
                        ahead
                        and self.spec.fresh_per_game
                        and self.spec.duplicate
                        and rotation + 1 < per_set
                    ):
                        # The next game of the set needs fresh processes: their sandboxes
                        # (or, with prestart, the processes) are made ready ahead.
                        self._next_seats = seating(
                            self.rules, len(self.spec.entrants), rotation + 1
                        )
                    playing = [self.slot(entrant, k) for entrant, k in _seat_slots(seats)]
                    for slot in playing:
                        slot.game_set = set_index
                    outcome = await self.play_game(index, set_index, seed, seats)
                    for slot in playing:  # (whichever process played: it saw this set)
                        slot.process_set = set_index
                    self.report.games.append(outcome)
                    self._write_replay(outcome)
                    index += 1
                    if self.progress is not None:
                        self.progress(index, self.total, outcome)
                if self.spec.stop is not None and self.spec.stop(self.report):
                    break
        finally:
            for slot in self.slots.values():
                await slot.close()
            for slot in self.slots.values():
                if slot.process is not None:
                    self.report.logs[slot.key] = slot.process.log.text()
            self._write_logs()
            self.report.duration_ms = round((time.perf_counter() - started) * 1000)
        for slot in self.slots.values():
            self.report.labels[slot.entrant] = slot.label
        return self.report

    def _write_replay(self, outcome: GameOutcome) -> None:
        folder = self.spec.replays_dir
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"game-{outcome.index + 1:04d}.json"
        path.write_text(write_replay(outcome.replay), encoding="utf-8")

    def _write_logs(self) -> None:
        folder = self.spec.replays_dir
        if folder is None or not self.report.logs:
            return
        logs = folder / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        for key, text in self.report.logs.items():
            entrant, k = key.split("/")
            name = self.spec.entrants[int(entrant)].label.replace("/", "_")
            (logs / f"entrant{entrant}-{k}-{name}.log").write_text(text, encoding="utf-8")

    async def play_game(
        self, index: int, set_index: int, seed: int, seats: list[int]
    ) -> GameOutcome:
        """One game; never raises for what a bot does."""
        started = time.perf_counter()
        slots = [self.slot(entrant, k) for entrant, k in _seat_slots(seats)]
        game = Game(self.rules, seed)
        recorder = ReplayRecorder(
            self.rules,
            seed,
            [slot.label for slot in slots],
            match=self.match_id,
            started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        )
        play = _GamePlay(self, game, slots, recorder)
        dropped = [slot.dropped_output() for slot in slots]
        void: str | None = None
        forfeit: ReplayForfeit | None = None
        try:
            await play.run()
        except _Forfeit as stop:
            side = self.rules.side_of(stop.seat)
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
        replay = recorder.finish(
            game, forfeit, void, fallbacks=play.fallbacks, duration_ms=duration
        )
        result = replay.get("result")
        winner = None if result is None else result["winner"]
        scope = [0] * self.rules.num_sides
        for score in game.scores:
            for side, points in enumerate(score.points):
                scope[side] += points["scope"]
        winners = []
        if winner is not None:
            winners = sorted(
                e
                for e, side in entrant_sides(seats, self.rules.num_sides).items()
                if side == winner
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
            faults=list(recorder.faults),
            duration_ms=duration,
            moves=play.moves,
            scope=scope,
            turn_ms=play.turn_ms,
            start_ms=play.start_ms,
            fallbacks=list(play.fallbacks),
            answered=list(play.answered),
        )


class _Void(Exception):
    """The game cannot be played for reasons that are nobody's fault at the table."""


class _GamePlay:
    """The play of one game over the seats' streams."""

    def __init__(
        self,
        match: MatchRun,
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
        self.request_id += 1
        message = self.requests.request_bytes(
            self.request_id, observation, legal, limit, bank, stream.take_moves()
        )
        self.turn = (deal, seat, legal, limit, bank)  # for _answered, in whichever driver
        if self._freezing and self.running != seat:
            self._run_only(seat)  # before the clock starts (in ask)
        answer = await stream.ask(message, self.request_id, len(legal), limit / 1000.0)
        await self._answered(answer)

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


def run_match(spec: MatchSpec, progress: ProgressCallback | None = None) -> MatchReport:
    """Plays a whole match and returns its report. Raises MatchError for an impossible spec.

    Bots' faults never raise: they are in the report's games. Safe to call from a thread that
    runs an asyncio loop (the match then runs in a thread of its own). A match whose spec's
    ``cancel`` is set stops with its seats and returns what it played (``report.cancelled``).
    """
    rules = check_spec(spec)
    match = MatchRun(spec, rules, progress)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(match.run())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["report"] = asyncio.run(match.run())
        except BaseException as error:  # handed to the caller's thread below
            box["error"] = error

    thread = threading.Thread(target=target, name="arena-match")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    report: MatchReport = box["report"]
    return report


__all__ = [
    "BotError",
    "EntrantJson",
    "EntrantSummary",
    "GameJson",
    "GameOutcome",
    "LiveMove",
    "MatchError",
    "MatchReport",
    "MatchReportJson",
    "MatchRun",
    "MatchSpec",
    "default_limits",
    "entrant_sides",
    "run_match",
]
