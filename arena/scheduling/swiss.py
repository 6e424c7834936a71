"""Swiss seasons: a fixed number of rounds, each pairing bots of equal or close score.

A round-robin of ``n`` bots plays ``n (n - 1) / 2`` matches; a Swiss of ``r`` rounds plays
``r n / 2`` (64 bots: 2,016 against 256 for the default 8 rounds) and still ranks the field,
because each round pairs bots that scored alike, so the strong meet the strong.

**Rounds**: ``ceil(log2 n) + 2`` by default (enough rounds for a clear leader, plus two to
order the rest); at most ``n - 1`` (a bot cannot meet more distinct opponents than that).

**Pairing** (:func:`pair_swiss_round`) is a maximum weight perfect matching on the graph of
the bots to pair, found by networkx's ``max_weight_matching`` (Edmonds' blossom algorithm,
exact, O(n^3); networkx is maintained and already a dependency of many scientific stacks, so
no pairing search of our own is needed). Each possible pairing ``(i, j)`` weighs, in
decreasing importance:

1. never a rematch while a pairing of the whole round without one exists (the matching is
   first sought on the graph of pairs that have not met; only if it is not perfect do the
   pairs that met join, each rematch costing more than everything below together);
2. close scores: minus the squared score difference in half points;
3. seat balance: the first seat of the match (the first seat of its first game, like White in
   chess) goes to whichever of the two has had it less; a pairing of two bots who are both
   due it costs a little;
4. within a score group, the upper half against the lower half (the Dutch system of FIDE
   Swiss pairings): the group's best against the first of its lower half, and so on, so that
   a round between equals still tells them apart, and the same standings always give the
   same pairings.

**Bye** (odd fields): one bot per round sits out: the lowest-ranked bot that has not had a bye
yet (if all have, the one with fewest byes, lowest-ranked first), unless the others then
cannot be paired without a rematch while another choice (the next one up) allows it. A bye
scores as a drawn match: half the match's games (``bye_score``), so sitting out neither helps
nor hurts a bot against those who played; it adds nothing to Buchholz or Sonneborn-Berger.

**Standings** (:func:`swiss_standings`) rank by score (1 per game won, 1/2 per draw, byes
included), then Buchholz (the sum, over the games played, of the opponent's score), then
Sonneborn-Berger (the opponent's score times the game's result), then games won, game-point
difference and the entrant number.

>>> default_swiss_rounds(64), default_swiss_rounds(10)
(8, 6)
>>> first = pair_swiss_round([SwissPlayer(e, 0.0, rank=e) for e in (1, 2, 3, 4, 5)])
>>> first.bye, len(first.pairings)
(5, 2)
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from arena.scheduling import GameResult, Pairing, SchedulingError, Standing, add_games

SCORE_WEIGHT = 10**6
"""What one squared half-point of score difference costs."""
SEAT_WEIGHT = 10**3
"""What one unit of seat imbalance costs (less than any score difference)."""


def default_swiss_rounds(n: int) -> int:
    """``ceil(log2 n) + 2`` rounds for ``n`` entrants.

    >>> [default_swiss_rounds(n) for n in (6, 8, 9, 40)]
    [5, 5, 6, 8]
    """
    if n < 2:
        raise SchedulingError(f"a Swiss needs at least 2 entrants, not {n}")
    return math.ceil(math.log2(n)) + 2


def check_swiss(n: int, rounds: int) -> None:
    """Refuses a Swiss of ``rounds`` rounds for ``n`` entrants that cannot be played.

    >>> check_swiss(6, 6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    arena.scheduling.SchedulingError: a Swiss of 6 rounds needs at least 7 entrants, not 6 ...
    """
    if n < 2:
        raise SchedulingError(f"a Swiss needs at least 2 entrants, not {n}")
    if rounds < 1:
        raise SchedulingError(f"a Swiss needs at least 1 round, not {rounds}")
    if rounds > n - 1:
        raise SchedulingError(
            f"a Swiss of {rounds} rounds needs at least {rounds + 1} entrants, not {n} "
            f"(at most {n - 1} rounds for {n})"
        )


@dataclass(frozen=True)
class SwissPlayer:
    """A bot as the pairing of the next round sees it."""

    entrant: int
    score: float
    met: Mapping[int, int] | None = None  # opponent -> matches played against it
    firsts: int = 0  # matches in which it took the first seat
    seconds: int = 0  # matches in which the other did
    byes: int = 0
    rank: int = 0  # its place in the standings so far, 1 the best

    @property
    def seat_balance(self) -> int:
        """First seats taken minus second seats: positive when it is due a second seat."""
        return self.firsts - self.seconds

    def times_met(self, other: int) -> int:
        """Matches already played against ``other``."""
        return (self.met or {}).get(other, 0)


@dataclass(frozen=True)
class SwissRound:
    """One paired round: the pairings (first seat first) and the bye."""

    pairings: tuple[Pairing, ...]
    bye: int | None
    rematches: int = 0  # pairings of bots that had met before (0 whenever avoidable)


def _bye_order(players: Sequence[SwissPlayer]) -> list[SwissPlayer]:
    """Bye candidates: fewest byes first, then the lowest-ranked."""
    return sorted(players, key=lambda p: (p.byes, -p.rank, -p.entrant))


def _seat_cost(a: SwissPlayer, b: SwissPlayer) -> int:
    """The seat imbalance left after the better seating of ``a`` and ``b``."""
    ba, bb = a.seat_balance, b.seat_balance
    return min(abs(ba + 1) + abs(bb - 1), abs(ba - 1) + abs(bb + 1))


def _halves(players: Sequence[SwissPlayer]) -> dict[int, tuple[int, int]]:
    """Each bot's place in its score group (by rank) and the group's size."""
    groups: dict[float, list[SwissPlayer]] = defaultdict(list)
    for p in players:
        groups[p.score].append(p)
    out: dict[int, tuple[int, int]] = {}
    for group in groups.values():
        for place, p in enumerate(sorted(group, key=lambda q: (q.rank, q.entrant))):
            out[p.entrant] = (place, len(group))
    return out


def _weight(a: SwissPlayer, b: SwissPlayer, top: int, halves: Mapping[int, tuple[int, int]]) -> int:
    difference = round(2 * abs(a.score - b.score))
    dutch = 0
    if difference == 0:  # the same score group: the upper half against the lower half
        (place_a, size), (place_b, _) = halves[a.entrant], halves[b.entrant]
        dutch = abs(abs(place_a - place_b) - size // 2)
    return top - SCORE_WEIGHT * difference * difference - SEAT_WEIGHT * _seat_cost(a, b) - dutch


def _match(
    players: Sequence[SwissPlayer], rematches: bool
) -> list[tuple[SwissPlayer, SwissPlayer]]:
    """A maximum weight matching of ``players``; rematches only if ``rematches``."""
    if not players:
        return []
    spread = max(p.score for p in players) - min(p.score for p in players)
    top = SCORE_WEIGHT * (round(2 * spread) ** 2 + 1) + SEAT_WEIGHT * 4 * (len(players) + 2)
    top += len(players) + 1  # every weight positive
    halves = _halves(players)
    rematch_cost = top * (len(players) + 1)  # one rematch outweighs any pairing's gain
    most_met = max((p.times_met(q.entrant) for p in players for q in players), default=0)
    graph = nx.Graph()
    by_entrant = {p.entrant: p for p in players}
    graph.add_nodes_from(by_entrant)
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            met = a.times_met(b.entrant)
            if met and not rematches:
                continue
            # Every pairing of the round is perfect, so the same offset on every edge changes
            # no choice; it keeps every weight positive.
            weight = _weight(a, b, top, halves) + rematch_cost * (most_met - met)
            graph.add_edge(a.entrant, b.entrant, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return [(by_entrant[x], by_entrant[y]) for x, y in matching]


def _seat(a: SwissPlayer, b: SwissPlayer) -> Pairing:
    """Who takes the first seat: the one who had it less; on a tie the better-ranked."""
    first, second = sorted((a, b), key=lambda p: (p.seat_balance, p.rank, p.entrant))
    return (first.entrant, second.entrant)


def pair_swiss_round(players: Sequence[SwissPlayer]) -> SwissRound:
    """The next round's pairings and bye, by the rules of this module's docstring.

    >>> players = [SwissPlayer(1, 2.0, {2: 1}, 1, 0, rank=1), SwissPlayer(2, 0.0, {1: 1}, 0, 1,
    ...            rank=4), SwissPlayer(3, 2.0, {4: 1}, 0, 1, rank=2),
    ...            SwissPlayer(4, 0.0, {3: 1}, 1, 0, rank=3)]
    >>> pair_swiss_round(players).pairings
    ((3, 1), (2, 4))
    """
    if len(players) < 2:
        raise SchedulingError(f"a Swiss round needs at least 2 bots, not {len(players)}")
    if len({p.entrant for p in players}) != len(players):
        raise SchedulingError("a bot is listed twice in a Swiss round")
    ranked = sorted(players, key=lambda p: (p.rank, p.entrant))
    candidates: list[SwissPlayer | None] = list(_bye_order(ranked)) if len(ranked) % 2 else [None]
    chosen: tuple[SwissPlayer | None, list[tuple[SwissPlayer, SwissPlayer]]] | None = None
    for bye in candidates:
        rest = [p for p in ranked if p is not bye]
        pairs = _match(rest, rematches=False)
        if 2 * len(pairs) == len(rest):
            chosen = (bye, pairs)
            break
    if chosen is None:
        bye = candidates[0]
        chosen = (bye, _match([p for p in ranked if p is not bye], rematches=True))
    bye, pairs = chosen
    rematches = sum(1 for a, b in pairs if a.times_met(b.entrant))
    pairings = sorted(
        (_seat(a, b) for a, b in pairs), key=lambda pair: min(_rank_of(ranked, e) for e in pair)
    )
    return SwissRound(tuple(pairings), bye.entrant if bye else None, rematches)


def _rank_of(players: Sequence[SwissPlayer], entrant: int) -> tuple[int, int]:
    for p in players:
        if p.entrant == entrant:
            return (p.rank, p.entrant)
    return (0, entrant)


def swiss_standings(
    entrants: Iterable[int],
    games: Iterable[GameResult],
    byes: Mapping[int, int] | None = None,
    bye_score: float = 1.0,
) -> list[Standing]:
    """The table of a Swiss season, ranked by this module's tie-break order.

    ``byes`` counts each entrant's byes; each adds ``bye_score`` to its score.

    >>> games = [GameResult((1, 2), 0, (11, 3)), GameResult((3, 4), 1, (2, 11))]
    >>> [(s.entrant, s.score) for s in swiss_standings([1, 2, 3, 4, 5], games, {5: 1}, 0.5)]
    [(4, 1.0), (1, 1.0), (5, 0.5), (2, 0.0), (3, 0.0)]
    """
    lines = {e: Standing(e) for e in entrants}
    counted = [g for g in games if not g.void]
    for entrant, count in (byes or {}).items():
        line = lines.setdefault(entrant, Standing(entrant))
        line.byes += count
        line.score += count * bye_score
    for game in counted:
        if len(game.sides) != 2:
            raise SchedulingError(f"a Swiss game has two sides, not {len(game.sides)}")
    add_games(lines, counted)
    for line in lines.values():
        line.buchholz = sum(lines[opponent].score for opponent, _ in line.results)
        line.sonneborn_berger = sum(lines[opponent].score * r for opponent, r in line.results)
    ranked = sorted(
        lines.values(),
        key=lambda s: (
            -s.score,
            -s.buchholz,
            -s.sonneborn_berger,
            -s.wins,
            -s.point_difference,
            s.entrant,
        ),
    )
    for rank, line in enumerate(ranked, start=1):
        line.rank = rank
    return ranked


def swiss_history(
    rounds: Iterable[SwissRound],
) -> tuple[dict[int, dict[int, int]], dict[int, int], dict[int, int], dict[int, int]]:
    """Who met whom, first and second seats and byes, from the rounds paired so far."""
    met: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    firsts: dict[int, int] = defaultdict(int)
    seconds: dict[int, int] = defaultdict(int)
    byes: dict[int, int] = defaultdict(int)
    for paired in rounds:
        for a, b in paired.pairings:
            met[a][b] += 1
            met[b][a] += 1
            firsts[a] += 1
            seconds[b] += 1
        if paired.bye is not None:
            byes[paired.bye] += 1
    return ({k: dict(v) for k, v in met.items()}, dict(firsts), dict(seconds), dict(byes))


def swiss_players(table: Sequence[Standing], rounds: Iterable[SwissRound]) -> list[SwissPlayer]:
    """The players of the next round from the current table and the rounds paired so far."""
    met, firsts, seconds, byes = swiss_history(rounds)
    return [
        SwissPlayer(
            entrant=line.entrant,
            score=line.score,
            met=met.get(line.entrant, {}),
            firsts=firsts.get(line.entrant, 0),
            seconds=seconds.get(line.entrant, 0),
            byes=byes.get(line.entrant, 0),
            rank=line.rank,
        )
        for line in table
    ]
