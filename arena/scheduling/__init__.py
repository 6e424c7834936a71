"""Pairings and tables of a season: FIDE Berger round-robins, knockout brackets, standings;
the other formats' schedules in the modules of this package.

Pure functions over entrant numbers (1..n, the order of entry; seed numbers in a bracket). The
data layer maps numbers to bot versions and stores the rounds (its season formats,
``webui.league.formats``, one class each, use these); nothing here touches a database, a clock
or a random number generator. This module holds the round-robin, the knockout and the
standings every format ranks with; one module per other schedule:

- :mod:`arena.scheduling.placement`: the places of a game with three or more sides, placement
  points (2-1-0 for three sides, ties shared) and the table of a multi-side season;
- :mod:`arena.scheduling.triples`: three-seat tables in which every pair of entrants meets
  equally often (every triple, or a balanced incomplete design for large fields), in rounds;
- :mod:`arena.scheduling.swiss`: Swiss pairing by maximum weight matching, byes, Buchholz and
  Sonneborn-Berger;
- :mod:`arena.scheduling.whist`: whist tournaments, the rotating partnerships of four-player
  partnership variants.

Round-robin (FIDE Handbook C.05, Annex 1): in round ``r`` of the table for an even ``n`` the
player ``n`` meets ``x`` (``x = (r + 1) / 2`` for odd ``r``, ``n / 2 + r / 2`` for even ``r``),
with the first seat in odd rounds going to ``x``; the other boards pair ``x + i`` with ``x - i``
(mod ``n - 1``). An odd ``n`` uses the table of ``n + 1``, whose last number is the bye. The
first number of a pairing takes the first seat of the first game of the duplicate set, like
White in chess. A double round-robin plays the table twice, the second time with the seats
reversed, after swapping the last two rounds of the first cycle so that nobody sits first (or
second) three times running across the two cycles.

Standings rank entrants by, in order:

1. score: 1 per game won, 1/2 per game drawn (a forfeited game is lost; a void game counts for
   nobody);
2. head-to-head: the score in the games between the entrants still tied;
3. Sonneborn-Berger: for each game, the opponent's score times the game's result (1, 1/2, 0);
4. games won;
5. the difference of game points (the totals of every game, for minus against);
6. the entrant number (the earlier entry first), so that the order is always total.

>>> [plan.pairings for plan in round_robin(4)]
[((1, 4), (2, 3)), ((4, 3), (1, 2)), ((2, 4), (3, 1))]
>>> bracket(5)
[(1, None), (4, 5), (2, None), (3, None)]
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

Pairing = tuple[int, int]
"""Two entrant numbers; the first takes the first seat of the first game."""

Slot = tuple[int, int | None]
"""A bracket slot: two seeds, or one seed and ``None`` for a bye (the seed advances)."""


class SchedulingError(ValueError):
    """A request the tables cannot satisfy (too few entrants, a bad bracket size...)."""


@dataclass(frozen=True)
class RoundPlan:
    """One round of a round-robin: its pairings in board order and who sits out."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: int | None = None


