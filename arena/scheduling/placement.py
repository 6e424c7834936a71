"""Places and placement points of games with three or more sides, and the table they make.

A two-side game has a winner and a loser; a game of three sides (``scopa-3``) ranks all of
them. The places of a finished game, 0 for first:

1. a void game (the arena failed it) has no places: it counts for nobody;
2. a side that forfeited (its bot crashed, timed out three times, answered garbage...) is last,
   alone;
3. the winner the engine declared (first to the target, or the cappotto) is first;
4. the other sides follow by their game points, higher first; equal points share a place
   (competition ranking: two sides tied for second are both second, nobody is third).

Placement points: a side at place ``p`` of ``k`` sides scores ``k - 1 - p`` (2-1-0 for three
sides); sides sharing a place share the points of the places they cover (two tied for second
in a three-side game score (1 + 0) / 2 = 1/2 each). Every game hands out the same total,
``k (k - 1) / 2``, whatever its ties, so no pairing of tables is worth more than another.

The table of a multi-side season ranks entrants by, in order:

1. placement points;
2. head-to-head among the entrants still tied: in every game where two of them sat, 1 for
   finishing above the other, 1/2 for the same place;
3. first places (games won outright);
4. game points scored;
5. the entrant number (the earlier entry first).

>>> places_of(3, totals=(11, 7, 7), winner=0)
(0, 1, 1)
>>> place_points((0, 1, 1))
(2.0, 0.5, 0.5)
>>> places_of(3, totals=(5, 9, 2), winner=None, forfeit_side=1)
(0, 2, 1)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.scheduling import Standing

Places = tuple[int, ...]
"""The place of each side of a game, 0 for first; sides that tie share a place."""


@dataclass(frozen=True)
class PlacedGame:
    """One game for a multi-side table: the entrant of each side and its place."""

    sides: tuple[int, ...]
    places: Places | None  # None: a void game, counted for nobody
    totals: tuple[int, ...] = ()

    @property
    def void(self) -> bool:
        """Whether the game counts for nobody."""
        return self.places is None


def places_of(
    num_sides: int,
    totals: Sequence[int],
    winner: int | None,
    forfeit_side: int | None = None,
    void: bool = False,
) -> Places | None:
    """The places of a finished game's sides, by the rules of this module's docstring.

    >>> places_of(3, totals=(3, 11, 3), winner=1)
    (1, 0, 1)
    >>> places_of(3, totals=(3, 11, 3), winner=1, void=True) is None
    True
    """
    if void:
        return None
    if num_sides < 2:
        raise ValueError(f"a game needs at least 2 sides, not {num_sides}")
    points = [int(t) for t in totals] if totals else [0] * num_sides
    if len(points) != num_sides:
        raise ValueError(f"{len(points)} totals for {num_sides} sides")
    for name, side in (("winner", winner), ("forfeit side", forfeit_side)):
        if side is not None and not 0 <= side < num_sides:
            raise ValueError(f"{name} {side} out of range for {num_sides} sides")
    if winner is not None and winner == forfeit_side:
        winner = None  # a side cannot both win and forfeit: the forfeit stands

    def key(side: int) -> tuple[int, int, int]:
        # Sorting key: the forfeiting side after everyone, the winner before everyone, then
        # higher game points first.
        return (side == forfeit_side, side != winner, -points[side])

    order = sorted(range(num_sides), key=key)
    places = [0] * num_sides
    for position, side in enumerate(order):
        previous = order[position - 1] if position else None
        if previous is not None and key(previous) == key(side):
            places[side] = places[previous]
        else:
            places[side] = position
    return tuple(places)


def place_points(places: Places) -> tuple[float, ...]:
    """Placement points of each side: ``k - 1 - place``, shared among tied sides.

    >>> place_points((0, 1, 2)), place_points((0, 0, 2)), place_points((0, 0, 0))
    ((2.0, 1.0, 0.0), (1.5, 1.5, 0.0), (1.0, 1.0, 1.0))
    """
    k = len(places)
    sharing: dict[int, int] = defaultdict(int)
    for place in places:
        sharing[place] += 1
    out = []
    for place in places:
        covered = range(place, place + sharing[place])
        out.append(sum(k - 1 - q for q in covered) / sharing[place])
    return tuple(out)


def pairwise_score(places: Places, side: int, other: int) -> float:
    """1 if ``side`` finished above ``other``, 1/2 for the same place, else 0."""
    if places[side] == places[other]:
        return 0.5
    return 1.0 if places[side] < places[other] else 0.0


def pairwise_scores(games: Iterable[PlacedGame]) -> dict[tuple[int, int], float]:
    """How often entrant ``a`` finished above ``b`` (1/2 for a shared place): ``{(a, b): s}``."""
    scores: dict[tuple[int, int], float] = defaultdict(float)
    for game in games:
        if game.places is None:
            continue
        for side, entrant in enumerate(game.sides):
            for other, opponent in enumerate(game.sides):
                if side != other:
                    scores[(entrant, opponent)] += pairwise_score(game.places, side, other)
    return dict(scores)


def placement_standings(entrants: Iterable[int], games: Iterable[PlacedGame]) -> list[Standing]:
    """The table of a multi-side season, ranked by this module's tie-break order.

    ``wins`` counts first places held alone, ``draws`` first places shared, ``losses`` the
    rest; ``places[p]`` counts the games finished at place ``p``.

    >>> table = placement_standings([1, 2, 3], [PlacedGame((1, 2, 3), (1, 0, 2), (6, 11, 2))])
    >>> [(s.entrant, s.rank, s.score, s.places) for s in table]
    [(2, 1, 2.0, [1, 0, 0]), (1, 2, 1.0, [0, 1, 0]), (3, 3, 0.0, [0, 0, 1])]
    """
    counted = [g for g in games if g.places is not None]
    width = max([len(g.sides) for g in counted], default=3)
    lines = {e: Standing(e, places=[0] * width) for e in entrants}
    for game in counted:
        assert game.places is not None
        points = place_points(game.places)
        firsts = sum(1 for p in game.places if p == 0)
        for side, entrant in enumerate(game.sides):
            line = lines.setdefault(entrant, Standing(entrant, places=[0] * width))
            place = game.places[side]
            line.played += 1
            line.score += points[side]
            line.places[place] += 1
            if place == 0 and firsts == 1:
                line.wins += 1
            elif place == 0:
                line.draws += 1
            else:
                line.losses += 1
            if game.totals:
                line.points_for += game.totals[side]
                line.points_against += sum(game.totals) - game.totals[side]
    by_score: dict[float, list[int]] = defaultdict(list)
    for line in lines.values():
        by_score[line.score].append(line.entrant)
    for group in by_score.values():
        if len(group) < 2:
            continue
        members = set(group)
        for game in counted:
            assert game.places is not None
            for side, entrant in enumerate(game.sides):
                if entrant not in members:
                    continue
                for other, opponent in enumerate(game.sides):
                    if other != side and opponent in members:
                        lines[entrant].head_to_head += pairwise_score(game.places, side, other)
    ranked = sorted(
        lines.values(),
        key=lambda s: (-s.score, -s.head_to_head, -s.wins, -s.points_for, s.entrant),
    )
    for rank, line in enumerate(ranked, start=1):
        line.rank = rank
    return ranked
