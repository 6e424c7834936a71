"""Live progress of the matches being played: workers publish each move, pages read them.

A worker playing a match hands :class:`LivePublisher.on_move` to the runner (``MatchSpec.on_move``).
The runner calls it on its event loop with every move; it only updates a small dict under a
lock, and a thread of the publisher writes that dict to the ``live`` cache at most every
:data:`PUBLISH_INTERVAL_S` seconds (and once more at the end), so the seats' clocks never wait on
the cache. The ``live`` cache (``settings.CACHES``) is the deployment's Redis when it has one,
else files under the data folder that the site and the local workers share: both sides read
and write it from their own processes.

What is published is what every seat sees (the runner's ``LiveMove``): the moves of the game
being played (every deal's), and the table after the last one (its cards, the size of each
hand, pile and the stock, the scope), never a hand or the deck; and a short row for each game
of the match already finished (:meth:`LivePublisher.on_game`, the runner's ``progress``), so a
match page lists its games as they end. The database stays the truth of what is finished (a
match's games are recorded once, at its end); the cache only tells what is being played now,
and its entries expire on their own (:data:`LIVE_TTL_S`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Protocol, TypedDict

from arena.engine.replay import ReplayMove

log = logging.getLogger("workers.live")

PUBLISH_INTERVAL_S = 0.5
"""The most often a match's live state is written (the cache sees two writes a second at most)."""
LIVE_TTL_S = 3600
"""How long a match's live state is kept after its last write."""
KEPT_MOVES = 1000
"""The most moves of the current game kept in the live state: every deal of a game to 21 of
scopone is about 400, so a game's moves are all kept, oldest first, as its replay lists them."""


class OutcomeLike(Protocol):
    """What the publisher reads of the runner's ``GameOutcome`` when a game ends."""

    @property
    def index(self) -> int: ...
    @property
    def seats(self) -> list[int]: ...
    @property
    def totals(self) -> list[int]: ...
    @property
    def winner_side(self) -> int | None: ...
    @property
    def winner_entrants(self) -> list[int]: ...
    @property
    def void(self) -> str | None: ...
    @property
    def forfeit(self) -> Any: ...
    @property
    def faults(self) -> Sequence[Any]: ...
    @property
    def duration_ms(self) -> int: ...


class FinishedGame(TypedDict):
    """A finished game of the match being played, as the live state lists it."""

    index: int
    players: list[str]  # by seat
    seats: list[int]  # the entrant of each seat
    totals: list[int]  # game points per side
    winner_side: int | None
    winners: list[int]  # every entrant of the winning side
    void: bool
    forfeit: bool
    faults: int
    duration_ms: int


class MoveLike(Protocol):
    """What the publisher reads of the runner's ``LiveMove`` (a frozen record: read only)."""

    @property
    def game(self) -> int: ...
    @property
    def deal(self) -> int: ...
    @property
    def move(self) -> int: ...
    @property
    def record(self) -> ReplayMove: ...
    @property
    def players(self) -> list[str]: ...
    @property
    def totals(self) -> list[int]: ...
    @property
    def seats(self) -> list[int]: ...
    @property
    def table(self) -> dict[str, Any]: ...


def match_key(match_id: int | str) -> str:
    """The ``live`` cache key of a match's live state."""
    return f"match:{match_id}"


def live_cache() -> Any:
    """The cache shared by the workers and the site (``settings.CACHES['live']``)."""
    from django.core.cache import caches

    return caches["live"]


class LivePublisher:
    """Publishes a match's moves as they are played; a context manager around the match."""

    def __init__(
        self,
        match_id: int | str,
        games_planned: int,
        labels: list[str] | None = None,
        interval: float = PUBLISH_INTERVAL_S,
    ) -> None:
        """``labels`` names each entrant as the site does (``greedy@3``); without them, or for
        a move that does not say who sits where, the runner's names are kept."""
        self.key = match_key(match_id)
        self.labels = list(labels or [])
        self.interval = interval
        self.state: dict[str, Any] = {
            "match": str(match_id),
            "games_planned": games_planned,
            "game": 0,
            "deal": 0,
            "players": [],
            "totals": [],
            "moves": [],
            "games": [],
            "played": 0,
            "updated": time.time(),
        }
        self.lock = threading.Lock()
        self.dirty = True
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="live", daemon=True)
        self.writes = 0

    def on_move(self, move: MoveLike) -> None:
        """The runner's ``on_move``: records the move in memory and returns at once."""
        with self.lock:
            state = self.state
            if move.game != state["game"]:
                state["moves"] = []
            players = list(move.players)
            if move.seats and all(0 <= e < len(self.labels) for e in move.seats):
                players = [self.labels[e] for e in move.seats]
            state.update(
                game=move.game,
                deal=move.deal,
                players=players,
                totals=list(move.totals),
                played=state["played"] + 1,
                updated=time.time(),
                table=dict(getattr(move, "table", None) or {}),
            )
            moves = state["moves"]
            scopa = {"scopa": True} if state["table"].get("scopa") else {}
            moves.append({"deal": move.deal, "move": move.move, **move.record, **scopa})
            del moves[:-KEPT_MOVES]
            self.dirty = True

    def on_game(self, done: int, total: int, outcome: OutcomeLike) -> None:
        """The runner's ``progress``: lists the game just finished (memory only, at once)."""
        with self.lock:
            players = [
                self.labels[e] if 0 <= e < len(self.labels) else f"entrant {e}"
                for e in outcome.seats
            ]
            row: FinishedGame = {
                "index": outcome.index,
                "players": players,
                "seats": list(outcome.seats),
                "totals": list(outcome.totals),
                "winner_side": outcome.winner_side,
                "winners": list(outcome.winner_entrants),
                "void": bool(outcome.void),
                "forfeit": outcome.forfeit is not None,
                "faults": len(outcome.faults),
                "duration_ms": int(outcome.duration_ms),
            }
            self.state["games"] = [*self.state["games"], row]
            self.state["updated"] = time.time()
            self.dirty = True

    def publish(self) -> bool:
        """Writes the state if it changed since the last write; False if the cache failed."""
        with self.lock:
            if not self.dirty:
                return True
            snapshot = {
                **self.state,
                "moves": list(self.state["moves"]),
                "games": list(self.state["games"]),
            }
            self.dirty = False
        try:
            live_cache().set(self.key, snapshot, LIVE_TTL_S)
            self.writes += 1
            return True
        except Exception as error:  # the live view is a courtesy: the match goes on
            log.warning("could not publish the live state of %s: %s", self.key, error)
            with self.lock:
                self.dirty = True
            return False

    def _run(self) -> None:
        while not self.stopped.wait(self.interval):
            self.publish()

    def __enter__(self) -> LivePublisher:
        self.publish()
        self.thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)
        self.publish()


def read_state(match_id: int) -> dict[str, Any] | None:
    """A match's live state as its worker last published it, or None (none, or unreadable)."""
    try:
        state = live_cache().get(match_key(match_id))
    except Exception as error:
        log.warning("could not read the live state of match %s: %s", match_id, error)
        return None
    return state if isinstance(state, dict) else None


def read_states(match_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The live states of several matches, in one cache round trip."""
    if not match_ids:
        return {}
    try:
        found = live_cache().get_many([match_key(m) for m in match_ids])
    except Exception as error:
        log.warning("could not read live states: %s", error)
        return {}
    return {m: found[match_key(m)] for m in match_ids if isinstance(found.get(match_key(m)), dict)}
