"""The state of a deal and of a whole game: dealing, legal moves, apply and undo, game end.

:class:`Deal` is one deal from the first card played to the last, built from a shuffled deck
(:meth:`Deal.from_deck`) or explicit hands (:meth:`Deal.from_hands`); it generates the legal
moves (each capture choice its own :class:`Move`) and applies and undoes them in place, so
search never copies a state it can undo.  :class:`Game` deals from a seed, applies the redeal
rules, totals the deals and decides the winner with both tie rules and cappotto.  Scoring
itself lives in :mod:`arena.engine.scoring`, what a seat may see in
:mod:`arena.engine.observation`; this module does no I/O.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Sequence
from itertools import chain, combinations
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from arena.engine.cards import (
    DECK,
    Card,
    CardError,
    EngineError,
    IllegalMoveError,
    Seat,
    Side,
    card_name,
    cards_of,
    parse_card,
)
from arena.engine.rng import Rng, derive_seed
from arena.engine.scoring import CATEGORIES, DealScore, score_masks
from arena.engine.variants import Rules

if TYPE_CHECKING:
    from arena.engine.observation import Observation

# ---------------------------------------------------------------------------------------------
# Moves


class Move(tuple[Card, tuple[Card, ...]]):
    """One play: a card from hand and the table cards it captures (``()`` to lay it down).

    Immutable and hashable; ``capture`` is always sorted.

    >>> move = parse_move("7d:4d+3b")
    >>> move.name, move.card, move.capture
    ('7d:4d+3b', 6, (3, 22))
    >>> move.to_json()
    {'card': '7d', 'capture': ['4d', '3b']}
    >>> Move.from_json({"card": "5c", "capture": []}) == Move(parse_card("5c"))
    True
    """

    __slots__ = ()

    def __new__(cls, card: Card, capture: Iterable[Card] = ()) -> Move:
        """A move of ``card`` capturing ``capture`` (in any order)."""
        card_name(card)
        cap = tuple(sorted(capture))
        for c in cap:
            card_name(c)
        return tuple.__new__(cls, (card, cap))

    @property
    def card(self) -> Card:
        """The card played from hand."""
        return self[0]

    @property
    def capture(self) -> tuple[Card, ...]:
        """The table cards taken, sorted; empty when the card is laid down."""
        return self[1]

    @property
    def name(self) -> str:
        """Text form: ``"7d"`` (laid down) or ``"7d:3b+4d"``."""
        if not self[1]:
            return _NAMES[self[0]]
        return _NAMES[self[0]] + ":" + "+".join(_NAMES[c] for c in self[1])

    def to_json(self) -> dict[str, Any]:
        """``{"card": "7d", "capture": ["3b", "4d"]}``, the move form of REPLAY.md."""
        return {"card": _NAMES[self[0]], "capture": [_NAMES[c] for c in self[1]]}

    @classmethod
    def from_json(cls, obj: Any) -> Move:
        """The move of a ``{"card": ..., "capture": [...]}`` object; bad input: EngineError."""
        if not isinstance(obj, dict) or "card" not in obj:
            raise EngineError(f"a move is an object with 'card' and 'capture', not {obj!r}")
        capture = obj.get("capture", [])
        if not isinstance(capture, list):
            raise EngineError(f"a move's 'capture' is a list of cards, not {capture!r}")
        cards = [parse_card(c) for c in capture]
        if len(set(cards)) != len(cards):
            raise CardError(f"a card appears twice in the capture {capture!r}")
        return cls(parse_card(obj["card"]), cards)

    def __repr__(self) -> str:
        return f"Move({self.name!r})"


_NAMES: tuple[str, ...] = tuple(card_name(c) for c in DECK)
_new_move = tuple.__new__


def parse_move(text: str) -> Move:
    """The move written as ``"7d"`` or ``"7d:3b+4d"``.

    >>> parse_move("10s:5c+5b").name
    '10s:5c+5b'
    >>> parse_move("7d:")
    Traceback (most recent call last):
    ...
    arena.engine.cards.CardError: not a move: '7d:' (write e.g. '7d' or '7d:3b+4d')
    """
    if not isinstance(text, str):
        raise CardError(f"not a move: {text!r}")
    card_text, sep, capture_text = text.strip().partition(":")
    try:
        card = parse_card(card_text)
        capture = [parse_card(c) for c in capture_text.split("+")] if sep else []
    except CardError:
        raise CardError(f"not a move: {text!r} (write e.g. '7d' or '7d:3b+4d')") from None
    if len(set(capture)) != len(capture):
        raise CardError(f"not a move: {text!r} (a card is captured twice)")
    return Move(card, capture)


# Pre-built moves for the hot path: laying each card down, and each card taking one card.
_LAY: tuple[Move, ...] = tuple(_new_move(Move, (c, ())) for c in DECK)
_TAKE1: tuple[Move, ...] = tuple(_new_move(Move, (a, (b,))) for a in DECK for b in DECK)


def _slice_cards(offset: int) -> tuple[tuple[Card, ...], ...]:
    """The cards of each 10-bit slice of a card set (bit ``i`` is card ``offset + i``)."""
    out: list[tuple[Card, ...]] = [()]
    for bits in range(1, 1024):
        low = bits & -bits
        out.append((offset + low.bit_length() - 1, *out[bits ^ low]))
    return tuple(out)


# A pile's cards, a suit (10 bits of its 40-bit set) at a time, for observations.
_SUIT0, _SUIT1, _SUIT2, _SUIT3 = (_slice_cards(10 * suit) for suit in range(4))
_FULL = (1 << 40) - 1


def _piles(masks: Iterable[int]) -> tuple[tuple[Card, ...], ...]:
    """The sorted cards of each 40-bit set."""
    return tuple([
        _SUIT0[m & 1023] + _SUIT1[m >> 10 & 1023] + _SUIT2[m >> 20 & 1023] + _SUIT3[m >> 30]
        if 0 <= m <= _FULL else tuple(cards_of(m))
        for m in masks
    ])


_SEAT_MOVE = itemgetter(0, 1)  # the (seat, move) of an undo entry
_chain = chain.from_iterable

# ---------------------------------------------------------------------------------------------
# Capture sets, memoised by the table's ranks.
#
# The table's ranks are kept as a base-5 number (count of rank r times 5**r, r = 0..9), which
# changes by one power of 5 per card.  The sets of ranks that make a sum depend only on that
# number and the sum, so they are computed once and shared by every deal and every game.

_POW5: tuple[int, ...] = tuple(5**r for r in range(10))
_RANK0: tuple[int, ...] = tuple(c % 10 for c in DECK)
_MEMO_LIMIT = 100_000  # about 35 MB at most; random play fills some 20,000

Pattern = tuple[tuple[int, int], ...]  # ((rank index, how many), ...)
# A memo entry per pattern: the ranks to take whole (when the pattern takes every card of each
# of its ranks, the common case, known from the key), else None; and the pattern itself.
Entry = tuple[tuple[int, ...] | None, Pattern]
_SUM_MEMO: dict[int, tuple[Entry, ...]] = {}
_FIFTEEN_MEMO: dict[int, tuple[Entry, ...]] = {}


def _rank_patterns(key: int, target: int, min_size: int) -> tuple[Entry, ...]:
    """Every multiset of the table's ranks (given by ``key``) summing to ``target``."""
    counts = [key // _POW5[r] % 5 for r in range(10)]
    out: list[Pattern] = []
    chosen: list[tuple[int, int]] = []

    def walk(r: int, remaining: int, size: int) -> None:
        if remaining == 0:
            if size >= min_size:
                out.append(tuple(chosen))
            return
        if r >= 10 or r + 1 > remaining:
            return
        walk(r + 1, remaining, size)
        for k in range(1, counts[r] + 1):
            if k * (r + 1) > remaining:
                break
            chosen.append((r, k))
            walk(r + 1, remaining - k * (r + 1), size + k)
            chosen.pop()

    walk(0, target, 0)
    return tuple(
        (tuple(r for r, _ in p) if all(counts[r] == k for r, k in p) else None, p) for p in out
    )


def _lookup(memo: dict[int, tuple[Entry, ...]], key: int, target: int, min_size: int
            ) -> tuple[Entry, ...]:
    slot = key * 16 + target
    found = memo.get(slot)
    if found is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[slot] = _rank_patterns(key, target, min_size)
    return found


def _expand(patterns: tuple[Entry, ...], by_rank: list[list[Card]]) -> list[tuple[Card, ...]]:
    """The card sets (sorted tuples, in sorted order) that realise rank patterns on a table."""
    caps: list[tuple[Card, ...]] = []
    for whole, pattern in patterns:
        if whole is not None:
            cards: list[Card] = []
            for r in whole:
                cards += by_rank[r]
            cards.sort()
            caps.append(tuple(cards))
            continue
        partial: list[tuple[Card, ...]] = [()]
        for r, k in pattern:
            ranked = by_rank[r]
            if k == len(ranked):
                partial = [p + tuple(ranked) for p in partial]
            elif k == 1:
                partial = [(*p, c) for p in partial for c in ranked]
            else:
                options = list(combinations(ranked, k))
                partial = [p + o for p in partial for o in options]
        for p in partial:
            caps.append(tuple(sorted(p)))
    if len(caps) > 1:
        caps.sort()
    return caps


# ---------------------------------------------------------------------------------------------
# Deal

_SCOPA = 1
_REFILL = 2
_LEFTOVER = 4
_PILE = 8


class Deal:
    """One deal: hands, table, stock, piles and scope, with legal moves, apply and undo.

    >>> from arena.engine.variants import rules_for
    >>> from arena.engine.cards import parse_cards
    >>> deal = Deal.from_hands(rules_for("scopa"), dealer=1,
    ...     hands=[parse_cards("5c 10b 8s"), parse_cards("1c 2c 3c")],
    ...     table=parse_cards("3d 5b 5s 8d"))
    >>> [m.name for m in deal.legal_moves()]
    ['5c:5b', '5c:5s', '10b:5b+5s', '8s:8d']
    >>> deal.apply(parse_move("10b:5b+5s")); deal.to_move, deal.table
    (1, (2, 7))
    >>> deal.undo(); len(deal.table)
    4
    """

    __slots__ = (
        "_assi",
        "_by_rank",
        "_captured",
        "_general",
        "_hands",
        "_history_memo",
        "_last",
        "_last_play_scopa",
        "_n",
        "_next",
        "_prefix",
        "_scope",
        "_side",
        "_stock",
        "_stock_pos",
        "_tkey",
        "_to_move",
        "_undo",
        "deal_index",
        "dealer",
        "game_totals",
        "rules",
    )

    def __init__(
        self,
        rules: Rules,
        dealer: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card] = (),
    ) -> None:
        """A deal about to start; prefer :meth:`from_deck` or :meth:`from_hands`, which check."""
        self.rules = rules
        self.dealer = dealer
        self.deal_index = 0
        self.game_totals: tuple[int, ...] = (0,) * rules.num_sides
        self._n = rules.players
        self._side = tuple(rules.side_of(s) for s in range(rules.players))
        self._hands = [sorted(h) for h in hands]
        self._by_rank: list[list[Card]] = [[] for _ in range(10)]
        key = 0
        for c in table:
            insort(self._by_rank[c % 10], c)
            key += _POW5[c % 10]
        self._tkey = key
        self._stock = tuple(stock)
        self._stock_pos = 0
        self._captured = [0] * rules.num_sides
        self._scope = [0] * rules.num_sides
        self._last = -1
        self._to_move = (dealer + 1) % rules.players
        self._prefix: list[tuple[Seat, Move]] = []  # moves made before a restored state
        self._next = tuple((s + 1) % rules.players for s in range(rules.players))
        self._undo: list[tuple[Seat, Move, int, int, tuple[Card, ...]]] = []
        # The history last made into a tuple, and the undo entry of its last move (or None).
        self._history_memo: tuple[tuple[tuple[Seat, Move], ...], object] = ((), None)
        self._assi = rules.assi
        self._general = rules.assi or rules.quindici
        self._last_play_scopa = rules.last_play_scopa

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_deck(cls, rules: Rules, dealer: Seat, deck: Sequence[Card]) -> Deal:
        """The deal of a 40-card deck (top first) by the layout of ``rules``.

        >>> from arena.engine.variants import rules_for
        >>> deal = Deal.from_deck(rules_for("scopa"), 0, list(range(40)))
        >>> deal.hands[1], deal.table, len(deal.stock)
        ((0, 2, 4), (6, 7, 8, 9), 30)
        """
        _check_dealer(rules, dealer)
        deck = _check_deck(deck)
        n = rules.players
        order = [(dealer + 1 + i) % n for i in range(n)]
        hands: list[list[Card]] = [[] for _ in range(n)]
        table: list[Card] = []
        pos = 0
        if rules.layout == "scopa":
            for _ in range(3):
                for seat in order:
                    hands[seat].append(deck[pos])
                    pos += 1
            table = list(deck[pos:pos + 4])
            pos += 4
        else:
            packets = [3, 2, 3, 2, 3] if rules.layout == "scopone" else [5, 5]
            for i, size in enumerate(packets):
                if rules.layout == "scopone" and i % 2 == 1:
                    table.extend(deck[pos:pos + size])
                    pos += size
                    continue
                for seat in order:
                    hands[seat].extend(deck[pos:pos + size])
                    pos += size
        return cls(rules, dealer, hands, table, deck[pos:])

    @classmethod
    def from_hands(
        cls,
        rules: Rules,
        dealer: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card] = (),
    ) -> Deal:
        """A deal from explicit hands (one list per seat), table and stock (top first).

        The cards need not be all 40 (a position may leave some out), but none may repeat,
        every hand must have the same size, and a stock needs the ``scopa`` layout and a whole
        number of refills (3 cards per player each).
        """
        _check_dealer(rules, dealer)
        n = rules.players
        if len(hands) != n:
            raise EngineError(f"{rules.variant} has {n} seats, but {len(hands)} hands were given")
        seen: set[Card] = set()
        for group in [*hands, table, stock]:
            for c in group:
                card_name(c)
                if c in seen:
                    raise CardError(f"card {_NAMES[c]!r} appears twice")
                seen.add(c)
        sizes = {len(h) for h in hands}
        if len(sizes) != 1:
            raise EngineError(f"every hand must hold as many cards, not {[len(h) for h in hands]}")
        size = sizes.pop()
        if size > rules.hand_size:
            raise EngineError(f"hands of {size} cards, but {rules.layout} deals {rules.hand_size}")
        if stock:
            if rules.layout != "scopa":
                raise EngineError(f"the {rules.layout} layout has no stock")
            if len(stock) % (3 * n):
                raise EngineError(f"a stock of {len(stock)} cards is not whole refills of {3 * n}")
            if size == 0:
                raise EngineError("empty hands with cards in the stock: deal the stock first")
        return cls(rules, dealer, hands, table, stock)

    def clone(self) -> Deal:
        """An independent copy (undo history included)."""
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other._hands = [list(h) for h in self._hands]
        other._by_rank = [list(r) for r in self._by_rank]
        other._captured = list(self._captured)
        other._scope = list(self._scope)
        other._undo = list(self._undo)
        return other

    # -- read access ----------------------------------------------------------------------------

    @property
    def to_move(self) -> Seat:
        """The seat whose turn it is (after the deal is over: the seat after the dealer)."""
        return self._to_move

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's hand, sorted."""
        return tuple(tuple(h) for h in self._hands)

    @property
    def table(self) -> tuple[Card, ...]:
        """The cards face up on the table, sorted."""
        return tuple(sorted(_chain(self._by_rank)))

    @property
    def stock(self) -> tuple[Card, ...]:
        """The cards still to be dealt (``scopa`` layout), top first."""
        return self._stock[self._stock_pos:]

    @property
    def history(self) -> list[tuple[Seat, Move]]:
        """Every ``(seat, move)`` of this deal so far, in order (a copy)."""
        return list(self._history_tuple())

    def _history_tuple(self) -> tuple[tuple[Seat, Move], ...]:
        """The history as a tuple: the one made last time, extended by the moves applied since
        when none of its moves has been undone (as between the turns of a deal), else anew."""
        known, mark = self._history_memo
        undo = self._undo
        done = len(known) - len(self._prefix)  # the undo entries ``known`` covers
        # An entry still at its place was never popped, nor any before it: ``known`` holds.
        if 0 < done <= len(undo) and undo[done - 1] is mark:
            if done == len(undo):
                return known
            known += tuple(map(_SEAT_MOVE, undo[done:]))
        else:
            known = (*self._prefix, *map(_SEAT_MOVE, undo))
        self._history_memo = (known, undo[-1] if undo else None)
        return known

    @property
    def captured(self) -> tuple[tuple[Card, ...], ...]:
        """The cards in each side's pile, sorted."""
        return _piles(self._captured)

    @property
    def captured_masks(self) -> tuple[int, ...]:
        """Each side's pile as a 40-bit set (bit ``card``)."""
        return tuple(self._captured)

    @property
    def scope(self) -> tuple[int, ...]:
        """Each side's scope (sweeps) so far in this deal."""
        return tuple(self._scope)

    @property
    def last_capturer(self) -> Seat | None:
        """The seat that captured last, or None before any capture."""
        return None if self._last < 0 else self._last

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds."""
        return tuple(map(len, self._hands))

    def is_over(self) -> bool:
        """Whether every card of the deal has been played."""
        return not self._hands[self._to_move]

    def state_key(self) -> tuple[Any, ...]:
        """Everything that defines the position, as one comparable value (for tests and caches)."""
        return (
            self.dealer, self._to_move, self.hands, self.table, self.stock,
            tuple(self._captured), tuple(self._scope), self._last, tuple(self.history),
        )

    # -- moves ----------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move: by card in hand, then by capture.

        Empty when the deal is over.
        """
        hand = self._hands[self._to_move]
        if self._general:
            return self._legal_general(hand)
        by_rank = self._by_rank
        base = self._tkey * 16
        memo = _SUM_MEMO
        out: list[Move] = []
        sums: dict[int, list[tuple[Card, ...]]] | None = None  # per rank, for pairs in hand
        for card in hand:
            r = _RANK0[card]
            same = by_rank[r]
            if same:
                for c in same:
                    out.append(_TAKE1[card * 40 + c])
                continue
            patterns = memo.get(base + r + 1)
            if patterns is None:
                patterns = _lookup(memo, self._tkey, r + 1, 2)
            if not patterns:
                out.append(_LAY[card])
                continue
            if sums is None:
                sums = {}
            caps = sums.get(r)
            if caps is None:
                caps = sums[r] = _expand(patterns, by_rank)
            for cap in caps:
                out.append(_new_move(Move, (card, cap)))
        return out

    def _legal_general(self, hand: list[Card]) -> list[Move]:
        """Legal moves under assi or quindici, the captures computed once per rank."""
        out: list[Move] = []
        by_rank: dict[int, list[tuple[Card, ...]]] = {}
        for card in hand:
            caps = by_rank.get(card % 10)
            if caps is None:
                caps = by_rank[card % 10] = self._captures_for(card)
            for cap in caps:
                if not cap:
                    out.append(_LAY[card])
                elif len(cap) == 1:
                    out.append(_TAKE1[card * 40 + cap[0]])
                else:
                    out.append(_new_move(Move, (card, cap)))
        return out

    def captures_for(self, card: Card) -> list[tuple[Card, ...]]:
        """The captures ``card`` allows now (``[()]`` when it can only be laid down)."""
        return self._captures_for(card)

    def _captures_for(self, card: Card) -> list[tuple[Card, ...]]:
        r = card % 10
        by_rank = self._by_rank
        key = self._tkey
        rules = self.rules
        if self._assi and r == 0:
            if key == 0:
                return [()]
            if by_rank[0] and rules.assi_ace_takes_ace:
                return [(a,) for a in by_rank[0]]
            return [tuple(sorted(c for cards in by_rank for c in cards))]
        if rules.quindici:
            patterns = _lookup(_FIFTEEN_MEMO, key, 14 - r, 1)
            return _expand(patterns, by_rank) if patterns else [()]
        if by_rank[r]:
            return [(c,) for c in by_rank[r]]
        patterns = _lookup(_SUM_MEMO, key, r + 1, 2)
        return _expand(patterns, by_rank) if patterns else [()]

    def apply(self, move: Move | tuple[Card, Iterable[Card]]) -> None:
        """Plays ``move`` for the seat to move; raises :class:`IllegalMoveError` if not legal."""
        if not isinstance(move, Move):
            try:
                card, capture = move
                move = Move(card, capture)
            except (TypeError, ValueError):
                raise IllegalMoveError(f"not a move: {move!r}") from None
        seat = self._to_move
        if not self._hands[seat]:
            raise IllegalMoveError(f"{move.name}: the deal is over")
        card, cap = move
        if card not in self._hands[seat]:
            raise IllegalMoveError(f"{move.name}: seat {seat} does not hold {_NAMES[card]}")
        allowed = self._captures_for(card)
        if cap not in allowed:
            choices = ", ".join(
                _new_move(Move, (card, a)).name if a else f"{_NAMES[card]} (laid down)"
                for a in allowed
            )
            raise IllegalMoveError(f"{move.name} is not legal here; with {_NAMES[card]} seat "
                                   f"{seat} may play {choices}")
        self.apply_unchecked(move)

    def apply_unchecked(self, move: Move) -> None:
        """Plays a move known to be legal (from :meth:`legal_moves`), without checking it."""
        seat = self._to_move
        card, cap = move
        hand = self._hands[seat]
        hand.remove(card)
        flags = 0
        prev_last = self._last
        by_rank = self._by_rank
        if cap:
            side = self._side[seat]
            key = self._tkey
            mask = 1 << card
            for c in cap:
                r = c % 10
                by_rank[r].remove(c)
                key -= _POW5[r]
                mask |= 1 << c
            self._tkey = key
            self._captured[side] |= mask
            self._last = seat
            if key == 0:
                flags = self._sweep(seat, side, card, cap, hand)
        elif self._assi and card % 10 == 0 and self._tkey == 0 and (
            self.rules.assi_empty_table == "pile"
        ):
            self._captured[self._side[seat]] |= 1 << card
            flags = _PILE
        else:
            insort(by_rank[card % 10], card)
            self._tkey += _POW5[card % 10]
        self._to_move = self._next[seat]
        if hand or seat != self.dealer:
            self._undo.append((seat, move, prev_last, flags, ()))
            return
        # The dealer played the last card of the round: refill the hands, or end the deal.
        leftover: tuple[Card, ...] = ()
        pos = self._stock_pos
        stock = self._stock
        if pos < len(stock):
            n = self._n
            hands = self._hands
            first = self._to_move
            for i in range(3 * n):
                hands[(first + i) % n].append(stock[pos + i])
            for h in hands:
                h.sort()
            self._stock_pos = pos + 3 * n
            flags |= _REFILL
        elif self._tkey and self._last >= 0:
            leftover = tuple(c for cards in by_rank for c in cards)
            mask = 0
            for c in leftover:
                mask |= 1 << c
            self._captured[self._side[self._last]] |= mask
            for cards in by_rank:
                cards.clear()
            self._tkey = 0
            flags |= _LEFTOVER
        self._undo.append((seat, move, prev_last, flags, leftover))

    def _sweep(self, seat: Seat, side: Side, card: Card, cap: tuple[Card, ...], hand: list[Card]
               ) -> int:
        """Whether a capture that emptied the table scores a scopa (then counts it)."""
        scopa = True
        if not hand and seat == self.dealer and self._stock_pos >= len(self._stock):
            scopa = self._last_play_scopa  # the last play of the deal
        if scopa and self._assi and card % 10 == 0 and not (
            len(cap) == 1 and cap[0] % 10 == 0 and self.rules.assi_ace_takes_ace
        ):
            scopa = self.rules.assi_sweep_is_scopa  # an ace sweep
        if not scopa:
            return 0
        self._scope[side] += 1
        return _SCOPA

    def undo(self) -> None:
        """Takes back the last move applied (raises :class:`EngineError` if there is none)."""
        if not self._undo:
            raise EngineError("there is no move to undo")
        seat, move, prev_last, flags, leftover = self._undo.pop()
        card, cap = move
        side = self._side[seat]
        by_rank = self._by_rank
        if flags & _REFILL:
            for h in self._hands:
                h.clear()
            self._stock_pos -= 3 * self._n
        if flags & _LEFTOVER:
            mask = 0
            for c in leftover:
                by_rank[c % 10].append(c)
                self._tkey += _POW5[c % 10]
                mask |= 1 << c
            self._captured[self._side[self._last]] ^= mask
        if flags & _SCOPA:
            self._scope[side] -= 1
        if cap:
            mask = 1 << card
            for c in cap:
                insort(by_rank[c % 10], c)
                self._tkey += _POW5[c % 10]
                mask |= 1 << c
            self._captured[side] ^= mask
        elif flags & _PILE:
            self._captured[side] ^= 1 << card
        else:
            by_rank[card % 10].remove(card)
            self._tkey -= _POW5[card % 10]
        self._last = prev_last
        insort(self._hands[seat], card)
        self._to_move = seat

    # -- results --------------------------------------------------------------------------------

    def score(self) -> DealScore:
        """The points of the finished deal; raises :class:`EngineError` before the end."""
        if not self.is_over():
            raise EngineError("the deal is not over yet")
        return score_masks(self.rules, self._captured, self._scope)

    def observation(self, seat: Seat) -> Observation:
        """What ``seat`` may see now (RULES.md, last section)."""
        if not 0 <= seat < self._n:
            raise EngineError(f"no seat {seat!r} in a {self._n}-player game")
        cls = _observation_class or _load_observation_class()
        # The instance's fields, every one in order, set at once: what the frozen dataclass's
        # __init__ sets one object.__setattr__ at a time (tests check the two agree).
        obs = _object_new(cls)
        _object_setattr(obs, "__dict__", {
            "rules": self.rules,
            "seat": seat,
            "to_move": self._to_move,
            "dealer": self.dealer,
            "hand": tuple(self._hands[seat]),
            "table": tuple(sorted(_chain(self._by_rank))),
            "hand_sizes": tuple(map(len, self._hands)),
            "stock_size": len(self._stock) - self._stock_pos,
            "history": self._history_tuple(),
            "captured": _piles(self._captured),
            "scope": tuple(self._scope),
            "totals": tuple(self.game_totals),
            "deal_index": self.deal_index,
        })
        return obs

    @classmethod
    def _restore(
        cls,
        rules: Rules,
        dealer: Seat,
        to_move: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card],
        captured: Sequence[Iterable[Card]],
        scope: Sequence[int],
        history: Sequence[tuple[Seat, Move]],
    ) -> Deal:
        """A deal in the middle of play (for determinization); it cannot undo past this point."""
        deal = cls(rules, dealer, hands, table, stock)
        deal._to_move = to_move
        deal._captured = [sum(1 << c for c in pile) for pile in captured]
        deal._scope = list(scope)
        deal._prefix = list(history)
        for seat, move in reversed(history):
            if move[1]:
                deal._last = seat
                break
        return deal

    def __repr__(self) -> str:
        return (f"<Deal {self.rules.variant} dealer={self.dealer} to_move={self._to_move} "
                f"played={len(self._prefix) + len(self._undo)}>")


