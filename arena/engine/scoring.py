"""Scoring one deal: carte, denari, settebello, primiera, scope and the optional points.

:func:`score_deal` turns the cards each side took and its scope into a :class:`DealScore` with
the full breakdown of REPLAY.md.  What happens across deals (targets, tie rules, cappotto
ending the game) is :class:`arena.engine.state.Game`'s business, not this module's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.cards import PRIMIERA_VALUE, Card, Side, mask_of
from arena.engine.variants import Rules


@dataclass(frozen=True)
class Category:
    """One point category of a deal: its key (REPLAY.md, the protocol's ``SidePoints``), how
    people see it (``label``, ``abbreviation``, ``meaning``), and the rule option that turns it
    on (``None``: every variant scores it)."""

    key: str
    label: str
    abbreviation: str
    meaning: str
    option: str | None = None

    @property
    def is_optional(self) -> bool:
        """Whether only some variants score it (its rule option on)."""
        return self.option is not None

    def is_scored(self, rules: Rules) -> bool:
        """Whether a deal of ``rules`` can score it.

        >>> from arena.engine.variants import rules_for
        >>> [c.key for c in POINT_CATEGORIES if c.is_scored(rules_for("scopa"))]
        ['carte', 'denari', 'settebello', 'primiera', 'scope']
        """
        return self.option is None or bool(getattr(rules, self.option))

    def to_json(self) -> dict[str, Any]:
        """The category as the site's pages give it to their scripts."""
        return {
            "key": self.key,
            "label": self.label,
            "abbreviation": self.abbreviation,
            "meaning": self.meaning,
            "optional": self.is_optional,
        }


POINT_CATEGORIES: tuple[Category, ...] = (
    Category("carte", "Carte", "C", "most cards"),
    Category("denari", "Denari", "D", "most coins"),
    Category("settebello", "Settebello", "7d", "the 7 of coins"),
    Category("primiera", "Primiera", "P", "the best card of each suit"),
    Category("scope", "Scope", "S", "sweeps"),
    Category("re_bello", "Re bello", "Rb", "the king of coins", option="re_bello"),
    Category("napoli", "Napoli", "N", "a run of coins from the ace", option="napoli"),
    Category("sette_tutti", "Sette tutti", "7s", "all four sevens", option="sette_tutti"),
)
"""Every point category, listed once, in the order of REPLAY.md and of the ``count_out`` tie
rule: the engine scores them, the protocol carries them (``SidePoints``), ``arena replay show``,
the replay viewer and the Play page show them (RULES.md says what each is worth)."""
CATEGORIES: tuple[str, ...] = tuple(c.key for c in POINT_CATEGORIES)
"""The point categories' keys, in order."""
POINT_KEYS: tuple[str, ...] = (*CATEGORIES, "total")
"""The keys of one side's deal points: the categories, then ``"total"`` (REPLAY.md)."""
_ZERO_POINTS: dict[str, int] = dict.fromkeys(POINT_KEYS, 0)
"""A side's deal points before any is scored (copied for each side: the fast path)."""


def side_points(points: Mapping[str, Any] | None = None) -> dict[str, int]:
    """One side's deal points with every key of :data:`POINT_KEYS`, in order; missing ones 0.

    For points read back from JSON or a message, which may leave zero points out.

    >>> side_points({"scope": 2, "total": "3"}) == {**dict.fromkeys(POINT_KEYS, 0),
    ...                                             "scope": 2, "total": 3}
    True
    >>> list(side_points())[-1]
    'total'
    """
    given = points or {}
    return {key: int(given.get(key, 0)) for key in POINT_KEYS}


_SUIT_BITS = 0x3FF

# Best primiera value among the cards of one suit, for every 10-bit set of ranks.
_BEST_PRIMIERA: tuple[int, ...] = tuple(
    max((PRIMIERA_VALUE[r] for r in range(10) if bits >> r & 1), default=0) for bits in range(1024)
)
# Length of the unbroken run from the ace in a 10-bit set of coin ranks (napoli).
_RUN_FROM_ACE: tuple[int, ...] = tuple(
    next((r for r in range(10) if not bits >> r & 1), 10) for bits in range(1024)
)
_SEVENS = (1 << 6) | (1 << 16) | (1 << 26) | (1 << 36)
# Ranks compared by primiera_method = "count": sevens, sixes, aces, fives, fours, threes, twos.
_COUNT_ORDER = (6, 5, 0, 4, 3, 2, 1)


@dataclass(frozen=True)
class DealScore:
    """The points of one deal: a breakdown per side, and the side that made cappotto.

    ``points[side]`` has the keys of :data:`CATEGORIES` and ``"total"``.  ``cappotto`` is the
    side that took all ten coins when the ``cappotto`` rule is on (that side wins the game).
    """

    points: tuple[dict[str, int], ...]
    cappotto: Side | None = None

    @property
    def totals(self) -> tuple[int, ...]:
        """Each side's total for the deal."""
        return tuple(p["total"] for p in self.points)

    def to_json(self) -> dict[str, Any]:
        """The deal entry of the ``verify --json`` report: ``{"points": [...], "cappotto": s}``."""
        return {"points": [dict(p) for p in self.points], "cappotto": self.cappotto}

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> DealScore:
        """The inverse of :meth:`to_json`."""
        return cls(tuple(dict(p) for p in obj["points"]), obj.get("cappotto"))


def _unique_best(values: Sequence[Any]) -> int | None:
    """The index of the strictly greatest value, or None when the greatest is shared."""
    best = max(values)
    if values.count(best) != 1:
        return None
    return values.index(best)


def _primiera_winner(rules: Rules, masks: Sequence[int]) -> Side | None:
    if rules.primiera_method == "count":
        keys = [
            tuple(sum(mask >> (s * 10 + r) & 1 for s in range(4)) for r in _COUNT_ORDER)
            for mask in masks
        ]
        return _unique_best(keys)
    sums: list[int] = []
    complete: list[bool] = []
    for mask in masks:
        best = [_BEST_PRIMIERA[mask >> (s * 10) & _SUIT_BITS] for s in range(4)]
        sums.append(sum(best))
        complete.append(all(best))
    method = rules.primiera_missing_suit
    if method == "zero" or all(complete):
        return _unique_best(sums)
    if any(complete):
        # "loses" and "void" agree: only sides holding all four suits compete.
        contenders = [sums[i] if complete[i] else -1 for i in range(len(masks))]
        return _unique_best(contenders)
    if method == "void":
        return None
    return _unique_best(sums)  # "loses", nobody complete: higher sum over held suits


def score_masks(rules: Rules, masks: Sequence[int], scope: Sequence[int]) -> DealScore:
    """:func:`score_deal` for captured cards given as 40-bit sets (the engine's fast path)."""
    sides = len(masks)
    rows = [_ZERO_POINTS.copy() for _ in range(sides)]
    for i, row in enumerate(rows):
        row["scope"] = scope[i]
    winner = _unique_best([m.bit_count() for m in masks])
    if winner is not None:
        rows[winner]["carte"] = 1
    coins = [m & _SUIT_BITS for m in masks]
    winner = _unique_best([c.bit_count() for c in coins])
    if winner is not None:
        rows[winner]["denari"] = 1
    cappotto: Side | None = None
    for i, mask in enumerate(masks):
        row = rows[i]
        if mask >> 6 & 1:
            row["settebello"] = 1
        if rules.re_bello and mask >> 9 & 1:
            row["re_bello"] = 1
        if rules.napoli:
            run = _RUN_FROM_ACE[coins[i]]
            if run >= 3:
                row["napoli"] = run
        if rules.sette_tutti and mask & _SEVENS == _SEVENS:
            row["sette_tutti"] = 1
        if rules.cappotto and coins[i] == _SUIT_BITS:
            cappotto = i
    winner = _primiera_winner(rules, masks)
    if winner is not None:
        rows[winner]["primiera"] = 1
    for row in rows:
        row["total"] = sum(row.values())  # every category (the total is still 0)
    return DealScore(tuple(rows), cappotto)


def deal_counts(rules: Rules, masks: Sequence[int], scope: Sequence[int]) -> list[dict[str, int]]:
    """The counts behind each side's points of a deal, by category key: ``carte`` the cards
    taken, ``denari`` the coins, ``settebello`` 1 for the side that took it, ``primiera`` the
    primiera's value (the sum of the best card of each suit held; by ``primiera_method =
    "count"`` the sevens held), ``scope`` the sweeps; the optional categories of ``rules``
    too (``re_bello`` 1 or 0, ``napoli`` the run of coins from the ace, ``sette_tutti`` the
    sevens). What a person reads beside the points: carte 21-19, denari 6-4, primiera 78-70.

    >>> from arena.engine.cards import mask_of, parse_cards
    >>> from arena.engine.variants import rules_for
    >>> ours = mask_of(parse_cards("7d 7c 7b 6s 1d 2d 3d 10d"))
    >>> theirs = ((1 << 40) - 1) & ~ours
    >>> counts = deal_counts(rules_for("scopa"), [ours, theirs], [1, 0])
    >>> counts[0]
    {'carte': 8, 'denari': 5, 'settebello': 1, 'primiera': 81, 'scope': 1}
    >>> counts[1]["carte"], counts[1]["denari"], counts[1]["primiera"]
    (32, 5, 75)
    """
    out: list[dict[str, int]] = []
    for i, mask in enumerate(masks):
        coins = mask & _SUIT_BITS
        if rules.primiera_method == "count":
            primiera = (mask & _SEVENS).bit_count()
        else:
            primiera = sum(_BEST_PRIMIERA[mask >> (s * 10) & _SUIT_BITS] for s in range(4))
        row = {
            "carte": mask.bit_count(),
            "denari": coins.bit_count(),
            "settebello": mask >> 6 & 1,
            "primiera": primiera,
            "scope": int(scope[i]),
        }
        if rules.re_bello:
            row["re_bello"] = mask >> 9 & 1
        if rules.napoli:
            row["napoli"] = _RUN_FROM_ACE[coins]
        if rules.sette_tutti:
            row["sette_tutti"] = (mask & _SEVENS).bit_count()
        out.append(row)
    return out


def score_deal(rules: Rules, captured: Sequence[Iterable[Card]], scope: Sequence[int]) -> DealScore:
    """The points of a finished deal from the cards each side took and its scope.

    >>> from arena.engine.cards import parse_cards
    >>> from arena.engine.variants import rules_for
    >>> ours = parse_cards("7d 7c 7b 6s 1d 2d 3d 10d 4c 5c 6c 8b 9b 10b 1s 2s 3s 4s 5s 7s 8s")
    >>> theirs = [c for c in range(40) if c not in ours]
    >>> score = score_deal(rules_for("scopa"), [ours, theirs], [2, 1])
    >>> score.points[0]["total"], score.points[1]["total"], score.points[0]["primiera"]
    (5, 1, 1)
    """
    if len(captured) != rules.num_sides or len(scope) != rules.num_sides:
        raise ValueError(f"need one pile and one scope count per side ({rules.num_sides})")
    return score_masks(rules, [mask_of(pile) for pile in captured], scope)
