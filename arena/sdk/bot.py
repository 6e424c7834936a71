"""The :class:`Bot` base class and the plain values its hooks receive.

This module knows nothing of gRPC; :mod:`arena.sdk.server` adapts a :class:`Bot` to the protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Card, Move, Observation, Rules, Seat, Side


@dataclass(frozen=True)
class Clock:
    """A seat's clock when it was asked to move, in milliseconds."""

    move_ms: int
    """The limit for this answer."""
    bank_ms: int
    """What is left of the seat's bank for the game."""


@dataclass(frozen=True)
class GameInfo:
    """What a bot learns when a game starts."""

    game_id: str
    rules: Rules
    seat: Seat
    players: tuple[str, ...]
    clock: Clock


@dataclass(frozen=True)
class DealInfo:
    """What a bot learns when a deal starts: its own hand and the table."""

    deal_index: int
    dealer: Seat
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    stock_size: int
    totals: tuple[int, ...]


@dataclass(frozen=True)
class GameResult:
    """How a game ended."""

    totals: tuple[int, ...]
    winner: Side | None
    forfeit_side: Side | None
    reason: str


class Bot:
    """A Scopa bot. Subclass it and implement :meth:`choose`; the hooks are optional.

    Class attributes describe the bot to the arena (``Describe``). One instance serves every
    game of its process; the SDK calls its methods one at a time, so a bot may keep memory in
    ``self`` without locks. During :meth:`choose`, ``self.clock`` is the seat's clock and
    ``self.game`` the current game.
    """

    name: str = "python-bot"
    version: str = "0.1.0"
    author: str = ""
    variants: Sequence[str] = ("*",)

    clock: Clock = Clock(move_ms=0, bank_ms=0)
    game: GameInfo | None = None

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        """Returns one of ``legal_moves`` (never empty) for the seat of ``observation``."""
        raise NotImplementedError

    def on_game_start(self, game: GameInfo) -> None:
        """A game starts: rules, this bot's seat, the players and the time control."""

    def on_deal_start(self, deal: DealInfo) -> None:
        """A deal starts (after any redeal)."""

    def on_move(self, seat: Seat, move: Move, by_arena: bool) -> None:
        """A seat made a move (this bot's own moves included); ``by_arena`` for clock faults."""

    def on_deal_end(
        self, deal_index: int, points: list[dict[str, int]], totals: tuple[int, ...]
    ) -> None:
        """A deal was scored: REPLAY.md points by side, and the game totals after it."""

    def on_game_end(self, result: GameResult) -> None:
        """The game is over."""
