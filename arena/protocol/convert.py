"""Conversions between engine objects and ``scopa.arena.v1`` messages, shared by SDK and runner.

Pure functions, no I/O and no gRPC calls: ``move_to_proto``/``move_from_proto``,
``rules_to_proto``/``rules_from_proto``, ``observation_to_proto``/``observation_from_proto``,
deal scores, and one builder per arena -> bot event (each returns an ``ArenaMessage``).
The ``*_from_proto`` functions check what a peer could get wrong (card numbers, variant names)
and raise ``ValueError`` with a readable reason; they are not a validator of game legality
(the runner checks a move against the legal list, the engine does the rules).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.engine import DECK, Card, DealScore, Move, Observation, Rules, Seat, rules_for
from arena.protocol import PROTOCOL_VERSION, bot_pb2

POINT_KEYS = (
    "carte",
    "denari",
    "settebello",
    "primiera",
    "scope",
    "re_bello",
    "napoli",
    "sette_tutti",
    "total",
)
"""The keys of one side's deal points (REPLAY.md), also the fields of ``SidePoints``."""

_CARDS = frozenset(DECK)


def _card(value: int, what: str) -> Card:
    if value not in _CARDS:
        raise ValueError(f"{what}: {value} is not a card (0..39)")
    return Card(value)


def _cards(values: Iterable[int], what: str) -> tuple[Card, ...]:
    return tuple(_card(v, what) for v in values)


# ---- moves --------------------------------------------------------------------------------


def move_to_proto(move: Move) -> Any:
    """The ``Move`` message of an engine move."""
    return bot_pb2.Move(card=move.card, capture=move.capture)


def moves_to_proto(moves: Iterable[Move]) -> list[Any]:
    """``Move`` messages for a list of engine moves, in order."""
    return [bot_pb2.Move(card=m.card, capture=m.capture) for m in moves]


def move_from_proto(msg: Any) -> Move:
    """The engine move of a ``Move`` message; ``ValueError`` when a card is out of range."""
    card = _card(msg.card, "move card")
    capture = tuple(sorted(_cards(msg.capture, "captured card")))
    return Move(card, capture)


# ---- rules --------------------------------------------------------------------------------


def rules_to_proto(rules: Rules) -> Any:
    """The ``Rules`` message: variant name, overrides as JSON, and the table's shape."""
    return bot_pb2.Rules(
        variant=rules.variant,
        options_json=json.dumps(rules.options(), sort_keys=True, separators=(",", ":")),
        players=rules.players,
        num_sides=rules.num_sides,
        partners=rules.partners,
        target=rules.target,
    )


def rules_from_proto(msg: Any) -> Rules:
    """The engine rules of a ``Rules`` message; ``ValueError`` for unknown variants/options."""
    try:
        options = json.loads(msg.options_json) if msg.options_json else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"rules options_json is not JSON: {exc.msg}") from None
    if not isinstance(options, dict):
        raise ValueError("rules options_json must be a JSON object")
    return rules_for(msg.variant, options)


# ---- observations -------------------------------------------------------------------------


def observation_to_proto(obs: Observation) -> Any:
    """The ``Observation`` message of what one seat sees."""
    return bot_pb2.Observation(
        seat=obs.seat,
        to_move=obs.to_move,
        dealer=obs.dealer,
        deal_index=obs.deal_index,
        hand=obs.hand,
        table=obs.table,
        hand_sizes=obs.hand_sizes,
        stock_size=obs.stock_size,
        history=[
            bot_pb2.PlayedMove(seat=seat, move=bot_pb2.Move(card=m.card, capture=m.capture))
            for seat, m in obs.history
        ],
        captured=[bot_pb2.CardList(cards=sorted(cards)) for cards in obs.captured],
        scope=obs.scope,
        totals=obs.totals,
    )