def berger_table(n: int) -> list[list[Pairing]]:
    """The FIDE Berger table for an even ``n`` >= 2: ``n - 1`` rounds of ``n / 2`` boards.

    >>> berger_table(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    """
    if n < 2 or n % 2:
        raise SchedulingError(f"a Berger table needs an even number of players >= 2, not {n}")
    m = n - 1

    def wrap(k: int) -> int:
        return (k - 1) % m + 1

    rounds: list[list[Pairing]] = []
    for r in range(1, n):
        x = (r + 1) // 2 if r % 2 else n // 2 + r // 2
        boards: list[Pairing] = [(x, n) if r % 2 else (n, x)]
        for i in range(1, n // 2):
            boards.append((wrap(x + i), wrap(x - i)))
        rounds.append(boards)
    return rounds


def round_robin(n: int, double: bool = False) -> list[RoundPlan]:
    """Every round of a (double) round-robin between entrants ``1..n``, byes for odd ``n``.

    >>> [(p.pairings, p.bye) for p in round_robin(3)][0]
    (((2, 3),), 1)
    """
    if n < 2:
        raise SchedulingError(f"a round-robin needs at least 2 entrants, not {n}")
    size = n + n % 2
    table = berger_table(size)
    if double and len(table) >= 2:
        first = [*table[:-2], table[-1], table[-2]]
        second = [[(b, a) for a, b in boards] for boards in table]
        table = first + second
    plans: list[RoundPlan] = []
    for number, boards in enumerate(table, start=1):
        bye = None
        pairings: list[Pairing] = []
        for a, b in boards:
            if size != n and size in (a, b):
                bye = b if a == size else a
            else:
                pairings.append((a, b))
        plans.append(RoundPlan(number, tuple(pairings), bye))
    return plans


def seed_order(size: int) -> list[int]:
    """Seeds in bracket order for a power-of-two ``size``: 1 and 2 can meet only in the final.

    >>> seed_order(8)
    [1, 8, 4, 5, 2, 7, 3, 6]
    """
    if size < 1 or size & (size - 1):
        raise SchedulingError(f"a bracket size must be a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def bracket(qualifiers: int) -> list[Slot]:
    """First-round slots of a knockout for seeds ``1..qualifiers``: 1 v N, 2 v N-1, ...

    The bracket is the next power of two; the missing seeds are byes, which fall to the top
    seeds.

    >>> bracket(4)
    [(1, 4), (2, 3)]
    """
    if qualifiers < 2:
        raise SchedulingError(f"a knockout needs at least 2 qualifiers, not {qualifiers}")
    size = 1
    while size < qualifiers:
        size *= 2
    order = seed_order(size)
    return [
        (order[i], order[i + 1] if order[i + 1] <= qualifiers else None) for i in range(0, size, 2)
    ]


def next_bracket_round(advancing: Sequence[int]) -> list[Slot]:
    """The next round's slots from the entrants advancing from each slot, in bracket order.

    >>> next_bracket_round([1, 4, 2, 3])
    [(1, 4), (2, 3)]
    """
    if len(advancing) < 2 or len(advancing) % 2:
        raise SchedulingError(f"{len(advancing)} slots cannot make a bracket round")
    return [(advancing[i], advancing[i + 1]) for i in range(0, len(advancing), 2)]


def knockout_round_count(qualifiers: int) -> int:
    """How many rounds a knockout of ``qualifiers`` takes (byes included in the first)."""
    rounds, size = 0, 1
    while size < qualifiers:
        size *= 2
        rounds += 1
    return rounds


@dataclass(frozen=True)
class GameResult:
    """One game for the standings: the entrant of each side, the winning side, the totals."""

    sides: tuple[int, ...]
    winner: int | None  # side index, None for a draw
    totals: tuple[int, ...] = ()
    void: bool = False


@dataclass
class Standing:
    """One line of the table."""

    entrant: int
    rank: int = 0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0
    head_to_head: float = 0.0
    sonneborn_berger: float = 0.0
    points_for: int = 0
    points_against: int = 0
    results: list[tuple[int, float]] = field(default_factory=list, repr=False)
    buchholz: float = 0.0  # Swiss: the sum of the opponents' scores
    byes: int = 0  # Swiss: rounds sat out with a bye
    places: list[int] = field(default_factory=list)  # multi-side: games finished 1st, 2nd...

    @property
    def point_difference(self) -> int:
        """Game points for minus against."""
        return self.points_for - self.points_against


def _game_scores(game: GameResult) -> list[float]:
    if game.winner is None:
        return [0.5] * len(game.sides)
    return [1.0 if side == game.winner else 0.0 for side in range(len(game.sides))]


def add_games(lines: dict[int, Standing], games: Iterable[GameResult]) -> None:
    """Adds each game to its entrants' lines (made when missing): played, score (a win 1, a
    draw 1/2), wins, draws, losses, points and each result against each opponent."""
    for game in games:
        scores = _game_scores(game)
        for side, entrant in enumerate(game.sides):
            line = lines.setdefault(entrant, Standing(entrant))
            line.played += 1
            line.score += scores[side]
            if game.winner is None:
                line.draws += 1
            elif game.winner == side:
                line.wins += 1
            else:
                line.losses += 1
            if game.totals:
                own = game.totals[side]
                line.points_for += own
                line.points_against += sum(game.totals) - own
            for other_side, opponent in enumerate(game.sides):
                if other_side != side:
                    line.results.append((opponent, scores[side]))


def standings(entrants: Iterable[int], games: Iterable[GameResult]) -> list[Standing]:
    """The table, ranked by the tie-break order of this module's docstring.

    >>> table = standings([1, 2], [GameResult((1, 2), 1, (5, 11))])
    >>> [(s.entrant, s.rank, s.score) for s in table]
    [(2, 1, 1.0), (1, 2, 0.0)]
    """
    lines = {e: Standing(e) for e in entrants}
    counted = [g for g in games if not g.void]
    add_games(lines, counted)
    for line in lines.values():
        line.sonneborn_berger = sum(lines[opp].score * res for opp, res in line.results)
    by_score: dict[float, list[int]] = defaultdict(list)
    for line in lines.values():
        by_score[line.score].append(line.entrant)
    for group in by_score.values():
        if len(group) < 2:
            continue
        members = set(group)
        for game in counted:
            if all(e in members for e in game.sides):
                for side, entrant in enumerate(game.sides):
                    lines[entrant].head_to_head += _game_scores(game)[side]
    ranked = sorted(
        lines.values(),
        key=lambda s: (
            -s.score,
            -s.head_to_head,
            -s.sonneborn_berger,
            -s.wins,
            -s.point_difference,
            s.entrant,
        ),
    )
    for rank, line in enumerate(ranked, start=1):
        line.rank = rank
    return ranked
