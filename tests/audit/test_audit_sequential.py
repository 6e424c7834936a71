"""The e-process of the fair-play audit: honest decisions rarely flag, knowing ones do, and
bad input is refused."""

from __future__ import annotations

import random

import pytest

from arena.audit import EProcess
from arena.audit.sequential import SequentialError, factor


def test_a_decision_factor_is_the_likelihood_ratio_of_a_match_and_a_miss() -> None:
    p0, delta = 0.4, 0.5
    p1 = p0 + delta * (1 - p0)
    assert factor(p0, 1.0, delta) == pytest.approx(p1 / p0)
    assert factor(p0, 0.0, delta) == pytest.approx((1 - p1) / (1 - p0))


def test_its_expectation_is_one_when_matches_come_at_the_bound() -> None:
    for p0 in (0.05, 0.3, 0.9):
        for delta in (0.02, 0.4, 0.8):
            mean = p0 * factor(p0, 1.0, delta) + (1 - p0) * factor(p0, 0.0, delta)
            assert mean == pytest.approx(1.0)


def test_honest_runs_flag_no_more_often_than_alpha_however_long_they_run() -> None:
    rng = random.Random(38)
    alpha, runs, flagged = 0.05, 400, 0
    for _ in range(runs):
        test = EProcess(alpha=alpha)
        for _ in range(300):
            p0 = rng.uniform(0.05, 0.95)
            test.observe(p0, float(rng.random() < p0))
        flagged += test.flagged
    # Ville: at most alpha in expectation; 400 runs put a binomial's 3 sd at about 0.033.
    assert flagged / runs <= alpha + 0.033


def test_a_seat_that_matches_more_than_the_bound_is_flagged_and_stays_flagged() -> None:
    rng = random.Random(1)
    test = EProcess(alpha=0.001)
    for _ in range(2000):
        p0 = rng.uniform(0.1, 0.6)
        test.observe(p0, float(rng.random() < p0 + 0.15))
    assert test.flagged
    at = test.flagged_at
    test.observe(0.5, 0.0)
    assert test.flagged_at == at and test.decisions == 2001


def test_a_certain_match_carries_no_evidence() -> None:
    test = EProcess()
    assert test.observe(1.0, 1.0) == 0.0
    assert test.decisions == 0 and test.e_value == 1.0


@pytest.mark.parametrize(
    ("p0", "seen"), [(0.0, 1.0), (1.5, 1.0), (0.5, -0.1), (0.5, 1.2), (float("nan"), 0.0)]
)
def test_it_rejects_a_decision_out_of_range(p0: float, seen: float) -> None:
    test = EProcess()
    with pytest.raises(SequentialError, match="must be"):
        test.observe(p0, seen)
    assert test.decisions == 0 and test.log_e == 0.0


@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1])
def test_it_rejects_an_alpha_out_of_range(alpha: float) -> None:
    with pytest.raises(SequentialError, match="alpha"):
        EProcess(alpha=alpha)


def test_it_rejects_a_delta_of_one_or_more() -> None:
    with pytest.raises(SequentialError, match="delta"):
        EProcess(deltas=(0.5, 1.0))
