"""The e-process of the fair-play audit: honest decisions rarely flag, knowing ones do, the
exact decisions are bet on alone as well, and bad input is refused."""

from __future__ import annotations

import random

import pytest

from arena.audit import EProcess
from arena.audit.sequential import BETS, SequentialError, factor


def test_a_factor_has_expectation_one_when_the_match_comes_at_the_share() -> None:
    for share in (0.05, 0.3, 0.9):
        for bet in (0.02, 0.4, 0.8, 5.0):
            mean = share * factor(share, 1.0, 0.0, bet) + (1 - share) * factor(share, 0.0, 0.0, bet)
            assert mean == pytest.approx(1.0)


def test_a_factor_pays_the_slack_and_never_falls_below_a_tenth() -> None:
    assert factor(0.4, 0.4, 0.02, 1.0) < 1.0
    for share in (0.0, 0.5, 0.99):
        for slack in (0.0, 0.02, 0.4):
            assert factor(share, 0.0, slack, 100.0) >= 0.1 - 1e-12


def honest_run(rng: random.Random, alpha: float, decisions: int) -> EProcess:
    """A seat whose move is best on the true deal exactly as often as on the samples: each
    decision has a true chance ``q``, the share is estimated from 16 samples and the scale from
    16 others, as the audit does."""
    test = EProcess(alpha=alpha)
    for _ in range(decisions):
        q = rng.uniform(0.05, 0.95)
        share = sum(rng.random() < q for _ in range(16)) / 16
        scale = 1 / max((sum(rng.random() < q for _ in range(16)) + 1) / 17, 0.05)
        exact = rng.random() < 0.3
        test.observe(share, float(rng.random() < q), 0.0 if exact else 0.02, scale, exact)
    return test


def test_honest_runs_flag_no_more_often_than_alpha_however_long_they_run() -> None:
    rng = random.Random(38)
    alpha, runs = 0.05, 300
    flagged = sum(honest_run(rng, alpha, 300).flagged for _ in range(runs))
    # Ville: at most alpha in expectation; 300 runs put a binomial's 3 sd at about 0.038.
    assert flagged / runs <= alpha + 0.038


def test_a_seat_that_matches_beyond_the_share_is_flagged_and_stays_flagged() -> None:
    rng = random.Random(1)
    test = EProcess(alpha=0.001)
    for _ in range(2000):
        q = rng.uniform(0.1, 0.6)
        test.observe(q, float(rng.random() < q + 0.15), 0.02, 1 / q)
    assert test.flagged
    at = test.flagged_at
    test.observe(0.5, 0.0)
    assert test.flagged_at == at and test.decisions == 2001
    assert test.excess > 0.1


def test_a_small_excess_on_exact_decisions_is_found_beneath_the_slack_of_the_others() -> None:
    # The seat knows more on exact decisions only (one in three); its play on the others, at
    # the share, pays their slack, and the bets on every decision go nowhere.
    rng = random.Random(5)
    test = EProcess(alpha=0.001)
    for n in range(15_000):
        exact = n % 3 == 0
        q = rng.uniform(0.2, 0.8)
        seen = float(rng.random() < q + (0.04 if exact else 0.0))
        test.observe(q, seen, 0.0 if exact else 0.02, 1 / q, exact)
    assert test.flagged
    assert len(test.logs) == 2 * len(BETS)
    assert max(test.logs[len(BETS) :]) > max(test.logs[: len(BETS)])


def test_a_certain_match_carries_no_evidence() -> None:
    test = EProcess()
    assert test.observe(1.0, 1.0) == 0.0
    assert test.decisions == 0 and test.e_value == 1.0


@pytest.mark.parametrize(
    ("share", "seen", "slack", "scale"),
    [
        (-0.1, 1.0, 0.0, 1.0),
        (1.5, 1.0, 0.0, 1.0),
        (0.5, -0.1, 0.0, 1.0),
        (0.5, 1.2, 0.0, 1.0),
        (float("nan"), 0.0, 0.0, 1.0),
        (0.5, 1.0, -0.01, 1.0),
        (0.5, 1.0, 0.0, 0.0),
        (0.5, 1.0, 0.0, float("nan")),
    ],
)
def test_it_rejects_a_decision_out_of_range(
    share: float, seen: float, slack: float, scale: float
) -> None:
    test = EProcess()
    with pytest.raises(SequentialError, match="must be"):
        test.observe(share, seen, slack, scale)
    assert test.decisions == 0 and test.log_e == 0.0


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1])
def test_it_rejects_an_alpha_out_of_range(alpha: float) -> None:
    with pytest.raises(SequentialError, match="alpha"):
        EProcess(alpha=alpha)


def test_it_rejects_a_bet_out_of_range() -> None:
    with pytest.raises(SequentialError, match="bet"):
        EProcess(bets=(0.5, 0.0))
