"""TrueSkill ratings of bots, per variant, in pools: pure arithmetic, no storage.

A variant's ratings come in pools of entities rated against each other, told apart by their
keys:

- ``v:<version id>``: a bot version that plays every seat of its side (one seat in ``scopa``
  and ``scopa-3``, both seats of its side in the classic partnership format). The side is the
  version: one rated entity per side.
- ``p:<version id>``: a bot version rated **as a partner**, from games in which a side is two
  different bot versions (the rotating partnerships format). Each side is a TrueSkill team of
  its two bots; TrueSkill sums the partners' performances, so a game moves each partner's own
  rating, and a bot's ``p:`` rating says how well it plays beside others. That measures
  something other than a ``v:`` rating (a bot partnering itself), so the two are never mixed:
  a game is rated in the partners pool exactly when one of its sides has two different
  versions, and the league shows the two pools apart.

The continuous ladder (``webui.league.ladder``, the competition) keeps a third pool, apart from
the seasons':

- ``l:<version id>``: a bot version's rating from ladder matches and rated challenges. The
  arithmetic is the same (a solo side, :class:`Ratings`); the games are different, so the keys
  are too, and a season result never moves a ladder rating nor the other way round
  (:func:`ladder_key`, :func:`solo_key`).

A game of more than two sides is rated from its full ranking (its places, 0 first, ties
shared: TrueSkill rates free-for-all games directly); a two-side game from its winner. Games
are rated one at a time, in the order their results were rated; the same games in the same
order always give the same numbers, which is what :func:`recompute` relies on. The data
layer stores the numbers (``webui.league``); this module only computes them.

>>> ratings = Ratings()
>>> _ = ratings.rate(RatedGame(sides=((1,), (2,)), winner=0))
>>> ratings.entries["v:1"].mu > ratings.entries["v:2"].mu
True
>>> _ = ratings.rate(RatedGame(sides=((1, 3), (2, 4)), winner=1))
>>> sorted(ratings.entries)
['p:1', 'p:2', 'p:3', 'p:4', 'v:1', 'v:2']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import trueskill

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
TAU = MU / 300
DRAW_PROBABILITY = 0.05

PROVISIONAL_GAMES = 10
"""Fewer rated games than this and a rating is marked provisional."""
PROVISIONAL_SIGMA = 2.5
"""A sigma above this and a rating is marked provisional."""

ENVIRONMENT = trueskill.TrueSkill(
    mu=MU, sigma=SIGMA, beta=BETA, tau=TAU, draw_probability=DRAW_PROBABILITY
)

EntityKey = str
"""``v:<version id>`` (a version playing its whole side) or ``p:<version id>`` (a partner)."""

SOLO = "solo"
"""The pool of ``v:`` keys: each side one bot version."""
PARTNERS = "partners"
"""The pool of ``p:`` keys: individual ratings from games of two different partners."""
LADDER = "ladder"
"""The continuous ladder's pool, ``l:`` keys: ratings from ladder matches and rated
challenges."""


def is_partnership_game(sides: Sequence[Iterable[int]]) -> bool:
    """Whether a game is rated in the partners pool: some side has two different versions.

    >>> is_partnership_game([[3, 3], [5, 5]]), is_partnership_game([[3, 4], [5, 6]])
    (False, True)
    """
    return any(len(set(side)) > 1 for side in sides)


def entity_key(versions: Iterable[int], partners: bool = False) -> EntityKey:
    """The rated entity of a side from the bot version ids at its seats (solo pool).

    >>> entity_key([7, 7]), entity_key([7], partners=True)
    ('v:7', 'p:7')
    """
    ids = sorted(set(versions))
    if not ids:
        raise ValueError("a side needs at least one bot version")
    if len(ids) > 1:
        raise ValueError(f"a side of versions {ids} is rated as partners, one key each")
    return f"{'p' if partners else 'v'}:{ids[0]}"


def side_keys(versions: Iterable[int], partners: bool) -> list[EntityKey]:
    """The rated entities of a side: its version (solo), or each distinct partner's."""
    ids = sorted(set(versions))
    if not ids:
        raise ValueError("a side needs at least one bot version")
    if not partners:
        return [entity_key(ids)]
    return [f"p:{i}" for i in ids]


def key_version(key: EntityKey) -> int:
    """The bot version id of an entity key.

    >>> key_version("p:9")
    9
    """
    kind, _, rest = key.partition(":")
    if kind not in {"v", "p", "l"} or not rest.isdigit():
        raise ValueError(f"not a rating key: {key!r}")
    return int(rest)


def key_pool(key: EntityKey) -> str:
    """:data:`SOLO`, :data:`PARTNERS` or :data:`LADDER`, from an entity key."""
    key_version(key)
    if key.startswith("l:"):
        return LADDER
    return PARTNERS if key.startswith("p:") else SOLO


