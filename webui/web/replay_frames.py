"""Expands a replay (REPLAY.md) into the frames the replay viewer draws.

A frame is the state of the table after one move: every hand, the table, the stock, what each
side has captured, the sweeps, the clocks, the faults at that move and, at the end of a deal,
its score breakdown.  The rules stay in :mod:`arena.engine`: this module only replays moves
through the engine's ``Deal`` and reads the state back; it draws nothing and stores nothing.
The browser gets the result as JSON (``/api/games/<id>/frames``, ``/api/replays/frames``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from arena.engine import (
    Deal,
    EngineError,
    Game,
    ReplayError,
    ReplayStep,
    card_name,
    parse_card,
    read_replay,
    recorded_winner,
    rules_for,
    side_points,
    walk_replay,
)
from arena.engine.replay import check_replay
from arena.text import printable

FRAMES_FORMAT = "scopa-arena-frames"
FRAMES_VERSION = 1


class MoveInfo(TypedDict):
    """The move that led to a frame."""

    seat: int
    side: int
    card: str
    capture: list[str]
    scopa: bool
    ms: int | None
    clock: int | None
    auto: str | None
    leftover: list[str]
    leftover_side: int | None


class FaultInfo(TypedDict):
    """A fault recorded in the replay (timeout, crash, illegal or garbled answer...)."""

    deal: int
    move: int
    seat: int
    kind: str
    detail: str


class DealScoreInfo(TypedDict):
    """The score breakdown of a finished deal, one dict of REPLAY.md's keys per side."""

    points: list[dict[str, int]]
    cappotto: int | None
    totals: list[int]


class Frame(TypedDict):
    """The state of the game after ``step`` moves of deal ``deal`` (0: just dealt)."""

    deal: int
    step: int
    to_move: int | None
    dealer: int
    hands: list[list[str]]
    table: list[str]
    stock: int
    captured: list[int]
    scope: list[int]
    totals: list[int]
    clocks: list[int | None]
    move: MoveInfo | None
    faults: list[FaultInfo]
    score: DealScoreInfo | None


class DealInfo(TypedDict):
    """Where a deal's frames start and how it ended."""

    index: int
    dealer: int
    first_frame: int
    last_frame: int
    moves: int
    thrown_in: int
    score: DealScoreInfo | None


class Frames(TypedDict):
    """The whole expansion of one replay."""

    format: str
    version: int
    variant: str
    options: dict[str, Any]
    standard: bool
    players: list[str]
    sides: int
    side_of: list[int]
    partners: bool
    seed: Any
    deals: list[DealInfo]
    frames: list[Frame]
    result: dict[str, Any] | None
    winner: int | None
    faults: list[FaultInfo]
    error: dict[str, Any] | None


class FramesError(ValueError):
    """The replay cannot be read at all (bad JSON shape, unknown variant)."""


def _names(cards: Any) -> list[str]:
    return [card_name(c) for c in sorted(cards)]


def _faults(replay: dict[str, Any]) -> list[FaultInfo]:
    out: list[FaultInfo] = []
    for raw in replay.get("faults") or []:
        if not isinstance(raw, dict):
            continue
        out.append(
            FaultInfo(
                deal=int(raw.get("deal", 0) or 0),
                move=int(raw.get("move", 0) or 0),
                seat=int(raw.get("seat", 0) or 0),
                kind=printable(str(raw.get("kind", "fault"))),
                detail=printable(str(raw.get("detail", ""))),  # a bot's words: text only
            )
        )
    return out


def expand_replay(replay: dict[str, Any] | str) -> Frames:
    """Replays ``replay`` through the engine (:func:`arena.engine.walk_replay`, the walk that
    verifying it takes too) and returns every frame.

    A replay whose moves go wrong part way (an illegal move in a hand-edited file) still gives
    the frames up to the bad move, with ``error`` saying where and why; a replay that cannot be
    read at all raises :class:`FramesError`.
    """
    try:
        data = read_replay(replay) if isinstance(replay, str) else dict(replay)
        rules = rules_for(data["variant"], data.get("options") or None)
    except (ReplayError, EngineError, KeyError, TypeError, ValueError) as exc:
        raise FramesError(f"not a readable replay: {exc}") from exc

    players = [printable(str(p)) for p in data.get("players") or []]
    seats = int(rules.players)
    if len(players) < seats:
        players += [f"seat {k}" for k in range(len(players), seats)]
    side_of = [int(rules.side_of(s)) for s in range(seats)]
    sides = int(rules.num_sides)
    faults = _faults(data)

    result = data.get("result") if isinstance(data.get("result"), dict) else None
    if result is not None:  # a forfeit's reason, a void game's cause: a bot's words, as text
        result = dict(result)
        if isinstance(result.get("void"), str):
            result["void"] = printable(result["void"])
        forfeit = result.get("forfeit")
        if isinstance(forfeit, dict) and isinstance(forfeit.get("reason"), str):
            result["forfeit"] = {**forfeit, "reason": printable(forfeit["reason"])}

    walk = _FrameWalk(seats, sides, side_of, faults)
    error: dict[str, Any] | None = None
    winner: int | None = None
    try:
        check_replay(data)
        game = Game(rules, data.get("seed") or 0)
        for step in walk_replay(data, game):
            walk.step(step)
        walk.close_deal(stopped=False)
        winner = recorded_winner(data, game, check=False)
        recorded_winner(data, game)
    except ReplayError as exc:
        error = exc.to_json()
        walk.close_deal(stopped=True)
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        error = {"deal": None, "move": None, "reason": str(exc)}
        walk.close_deal(stopped=True)
    if result is not None and winner is None and result.get("winner") is not None:
        winner = int(result["winner"])

    options = rules.options() if hasattr(rules, "options") else dict(data.get("options") or {})
    return Frames(
        format=FRAMES_FORMAT,
        version=FRAMES_VERSION,
        variant=str(rules.variant),
        options=dict(options),
        standard=bool(getattr(rules, "is_standard", not options)),
        players=players,
        sides=sides,
        side_of=side_of,
        partners=bool(rules.partners),
        seed=data.get("seed"),
        deals=walk.deals,
        frames=walk.frames,
        result=result,
        winner=winner,
        faults=faults,
        error=error,
    )


