"""The engine's moves: the :class:`Move` type, its text and JSON forms, and which captures a
card allows on a table.

Both :mod:`arena.engine.state` (a deal's legal moves, in place and memoised) and
:mod:`arena.engine.observation` (a seat's legal moves from what it sees) take their moves and
captures from here, so neither needs the other for them.  No I/O, no state of a deal.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

from arena.engine.cards import DECK, Card, CardError, EngineError, card_name, parse_card
from arena.engine.variants import Rules


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
            return NAMES[self[0]]
        return NAMES[self[0]] + ":" + "+".join(NAMES[c] for c in self[1])

    def to_json(self) -> dict[str, Any]:
        """``{"card": "7d", "capture": ["3b", "4d"]}``, the move form of REPLAY.md."""
        return {"card": NAMES[self[0]], "capture": [NAMES[c] for c in self[1]]}

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


NAMES: tuple[str, ...] = tuple(card_name(c) for c in DECK)
new_move = tuple.__new__


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
LAY: tuple[Move, ...] = tuple(new_move(Move, (c, ())) for c in DECK)
TAKE1: tuple[Move, ...] = tuple(new_move(Move, (a, (b,))) for a in DECK for b in DECK)


# ---------------------------------------------------------------------------------------------
# Capture sets, memoised by the table's ranks.
#
# The table's ranks are kept as a base-5 number (count of rank r times 5**r, r = 0..9), which
# changes by one power of 5 per card.  The sets of ranks that make a sum depend only on that
# number and the sum, so they are computed once and shared by every deal and every game.

POW5: tuple[int, ...] = tuple(5**r for r in range(10))
RANK0: tuple[int, ...] = tuple(c % 10 for c in DECK)
_MEMO_LIMIT = 100_000  # about 35 MB at most; random play fills some 20,000

Pattern = tuple[tuple[int, int], ...]  # ((rank index, how many), ...)
# A memo entry per pattern: the ranks to take whole (when the pattern takes every card of each
# of its ranks, the common case, known from the key), else None; and the pattern itself.
Entry = tuple[tuple[int, ...] | None, Pattern]
SUM_MEMO: dict[int, tuple[Entry, ...]] = {}
FIFTEEN_MEMO: dict[int, tuple[Entry, ...]] = {}


def _rank_patterns(key: int, target: int, min_size: int) -> tuple[Entry, ...]:
    """Every multiset of the table's ranks (given by ``key``) summing to ``target``."""
    counts = [key // POW5[r] % 5 for r in range(10)]
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


def lookup(
    memo: dict[int, tuple[Entry, ...]], key: int, target: int, min_size: int
) -> tuple[Entry, ...]:
    slot = key * 16 + target
    found = memo.get(slot)
    if found is None:
        if len(memo) >= _MEMO_LIMIT:
            memo.clear()
        found = memo[slot] = _rank_patterns(key, target, min_size)
    return found


def expand(patterns: tuple[Entry, ...], by_rank: list[list[Card]]) -> list[tuple[Card, ...]]:
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


def table_ranks(table: Iterable[Card]) -> tuple[list[list[Card]], int]:
    """A table's cards by rank (each list sorted) and its ranks as the base-5 key."""
    by_rank: list[list[Card]] = [[] for _ in range(10)]
    key = 0
    for c in table:
        insort(by_rank[c % 10], c)
        key += POW5[c % 10]
    return by_rank, key


def captures(
    rules: Rules, card: Card, by_rank: list[list[Card]], key: int
) -> list[tuple[Card, ...]]:
    """The captures ``card`` allows on a table given by :func:`table_ranks` (``[()]`` when it
    can only be laid down), under ``rules`` (the plain rule, assi or quindici)."""
    r = card % 10
    if rules.assi and r == 0:
        if key == 0:
            return [()]
        if by_rank[0] and rules.assi_ace_takes_ace:
            return [(a,) for a in by_rank[0]]
        return [tuple(sorted(c for cards in by_rank for c in cards))]
    if rules.quindici:
        patterns = lookup(FIFTEEN_MEMO, key, 14 - r, 1)
        return expand(patterns, by_rank) if patterns else [()]
    if by_rank[r]:
        return [(c,) for c in by_rank[r]]
    patterns = lookup(SUM_MEMO, key, r + 1, 2)
    return expand(patterns, by_rank) if patterns else [()]


def legal_moves(rules: Rules, hand: Sequence[Card], table: Iterable[Card]) -> list[Move]:
    """Every legal move of a seat holding ``hand`` (sorted) at ``table``: by card in hand,
    then by capture, as :meth:`arena.engine.state.Deal.legal_moves` gives them.

    >>> from arena.engine.variants import rules_for
    >>> from arena.engine.cards import parse_cards
    >>> moves = legal_moves(rules_for("scopa"), parse_cards("5c 10b 8s"),
    ...                     parse_cards("3d 5b 5s 8d"))
    >>> [m.name for m in moves]
    ['5c:5b', '5c:5s', '10b:5b+5s', '8s:8d']
    """
    by_rank, key = table_ranks(table)
    out: list[Move] = []
    for card in sorted(hand):
        for cap in captures(rules, card, by_rank, key):
            out.append(new_move(Move, (card, cap)))
    return out
