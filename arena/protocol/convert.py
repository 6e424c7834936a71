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

from arena.engine import (
    DECK,
    POINT_KEYS,
    Card,
    DealScore,
    Move,
    Observation,
    Rules,
    Seat,
    rules_for,
    side_points,
)
from arena.protocol import PROTOCOL_VERSION, bot_pb2

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
    # The fields of SidePoints are the engine's POINT_KEYS: its POINT_CATEGORIES, then the total
    # (tests/sdk/test_protocol.py holds the .proto to that list).
    return bot_pb2.SidePoints(**side_points(points))


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


# ---- turn requests as bytes (the runner's hot path) ----------------------------------------
#
# The wire format of proto3 (what SerializeToString writes, fields in number order): a field is
# its tag (number << 3 | wire type) and its value; zero scalars and empty repeated fields are
# left out, a set sub-message is written even when empty, repeated scalars are packed.


def _varint(value: int) -> bytes:
    """A base-128 varint; a negative value as its 64-bit two's complement (int32 fields)."""
    if value >= 0:
        if value < 0x80:
            return _SMALL[value]
        if value < 0x4000:  # lengths, clocks and request ids: two or three bytes, unrolled
            return bytes((value & 0x7F | 0x80, value >> 7))
        if value < 0x200000:
            return bytes((value & 0x7F | 0x80, value >> 7 & 0x7F | 0x80, value >> 14))
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL = [bytes((n,)) for n in range(0x80)]


def _scalar(tag: bytes, value: int) -> bytes:
    """A varint field (left out when zero)."""
    return tag + _varint(value) if value else b""


def _packed(tag: bytes, values: Sequence[int]) -> bytes:
    """A packed repeated varint field (left out when empty)."""
    if not values:
        return b""
    if min(values) >= 0 and max(values) < 0x80:
        body = bytes(values)  # one byte each
    else:
        body = b"".join([_varint(v) for v in values])
    return tag + _varint(len(body)) + body


def _nested(tag: bytes, body: bytes) -> bytes:
    """A length-delimited field: a sub-message, written even when empty."""
    return tag + _varint(len(body)) + body


def _move_bytes(move: Move) -> bytes:
    """The serialized ``Move`` message (its fields, not framed)."""
    card, capture = move  # a Move's cards are 0..39: one byte each
    body = b"\x08" + _SMALL[card] if card else b""
    return body + bytes((0x12, len(capture), *capture)) if capture else body


# Fields framed by value, shared by every builder (the bytes depend on the key alone), each
# cleared by new_deal past a bound: moves as legal_moves entries, and observation fields.
_MOVE_FIELDS: dict[Move, bytes] = {}
_HEAD_FIELDS: dict[tuple[int, int, int, int], bytes] = {}  # seat, to_move, dealer, deal_index
_SIZE_FIELDS: dict[tuple[tuple[int, ...], int], bytes] = {}  # hand_sizes, stock_size
_TAIL_FIELDS: dict[tuple[tuple[int, ...], tuple[int, ...]], bytes] = {}  # scope, totals
_SHARED: tuple[dict[Any, bytes], ...] = (_MOVE_FIELDS, _HEAD_FIELDS, _SIZE_FIELDS, _TAIL_FIELDS)
_SHARED_KEPT = 20_000  # entries of each (the moves of many games)
_PLAYED_KEPT = 1_000  # MovePlayed messages a builder keeps (a deal makes 40)
_parse_move_played = bot_pb2.MovePlayed.FromString


