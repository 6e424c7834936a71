"""The sequential test: an e-process over audited decisions, with a false-alarm rate that holds
however many decisions are watched.

Each decision brings what an honest seat would match on average (``share``, estimated from
samples drawn apart from the reference), what was seen (``seen`` in 0..1: 1 when the chosen move
was best on the reference deal), the ``slack`` the decision carries (0 where the samples are the
seat's true posterior) and a ``scale`` set before ``seen`` is known and apart from ``share``.  A
bet ``lam`` makes the factor ``1 + b * (seen - share - slack)`` with ``b = min(lam * scale,
cap)``: under honest play ``E[seen - share] <= slack`` and ``b`` is independent of ``seen`` and
``share`` given what the seat saw, so the factor's expectation is at most 1; the cap ``0.9 / (1 +
slack)`` keeps it above 0.1.  The running product is a nonnegative supermartingale under honest
play and by Ville's inequality reaches ``1 / alpha`` with probability at most ``alpha``, ever.
No single bet suits both a bot that always cheats and one that cheats now and then, so the test
runs one product per bet of :data:`BETS`, each twice: on every decision, and on the ``exact``
decisions alone (no slack to pay: where a seat cheats now and then, its excess on the others
may not pay their slack).  It averages them (an average of e-processes is one).  Pure
arithmetic: it knows nothing of cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

BETS: tuple[float, ...] = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
"""The bets mixed, as multiples of a decision's scale: the small ones grow on a seat that
cheats now and then, the large ones on a seat that always does."""

DEFAULT_ALPHA = 0.001


class SequentialError(ValueError):
    """A decision or setting the test cannot take (quoted)."""


def factor(share: float, seen: float, slack: float, bet: float) -> float:
    """The e-value of one decision at one bet (already multiplied by the decision's scale).

    >>> round(factor(0.5, 1.0, 0.0, 0.5), 3), round(factor(0.5, 0.0, 0.0, 0.5), 3)
    (1.25, 0.75)
    >>> round(factor(0.0, 0.0, 0.0, 5.0), 3), round(factor(0.9, 0.0, 0.02, 5.0), 3)
    (1.0, 0.188)
    """
    return 1.0 + min(bet, 0.9 / (1.0 + slack)) * (seen - share - slack)


@dataclass
class EProcess:
    """A mixture of betting products; flags when it reaches ``1 / alpha``.

    >>> test = EProcess(alpha=0.01)
    >>> for _ in range(30):
    ...     _ = test.observe(0.5, 1.0, scale=2.0)
    >>> test.flagged, test.decisions
    (True, 30)
    """

    alpha: float = DEFAULT_ALPHA
    bets: Sequence[float] = BETS
    logs: list[float] = field(default_factory=list)  # every bet, then every bet on exact ones
    decisions: int = 0
    matches: float = 0.0
    expected: float = 0.0
    slack: float = 0.0
    flagged_at: int | None = None

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0:
            raise SequentialError(f"alpha must be in (0, 1), not {self.alpha!r}")
        if not self.bets or any(not 0.0 < b <= 10.0 for b in self.bets):
            raise SequentialError(f"each bet must be in (0, 10], not {list(self.bets)!r}")
        if not self.logs:
            self.logs = [0.0] * (2 * len(self.bets))

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

    @property
    def excess(self) -> float:
        """Matches beyond the honest expectation, per decision (0 with no decision)."""
        return (self.matches - self.expected) / self.decisions if self.decisions else 0.0

    def observe(
        self,
        share: float,
        seen: float,
        slack: float = 0.0,
        scale: float = 1.0,
        exact: bool = False,
    ) -> float:
        """Adds one decision (``exact``: the samples are the seat's true posterior, and ``slack``
        is 0); returns how much it moved the log of the value (its weight)."""
        for name, value, top in (("share", share, 1.0), ("seen", seen, 1.0), ("slack", slack, 1.0)):
            if not 0.0 <= value <= top or math.isnan(value):
                raise SequentialError(f"a decision's {name} must be in [0, {top:g}], not {value!r}")
        if not 0.0 < scale <= 1000.0 or math.isnan(scale):
            raise SequentialError(f"a decision's scale must be in (0, 1000], not {scale!r}")
        if share >= 1.0:
            return 0.0  # an honest player matches for sure: no evidence either way
        before = self.log_e
        # Every factor is at least 0.1: the logs stay finite.
        steps = [math.log(factor(share, seen, slack, bet * scale)) for bet in self.bets]
        steps += steps if exact else [0.0] * len(steps)
        self.logs = [x + step for x, step in zip(self.logs, steps, strict=True)]
        self.decisions += 1
        self.matches += seen
        self.expected += share
        self.slack += slack
        after = self.log_e
        if self.flagged_at is None and after >= math.log(1.0 / self.alpha):
            self.flagged_at = self.decisions
        return after - before
