"""The sequential test: an e-process over audited decisions, with a false-alarm rate that holds
however many decisions are watched.

Each decision brings a bound ``p0`` (under honest play, the chance of matching the reference
move is at most ``p0``) and what was seen, ``f`` in 0..1 (1: the move chosen was best on the true
deal; a share when several reference deals are compared).  For a planned alternative
``p1 = p0 + delta * (1 - p0)`` the factor ``1 + delta * (f - p0) / p0`` is the likelihood ratio
``p1 / p0`` on a match and ``(1 - p1) / (1 - p0)`` on a miss; its expectation is at most 1
whenever ``E[f] <= p0``, so the running product is a nonnegative supermartingale under honest
play and by Ville's inequality reaches ``1 / alpha`` with probability at most ``alpha``, ever.
Any factor ``1 + lam * (f - p0)`` with ``0 <= lam <= 1 / p0`` chosen before ``f`` is known
has that property too (:func:`flat_factor`).  No single bet suits both a bot that always
cheats and one that cheats now and then, or one whose excess lies in likely moves and one whose
lies in surprising ones, so the test runs one product per bet of :data:`DELTAS` and
:data:`STAKES` and averages them (an average of e-processes is one).  Pure arithmetic: it
knows nothing of cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

DELTAS: tuple[float, ...] = (0.05, 0.2, 0.8)
"""The planned alternatives mixed, as shares of the gap between ``p0`` and 1."""

STAKES: tuple[float, ...] = (0.25, 1.0, 2.0)
"""Flat bets mixed in: ``1 + c * (f - p0)`` (``c`` capped at ``0.9 / p0``), whose log grows
with the plain count of matches beyond the bound rather than with their surprise."""

DEFAULT_ALPHA = 0.001


class SequentialError(ValueError):
    """A decision or setting the test cannot take (quoted)."""


def factor(p0: float, seen: float, delta: float) -> float:
    """The e-value of one decision at one planned ``delta``.

    >>> round(factor(0.5, 1.0, 0.5), 3), round(factor(0.5, 0.0, 0.5), 3)
    (1.5, 0.5)
    """
    return 1.0 + delta * (seen - p0) / p0


def flat_factor(p0: float, seen: float, stake: float) -> float:
    """The e-value of one decision at one flat ``stake`` (capped so a miss keeps 10%).

    >>> round(flat_factor(0.5, 1.0, 1.0), 3), round(flat_factor(0.5, 0.0, 4.0), 3)
    (1.5, 0.1)
    """
    return 1.0 + min(stake, 0.9 / p0) * (seen - p0)


@dataclass
class EProcess:
    """A mixture of likelihood-ratio products; flags when it reaches ``1 / alpha``.

    >>> test = EProcess(alpha=0.01)
    >>> for _ in range(12):
    ...     _ = test.observe(0.5, 1.0)
    >>> test.flagged, test.decisions
    (True, 12)
    """

    alpha: float = DEFAULT_ALPHA
    deltas: Sequence[float] = DELTAS
    stakes: Sequence[float] = STAKES
    logs: list[float] = field(default_factory=list)
    decisions: int = 0
    matches: float = 0.0
    expected: float = 0.0
    flagged_at: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0:
            raise SequentialError(f"alpha must be in (0, 1), not {self.alpha!r}")
        if not self.deltas or any(not 0.0 < d < 1.0 for d in self.deltas):
            raise SequentialError(f"each delta must be in (0, 1), not {list(self.deltas)!r}")
        if any(not 0.0 < c <= 100.0 for c in self.stakes):
            raise SequentialError(f"each stake must be in (0, 100], not {list(self.stakes)!r}")
        if not self.logs:
            self.logs = [0.0] * (len(self.deltas) + len(self.stakes))

    @property
    def log_e(self) -> float:
        """The natural log of the mixture's value (0 at the start)."""
        top = max(self.logs)
        return top + math.log(sum(math.exp(x - top) for x in self.logs) / len(self.logs))

    @property
    def e_value(self) -> float:
        """The mixture's value (1 at the start; the test flags at ``1 / alpha``)."""
        return math.exp(min(self.log_e, 700.0))

    @property
    def flagged(self) -> bool:
        """Whether the value ever reached ``1 / alpha`` (it stays flagged)."""
        return self.flagged_at is not None

    def observe(self, p0: float, seen: float) -> float:
        """Adds one decision; returns how much it moved the log of the value (its weight)."""
        if not 0.0 < p0 <= 1.0 or math.isnan(p0):
            raise SequentialError(f"p0 must be in (0, 1], not {p0!r}")
        if not 0.0 <= seen <= 1.0 or math.isnan(seen):
            raise SequentialError(f"a decision's match must be in [0, 1], not {seen!r}")
        if p0 >= 1.0:
            return 0.0  # an honest player matches for sure: no evidence either way
        before = self.log_e
        # Every factor is at least 1 - delta or 0.1, above 0: the logs stay finite.
        factors = [factor(p0, seen, d) for d in self.deltas]
        factors += [flat_factor(p0, seen, c) for c in self.stakes]
        self.logs = [x + math.log(f) for x, f in zip(self.logs, factors, strict=True)]
        self.decisions += 1
        self.matches += seen
        self.expected += p0
        after = self.log_e
        if self.flagged_at is None and after >= math.log(1.0 / self.alpha):
            self.flagged_at = self.decisions
        return after - before