def observation_from_proto(msg: Any, rules: Rules) -> Observation:
    """The engine observation of an ``Observation`` message, under ``rules`` (from GameStart)."""
    seats = rules.players
    for name, seat in (("seat", msg.seat), ("to_move", msg.to_move), ("dealer", msg.dealer)):
        if seat >= seats:
            raise ValueError(f"observation {name}: seat {seat} outside 0..{seats - 1}")
    history: list[tuple[Seat, Move]] = []
    for played in msg.history:
        if played.seat >= seats:
            raise ValueError(f"observation history: seat {played.seat} outside 0..{seats - 1}")
        history.append((Seat(played.seat), move_from_proto(played.move)))
    return Observation(
        seat=msg.seat,
        to_move=msg.to_move,
        dealer=msg.dealer,
        deal_index=msg.deal_index,
        hand=_cards(msg.hand, "hand card"),
        table=_cards(msg.table, "table card"),
        hand_sizes=tuple(msg.hand_sizes),
        stock_size=msg.stock_size,
        history=tuple(history),
        captured=tuple(_cards(c.cards, "captured card") for c in msg.captured),
        scope=tuple(msg.scope),
        totals=tuple(msg.totals),
        rules=rules,
    )


# ---- scores -------------------------------------------------------------------------------


def points_to_proto(points: Mapping[str, int]) -> Any:
    """The ``SidePoints`` message of one side's deal points (REPLAY.md keys)."""
    return bot_pb2.SidePoints(**{key: int(points.get(key, 0)) for key in POINT_KEYS})


def points_from_proto(msg: Any) -> dict[str, int]:
    """One side's deal points as the REPLAY.md dict."""
    return {key: int(getattr(msg, key)) for key in POINT_KEYS}


def score_to_proto(score: DealScore) -> list[Any]:
    """``SidePoints`` messages of a deal's score, by side."""
    return [points_to_proto(p) for p in score.points]


# ---- arena -> bot events ------------------------------------------------------------------


def game_start_message(
    game_id: str,
    rules: Rules,
    seat: Seat,
    players: Sequence[str],
    move_ms: int,
    bank_ms: int,
) -> Any:
    """The ``ArenaMessage`` that opens a ``Play`` stream."""
    return bot_pb2.ArenaMessage(
        game_start=bot_pb2.GameStart(
            game_id=game_id,
            rules=rules_to_proto(rules),
            seat=seat,
            players=list(players),
            clock=bot_pb2.Clock(move_ms=max(0, move_ms), bank_ms=max(0, bank_ms)),
            protocol_version=PROTOCOL_VERSION,
        )
    )


def deal_start_message(obs: Observation) -> Any:
    """The ``DealStart`` event for the seat whose observation (at the deal's start) is given."""
    return bot_pb2.ArenaMessage(
        deal_start=bot_pb2.DealStart(
            deal_index=obs.deal_index,
            dealer=obs.dealer,
            hand=obs.hand,
            table=obs.table,
            stock_size=obs.stock_size,
            totals=obs.totals,
        )
    )


def move_played(seat: Seat, move: Move, by_arena: bool = False) -> Any:
    """The ``MovePlayed`` message itself (for ``TurnRequest.moves_before``); ``by_arena`` when
    the arena played it for a seat out of time."""
    return bot_pb2.MovePlayed(seat=seat, move=move_to_proto(move), by_arena=by_arena)


def move_played_message(seat: Seat, move: Move, by_arena: bool = False) -> Any:
    """The ``MovePlayed`` event, for a move that no turn request of the seat will carry."""
    return bot_pb2.ArenaMessage(move_played=move_played(seat, move, by_arena))


def deal_end_message(deal_index: int, score: DealScore, totals: Sequence[int]) -> Any:
    """The ``DealEnd`` event: points by side and the game totals after the deal."""
    end = bot_pb2.DealEnd(deal_index=deal_index, points=score_to_proto(score), totals=totals)
    if score.cappotto is not None:
        end.cappotto = score.cappotto
    return bot_pb2.ArenaMessage(deal_end=end)


def game_end_message(
    totals: Sequence[int],
    winner: int | None,
    forfeit_side: int | None = None,
    reason: str = "",
) -> Any:
    """The ``GameEnd`` event; ``winner`` None for a draw or a void game."""
    end = bot_pb2.GameEnd(totals=totals, reason=reason)
    if winner is not None:
        end.winner = winner
    if forfeit_side is not None:
        end.forfeit_side = forfeit_side
    return bot_pb2.ArenaMessage(game_end=end)


def turn_request_message(
    request_id: int,
    obs: Observation,
    legal_moves: Sequence[Move],
    move_ms: int,
    bank_ms: int,
    moves_before: Iterable[Any] = (),
) -> Any:
    """The ``TurnRequest`` for the seat of ``obs``, with its legal moves and clock, carrying
    ``moves_before``: the ``MovePlayed`` messages (:func:`move_played`) the seat has not been
    sent yet, in order."""
    return bot_pb2.ArenaMessage(
        turn_request=bot_pb2.TurnRequest(
            request_id=request_id,
            observation=observation_to_proto(obs),
            legal_moves=moves_to_proto(legal_moves),
            clock=bot_pb2.Clock(move_ms=max(0, move_ms), bank_ms=max(0, bank_ms)),
            moves_before=moves_before,
        )
    )


