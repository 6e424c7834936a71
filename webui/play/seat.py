"""The person's seat: a bot of the SDK whose ``choose`` waits for the move the page sends.

A game on the Play page is a match of the runner like any other: the worker serves
:class:`HumanSeat` with :func:`arena.sdk.create_server` on a free local port and enters it as a
``grpc://127.0.0.1:PORT`` entrant, beside the bot's own sandboxed process. The seat gets
exactly what any bot gets (its own observation, the legal moves, its clock) and no more.

The page and the seat meet in the :class:`~webui.play.models.PlayGame` row:

- :class:`Publisher` keeps the person's :class:`TableView` (their hand, the table, what every
  seat sees) and writes it to the row, from one thread and in the order things happened: the
  deal's start and end and the game's end come from the SDK's hooks, every move from the
  runner's ``MatchSpec.on_move``, each turn from ``choose``.
- ``choose`` publishes its turn (number, legal moves, deadline), then polls for the
  :class:`~webui.play.models.PlayMove` the page writes (:func:`webui.play.games.submit_move`).
- The seat leaves the game (:meth:`HumanSeat.leave`) when the person resigns, when a move's
  clock runs out (the page's deadline passed with no move), or when the page stops checking
  in for ``ARENA_PLAY_ABANDON_S`` (a :class:`Watcher`, run every second by the
  :class:`Publisher`'s thread, reads the row and writes the worker's own heartbeat). Leaving
  stops the seat's gRPC server: the runner sees the seat's stream break, forfeits the game for
  the person's side at once and stops the bot's process, and the task records the forfeit
  with the reason (:func:`webui.play.games.finish`).

Nothing here knows the bot's hand or the deck: the view is built only from the seat's events.
"""

from __future__ import annotations

import datetime
import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import close_old_connections, connection
from django.utils import timezone

from arena.engine import (
    DECK,
    Move,
    Observation,
    Rules,
    card_name,
    deal_counts,
    parse_card,
    side_of_seat,
)
from arena.runner import LiveMove
from arena.sdk import Bot, DealInfo, GameResult
from webui.play.models import PlayGame, PlayMove

log = logging.getLogger("webui.play")

DEADLINE_MARGIN_MS = 300
"""The deadline shown to the page is this much earlier than the runner's, so that a move the
page accepts reaches the runner in time."""
POLL_S = 0.1
WATCH_S = 1.0
"""How often the :class:`Watcher` reads the game's row (resigned? the page still there?)."""
WORKER_BEAT_S = 5.0
"""How often the worker writes its own heartbeat (``PlayGame.worker_seen``)."""


def names(cards: Sequence[int]) -> list[str]:
    """REPLAY.md names of cards."""
    return [card_name(c) for c in cards]


