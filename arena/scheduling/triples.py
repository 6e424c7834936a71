"""Tables for seasons of variants of three sides or more (``scopa-3``): who sits with whom.

Every pair of entrants must sit at the same table equally often (``lambda`` times), so that no
bot meets a stronger or weaker field than another. The design, for ``n`` entrants numbered
``1..n``:

- **every triple** while there are at most ``max_tables`` of them (C(n, 3) tables; each pair
  meets ``n - 2`` times). With the default of 220 that is every field of up to 12 entrants;
- beyond that, a **balanced incomplete block design** with blocks of three (a 2-(n, 3, lambda)
  design, see C. C. Lindner and C. A. Rodger, *Design Theory*, 2nd ed., CRC Press 2008,
  chapter 1):

  - ``n = 6m + 3``: the Steiner triple system of Bose's construction (lambda = 1), from the
    idempotent commutative quasigroup ``x o y = (x + y) / 2`` of order ``2m + 1``;
  - ``n = 6m + 1``: the Steiner triple system of Skolem's construction (lambda = 1), from the
    half-idempotent commutative quasigroup of order ``2m``;
  - ``n = 6m + 5``: the arithmetic progressions ``{x - d, x, x + d}`` of Z_n (lambda = 3: a pair
    at distance ``e`` is two neighbours of two progressions and the ends of one);
  - even ``n``: every triple (no short construction covers them all; the cost is documented
    in the README).

A variant of ``k > 3`` sides (none yet) gets every ``k``-subset of the entrants: each pair then
meets C(n - 2, k - 2) times.

Each table is one match: its three entrants play a duplicate set of the three cyclic rotations
of the seats, so every entrant sits every seat of every deal once and the luck of the deal
cancels. The rotations keep who plays right after whom; each table's orientation (``(a, b,
c)`` or ``(a, c, b)``) is chosen, table by table, to even out how often each entrant plays
right after each other.

The tables are then grouped into rounds in which nobody sits twice (greedily, the entrants
with the most tables left seated first); a round's tables play at once and the next round
starts when it is complete.

>>> design = table_design(7, max_tables=20)
>>> design.kind, design.pair_meetings, len(design.tables)
('Steiner triple system (Skolem)', 1, 7)
>>> [r.tables for r in table_rounds(4)][:2]
[((1, 2, 3),), ((1, 4, 2),)]
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

from arena.scheduling import SchedulingError

Table = tuple[int, ...]
"""The entrant numbers of a table (three for ``scopa-3``) in the seat order of its first game."""

MAX_TABLES = 220
"""The most tables a season plays every triple for (C(12, 3)); larger fields use a design."""


@dataclass(frozen=True)
class Design:
    """The tables of a season: which construction, how often each pair meets, the tables."""

    kind: str
    pair_meetings: int
    tables: tuple[Table, ...]


@dataclass(frozen=True)
class TableRound:
    """One round of a three-seat season: its tables and who sits it out."""

    number: int
    tables: tuple[Table, ...]
    sitting_out: tuple[int, ...] = ()


def _bose(n: int) -> list[tuple[int, int, int]]:
    """Bose's Steiner triple system of order ``n = 6m + 3`` on points ``0..n-1``."""
    q = n // 3
    half = (q + 1) // 2  # the inverse of 2 modulo the odd q

    def point(x: int, i: int) -> int:
        return x + q * (i % 3)

    blocks = [(point(x, 0), point(x, 1), point(x, 2)) for x in range(q)]
    for x, y in combinations(range(q), 2):
        z = (x + y) * half % q
        for i in range(3):
            blocks.append((point(x, i), point(y, i), point(z, i + 1)))
    return blocks