_observation_class: type[Observation] | None = None  # imported on first use (it imports us)
_object_new = object.__new__
_object_setattr = object.__setattr__


def _load_observation_class() -> type[Observation]:
    global _observation_class
    from arena.engine.observation import Observation

    _observation_class = Observation
    return Observation


def _check_dealer(rules: Rules, dealer: Seat) -> None:
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < rules.players:
        raise EngineError(f"dealer must be a seat 0..{rules.players - 1}, not {dealer!r}")


_DECK_SET = frozenset(DECK)


def _check_deck(deck: Sequence[Card]) -> list[Card]:
    cards = list(deck)
    if len(cards) == 40 and _DECK_SET.issuperset(cards) and len(set(cards)) == 40:
        return cards
    seen: set[Card] = set()
    for c in cards:
        card_name(c)
        if c in seen:
            raise CardError(f"card {_NAMES[c]!r} appears twice in the deck")
        seen.add(c)
    if len(cards) != 40:
        missing = " ".join(_NAMES[c] for c in DECK if c not in seen)
        raise CardError(f"a deck has 40 cards, not {len(cards)} (missing: {missing})")
    return cards


def needs_redeal(rules: Rules, table: Iterable[Card]) -> str | None:
    """Why a starting table must be thrown in (three or more Re; an ace under assi), or None.

    >>> from arena.engine.variants import rules_for
    >>> from arena.engine.cards import parse_cards
    >>> needs_redeal(rules_for("scopa"), parse_cards("10d 10c 10s 4b"))
    'three or more Re on the starting table'
    """
    ranks = [c % 10 + 1 for c in table]
    if rules.redeal_kings and ranks.count(10) >= 3:
        return "three or more Re on the starting table"
    if rules.assi and rules.assi_redeal_on_ace and 1 in ranks:
        return "an ace on the starting table"
    return None


