"""The training environment's fixed action space: one id per (card played, cards captured).

Every legal move of every variant and option set is a card from hand and the table cards it
takes (RULES.md, "A turn"), and its id is a function of that pair alone, so an id means the
same move in every state, every seat and every variant.  The ids come in blocks:

==========  =====  ================================================================
block       ids    the move
==========  =====  ================================================================
lay           40   the card is laid on the table (nothing taken); one per card
same         120   the card takes one table card of its own rank; per card, the
                   three other suits of its rank
sum        16040   the card takes two or more table cards whose ranks add up to its
                   own (standard capture rule 2); per card, every such set of cards
sweep          4   an ace takes the whole table (``assi``, Scopa d'Assi); per ace
fifteen    84448   the card takes one or more table cards whose ranks make 15 with its
                   own (``quindici``); per card, every such set without the card itself
==========  =====  ================================================================

Why this is complete: :meth:`arena.engine.Deal.captures_for` allows exactly these captures.
Without ``assi`` and ``quindici`` a card takes one card of its rank or a set summing to its
rank (``same`` and ``sum``: every set of two or more cards of the 40 whose ranks add up to 2..10
has an id).  ``quindici`` replaces both with the sets making 15 (``fifteen``: every set of the
deck without the played card, of one or more cards, whose ranks add up to ``15 - rank``).
``assi`` gives an ace three possibilities only: laid on an empty table (``lay``, also under
``assi_empty_table=pile``, which changes where the card goes, not the move), one ace of the
table when ``assi_ace_takes_ace`` is on (``same``), or the whole table (``sweep``: its cards
depend on the state, but the move does not: "this ace takes everything"; a table that is a
single ace gives the ``same`` id either way).  Every other option (``assi_sweep_is_scopa``,
``last_play_scopa``, the redeal rules, scoring, targets and tie rules) changes what a move
scores or when a game ends, never which moves exist.  The one pair with two ids: under ``assi``
an ace sweeping a table worth 14 is a ``sweep``, and under ``quindici`` without ``assi`` the same
cards are a ``fifteen`` capture; the rules tell which one is legal, so no state has both.

Variants without ``quindici`` use the first 16,204 ids (:data:`STANDARD_ACTIONS`), those with
it all 100,652 (:data:`ALL_ACTIONS`).  Pure Python, no numpy: the exported bots of
``sample_bots/`` may use it in the sandbox.

>>> from arena.engine import parse_move, rules_for
>>> space = ActionSpace(rules_for("scopa"))
>>> space.n, space.action_of(parse_move("7d")), space.action_of(parse_move("7d:7c"))
(16204, 6, 58)
>>> space.move_of(space.action_of(parse_move("10s:5c+5b")), table=()).name
'10s:5c+5b'
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from functools import cache

from arena.engine import DECK, Card, EngineError, Move, Rules, card_name

Action = int
"""An action id, 0 .. ``ActionSpace.n - 1``."""

LAY = 0
SAME = 40
SUM = 160


def _rank(card: Card) -> int:
    return card % 10 + 1


def _sets(cards: Sequence[Card], target: int, min_size: int) -> list[tuple[Card, ...]]:
    """Every set of ``cards`` (sorted) whose ranks add up to ``target``, in sorted order."""
    out: list[tuple[Card, ...]] = []
    chosen: list[Card] = []

    def walk(start: int, remaining: int) -> None:
        if remaining == 0:
            if len(chosen) >= min_size:
                out.append(tuple(chosen))
            return
        for i in range(start, len(cards)):
            rank = _rank(cards[i])
            if rank > remaining:
                continue
            chosen.append(cards[i])
            walk(i + 1, remaining - rank)
            chosen.pop()

    walk(0, target)
    return out


def _mask(cards: Iterable[Card]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


# The sum sets of each rank 2..10 (by rank index 1..9): the same for the four cards of a rank,
# since the cards of a set are all of lower rank.
_SUM_SETS: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(_sets(DECK, rank, 2)) if rank >= 2 else () for rank in range(1, 11)
)
_SUM_INDEX: tuple[dict[int, int], ...] = tuple(
    {_mask(s): i for i, s in enumerate(sets)} for sets in _SUM_SETS
)
_SUM_OFFSET: tuple[int, ...] = tuple(
    SUM + sum(len(_SUM_SETS[c % 10]) for c in range(card)) for card in DECK
)
SWEEP = SUM + sum(len(_SUM_SETS[c % 10]) for c in DECK)
"""First id of the ``sweep`` block (one per ace, by suit)."""
FIFTEEN = SWEEP + 4
"""First id of the ``fifteen`` block."""
STANDARD_ACTIONS = FIFTEEN
"""The size of the action space of rules without ``quindici``: 16,204."""


@cache
def _fifteen_sets(card: Card) -> tuple[tuple[Card, ...], ...]:
    """The sets of the deck without ``card`` that make 15 with it, in sorted order."""
    others = [c for c in DECK if c != card]
    return tuple(_sets(others, 15 - _rank(card), 1))


@cache
def _fifteen_index(card: Card) -> dict[int, int]:
    return {_mask(s): i for i, s in enumerate(_fifteen_sets(card))}


@cache
def _fifteen_counts() -> tuple[int, ...]:
    # How many sets make 15 with each rank: the same count for each of the rank's four cards.
    per_rank = [len(_fifteen_sets(rank - 1)) for rank in range(1, 11)]
    return tuple(per_rank[c % 10] for c in DECK)


@cache
def _fifteen_offsets() -> tuple[int, ...]:
    counts = _fifteen_counts()
    return tuple(FIFTEEN + sum(counts[:card]) for card in DECK)


ALL_ACTIONS = FIFTEEN + 84448
"""The size of the action space of rules with ``quindici``: 100,652 (a test recounts it)."""


class ActionError(EngineError):
    """An action id that is out of range, or that names no legal move here."""


class ActionSpace:
    """The action ids of one set of rules: :meth:`action_of` a move, :meth:`move_of` an id.

    >>> from arena.engine import parse_move, rules_for
    >>> assi = ActionSpace(rules_for("scopa-assi"))
    >>> assi.action_of(parse_move("1d:3c+5b")) == SWEEP
    True
    >>> assi.move_of(SWEEP, table=(12, 24)).name
    '1d:3c+5b'
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.assi = rules.assi
        self.quindici = rules.quindici
        self.n = ALL_ACTIONS if rules.quindici else STANDARD_ACTIONS

    def action_of(self, move: Move) -> Action:
        """The id of a move (legal under these rules somewhere); :class:`ActionError` if it
        has none."""
        card, capture = move
        if not capture:
            return LAY + card
        rank0 = card % 10
        if len(capture) == 1 and capture[0] % 10 == rank0 and capture[0] != card:
            other = capture[0]
            return SAME + card * 3 + (other // 10 - (other // 10 > card // 10))
        if self.assi and rank0 == 0:
            return SWEEP + card // 10
        mask = _mask(capture)
        if self.quindici:
            index = _fifteen_index(card).get(mask)
            if index is not None:
                return _fifteen_offsets()[card] + index
        else:
            index = _SUM_INDEX[rank0].get(mask)
            if index is not None:
                return _SUM_OFFSET[card] + index
        raise ActionError(f"{move.name} is no capture of {self.rules.label}")

    def move_of(self, action: Action, table: Sequence[Card]) -> Move:
        """The move an id names on this ``table`` (only an ace's sweep needs it)."""
        try:
            number = operator.index(action)
        except TypeError:
            raise ActionError(f"an action is a whole number, not {action!r}") from None
        if isinstance(action, bool) or not 0 <= number < self.n:
            raise ActionError(f"action {action!r} is outside 0..{self.n - 1}")
        action = number
        if action < SAME:
            return Move(action - LAY)
        if action < SUM:
            card, j = divmod(action - SAME, 3)
            suit = j + (j >= card // 10)
            return Move(card, (suit * 10 + card % 10,))
        if action < SWEEP:
            card = _card_of(_SUM_OFFSET, action)
            return Move(card, _SUM_SETS[card % 10][action - _SUM_OFFSET[card]])
        if action < FIFTEEN:
            return Move((action - SWEEP) * 10, tuple(sorted(table)))
        card = _card_of(_fifteen_offsets(), action)
        return Move(card, _fifteen_sets(card)[action - _fifteen_offsets()[card]])

    def describe(self, action: Action) -> str:
        """An id in words, e.g. ``"10s:5c+5b"`` or ``"1d: the whole table"``."""
        if SWEEP <= action < FIFTEEN:
            return f"{card_name((action - SWEEP) * 10)}: the whole table"
        return self.move_of(action, ()).name


def _card_of(offsets: Sequence[int], action: Action) -> Card:
    """The played card of an id in an offset table (the last card whose offset is <= it)."""
    low, high = 0, len(offsets) - 1
    while low < high:
        mid = (low + high + 1) // 2
        if offsets[mid] <= action:
            low = mid
        else:
            high = mid - 1
    return low


__all__ = [
    "ALL_ACTIONS",
    "FIFTEEN",
    "LAY",
    "SAME",
    "STANDARD_ACTIONS",
    "SUM",
    "SWEEP",
    "Action",
    "ActionError",
    "ActionSpace",
]