class TableView:
    """What the person's seat sees of the game, kept from its events; JSON for the page."""

    def __init__(
        self, seat: int, players: list[str], sides: int, rules: Rules | None = None
    ) -> None:
        self.seat = seat
        self.players = players
        self.sides = sides
        self.rules = rules  # with them, a deal's end gives the counts behind its points
        self.deal = 0
        self.dealer: int | None = None
        self.hand: list[str] = []
        self.table: list[str] = []
        self.hand_sizes = [0] * len(players)
        self.stock = 0
        self.captured = [0] * sides  # cards each side has taken this deal
        self.scope = [0] * sides
        self.totals = [0] * sides
        self.moves: list[dict[str, Any]] = []  # this deal's moves, as every seat saw them
        self.last_deal: dict[str, Any] | None = None  # the previous deal's points
        self.deals: list[dict[str, Any]] = []  # every finished deal: its moves, points, counts
        self.result: dict[str, Any] | None = None
        # Each side's pile as a 40-bit set, from what every seat sees (captures are public),
        # and the side that captured last (the table's leftovers go to it).
        self.piles = [0] * sides
        self.last_side: int | None = None
        # Moves come from the runner's loop, a deal's start and end from the seat's stream: the
        # next deal's first move can come before this seat hears that deal start. A move after
        # a deal's last one (or before the first deal) waits here for its deal's start.
        self.between_deals = True
        self.early: list[dict[str, Any]] = []

    def deal_started(self, deal: DealInfo) -> None:
        """A deal starts: the seat's hand and the table."""
        self.deal = deal.deal_index
        self.dealer = deal.dealer
        self.hand = names(deal.hand)
        self.table = names(deal.table)
        self.stock = deal.stock_size
        self.hand_sizes = [len(deal.hand)] * len(self.players)
        self.captured = [0] * self.sides
        self.scope = [0] * self.sides
        self.totals = list(deal.totals)
        self.moves = []
        self.piles = [0] * self.sides
        self.last_side = None
        self.between_deals = False
        early, self.early = self.early, []
        for record in early:
            self.moved(record)

    def observed(self, observation: Observation) -> None:
        """The seat's turn: its observation is the truth of the moment."""
        self.deal = observation.deal_index
        self.dealer = observation.dealer
        self.hand = names(observation.hand)
        self.table = names(observation.table)
        self.hand_sizes = list(observation.hand_sizes)
        self.stock = observation.stock_size
        self.captured = [len(pile) for pile in observation.captured]
        self.piles = [sum(1 << card for card in pile) for pile in observation.captured]
        self.scope = list(observation.scope)
        self.totals = list(observation.totals)

    def moved(self, record: dict[str, Any], ends_deal: bool = False) -> None:
        """A move was played (``record`` as in the replay: seat, card, capture, auto);
        ``ends_deal``: it was the deal's last."""
        if self.between_deals:
            self.early.append(dict(record, ends_deal=ends_deal))
            return
        if record.get("ends_deal"):
            ends_deal = True
        seat = int(record["seat"])
        card = str(record["card"])
        capture = [str(c) for c in record.get("capture") or []]
        if seat == self.seat and card in self.hand:
            self.hand.remove(card)
        if 0 <= seat < len(self.hand_sizes):
            self.hand_sizes[seat] = max(0, self.hand_sizes[seat] - 1)
        if capture:
            self.table = [c for c in self.table if c not in capture]
            side = side_of_seat(seat, self.sides)
            self.captured[side] += len(capture) + 1
            for name in (card, *capture):
                self.piles[side] |= 1 << parse_card(name)
            self.last_side = side
            if not self.table:
                self.scope[side] += 1
        else:
            self.table.append(card)
        entry: dict[str, Any] = {"seat": seat, "card": card, "capture": capture}
        if record.get("auto"):
            entry["auto"] = str(record["auto"])
        self.moves.append(entry)
        if ends_deal:
            self.between_deals = True

    def deal_ended(
        self, deal_index: int, points: list[dict[str, int]], totals: tuple[int, ...]
    ) -> None:
        """A deal was scored: the table's leftovers went to the last capture."""
        if self.table and self.last_side is not None:
            for name in self.table:
                self.piles[self.last_side] |= 1 << parse_card(name)
        self.last_deal = {
            "deal": deal_index,
            "points": [dict(p) for p in points],
            "counts": self.counts(points),
        }
        self.deals.append({**self.last_deal, "moves": list(self.moves)})
        self.totals = list(totals)
        self.table = []
        self.hand = []
        self.hand_sizes = [0] * len(self.players)

    def counts(self, points: list[dict[str, int]]) -> list[dict[str, int]] | None:
        """The engine's counts behind the deal's points (:func:`arena.engine.deal_counts`),
        or None when the piles seen do not hold the whole deck (then no count is shown
        rather than a wrong one)."""
        if self.rules is None or sum(p.bit_count() for p in self.piles) != len(DECK):
            return None
        scope = [int(p.get("scope", 0)) for p in points]
        return deal_counts(self.rules, self.piles, scope)

    def game_ended(self, result: GameResult) -> None:
        """The game is over."""
        self.totals = list(result.totals)
        self.result = {
            "winner": result.winner,
            "forfeit_side": result.forfeit_side,
            "reason": result.reason,
        }

    def to_json(self) -> dict[str, Any]:
        """The view as the page gets it."""
        return {
            "seat": self.seat,
            "players": list(self.players),
            "deal": self.deal,
            "dealer": self.dealer,
            "hand": list(self.hand),
            "table": list(self.table),
            "hand_sizes": list(self.hand_sizes),
            "stock": self.stock,
            "captured": list(self.captured),
            "scope": list(self.scope),
            "totals": list(self.totals),
            "moves": list(self.moves),  # every move of the deal: 40 at most
            "last_deal": self.last_deal,
            "deals": list(self.deals),  # every finished deal's moves stay reachable
            "result": self.result,
        }