# ---------------------------------------------------------------------------------------------
# Game

_DEALER_STREAM = 0x0DEA1E
_DECK_STREAM = 0x0DEC4


class Game:
    """A whole game: deals from a seed until a side reaches the target (RULES.md, "A game").

    >>> from arena.engine.variants import rules_for
    >>> import random
    >>> game = Game(rules_for("scopa"), seed=7)
    >>> pick = random.Random(0)
    >>> while not game.is_over():
    ...     deal = game.new_deal()
    ...     while not deal.is_over():
    ...         deal.apply_unchecked(pick.choice(deal.legal_moves()))
    ...     _ = game.finish_deal(deal)
    >>> max(game.totals) >= 11 and game.winner in (0, 1)
    True
    """

    def __init__(self, rules: Rules, seed: int) -> None:
        """A game of ``rules`` whose dealer and decks all follow from ``seed``."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise EngineError(f"a seed is an integer, not {seed!r}")
        self.rules = rules
        self.seed = seed
        self.dealer: Seat = Game.first_dealer(rules, seed)
        self.deal_index = 0
        self.totals: list[int] = [0] * rules.num_sides
        self.scores: list[DealScore] = []
        self.winner: Side | None = None
        self.cappotto: Side | None = None
        self.current_deck: list[Card] | None = None
        self.thrown_in: list[list[Card]] = []

    @staticmethod
    def first_dealer(rules: Rules, seed: int) -> Seat:
        """The first dealer of a game of this seed, drawn from it."""
        return Rng(derive_seed(seed, _DEALER_STREAM)).randbelow(rules.players)

    @staticmethod
    def deck_for(seed: int, deal_index: int, attempt: int = 0) -> list[Card]:
        """The shuffled deck (top first) of a deal; ``attempt`` counts redeals of that deal.

        The same seed gives the same decks in every game, on every Python version.

        >>> from arena.engine.cards import cards_text
        >>> cards_text(Game.deck_for(1, 0)[:6])
        '7s 9d 9s 7b 1c 9b'
        """
        deck = list(DECK)
        Rng(derive_seed(seed, _DECK_STREAM, deal_index, attempt)).shuffle(deck)
        return deck

    def is_over(self) -> bool:
        """Whether the game has a winner."""
        return self.winner is not None

    def new_deal(self) -> Deal:
        """Deals the next deal from the seed, throwing in decks the redeal rules reject."""
        if self.is_over():
            raise EngineError("the game is over")
        self.thrown_in = []
        attempt = 0
        while True:
            deck = Game.deck_for(self.seed, self.deal_index, attempt)
            deal = Deal.from_deck(self.rules, self.dealer, deck)
            if needs_redeal(self.rules, deal.table) is None:
                break
            self.thrown_in.append(deck)
            attempt += 1
        self.current_deck = deck
        return self.prepare(deal)

    def prepare(self, deal: Deal) -> Deal:
        """Stamps a deal with this game's deal index and totals (what observations show)."""
        deal.deal_index = self.deal_index
        deal.game_totals = tuple(self.totals)
        return deal

    def finish_deal(self, deal: Deal) -> DealScore:
        """Scores a finished deal, adds it to the totals, decides the game, passes the deal."""
        if self.is_over():
            raise EngineError("the game is over")
        if deal.dealer != self.dealer:
            raise EngineError(f"seat {deal.dealer} dealt, but it is seat {self.dealer}'s deal")
        score = deal.score()
        before = list(self.totals)
        for side, points in enumerate(score.totals):
            self.totals[side] += points
        self.scores.append(score)
        self.deal_index += 1
        self.dealer = (self.dealer + 1) % self.rules.players
        if score.cappotto is not None:
            self.winner = self.cappotto = score.cappotto
            return score
        best = max(self.totals)
        if best < self.rules.target:
            return score
        leaders = [s for s, t in enumerate(self.totals) if t == best]
        if len(leaders) == 1:
            self.winner = leaders[0]
        elif self.rules.tie_rule == "count_out":
            self.winner = _count_out(self.rules.target, before, score, leaders)
        return score


def _count_out(target: int, before: list[int], score: DealScore, leaders: list[Side]
               ) -> Side | None:
    """The tied leader that reaches the target first, adding category by category, or None."""
    running = list(before)
    for category in CATEGORIES:
        for side in leaders:
            running[side] += score.points[side][category]
        reached = [side for side in leaders if running[side] >= target]
        if len(reached) == 1:
            return reached[0]
        if reached:
            return None  # reached together: not separated, play on
    return None
