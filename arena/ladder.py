"""The continuous ladder's pairing: pure, no storage (the league's side is
``webui.league.ladder``).

Each scheduler beat has some free slots (matches it may start). :func:`pair` fills them: a bot
is free when it is not playing and has started fewer than ``cap`` ladder matches in the last
hour; the free bots are taken most urgent first (:func:`urgency`: those that waited longer
than ``starve_s`` by their wait, then the rest by sigma, the most uncertain first), and each
takes the free bot of another owner with the closest rating (:func:`distance`: the
conservative rating, mu - 3 sigma, between settled bots; mu when either is still provisional,
whose conservative rating says how little is known rather than how strong it is), a little
further for the opponent of its last match (:func:`repeat`).

>>> a = Candidate(1, 1, sigma=8.3, conservative=0.0, recent=0, busy=False, waited_s=float('inf'))
>>> b = Candidate(2, 2, sigma=2.0, conservative=20.0, recent=0, busy=False, waited_s=60.0)
>>> c = Candidate(3, 3, sigma=2.0, conservative=2.0, recent=0, busy=False, waited_s=60.0)
>>> pair([a, b, c], slots=1, cap=10)  # the newcomer first, against the closest mu (26)
[(1, 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.rating import PROVISIONAL_SIGMA

STARVE_S = 600.0
"""A free bot that has not started a ladder match for this long goes before all others."""
REPEAT_PENALTY = 2.0
"""Rating points added to the distance of a bot's last opponent: neighbours on the
leaderboard meet in turn instead of the same pairs again and again, which would leave the
order between two such pairs unmeasured."""


@dataclass(frozen=True)
class Candidate:
    """A bot version the scheduler may pair, with what it needs to know about it."""

    version_id: int
    owner_id: int  # the user who owns the bot: never paired with another of the same owner's
    sigma: float
    conservative: float
    recent: int  # ladder matches started in the last hour
    busy: bool  # in an open ladder match or challenge
    waited_s: float  # since its last ladder match started (math.inf: never)
    last_opponent: int | None = None  # the version it played in its last ladder match


def urgency(candidate: Candidate, starve_s: float) -> tuple[int, float, float, int]:
    """Sort key, most urgent first: starving bots by wait, then by sigma, then by wait."""
    starving = candidate.waited_s >= starve_s
    return (
        0 if starving else 1,
        -candidate.waited_s if starving else -candidate.sigma,
        -candidate.waited_s,
        candidate.version_id,
    )


def distance(a: Candidate, b: Candidate) -> float:
    """How far apart two bots' ratings are, for pairing.

    Between settled bots, their conservative ratings (their sigmas are alike, so this is the
    gap in skill too); when either is provisional, their mu: a newcomer's conservative rating
    is low because little is known of it, and pairing it by that would keep it among the
    weakest bots until its sigma shrank.

    >>> new = Candidate(1, 1, sigma=8.0, conservative=1.0, recent=0, busy=False, waited_s=0.0)
    >>> top = Candidate(2, 2, sigma=1.0, conservative=22.0, recent=0, busy=False, waited_s=0.0)
    >>> distance(new, top)
    0.0
    """
    if a.sigma > PROVISIONAL_SIGMA or b.sigma > PROVISIONAL_SIGMA:
        return abs((a.conservative + 3 * a.sigma) - (b.conservative + 3 * b.sigma))
    return abs(a.conservative - b.conservative)


def repeat(a: Candidate, b: Candidate, penalty: float = REPEAT_PENALTY) -> float:
    """``penalty`` if ``a`` and ``b`` met in the last ladder match of either, else 0."""
    met = a.last_opponent == b.version_id or b.last_opponent == a.version_id
    return penalty if met else 0.0


def pair(
    candidates: Sequence[Candidate],
    slots: int,
    cap: int,
    starve_s: float = STARVE_S,
    penalty: float = REPEAT_PENALTY,
) -> list[tuple[int, int]]:
    """Up to ``slots`` new pairs of version ids, most urgent bot first.

        A bot is free when not busy and under ``cap`` matches in the last hour; each free bot is in
        at most one new pair (so none goes over the cap), never against a bot of the same owner
    (whose two bots could trade results to lift one of them, and whose games against each other
    say nothing an author cannot learn at home). Going down the
        free bots by :func:`urgency`, each unpaired one takes the unpaired free bot of the closest
        conservative rating.
    """
    free = sorted(
        (c for c in candidates if not c.busy and c.recent < cap),
        key=lambda c: urgency(c, starve_s),
    )
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for first in free:
        if len(pairs) >= slots:
            break
        if first.version_id in used:
            continue
        others = [
            c
            for c in free
            if c.version_id not in used
            and c.version_id != first.version_id
            and c.owner_id != first.owner_id
        ]
        if not others:
            continue
        second = min(
            others,
            key=lambda c: (distance(first, c) + repeat(first, c, penalty), urgency(c, starve_s)),
        )
        used.update({first.version_id, second.version_id})
        pairs.append((first.version_id, second.version_id))
    return pairs