class TurnRequestBuilder:
    """Builds turn requests like :func:`turn_request_message`, faster, for the runner.

    :meth:`request_bytes` writes the serialized ``ArenaMessage`` straight from the engine's
    objects, without building protobuf messages: each move's bytes are made once and kept, the
    observation's history grows by the moves since the last request instead of being encoded
    again every turn, fields whose values recur (seats, sizes, piles, scope and totals) are kept
    by value (all but the piles shared by every builder), and the ``MovePlayed`` messages of
    :meth:`move_played` keep their bytes. Call :meth:`new_deal` at each deal's start.
    The bytes are those of ``turn_request_message(...).SerializeToString()``; :meth:`request`
    gives the message itself.
    """

    def __init__(self) -> None:
        self._moves = _MOVE_FIELDS
        self._heads = _HEAD_FIELDS
        self._sizes = _SIZE_FIELDS
        self._tails = _TAIL_FIELDS
        self._known = 0  # history entries encoded in _joined
        self._last: tuple[Seat, Move] | None = None  # the last of them
        self._joined = b""  # the observation's history entries, framed and joined
        self._piles: dict[tuple[Card, ...], bytes] = {}  # this deal's captured piles, framed
        # This deal's messages from move_played, by id: each, and its moves_before entry.
        self._played: dict[int, tuple[Any, bytes]] = {}

    def new_deal(self) -> None:
        """Forgets the previous deal's history, piles and messages (and, past some thousands,
        the fields kept by value)."""
        for kept in _SHARED:
            if len(kept) > _SHARED_KEPT:
                kept.clear()
        self._known = 0
        self._last = None
        self._joined = b""
        self._piles.clear()
        self._played.clear()

    def _legal(self, move: Move) -> bytes:
        framed = self._moves.get(move)
        if framed is None:
            framed = self._moves[move] = _nested(b"\x1a", _move_bytes(move))
        return framed

    def _history_bytes(self, history: Sequence[tuple[Seat, Move]]) -> bytes:
        """The observation's history field, extending the entries already encoded when
        ``history`` continues them (as the turns of one deal do)."""
        known = self._known
        if known > len(history) or (known and history[known - 1] != self._last):
            known = self._known = 0  # not a continuation (new_deal not called): encode anew
            self._last = None
            self._joined = b""
        if known < len(history):
            joined = self._joined
            for seat, move in history[known:]:
                # A legal move's entry with the tag of PlayedMove.move: the same length follows.
                played = _scalar(b"\x08", seat) + b"\x12" + self._legal(move)[1:]
                joined += b"\x4a" + _varint(len(played)) + played
            self._joined = joined
            self._known = len(history)
            self._last = history[-1]
        return self._joined

    def move_played(self, seat: Seat, move: Move, by_arena: bool = False) -> Any:
        """The ``MovePlayed`` message, as :func:`move_played`. Its bytes are kept (until
        :meth:`new_deal`) for the turn requests that carry it: it is not to be changed."""
        if not 0 <= seat < 0x80:
            return move_played(seat, move, by_arena)
        # A legal move's entry with the tag of MovePlayed.move: the same length follows.
        body = b"\x12" + self._legal(move)[1:]
        if seat:
            body = b"\x08" + _SMALL[seat] + body
        if by_arena:
            body += b"\x18\x01"
        message = _parse_move_played(body)
        played = self._played
        if len(played) >= _PLAYED_KEPT:  # new_deal not called: keep a deal's worth at most
            played.clear()
        played[id(message)] = (message, b"\x2a" + _varint(len(body)) + body)
        return message

    def _head(self, key: tuple[int, int, int, int]) -> bytes:
        seat, to_move, dealer, deal_index = key
        framed = self._heads[key] = (
            _scalar(b"\x08", seat)
            + _scalar(b"\x10", to_move)
            + _scalar(b"\x18", dealer)
            + _scalar(b"\x20", deal_index)
        )
        return framed

    def _size(self, key: tuple[tuple[int, ...], int]) -> bytes:
        framed = self._sizes[key] = _packed(b"\x3a", key[0]) + _scalar(b"\x40", key[1])
        return framed

    def _pile(self, pile: tuple[Card, ...]) -> bytes:
        framed = self._piles[pile] = _nested(b"\x52", _packed(b"\x0a", sorted(pile)))
        return framed

    def _tail(self, key: tuple[tuple[int, ...], tuple[int, ...]]) -> bytes:
        framed = self._tails[key] = _packed(b"\x5a", key[0]) + _packed(b"\x62", key[1])
        return framed

    def request_bytes(
        self,
        request_id: int,
        obs: Observation,
        legal_moves: Sequence[Move],
        move_ms: int,
        bank_ms: int,
        moves_before: Iterable[Any] = (),
    ) -> bytes:
        """The serialized ``ArenaMessage`` of a turn request, as :func:`turn_request_message`
        serializes; ``moves_before`` holds ``MovePlayed`` messages."""
        head = (obs.seat, obs.to_move, obs.dealer, obs.deal_index)
        sizes = (obs.hand_sizes, obs.stock_size)
        tail = (obs.scope, obs.totals)
        hand = obs.hand
        table = obs.table
        # A join of the kept bytes fails on a None (one not kept yet): then they are made.
        try:
            piles = b"".join(map(self._piles.get, obs.captured))  # type: ignore[arg-type]
        except TypeError:
            piles = b"".join([self._piles.get(p) or self._pile(p) for p in obs.captured])
        # Cards are below 128 and a hand or table holds at most 40: one byte each, and the count.
        observation = b"".join(
            (
                self._heads.get(head) or self._head(head),
                bytes((0x2A, len(hand), *hand)) if hand else b"",
                bytes((0x32, len(table), *table)) if table else b"",
                self._sizes.get(sizes) or self._size(sizes),
                self._history_bytes(obs.history),
                piles,
                self._tails.get(tail) or self._tail(tail),
            )
        )
        try:
            legal = b"".join(map(self._moves.get, legal_moves))  # type: ignore[arg-type]
        except TypeError:
            legal = b"".join([self._legal(m) for m in legal_moves])
        # An entry keeps its message alive: no other object has that id meanwhile.
        played = self._played
        before = []
        for message in moves_before:
            entry = played.get(id(message))
            if entry is not None:
                before.append(entry[1])
            else:  # not from move_played, or from before new_deal
                before.append(_nested(b"\x2a", message.SerializeToString()))
        clock = (b"\x08" + _varint(move_ms) if move_ms > 0 else b"") + (
            b"\x10" + _varint(bank_ms) if bank_ms > 0 else b""
        )
        request = b"".join(
            (
                b"\x08" + _varint(request_id) if request_id else b"",
                b"\x12",
                _varint(len(observation)),
                observation,
                legal,
                b"\x22",
                _SMALL[len(clock)],  # two varints: at most 22 bytes
                clock,
                *before,
            )
        )
        return b"\x32" + _varint(len(request)) + request

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
        data = self.request_bytes(request_id, obs, legal_moves, move_ms, bank_ms, moves_before)
        return bot_pb2.ArenaMessage.FromString(data)


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
