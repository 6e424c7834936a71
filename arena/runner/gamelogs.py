"""A seat's log of one game: what its bot wrote during the game, with where each turn starts.

The runner keeps a bot's output for the whole match in its :class:`~arena.runner.process.
CappedLog`; a :class:`GameLogCapture` taps that log while one game is played, and marks the
start of each of the seat's turns (the deal and the move of the deal it is asked for). The
lines between one mark and the next are what the bot wrote while it chose that move (the
runner waits until a bot's written output is read before it marks its next turn). A game's
capture is bounded (``GAME_LOG_BYTES``), with a note where it was cut.

This is no part of the replay (docs/REPLAY.md): a bot's log is its owner's, never public.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TypedDict

from arena.text import printable

GAME_LOG_BYTES = 64 * 1024  # of one seat's output in one game


class SeatGameLogJson(TypedDict):
    """One seat's log of one game, as a match report carries it."""

    seats: list[int]  # the seats its process played in the game (one, but for a bot in two)
    text: str
    turns: list[list[int]]  # [deal, move of the deal, seat, offset in text] per turn
    cut: int  # characters of output left out over the cap (0: none)


@dataclass(frozen=True)
class Turn:
    """Where one turn's lines start in a game's log."""

    deal: int  # the deal's index in the game (0 first)
    move: int  # the move's index in its deal (0 first)
    seat: int
    offset: int  # in characters of the log's text


class GameLogCapture:
    """The lines a bot writes during one game, bounded, with the start of each of its turns."""

    def __init__(self, seats: list[int], limit: int = GAME_LOG_BYTES) -> None:
        self.seats = seats
        self.limit = limit
        self._parts: list[str] = []
        self._size = 0
        self._cut = 0
        self._turns: list[tuple[int, int, int, int]] = []  # a Turn's fields, made per turn
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        """Keeps one line while there is room (made printable: it is shown as text); once the
        cap is reached, only counts what is left out."""
        if self._cut:  # (read without the lock: it only grows once set)
            with self._lock:
                self._cut += len(line)
            return
        line = printable(line, lines=True)
        with self._lock:
            if self._cut or self._size + len(line) > self.limit:
                self._cut += len(line)
                return
            self._parts.append(line)
            self._size += len(line)

    def mark(self, deal: int, move: int, seat: int) -> None:
        """Marks the start of a turn: the lines from here on are that turn's."""
        with self._lock:
            self._turns.append((deal, move, seat, self._size))

    def turns(self) -> list[Turn]:
        """The turns marked so far, in order."""
        with self._lock:
            return [Turn(*turn) for turn in self._turns]

    def to_json(self) -> SeatGameLogJson:
        """The log so far, with a note at its end when the cap cut it."""
        with self._lock:
            text = "".join(self._parts)
            if self._cut:
                text += (
                    f"[arena] {self._cut:,} more characters of this game's output left out "
                    f"(the log keeps {self.limit:,} a seat a game)\n"
                )
            return {
                "seats": list(self.seats),
                "text": text,
                "turns": [list(turn) for turn in self._turns],
                "cut": self._cut,
            }


def turn_text(log: SeatGameLogJson, deal: int, move: int) -> str | None:
    """The lines of the turn at ``deal`` and ``move`` in ``log``, None when it was no turn of
    this log's seats.

    >>> log = {"seats": [0], "text": "a\\nb\\n", "turns": [[0, 0, 0, 0], [0, 2, 0, 2]], "cut": 0}
    >>> turn_text(log, 0, 2), turn_text(log, 0, 1)
    ('b\\n', None)
    """
    turns = log["turns"]
    for i, (d, m, _seat, offset) in enumerate(turns):
        if (d, m) == (deal, move):
            end = turns[i + 1][3] if i + 1 < len(turns) else len(log["text"])
            return log["text"][offset:end]
    return None


__all__ = ["GAME_LOG_BYTES", "GameLogCapture", "SeatGameLogJson", "Turn", "turn_text"]
