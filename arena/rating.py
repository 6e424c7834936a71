"""TrueSkill ratings of bots, one ladder per variant: pure arithmetic, no storage.

Each side of a game is one rated entity: a side played by one bot version (two seats of the same
version in a partnership game included) is that version; a partnership of two different
versions is rated as a team of its own, named by both. Games are rated one at a time, in the
order their results were rated; the same games in the same order always give the same numbers,
which is what :func:`recompute` relies on. The data layer stores the numbers (``webui.league``);
this module only computes them.

>>> ladder = Ladder()
>>> _ = ladder.rate(RatedGame(sides=((1,), (2,)), winner=0))
>>> ladder.entries["v:1"].mu > ladder.entries["v:2"].mu
True
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
"""``v:<version id>`` or ``t:<id>+<id>`` (a partnership of different versions, ids sorted)."""


def entity_key(versions: Iterable[int]) -> EntityKey:
    """The rated entity of a side from the bot version ids at its seats.

    >>> entity_key([7, 7]), entity_key([9, 3])
    ('v:7', 't:3+9')
    """
    ids = sorted(set(versions))
    if not ids:
        raise ValueError("a side needs at least one bot version")
    if len(ids) == 1:
        return f"v:{ids[0]}"
    return "t:" + "+".join(str(i) for i in ids)


def key_versions(key: EntityKey) -> list[int]:
    """The bot version ids of an entity key (one, or the team's members).

    >>> key_versions("t:3+9")
    [3, 9]
    """
    kind, _, rest = key.partition(":")
    if kind not in {"v", "t"} or not rest:
        raise ValueError(f"not a rating key: {key!r}")
    return [int(part) for part in rest.split("+")]


def conservative(mu: float, sigma: float) -> float:
    """The rating to rank by: ``mu - 3 sigma``, low until the system is sure."""
    return mu - 3 * sigma


def is_provisional(games: int, sigma: float) -> bool:
    """Whether a rating rests on too little evidence to be trusted yet."""
    return games < PROVISIONAL_GAMES or sigma > PROVISIONAL_SIGMA


@dataclass
class Entry:
    """One entity's rating and record on a ladder."""

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
    """A game as the ratings see it: the version ids per side and the winning side."""

    sides: tuple[tuple[int, ...], ...]
    winner: int | None  # None: a draw
    ref: object = None  # the caller's id for the game, passed back in history


def ranks_for(winner: int | None, sides: int) -> list[int]:
    """TrueSkill ranks: the winner 0 and everyone else 1; all 0 for a draw."""
    if winner is None:
        return [0] * sides
    if not 0 <= winner < sides:
        raise ValueError(f"winner side {winner} out of range for {sides} sides")
    return [0 if side == winner else 1 for side in range(sides)]


def rate_sides(
    ratings: Sequence[tuple[float, float]], winner: int | None
) -> list[tuple[float, float]]:
    """New ``(mu, sigma)`` of each side's entity after one game."""
    groups = [(ENVIRONMENT.create_rating(mu, sigma),) for mu, sigma in ratings]
    rated = ENVIRONMENT.rate(groups, ranks=ranks_for(winner, len(ratings)))
    return [(group[0].mu, group[0].sigma) for group in rated]


@dataclass
class Ladder:
    """The ratings of one variant, updated game by game."""

    entries: dict[EntityKey, Entry] = field(default_factory=dict)

    def entry(self, key: EntityKey) -> Entry:
        """The entry of ``key``, created at the initial rating when new."""
        if key not in self.entries:
            self.entries[key] = Entry(key)
        return self.entries[key]

    def rate(self, game: RatedGame) -> list[Entry]:
        """Applies one game; returns the entries of its sides after it, in side order."""
        keys = [entity_key(side) for side in game.sides]
        if len(set(keys)) != len(keys):
            raise ValueError(f"the same entity on two sides of a game: {keys}")
        entries = [self.entry(key) for key in keys]
        new = rate_sides([(e.mu, e.sigma) for e in entries], game.winner)
        for side, (entry, (mu, sigma)) in enumerate(zip(entries, new, strict=True)):
            entry.mu, entry.sigma = mu, sigma
            entry.games += 1
            if game.winner is None:
                entry.draws += 1
            elif game.winner == side:
                entry.wins += 1
            else:
                entry.losses += 1
        return entries


def recompute(games: Iterable[RatedGame]) -> Ladder:
    """A ladder rebuilt from scratch from games in rating order."""
    ladder = Ladder()
    for game in games:
        ladder.rate(game)
    return ladder