def _skolem(n: int) -> list[tuple[int, int, int]]:
    """Skolem's Steiner triple system of order ``n = 6m + 1`` on points ``0..n-1``."""
    m = (n - 1) // 6
    order = 2 * m
    infinity = n - 1

    def point(x: int, i: int) -> int:
        return x + order * (i % 3)

    def product(x: int, y: int) -> int:
        # The half-idempotent commutative quasigroup: Z_2m's sum, 2k renamed k, 2k+1 m+k.
        s = (x + y) % order
        return s // 2 if s % 2 == 0 else m + s // 2

    blocks = [(point(x, 0), point(x, 1), point(x, 2)) for x in range(m)]
    for x in range(m):
        for i in range(3):
            blocks.append((infinity, point(x + m, i), point(x, i + 1)))
    for x, y in combinations(range(order), 2):
        for i in range(3):
            blocks.append((point(x, i), point(y, i), point(product(x, y), i + 1)))
    return blocks


def _progressions(n: int) -> list[tuple[int, int, int]]:
    """The arithmetic progressions of Z_n (odd ``n``, not a multiple of 3): lambda = 3."""
    return [((x - d) % n, x, (x + d) % n) for x in range(n) for d in range(1, (n - 1) // 2 + 1)]


def table_design(n: int, max_tables: int = MAX_TABLES, seats: int = 3) -> Design:
    """The tables of a season of ``n`` entrants at ``seats``-seat tables, in design order.

    >>> [len(table_design(n).tables) for n in (3, 6, 12, 13, 15, 17)]
    [1, 20, 220, 26, 35, 136]
    >>> table_design(5, seats=4).tables[:2]
    ((1, 2, 3, 4), (1, 2, 3, 5))
    """
    if seats < 3:
        raise SchedulingError(f"tables have at least 3 seats, not {seats}")
    if n < seats:
        raise SchedulingError(f"{seats}-seat tables need at least {seats} entrants, not {n}")
    if seats != 3:
        every = tuple(tuple(e + 1 for e in t) for t in combinations(range(n), seats))
        return Design(f"every {seats}-subset", comb(n - 2, seats - 2), every)
    if comb(n, 3) <= max_tables or n % 2 == 0:
        kind, meetings = "every triple", n - 2
        blocks: list[tuple[int, int, int]] = list(combinations(range(n), 3))
    elif n % 6 == 3:
        kind, meetings, blocks = "Steiner triple system (Bose)", 1, _bose(n)
    elif n % 6 == 1:
        kind, meetings, blocks = "Steiner triple system (Skolem)", 1, _skolem(n)
    else:
        kind, meetings, blocks = "arithmetic progressions of Z_n", 3, _progressions(n)
    tables = _orient([sorted(b) for b in blocks])
    return Design(kind, meetings, tuple(tuple(e + 1 for e in t) for t in tables))


def _orient(blocks: Sequence[Sequence[int]]) -> list[tuple[int, int, int]]:
    """Each block in the seat orientation that least repeats who plays after whom."""
    after: dict[tuple[int, int], int] = defaultdict(int)  # (x, y): y played right after x
    tables: list[tuple[int, int, int]] = []
    for a, b, c in blocks:
        options = [(a, b, c), (a, c, b)]
        chosen = min(options, key=lambda t: sum(after[(t[i], t[(i + 1) % 3])] for i in range(3)))
        for i in range(3):
            after[(chosen[i], chosen[(i + 1) % 3])] += 1
        tables.append(chosen)
    return tables


def table_rounds(n: int, max_tables: int = MAX_TABLES, seats: int = 3) -> list[TableRound]:
    """The tables of :func:`table_design` grouped into rounds where nobody sits twice.

    >>> [(r.tables, r.sitting_out) for r in table_rounds(3)]
    [(((1, 2, 3),), ())]
    """
    remaining = list(table_design(n, max_tables, seats).tables)
    rounds: list[TableRound] = []
    while remaining:
        # The entrants with the most tables left are seated first, so that nobody is left
        # with a tail of tables that only they can play, one a round.
        load = Counter(e for table in remaining for e in table)
        seated: set[int] = set()
        chosen: list[Table] = []
        for table in sorted(remaining, key=lambda t: -sum(load[e] for e in t)):
            if seated.isdisjoint(table):
                chosen.append(table)
                seated.update(table)
        taken = set(chosen)
        remaining = [t for t in remaining if t not in taken]
        out = tuple(e for e in range(1, n + 1) if e not in seated)
        rounds.append(TableRound(len(rounds) + 1, tuple(chosen), out))
    return rounds