def ladder_key(key: EntityKey) -> EntityKey:
    """The continuous ladder's key of a solo key: the same version, kept apart.

    >>> ladder_key("v:4"), solo_key("l:4")
    ('l:4', 'v:4')
    """
    return f"l:{key_version(key)}"


def solo_key(key: EntityKey) -> EntityKey:
    """The solo key of a continuous ladder key (what :class:`Ratings` computes with)."""
    return f"v:{key_version(key)}"


def conservative(mu: float, sigma: float) -> float:
    """The rating to rank by: ``mu - 3 sigma``, low until the system is sure."""
    return mu - 3 * sigma


def is_provisional(games: int, sigma: float) -> bool:
    """Whether a rating rests on too little evidence to be trusted yet."""
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


@dataclass
class Entry:
    """One entity's rating and record in its pool."""

    key: EntityKey
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``."""
        return conservative(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        """Too few games or too wide a sigma."""
        return is_provisional(self.games, self.sigma)


@dataclass(frozen=True)
class RatedGame:
    """A game as the ratings see it: the version ids per side, and who won or the places.

    ``places`` (0 first, ties equal) rank every side; without them, ``winner`` does (the
    winning side first, everyone else tied behind it; ``None`` for a draw).
    """

    sides: tuple[tuple[int, ...], ...]
    winner: int | None  # None: a draw (unless places are given)
    ref: object = None  # the caller's id for the game, passed back in history
    places: tuple[int, ...] | None = None

    def ranks(self) -> list[int]:
        """TrueSkill's ranks of the sides (lower is better, equal is a tie)."""
        if self.places is not None:
            if len(self.places) != len(self.sides):
                raise ValueError(f"{len(self.places)} places for {len(self.sides)} sides")
            return list(self.places)
        return ranks_for(self.winner, len(self.sides))


def ranks_for(winner: int | None, sides: int) -> list[int]:
    """TrueSkill ranks: the winner 0 and everyone else 1; all 0 for a draw."""
    if winner is None:
        return [0] * sides
    if not 0 <= winner < sides:
        raise ValueError(f"winner side {winner} out of range for {sides} sides")
    return [0 if side == winner else 1 for side in range(sides)]


def rate_teams(
    teams: Sequence[Sequence[tuple[float, float]]], ranks: Sequence[int]
) -> list[list[tuple[float, float]]]:
    """New ``(mu, sigma)`` of every member of every team after one game."""
    groups = [tuple(ENVIRONMENT.create_rating(mu, sigma) for mu, sigma in team) for team in teams]
    rated = ENVIRONMENT.rate(groups, ranks=list(ranks))
    return [[(r.mu, r.sigma) for r in group] for group in rated]


def rate_sides(
    ratings: Sequence[tuple[float, float]], winner: int | None
) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` of each side's single entity after one game."""
    new = rate_teams([[r] for r in ratings], ranks_for(winner, len(ratings)))
    return [team[0] for team in new]


@dataclass
class Ratings:
    """The ratings of one variant (every pool of it), updated game by game."""

    entries: dict[EntityKey, Entry] = field(default_factory=dict)

    def entry(self, key: EntityKey) -> Entry:
        """The entry of ``key``, created at the initial rating when new."""
        if key not in self.entries:
            self.entries[key] = Entry(key)
        return self.entries[key]

    def rate(self, game: RatedGame) -> list[Entry]:
        """Applies one game; returns the entries it changed, side by side, in side order."""
        partners = is_partnership_game(game.sides)
        teams = [side_keys(side, partners) for side in game.sides]
        keys = [key for team in teams for key in team]
        if len(set(keys)) != len(keys):
            raise ValueError(f"the same entity on two sides of a game: {keys}")
        ranks = game.ranks()
        entries = [[self.entry(key) for key in team] for team in teams]
        new = rate_teams([[(e.mu, e.sigma) for e in team] for team in entries], ranks)
        best = min(ranks)
        sharing_first = ranks.count(best)
        out: list[Entry] = []
        for side, (team, ratings) in enumerate(zip(entries, new, strict=True)):
            for entry, (mu, sigma) in zip(team, ratings, strict=True):
                entry.mu, entry.sigma = mu, sigma
                entry.games += 1
                if ranks[side] == best and sharing_first > 1:
                    entry.draws += 1
                elif ranks[side] == best:
                    entry.wins += 1
                else:
                    entry.losses += 1
                out.append(entry)
        return out


def recompute(games: Iterable[RatedGame]) -> Ratings:
    """Ratings rebuilt from scratch from games in rating order."""
    ratings = Ratings()
    for game in games:
        ratings.rate(game)
    return ratings