class TurnRequestBuilder:
    """Builds turn requests like :func:`turn_request_message`, faster, for the runner.

    Each move's ``Move`` and ``PlayedMove`` messages are built once and reused (copied into
    every request and observation history that holds them), and the deal's history grows by
    the moves since the last request, instead of everything being built again every turn.
    Call :meth:`new_deal` at each deal's start, which drops the reused messages. The requests
    are equal to :func:`turn_request_message`'s.
    """

    def __init__(self) -> None:
        self._moves: dict[Move, Any] = {}
        self._played: dict[tuple[Seat, Move], Any] = {}
        self._history: list[Any] = []  # PlayedMove messages of the deal's moves so far
        self._last: tuple[Seat, Move] | None = None  # the last of them

    def new_deal(self) -> None:
        """Forgets the messages of the previous deal."""
        self._moves.clear()
        self._played.clear()
        self._history = []
        self._last = None

    def _history_of(self, history: Sequence[tuple[Seat, Move]]) -> list[Any]:
        """``PlayedMove`` messages of a deal's history, extending the ones already built
        when ``history`` continues them (as the turns of one deal do)."""
        known = len(self._history)
        if known > len(history) or (known and history[known - 1] != self._last):
            self._history = []  # not a continuation (new_deal not called): build it anew
            known = 0
        for seat, move in history[known:]:
            self._history.append(self._played_move(seat, move))
        if history:
            self._last = history[-1]
        return self._history

    def move(self, move: Move) -> Any:
        """The ``Move`` message of ``move`` (shared: copy it, never change it)."""
        message = self._moves.get(move)
        if message is None:
            message = self._moves[move] = bot_pb2.Move(card=move.card, capture=move.capture)
        return message

    def _played_move(self, seat: Seat, move: Move) -> Any:
        key = (seat, move)
        message = self._played.get(key)
        if message is None:
            message = self._played[key] = bot_pb2.PlayedMove(seat=seat, move=self.move(move))
        return message

    def move_played(self, seat: Seat, move: Move, by_arena: bool = False) -> Any:
        """The ``MovePlayed`` message, as :func:`move_played`."""
        return bot_pb2.MovePlayed(seat=seat, move=self.move(move), by_arena=by_arena)

    def request(
        self,
        request_id: int,
        obs: Observation,
        legal_moves: Sequence[Move],
        move_ms: int,
        bank_ms: int,
        moves_before: Iterable[Any] = (),
    ) -> Any:
        """The ``ArenaMessage`` of a turn request, as :func:`turn_request_message`."""
        observation = bot_pb2.Observation(
            seat=obs.seat,
            to_move=obs.to_move,
            dealer=obs.dealer,
            deal_index=obs.deal_index,
            hand=obs.hand,
            table=obs.table,
            hand_sizes=obs.hand_sizes,
            stock_size=obs.stock_size,
            history=self._history_of(obs.history),
            captured=[bot_pb2.CardList(cards=sorted(cards)) for cards in obs.captured],
            scope=obs.scope,
            totals=obs.totals,
        )
        return bot_pb2.ArenaMessage(
            turn_request=bot_pb2.TurnRequest(
                request_id=request_id,
                observation=observation,
                legal_moves=[self.move(m) for m in legal_moves],
                clock=bot_pb2.Clock(move_ms=max(0, move_ms), bank_ms=max(0, bank_ms)),
                moves_before=moves_before,
            )
        )


def turn_response_index(msg: Any, request_id: int, num_legal: int) -> int:
    """The move index of a ``TurnResponse``; ``ValueError`` saying why it is garbled/illegal.

    The runner maps the message prefix to the fault kind: ``garbled:`` or ``illegal:``.
    """
    if msg.request_id != request_id:
        raise ValueError(f"garbled: answer to request {msg.request_id}, expected {request_id}")
    if not msg.HasField("move_index"):
        raise ValueError("garbled: response without move_index")
    if msg.move_index >= num_legal:
        raise ValueError(f"illegal: move_index {msg.move_index} outside 0..{num_legal - 1}")
    return int(msg.move_index)
