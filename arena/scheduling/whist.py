"""Rotating partnerships: whist tournaments for four-player partnership variants.

In a season of rotating partnerships each table seats four different bots, two against two,
and the partners change from round to round. The schedule is a **whist tournament** Wh(v) on
``v`` players (``v = 4k`` or ``4k + 1``): every pair of players partners exactly once and
opposes exactly twice. ``v = 4k`` plays ``v - 1`` rounds of ``k`` tables; ``v = 4k + 1`` plays
``v`` rounds of ``k`` tables, one player sitting each round out (each player once). A table
``(a, b, c, d)`` is ``a`` and ``c`` against ``b`` and ``d``, in the seat order of its first game:
the runner's duplicate set of four rotations (seat ``s`` gets entrant ``(s + r) % 4``) keeps
those partnerships and sits each of them at every seat once.

The constructions are the classical ones of whist tournament theory (I. Anderson,
*Combinatorial Designs and Tournaments*, Oxford University Press 1997, chapter on whist
tournaments; C. J. Colbourn and J. H. Dinitz (eds.), *Handbook of Combinatorial Designs*,
2nd ed., 2007, chapter VI.64, *Whist Tournaments*):

- ``v = q`` a prime power with ``q = 1 (mod 4)`` (5, 9, 13, 17, 25): the cyclic construction
  over the field GF(q). With ``x`` a primitive element and ``k = (q - 1) / 4``, the initial
  round's tables are ``(x^i, x^(i+k), x^(i+2k), x^(i+3k))`` for ``i < k`` (``x^(2k) = -1``, so
  partners are ``y`` and ``-y``); round ``g`` adds ``g`` to every player, and ``g`` sits out.
  The partner differences ``2 x^i <x^k>`` cover every non-zero element once and the opponent
  differences ``x^i (1 - x^k) <x^k>`` twice, so every pair partners once and opposes twice.
- ``v = 21``: a Z-cyclic tournament over Z_21, developed the same way from the initial round
  below;
- ``v = 4k`` (4, 8, 12, 16, 20, 24): 1-rotational tournaments over Z_(v-1) plus a fixed point
  ``oo``: round ``g`` adds ``g`` to every player but ``oo``.

The initial rounds of the last two kinds were found by exhaustive search over the conditions
above (partner differences once, opponent differences twice); the tests check every finished
tournament pair by pair. Other numbers of entrants are refused with the list of these.

>>> [len(whist_rounds(v)) for v in (4, 5, 8, 9)]
[3, 5, 7, 9]
>>> whist_rounds(5)[0]
WhistRound(number=1, tables=((2, 3, 5, 4),), sitting_out=1)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product

from arena.scheduling import SchedulingError, Standing

WhistTable = tuple[int, int, int, int]
"""``(a, b, c, d)``: ``a`` and ``c`` partners against ``b`` and ``d``, in seat order."""

INFINITY = -1
"""The fixed point of a 1-rotational tournament."""

ONE_ROTATIONAL: dict[int, tuple[tuple[int, int, int, int], ...]] = {
    4: ((INFINITY, 1, 0, 2),),
    8: ((INFINITY, 1, 0, 3), (2, 4, 6, 5)),
    12: ((INFINITY, 1, 0, 3), (2, 6, 9, 7), (4, 5, 10, 8)),
    16: ((INFINITY, 1, 0, 2), (3, 9, 6, 11), (4, 8, 13, 12), (5, 7, 10, 14)),
    20: ((INFINITY, 1, 0, 2), (3, 9, 5, 15), (4, 12, 14, 17), (6, 10, 18, 13), (7, 8, 11, 16)),
    24: (
        (INFINITY, 1, 0, 2),
        (3, 7, 5, 17),
        (4, 18, 12, 22),
        (6, 10, 20, 13),
        (8, 11, 19, 16),
        (9, 14, 15, 21),
    ),
}
"""Initial rounds over Z_(v-1) and ``oo`` for ``v = 4k``."""

Z_CYCLIC: dict[int, tuple[tuple[int, int, int, int], ...]] = {
    21: ((1, 3, 2, 6), (4, 12, 13, 19), (5, 14, 9, 16), (7, 11, 20, 17), (8, 10, 18, 15)),
}
"""Initial rounds over Z_v (0 sits out) for ``v = 4k + 1`` that is not a prime power."""

FIELD_SIZES = (5, 9, 13, 17, 25)
"""Prime powers ``q = 1 (mod 4)``: the construction over GF(q)."""

WHIST_SIZES: tuple[int, ...] = tuple(sorted({*ONE_ROTATIONAL, *Z_CYCLIC, *FIELD_SIZES}))
"""The numbers of entrants a rotating partnership season can have."""


@dataclass(frozen=True)
class WhistRound:
    """One round: its tables and who sits it out (``4k + 1`` players only)."""

    number: int
    tables: tuple[WhistTable, ...]
    sitting_out: int | None = None


class _Field:
    """GF(p^m): elements are the integers ``0..q-1``, read as polynomials in base ``p``."""

    def __init__(self, q: int) -> None:
        p = next(d for d in range(2, q + 1) if q % d == 0)
        m, size = 0, 1
        while size < q:
            size *= p
            m += 1
        if size != q:
            raise SchedulingError(f"{q} is not a prime power")
        self.p, self.m, self.q = p, m, q
        # The first monic modulus (in counting order) under which some element's powers
        # reach every non-zero element: the ring is then a field and the element primitive.
        for tail in product(range(p), repeat=m):
            self.modulus = (*tail, 1)  # coefficients, lowest degree first
            for g in range(2, q) if q > p else range(1, q):
                if self._order(g) == q - 1:
                    self.primitive = g
                    return
        raise SchedulingError(f"no primitive element found for GF({q})")

    def digits(self, a: int) -> list[int]:
        return [(a // self.p**i) % self.p for i in range(self.m)]

    def number(self, digits: list[int]) -> int:
        return sum(d * self.p**i for i, d in enumerate(digits))

    def add(self, a: int, b: int) -> int:
        return self.number(
            [(x + y) % self.p for x, y in zip(self.digits(a), self.digits(b), strict=True)]
        )

    def mul(self, a: int, b: int) -> int:
        full = [0] * (2 * self.m)
        for i, x in enumerate(self.digits(a)):
            for j, y in enumerate(self.digits(b)):
                full[i + j] = (full[i + j] + x * y) % self.p
        for degree in range(2 * self.m - 1, self.m - 1, -1):
            factor = full[degree]
            if factor:
                for i, c in enumerate(self.modulus):
                    at = degree - self.m + i
                    full[at] = (full[at] - factor * c) % self.p
        return self.number(full[: self.m])

    def _order(self, g: int) -> int:
        seen: set[int] = set()
        x = 1
        while True:
            x = self.mul(x, g)
            if x in seen or x == 0:
                return len(seen)
            seen.add(x)
            if x == 1:
                return len(seen)

    def power(self, exponent: int) -> int:
        x = 1
        for _ in range(exponent % (self.q - 1)):
            x = self.mul(x, self.primitive)
        return x


def check_whist(n: int) -> None:
    """Refuses a number of entrants no whist tournament here covers.

    >>> check_whist(6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    arena.scheduling.SchedulingError: rotating partnerships need 4, 5, 8, 9, 12, 13, ... not 6
    """
    if n not in WHIST_SIZES:
        sizes = ", ".join(str(v) for v in WHIST_SIZES[:-1])
        raise SchedulingError(
            f"rotating partnerships need {sizes} or {WHIST_SIZES[-1]} entrants, not {n}"
        )


def whist_rounds(n: int) -> list[WhistRound]:
    """Every round of the whist tournament of ``n`` entrants (numbered ``1..n``)."""
    check_whist(n)
    rounds: list[WhistRound] = []
    if n in ONE_ROTATIONAL:
        modulus = n - 1

        def shifted(x: int, g: int) -> int:
            return n if x == INFINITY else (x + g) % modulus + 1

        for g in range(modulus):
            tables = tuple(
                (shifted(a, g), shifted(b, g), shifted(c, g), shifted(d, g))
                for a, b, c, d in ONE_ROTATIONAL[n]
            )
            rounds.append(WhistRound(g + 1, tables))
        return rounds
    if n in Z_CYCLIC:
        for g in range(n):
            tables = tuple(
                ((a + g) % n + 1, (b + g) % n + 1, (c + g) % n + 1, (d + g) % n + 1)
                for a, b, c, d in Z_CYCLIC[n]
            )
            rounds.append(WhistRound(g + 1, tables, g + 1))
        return rounds
    field = _Field(n)
    k = (n - 1) // 4
    initial = [tuple(field.power(i + j * k) for j in range(4)) for i in range(k)]
    for g in range(n):
        tables = tuple(
            (field.add(a, g) + 1, field.add(b, g) + 1, field.add(c, g) + 1, field.add(d, g) + 1)
            for a, b, c, d in initial
        )
        rounds.append(WhistRound(g + 1, tables, g + 1))
    return rounds


@dataclass(frozen=True)
class TeamGame:
    """One game of rotating partnerships: the entrants of each side and its result."""

    sides: tuple[tuple[int, ...], ...]
    winner: int | None  # side index, None for a draw
    totals: tuple[int, ...] = ()
    void: bool = False


def partnership_standings(entrants: Iterable[int], games: Iterable[TeamGame]) -> list[Standing]:
    """Each bot's own table from its sides' games: 1 per game its side won, 1/2 per draw.

    Every bot partners and opposes every other as often, so the score compares them fairly;
    ties are broken by games won, then the game-point difference of its sides, then the
    entrant number. (Head-to-head and Sonneborn-Berger do not apply: two bots of a tie met as
    partners once and as opponents twice, beside different partners.)

    >>> table = partnership_standings([1, 2, 3, 4], [TeamGame(((1, 3), (2, 4)), 1, (5, 11))])
    >>> [(s.entrant, s.score) for s in table]
    [(2, 1.0), (4, 1.0), (1, 0.0), (3, 0.0)]
    """
    lines = {e: Standing(e) for e in entrants}
    for game in games:
        if game.void:
            continue
        for side, members in enumerate(game.sides):
            for entrant in members:
                line = lines.setdefault(entrant, Standing(entrant))
                line.played += 1
                if game.winner is None:
                    line.draws += 1
                    line.score += 0.5
                elif game.winner == side:
                    line.wins += 1
                    line.score += 1.0
                else:
                    line.losses += 1
                if game.totals:
                    line.points_for += game.totals[side]
                    line.points_against += sum(game.totals) - game.totals[side]
    ranked = sorted(
        lines.values(), key=lambda s: (-s.score, -s.wins, -s.point_difference, s.entrant)
    )
    for rank, line in enumerate(ranked, start=1):
        line.rank = rank
    return ranked