class Publisher:
    """Applies the seat's events to its :class:`TableView` and writes it to the game's row,
    one event after the other in one thread (events come from the runner's loop and from the
    SDK's threads; a write never holds either up). Every ``WATCH_S`` the same thread calls
    ``every_second`` (the :class:`Watcher`'s look at the row): one thread and one database
    connection per game for both."""

    def __init__(
        self, game_id: int, view: TableView, every_second: Callable[[], None] | None = None
    ) -> None:
        self.game_id = game_id
        self.view = view
        self.every_second = every_second
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name=f"play-{game_id}", daemon=True)
        self.thread.start()

    def on_move(self, live: LiveMove) -> None:
        """``MatchSpec.on_move``: called on the runner's loop, so it only queues the move."""
        self.events.put(("move", (live.record, live.table.get("to_move") is None)))

    def put(self, kind: str, payload: Any) -> None:
        """Queues one event for the writer."""
        self.events.put((kind, payload))

    def flush(self) -> None:
        """Returns once every event queued so far is written."""
        self.events.join()

    def close(self) -> None:
        """Writes what is queued, then stops the writer."""
        self.events.put(("stop", None))
        self.thread.join(timeout=30)

    def _run(self) -> None:
        looked = time.monotonic()
        try:
            while True:
                if self.every_second is not None and time.monotonic() - looked >= WATCH_S:
                    looked = time.monotonic()
                    self.every_second()
                try:
                    kind, payload = self.events.get(timeout=WATCH_S)
                except queue.Empty:
                    continue
                try:
                    if kind == "stop":
                        return
                    self._apply(kind, payload)
                except Exception:  # the page's view is a courtesy: the game goes on
                    log.exception("could not publish the %s of play game %s", kind, self.game_id)
                    close_old_connections()
                finally:
                    self.events.task_done()
        finally:
            connection.close()

    def _apply(self, kind: str, payload: Any) -> None:
        view = self.view
        fields: dict[str, Any] = {}
        rows = PlayGame.objects.filter(pk=self.game_id)
        if kind == "deal":
            view.deal_started(payload)
        elif kind == "turn":
            turn, observation, legal, deadline = payload
            view.observed(observation)
            fields = {"turn": turn, "awaiting": True, "legal": legal, "deadline": deadline}
        elif kind == "move":
            record, ends_deal = payload
            view.moved(record, ends_deal)
            if record.get("seat") == view.seat:  # played: by the person, or for them
                fields = {"awaiting": False}
        elif kind == "deal_end":
            view.deal_ended(*payload)
        elif kind == "game_end":
            view.game_ended(payload)
            fields = {"awaiting": False}
        rows.update(view=view.to_json(), **fields)


class Watcher:
    """Looks at the game's row, every second from the :class:`Publisher`'s thread, while the
    game is played: leaves the game when the person resigned or the page stopped checking in;
    writes the worker's heartbeat every few seconds."""

    def __init__(self, seat: HumanSeat, abandon_s: float) -> None:
        self.seat = seat
        self.abandon_s = abandon_s
        self.last_beat = 0.0

    def __call__(self) -> None:
        from webui.play import games

        if self.seat.left is not None:
            return
        rows = PlayGame.objects.filter(pk=self.seat.game_id)
        try:
            if time.monotonic() - self.last_beat >= WORKER_BEAT_S:
                rows.update(worker_seen=timezone.now())
                self.last_beat = time.monotonic()
            row = rows.values_list("resign_requested", "seen").first()
        except Exception as error:  # the database blinked: look again next time
            log.warning("play game %s: %s", self.seat.game_id, error)
            close_old_connections()
            return
        if row is None:
            self.seat.leave("the game was deleted")
            return
        resigned, seen = row
        if resigned:
            self.seat.leave(games.RESIGNED)
        elif seen is None or (timezone.now() - seen).total_seconds() > self.abandon_s:
            self.seat.leave(games.ABANDONED_PAGE)


