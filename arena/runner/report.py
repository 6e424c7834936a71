"""A match's records: what to play (:class:`MatchSpec`), what was played (:class:`GameOutcome`,
:class:`MatchReport`) and their JSON, and the plan of a match (sets, seating, seeds).

Plain data and pure functions: no process, no gRPC stream, no event loop (those are
:mod:`arena.runner.seats`, :mod:`arena.runner.game` and :mod:`arena.runner.match`).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from arena.engine import (
    EngineError,
    Rules,
    rules_for,
    side_of_seat,
)
from arena.engine.replay import (
    Replay,
    ReplayFault,
    ReplayForfeit,
    ReplayMove,
)
from arena.runner.bots import BotRef
from arena.runner.gamelogs import SeatGameLogJson
from arena.runner.sandbox import Limits, sandbox_available
from arena.runner.stats import EloEstimate, finite_or_none
from arena.seeds import SEED_BITS

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
    # Partnership games: a turn's move reaches the table (and the next seat its request) only
    # at the next of a few release points after the turn's request (arena.runner.game
    # .release_points), so a partner's think time tells the other at most log2(points) bits a
    # turn. None: on in partnership variants, off in the others (no partner to tell). Never
    # for the seats of a remote entrant (grpc://: a bot its author runs, a person's seat).
    pace_partners: bool | None = None


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
    # "entrant/slot" -> what that process wrote during this game, turn by turn (never part of
    # the replay: a bot's log is its owner's)
    logs: dict[str, SeatGameLogJson] = field(default_factory=dict)

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
    logs: NotRequired[dict[str, SeatGameLogJson]]  # with the bots' logs, when asked for


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
            if logs:
                entry["logs"] = dict(game.logs)
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