class _FrameWalk:
    """Builds the frames from the engine's walk over a replay, one step at a time."""

    def __init__(self, seats: int, sides: int, side_of: list[int], faults: list[FaultInfo]) -> None:
        self.seats, self.sides, self.side_of, self.faults = seats, sides, side_of, faults
        self.frames: list[Frame] = []
        self.deals: list[DealInfo] = []
        self.totals = [0] * sides
        self.clocks: list[int | None] = [None] * seats
        self.deal: Deal | None = None  # the deal being drawn
        self.index = 0
        self.raw: Mapping[str, Any] = {}
        self.dealer = 0
        self.first = 0
        self.deal_faults: list[FaultInfo] = []
        self.score: DealScoreInfo | None = None

    def step(self, step: ReplayStep) -> None:
        deal = step.deal
        if step.score is not None:  # the deal is over and scored
            points = [side_points(p) for p in step.score.points]
            self.totals = [t + p["total"] for t, p in zip(self.totals, points, strict=True)]
            self.score = DealScoreInfo(
                points=points, cappotto=step.score.cappotto, totals=list(self.totals)
            )
            self.frames[-1]["score"] = self.score
            self.close_deal(stopped=False)
            return
        if step.move is None:  # a deal is dealt
            self.deal, self.index, self.raw = deal, step.deal_index, step.record
            self.dealer = int(step.record["dealer"])
            self.deal_faults = [f for f in self.faults if f["deal"] == step.deal_index]
            self.first = len(self.frames)
            self.score = None
            self.frames.append(
                _frame(
                    deal, self.index, 0, self.dealer, self.seats, self.totals, self.clocks, None, []
                )
            )
            return
        move, raw_move = step.move, step.record
        seat = int(raw_move["seat"])
        side = self.side_of[seat]
        scopa = list(deal.scope)[side] > step.scope_before[side]
        # Cards left on the table at the end of the deal go to the last capturer.
        expected = set(step.table_before) - set(move.capture)
        if not move.capture:
            expected.add(move.card)
        leftover = sorted(expected - set(deal.table)) if deal.is_over() else []
        clock = raw_move.get("clock")
        if isinstance(clock, int):
            self.clocks[seat] = clock
        ms = raw_move.get("ms")
        info = MoveInfo(
            seat=seat,
            side=side,
            card=card_name(move.card),
            capture=[card_name(c) for c in move.capture],
            scopa=scopa,
            ms=ms if isinstance(ms, int) else None,
            clock=clock if isinstance(clock, int) else None,
            auto=str(raw_move["auto"]) if raw_move.get("auto") else None,
            leftover=[card_name(c) for c in leftover],
            leftover_side=(
                self.side_of[deal.last_capturer]
                if leftover and deal.last_capturer is not None
                else None
            ),
        )
        m_index = step.move_index
        assert m_index is not None
        here = [f for f in self.deal_faults if f["move"] == m_index]
        self.frames.append(
            _frame(
                deal,
                self.index,
                m_index + 1,
                self.dealer,
                self.seats,
                self.totals,
                self.clocks,
                info,
                here,
            )
        )

    def close_deal(self, stopped: bool) -> None:
        """Ends the deal being drawn (scored, stopped part way, or stopped by an error)."""
        if self.deal is None:
            return
        moves = self.raw.get("moves") or []
        # Faults after the last recorded move (a crash that ended the game) go on the last frame.
        late = [
            f for f in self.deal_faults if f["move"] >= len(moves) or (stopped and f["move"] >= 0)
        ]
        for f in late:
            if f not in self.frames[-1]["faults"]:
                self.frames[-1]["faults"].append(f)
        self.deals.append(
            DealInfo(
                index=self.index,
                dealer=self.dealer,
                first_frame=self.first,
                last_frame=len(self.frames) - 1,
                moves=len(moves),
                thrown_in=len(self.raw.get("thrown_in") or []),
                score=self.score,
            )
        )
        self.deal = None


def _frame(
    deal: Deal,
    d_index: int,
    step: int,
    dealer: int,
    seats: int,
    totals: list[int],
    clocks: list[int | None],
    move: MoveInfo | None,
    faults: list[FaultInfo],
) -> Frame:
    over = deal.is_over()
    return Frame(
        deal=d_index,
        step=step,
        to_move=None if over else int(deal.to_move),
        dealer=dealer,
        hands=[_names(deal.hands[s]) for s in range(seats)],
        table=[card_name(c) for c in deal.table],
        stock=len(deal.stock),
        captured=[len(pile) for pile in deal.captured],
        scope=[int(n) for n in deal.scope],
        totals=list(totals),
        clocks=list(clocks),
        move=move,
        faults=list(faults),
        score=None,
    )


def card_label(name: str) -> str:
    """The Italian name of a card: ``card_label("7d") == "Sette di denari"``."""
    card = parse_card(name)
    return _RANK_NAMES[card % 10] + " di " + _SUIT_NAMES[card // 10]


_RANK_NAMES = ("Asso", "Due", "Tre", "Quattro", "Cinque", "Sei", "Sette", "Fante", "Cavallo", "Re")
_SUIT_NAMES = ("denari", "coppe", "bastoni", "spade")
