"""Match statistics as cutechess-cli and fastchess print them: Elo difference, its 95% error
margin, and the likelihood of superiority (LOS).

Pure functions over win/loss/draw counts; nothing here knows about games or bots.

>>> round(elo_difference(0.75), 1)
190.8
>>> r = EloEstimate.from_counts(wins=60, losses=40, draws=0)
>>> (round(r.elo, 1), round(r.error, 1), round(r.los, 3))
(70.4, 70.6, 0.977)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z_95 = 1.959963984540054  # two-sided 95% quantile of the normal distribution


def elo_difference(score: float) -> float:
    """The Elo difference that predicts ``score`` (0..1); infinite at 0 or 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """The probability that the stronger-looking side is really stronger (draws ignored)."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


@dataclass(frozen=True)
class EloEstimate:
    """Elo difference with its 95% error margin and the LOS, from one side's point of view."""

    games: int
    score: float
    elo: float
    error: float
    los: float
    draw_ratio: float

    @classmethod
    def from_counts(cls, wins: int, losses: int, draws: int) -> EloEstimate:
        """The estimate from counts, with the error computed as cutechess does."""
        games = wins + losses + draws
        if games == 0:
            return cls(0, 0.5, 0.0, math.inf, 0.5, 0.0)
        score = (wins + 0.5 * draws) / games
        variance = (
            wins * (1.0 - score) ** 2 + losses * (0.0 - score) ** 2 + draws * (0.5 - score) ** 2
        ) / games
        deviation = math.sqrt(variance / games)
        low, high = score - Z_95 * deviation, score + Z_95 * deviation
        if low > 0.0 and high < 1.0:
            error = (elo_difference(high) - elo_difference(low)) / 2.0
        else:
            error = math.inf
        return cls(
            games=games,
            score=score,
            elo=elo_difference(score),
            error=error,
            los=likelihood_of_superiority(wins, losses),
            draw_ratio=draws / games,
        )

    def summary(self) -> str:
        """The Elo difference with its 95% margin, or what is known when either is infinite.

        >>> EloEstimate.from_counts(wins=60, losses=40, draws=0).summary()
        '+70.4 +/- 70.6'
        >>> EloEstimate.from_counts(wins=3, losses=1, draws=0).summary()
        '+190.8, no 95% margin yet (too few games: 4)'
        >>> EloEstimate.from_counts(wins=4, losses=0, draws=0).summary()
        'every game won: no finite figure yet (4 games)'
        """
        if self.games == 0:
            return "no games yet"
        if math.isinf(self.elo):
            return (
                f"every game {'won' if self.elo > 0 else 'lost'}: no finite figure yet "
                f"({self.games} game{'s' if self.games != 1 else ''})"
            )
        if math.isinf(self.error):
            return f"{format_elo(self.elo)}, no 95% margin yet (too few games: {self.games})"
        return f"{format_elo(self.elo)} +/- {format_elo(self.error, sign=False)}"

    def describe(self) -> str:
        """One line in cutechess's words: ``Elo difference: 31.4 +/- 20.1, LOS: 99.9 %, ...``
        (what is known instead of an infinite figure: :meth:`summary`)."""
        return (
            f"Elo difference: {self.summary()}, "
            f"LOS: {100.0 * self.los:.1f} %, DrawRatio: {100.0 * self.draw_ratio:.1f} %"
        )


def format_elo(value: float, *, sign: bool = True) -> str:
    """An Elo figure with one decimal, ``inf`` spelled out."""
    if math.isinf(value):
        return ("-" if value < 0 else "+" if sign else "") + "inf"
    value = value + 0.0  # no "-0.0"
    if abs(value) < 0.05:
        value = 0.0
    return f"{value:+.1f}" if sign else f"{value:.1f}"


def finite_or_none(value: float) -> float | None:
    """``value`` for JSON: None when infinite or NaN."""
    return None if math.isinf(value) or math.isnan(value) else round(value, 2)


__all__ = [
    "EloEstimate",
    "elo_difference",
    "finite_or_none",
    "format_elo",
    "likelihood_of_superiority",
]