class HumanSeat(Bot):
    """The person's seat, served by the SDK inside the worker that plays the game.

    ``on_leave`` is called once when the seat leaves the game (it stops the seat's server);
    :attr:`left` then says why.
    """

    name = "person"
    version = ""
    variants = ("*",)

    def __init__(
        self,
        game_id: int,
        seat: int,
        players: list[str],
        sides: int,
        *,
        rules: Rules | None = None,
        abandon_s: float = 30.0,
        on_leave: Callable[[], None] | None = None,
    ) -> None:
        self.game_id = game_id
        self.turn = 0
        self.stopped = threading.Event()
        self.left: str | None = None
        self._leaving = threading.Lock()
        self._on_leave = on_leave
        self.publisher = Publisher(
            game_id, TableView(seat, players, sides, rules), every_second=Watcher(self, abandon_s)
        )

    def leave(self, reason: str) -> None:
        """Leaves the game (once): a waiting ``choose`` gives up and the server stops, so the
        runner forfeits the person's side."""
        with self._leaving:
            if self.left is not None:
                return
            self.left = reason
        log.info("play game %s: the person's seat leaves (%s)", self.game_id, reason)
        self.stopped.set()
        if self._on_leave is not None:
            self._on_leave()

    def close(self) -> None:
        """The game is over: a waiting ``choose`` gives up, the writer (and watcher) stops."""
        self.stopped.set()
        self.publisher.close()

    def on_deal_start(self, deal: DealInfo) -> None:
        self.publisher.put("deal", deal)

    def on_deal_end(
        self, deal_index: int, points: list[dict[str, int]], totals: tuple[int, ...]
    ) -> None:
        self.publisher.put("deal_end", (deal_index, points, totals))

    def on_game_end(self, result: GameResult) -> None:
        self.publisher.put("game_end", result)

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        """Publishes the turn, then waits for the page's move until the turn's deadline; with
        no move by then the person has abandoned the game, and the seat leaves it."""
        from webui.play import games

        self.turn += 1
        turn = self.turn
        limit_ms = self.clock.move_ms
        legal = [m.name for m in legal_moves]
        shown_ms = max(0, limit_ms - DEADLINE_MARGIN_MS)
        deadline = timezone.now() + datetime.timedelta(milliseconds=shown_ms)
        self.publisher.put("turn", (turn, observation, legal, deadline))
        self.publisher.flush()  # the page may answer only a turn it can see
        give_up = time.monotonic() + shown_ms / 1000.0 + POLL_S
        try:
            while not self.stopped.is_set():
                chosen = self._chosen(turn)
                if chosen is not None:
                    return legal_moves[legal.index(chosen)]
                if time.monotonic() >= give_up:
                    break
                self.stopped.wait(POLL_S)
            # Close the turn, unless the page claimed it a moment ago (its move is then in).
            PlayGame.objects.filter(pk=self.game_id, turn=turn, awaiting=True).update(
                awaiting=False
            )
            chosen = self._chosen(turn)
            if chosen is not None:
                return legal_moves[legal.index(chosen)]
            self.leave(games.ABANDONED_CLOCK)
            return legal_moves[0]  # never played: the seat's stream is gone
        finally:
            connection.close()

    def _chosen(self, turn: int) -> str | None:
        move: str | None = (
            PlayMove.objects.filter(game_id=self.game_id, turn=turn)
            .values_list("move", flat=True)
            .first()
        )
        return move
