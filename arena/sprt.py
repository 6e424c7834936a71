"""The sequential probability ratio test over duplicate pairs, as fishtest and fastchess run it.

A duplicate pair is two games on the same deals with the seats swapped; the new bot's score over
the pair is 0, 0.5, 1, 1.5 or 2, so a test's results are five counts (the *pentanomial*).  The
test weighs H0 "the new bot is ``elo0`` Elo stronger than the old" against H1 "``elo1``
stronger" with the generalized log-likelihood ratio (GSPRT) of fishtest's ``LLR_logistic``: for
each hypothesis, the distribution over the five outcomes that is most likely given the counts
among those whose mean score is that hypothesis's; the LLR is the log of their likelihoods'
ratio.  It stops when the LLR leaves Wald's bounds ``log(beta / (1 - alpha))`` (accept H0) and
``log((1 - beta) / alpha)`` (accept H1), so a wrong H1 happens at most about ``alpha`` of the
time when the truth is ``elo0`` and a wrong H0 at most about ``beta`` when it is ``elo1``.

Elo here is *logistic* Elo, the unit of ``arena match``'s table and of cutechess: an expected
score ``s`` per game is ``400 log10(s / (1 - s))`` Elo.  (fishtest's default, normalized Elo,
scales by the pairs' spread of results; logistic Elo keeps the test's bounds in the unit the
match table prints.)  The pairs count for the new bot's score; a pair with a void game is not
a pair.  Counts of zero are replaced by 0.001, as fishtest does, so that a short run of one
outcome does not give an infinite ratio.  Pure functions of the counts, standard library only.

>>> test = Sprt(elo0=0, elo1=10)
>>> round(test.lower, 3), round(test.upper, 3)
(-2.944, 2.944)
>>> round(test.llr((10, 50, 100, 60, 20)), 3)
1.403
>>> test.decide((10, 50, 100, 60, 20)) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

Counts = tuple[int, int, int, int, int]
"""How many pairs scored 0, 0.5, 1, 1.5 and 2 for the new bot."""
Decision = Literal["H0", "H1"]

SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Each outcome's score per game (the pair's points over 2)."""
REGULARIZER = 1e-3
"""What an empty outcome counts for in the LLR (fishtest's ``regularize``)."""
Z_95 = 1.959963984540054
MAX_ELO = 1000.0


class SprtError(ValueError):
    """Bad SPRT parameters (the message names which and why)."""


def logistic_score(elo: float) -> float:
    """The expected score per game of a bot ``elo`` logistic Elo stronger.

    >>> logistic_score(0.0), round(logistic_score(100.0), 4)
    (0.5, 0.6401)
    """
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def logistic_elo(score: float) -> float:
    """The Elo difference of an expected score per game (infinite at 0 and 1).

    >>> round(logistic_elo(0.6401), 1)
    100.0
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_outcome(first: float, second: float) -> int:
    """The pentanomial index (0..4) of a pair from the new bot's scores in its two games
    (1 a win, 0.5 a draw, 0 a loss).

    >>> pair_outcome(1, 0), pair_outcome(1, 1), pair_outcome(0.5, 0)
    (2, 4, 1)
    """
    total = first + second
    index = round(2 * total)
    if not (0 <= index <= 4 and abs(2 * total - index) < 1e-9):
        raise SprtError(f"a pair's scores are 0, 0.5 or 1 each, not {first!r} and {second!r}")
    return index


def _secular(values: Sequence[float], probabilities: Sequence[float]) -> float:
    """The root ``x`` of ``sum p_i v_i / (1 + x v_i) = 0`` where every ``1 + x v_i > 0``.

    Needs a negative and a positive ``v_i``.  The function falls as ``x`` grows; Newton's
    steps inside the bracket, halving it when a step would leave it.
    """
    low = -1.0 / max(values)
    high = -1.0 / min(values)
    x = 0.0
    for _ in range(100):
        f = 0.0
        slope = 0.0
        for v, p in zip(values, probabilities, strict=True):
            d = 1.0 + x * v
            f += p * v / d
            slope -= p * v * v / (d * d)
        if f > 0.0:
            low = x
        else:
            high = x
        if abs(f) < 1e-15:
            break
        step = x - f / slope
        x = step if low < step < high else (low + high) / 2.0
        if high - low < 1e-15:
            break
    return x


def mle_with_score(probabilities: Sequence[float], score: float) -> list[float]:
    """The distribution over the five outcomes closest in likelihood to ``probabilities``
    among those with mean ``score`` per game (fishtest's ``MLE_expected``).

    >>> [round(p, 4) for p in mle_with_score([0.1, 0.2, 0.4, 0.2, 0.1], 0.6)]
    [0.0568, 0.1386, 0.355, 0.2469, 0.2027]
    """
    values = [a - score for a in SCORES]
    x = _secular(values, probabilities)
    return [p / (1.0 + x * v) for p, v in zip(probabilities, values, strict=True)]


def _regularized(counts: Sequence[int]) -> tuple[float, list[float]]:
    weights = [float(c) if c > 0 else REGULARIZER for c in counts]
    total = sum(weights)
    return total, [w / total for w in weights]


def llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``).

    >>> round(llr((0, 0, 5, 0, 0), 0.0, 10.0), 3)
    -0.141
    >>> llr((0, 0, 0, 0, 0), 0.0, 10.0)
    0.0
    """
    if len(counts) != 5 or any(c < 0 for c in counts):
        raise SprtError(f"a pentanomial is five counts of zero or more, not {tuple(counts)!r}")
    if sum(counts) == 0:
        return 0.0
    total, probabilities = _regularized(counts)
    h0 = mle_with_score(probabilities, logistic_score(elo0))
    h1 = mle_with_score(probabilities, logistic_score(elo1))
    return total * sum(
        p * (math.log(q1) - math.log(q0)) for p, q0, q1 in zip(probabilities, h0, h1, strict=True)
    )


@dataclass(frozen=True)
class Estimate:
    """The Elo difference measured from the pairs, with its 95% error (pairs as the unit)."""

    pairs: int
    score: float
    elo: float
    error: float

    def describe(self) -> str:
        """``Elo: +12.3 +/- 8.9`` (``inf`` spelled out; an even score is +0.0, never -0.0).

        >>> estimate((0, 0, 10, 0, 0)).describe()
        'Elo: +0.0 +/- 0.0'
        """

        def text(value: float, sign: bool) -> str:
            if math.isinf(value):
                return ("-" if value < 0 else "+" if sign else "") + "inf"
            value = value or 0.0  # -0.0 reads as a loss that is not there
            return f"{value:+.1f}" if sign else f"{value:.1f}"

        return f"Elo: {text(self.elo, True)} +/- {text(self.error, False)}"


def estimate(counts: Sequence[int]) -> Estimate:
    """The Elo difference of the counts and its 95% error, as fastchess prints for pairs.

    >>> e = estimate((10, 50, 100, 60, 20))
    >>> round(e.score, 4), round(e.elo, 1), round(e.error, 1)
    (0.5312, 21.7, 21.5)
    """
    pairs = sum(counts)
    if pairs == 0:
        return Estimate(0, 0.5, 0.0, math.inf)
    score = sum(c * a for c, a in zip(counts, SCORES, strict=True)) / pairs
    variance = sum(c * (a - score) ** 2 for c, a in zip(counts, SCORES, strict=True)) / pairs
    deviation = math.sqrt(variance / pairs)
    low, high = score - Z_95 * deviation, score + Z_95 * deviation
    if low > 0.0 and high < 1.0:
        error = (logistic_elo(high) - logistic_elo(low)) / 2.0
    else:
        error = math.inf
    return Estimate(pairs, score, logistic_elo(score), error)


def pairs_left(llr_now: float, pairs: int, lower: float, upper: float) -> int | None:
    """An estimate of the pairs still to play before the LLR crosses a bound: the LLR so far
    moves ``llr_now / pairs`` a pair on average, towards the bound it heads for (the
    drift of Wald's expected sample number); None before a pair, or with no drift.

    >>> pairs_left(1.0, 50, -2.944, 2.944)
    98
    >>> pairs_left(-2.0, 100, -2.944, 2.944)
    48
    >>> pairs_left(0.0, 10, -2.944, 2.944) is None
    True
    """
    if pairs <= 0 or llr_now == 0.0 or not math.isfinite(llr_now):
        return None
    drift = llr_now / pairs
    bound = upper if drift > 0 else lower
    return max(0, math.ceil((bound - llr_now) / drift))


@dataclass(frozen=True)
class Sprt:
    """An SPRT's parameters: H0 ``elo0``, H1 ``elo1`` (logistic Elo), error rates.

    >>> Sprt(elo0=10, elo1=0)
    Traceback (most recent call last):
    ...
    arena.sprt.SprtError: elo0 (10) must be below elo1 (0)
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
            ):
                raise SprtError(f"{name} must be a number, not {value!r}")
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g})")
        if max(abs(self.elo0), abs(self.elo1)) > MAX_ELO:
            raise SprtError(f"elo0 and elo1 must be within +/-{MAX_ELO:g}")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 0.5:
                raise SprtError(f"{name} must be between 0 and 0.5, not {getattr(self, name):g}")

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of these counts."""
        return llr(counts, self.elo0, self.elo1)

    def decide(self, counts: Sequence[int]) -> Decision | None:
        """``"H1"``, ``"H0"``, or None while the LLR is between the bounds."""
        value = self.llr(counts)
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        """``elo0=0 elo1=10 alpha=0.05 beta=0.05``."""
        return f"elo0={self.elo0:g} elo1={self.elo1:g} alpha={self.alpha:g} beta={self.beta:g}"

    @classmethod
    def parse(cls, items: Iterable[str]) -> Sprt:
        """The test of ``["elo0=0", "elo1=10", "alpha=0.05"]`` (alpha and beta default to
        0.05); :class:`SprtError` naming what is wrong.

        >>> Sprt.parse(["elo0=0", "elo1=5", "beta=0.1"]).describe()
        'elo0=0 elo1=5 alpha=0.05 beta=0.1'
        >>> Sprt.parse(["elo0=0"])
        Traceback (most recent call last):
        ...
        arena.sprt.SprtError: --sprt needs elo1=NUMBER (e.g. --sprt elo0=0 elo1=10)
        """
        values: dict[str, float] = {}
        for item in items:
            name, sep, text = item.partition("=")
            if not sep or name not in ("elo0", "elo1", "alpha", "beta"):
                raise SprtError(
                    f"--sprt {item!r}: expected elo0=, elo1=, alpha= or beta= and a number"
                )
            if name in values:
                raise SprtError(f"--sprt gives {name} twice")
            try:
                values[name] = float(text)
            except ValueError:
                raise SprtError(f"--sprt {item!r}: {text!r} is not a number") from None
        for name in ("elo0", "elo1"):
            if name not in values:
                raise SprtError(f"--sprt needs {name}=NUMBER (e.g. --sprt elo0=0 elo1=10)")
        return cls(**values)


def tilted(shape: Sequence[float], elo: float) -> list[float]:
    """The pentanomial probabilities of a bot ``elo`` stronger, from an even ``shape``.

    The model the simulation uses (``arena bench sprt``): the outcome probabilities of two
    equal bots (``shape``), tilted exponentially (``p_i ~ shape_i * exp(t * score_i)``) until
    their mean score per game is :func:`logistic_score` of ``elo``: the distribution closest
    to the even one (in relative entropy) with that Elo.

    >>> [round(p, 4) for p in tilted([0.1, 0.0, 0.8, 0.0, 0.1], 0.0)]
    [0.1, 0.0, 0.8, 0.0, 0.1]
    >>> round(sum(p * a for p, a in zip(tilted([0.1, 0, 0.8, 0, 0.1], 100.0), SCORES)), 4)
    0.6401
    """
    target = logistic_score(elo)
    if any(p < 0 for p in shape) or not math.isclose(sum(shape), 1.0, abs_tol=1e-9):
        raise SprtError(f"a shape is five probabilities adding up to 1, not {list(shape)!r}")

    def at(t: float) -> list[float]:
        weights = [p * math.exp(t * (a - 0.5)) for p, a in zip(shape, SCORES, strict=True)]
        total = sum(weights)
        return [w / total for w in weights]

    def mean(t: float) -> float:
        return sum(p * a for p, a in zip(at(t), SCORES, strict=True))

    low, high = -200.0, 200.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if mean(middle) < target:
            low = middle
        else:
            high = middle
    return at((low + high) / 2.0)


__all__ = [
    "REGULARIZER",
    "SCORES",
    "Counts",
    "Decision",
    "Estimate",
    "Sprt",
    "SprtError",
    "estimate",
    "llr",
    "logistic_elo",
    "logistic_score",
    "mle_with_score",
    "pair_outcome",
    "tilted",
]
