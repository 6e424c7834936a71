"""The SPRT: its statistics against an independent reference and their invariants, its error
rates by simulation, and ``arena match --sprt`` through the real runner."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bench.sprt import simulate
from arena.sprt import (
    SCORES,
    Sprt,
    SprtError,
    estimate,
    llr,
    logistic_elo,
    logistic_score,
    mle_with_score,
    pair_outcome,
    tilted,
)

counts = st.lists(st.integers(0, 400), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)
elo_pairs = st.tuples(st.floats(-300, 300), st.floats(1, 200)).map(lambda t: (t[0], t[0] + t[1]))


def reference_llr(results: Sequence[int], elo0: float, elo1: float) -> float:
    """fishtest's LLR_logistic written plainly: the secular equation by bisection."""
    regular = [c if c else 1e-3 for c in results]
    n = sum(regular)
    pdf = [(i / 4, c / n) for i, c in enumerate(regular)]

    def mle(s: float) -> list[float]:
        shifted = [(a - s, p) for a, p in pdf]
        low = -1 / max(a for a, _ in shifted) + 1e-12
        high = -1 / min(a for a, _ in shifted) - 1e-12
        for _ in range(200):
            x = (low + high) / 2
            if sum(p * a / (1 + x * a) for a, p in shifted) > 0:
                low = x
            else:
                high = x
        x = (low + high) / 2
        return [p / (1 + x * a) for a, p in shifted]

    def score(elo: float) -> float:
        return 1 / (1 + 10 ** (-elo / 400))

    q0, q1 = mle(score(elo0)), mle(score(elo1))
    return n * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1, strict=True))


@settings(max_examples=300, deadline=None)
@given(counts, elo_pairs)
def test_the_llr_is_fishtests_llr_logistic(c: list[int], elos: tuple[float, float]) -> None:
    expected = reference_llr(c, *elos)
    assert llr(c, *elos) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(counts, elo_pairs)
def test_swapping_the_hypotheses_or_the_bots_mirrors_the_llr(
    c: list[int], elos: tuple[float, float]
) -> None:
    elo0, elo1 = elos
    assert llr(c, elo1, elo0) == pytest.approx(-llr(c, elo0, elo1), abs=1e-9)
    # OLD's view of the same pairs and hypotheses: counts reversed, Elo negated.
    assert llr(c[::-1], -elo0, -elo1) == pytest.approx(llr(c, elo0, elo1), rel=1e-9, abs=1e-9)


@settings(max_examples=300, deadline=None)
@given(counts, elo_pairs)
def test_the_llr_leans_to_the_hypothesis_beyond_which_the_score_lies(
    c: list[int], elos: tuple[float, float]
) -> None:
    # The likelihood lost by moving the mean from the measured score grows with the distance:
    # a score beyond elo1's favours H1, one below elo0's favours H0 (whatever the spread).
    regular = [x if x else 1e-3 for x in c]
    score = sum(x * a for x, a in zip(regular, SCORES, strict=True)) / sum(regular)
    s0, s1 = logistic_score(elos[0]), logistic_score(elos[1])
    value = llr(c, *elos)
    if score >= s1:
        assert value >= -1e-9
    if score <= s0:
        assert value <= 1e-9


def test_enough_double_wins_accept_h1_and_double_losses_h0() -> None:
    test = Sprt(elo0=0, elo1=10)
    history = [test.llr((0, 0, 10, 0, 10 + k)) for k in range(0, 400, 20)]
    assert history == sorted(history) and test.decide((0, 0, 10, 0, 400)) == "H1"
    assert test.decide((400, 0, 10, 0, 0)) == "H0"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0.01, 1.0), min_size=5, max_size=5), st.floats(0.02, 0.98))
def test_the_constrained_mle_is_a_distribution_with_the_asked_score(
    weights: list[float], score: float
) -> None:
    probabilities = [w / sum(weights) for w in weights]
    fitted = mle_with_score(probabilities, score)
    assert all(p > 0 for p in fitted)
    assert sum(fitted) == pytest.approx(1.0, abs=1e-9)
    assert sum(p * a for p, a in zip(fitted, SCORES, strict=True)) == pytest.approx(score, abs=1e-9)


@given(st.floats(-800, 800))
def test_logistic_elo_and_score_are_inverse(elo: float) -> None:
    assert logistic_elo(logistic_score(elo)) == pytest.approx(elo, abs=1e-6)


def test_bounds_and_decisions_follow_alpha_and_beta() -> None:
    test = Sprt(elo0=0, elo1=10, alpha=0.05, beta=0.1)
    assert test.lower == pytest.approx(math.log(0.1 / 0.95))
    assert test.upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.decide((0, 0, 0, 0, 0)) is None
    assert test.decide((0, 0, 10, 0, 300)) == "H1"
    assert test.decide((300, 0, 10, 0, 0)) == "H0"


def test_pairs_score_from_the_two_games() -> None:
    assert [pair_outcome(a, b) for a, b in [(0, 0), (0.5, 0), (1, 0), (1, 0.5), (1, 1)]] == [
        0,
        1,
        2,
        3,
        4,
    ]
    with pytest.raises(SprtError, match=r"0, 0\.5 or 1 each"):
        pair_outcome(0.7, 0)


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["elo0=0"], "needs elo1=NUMBER"),
        (["elo0=0", "elo1=x"], "'x' is not a number"),
        (["elo0=0", "elo1=10", "gamma=1"], "expected elo0=, elo1=, alpha= or beta="),
        (["elo0=10", "elo1=0"], "elo0 (10) must be below elo1 (0)"),
        (["elo0=0", "elo1=10", "alpha=0.7"], "alpha must be between 0 and 0.5"),
        (["elo0=0", "elo1=10", "elo1=5"], "gives elo1 twice"),
    ],
)
def test_bad_parameters_are_refused_with_the_reason(items: list[str], message: str) -> None:
    with pytest.raises(SprtError, match=re.escape(message)):
        Sprt.parse(items)


def test_the_estimate_reads_the_pairs_score() -> None:
    even = estimate((10, 0, 80, 0, 10))
    assert even.elo == 0.0 and 0 < even.error < 100
    assert estimate((0, 0, 0, 0, 0)).error == math.inf
    assert estimate((0, 0, 20, 0, 60)).elo == pytest.approx(logistic_elo(0.875))


@given(st.floats(-400, 400))
def test_the_tilted_model_has_the_asked_elo(elo: float) -> None:
    probabilities = tilted((0.2, 0.0, 0.6, 0.0, 0.2), elo)
    assert probabilities[1] == probabilities[3] == 0.0
    mean = sum(p * a for p, a in zip(probabilities, SCORES, strict=True))
    assert mean == pytest.approx(logistic_score(elo), abs=1e-9)


def test_simulated_tests_keep_their_error_rates() -> None:
    # 600 simulated tests at each hypothesis (seeded: the same runs every time).  Wald's bounds
    # keep each wrong decision near or below 5%; 600 runs put 45 wrong ones (7.5%) more than
    # four standard deviations above 5%.
    test = Sprt(elo0=0, elo1=60)
    shape = (0.2, 0.0, 0.6, 0.0, 0.2)
    at_h0 = simulate((test, shape, 0.0, 1, range(600), 100_000))
    at_h1 = simulate((test, shape, 60.0, 1, range(600), 100_000))
    assert sum(1 for d, _ in at_h0 if d == "H1") < 45
    assert sum(1 for d, _ in at_h1 if d == "H0") < 45
    assert all(d is not None for d, _ in at_h0 + at_h1)
    # A run is the same run whichever share of the runs it comes in.
    assert simulate((test, shape, 0.0, 1, range(590, 600), 100_000)) == at_h0[590:]


ARENA = (sys.executable, "-m", "arena.cli")


def test_bench_sprt_at_one_true_elo_says_the_other_error_rate_was_not_run() -> None:
    done = subprocess.run(
        [*ARENA, "bench", "sprt", "--elo", "0", "--elo1", "200", "--runs", "4", "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "wrong H0 where it is elo1: not run (not among --elo)" in said, done.stdout
    assert re.search(r"wrong H1 where the truth is elo0: \d+\.\d%", said), done.stdout


# ---- arena match --sprt through the real runner -----------------------------------------------


def arena_match(*argv: str) -> tuple[int, dict[str, object], str]:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", *argv, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout else {}, done.stderr


@pytest.mark.sandbox
@pytest.mark.slow
def test_greedy_passes_an_sprt_against_random(bwrap: str) -> None:
    # Greedy wins about 86% of games against random; measured over 1,000 duplicate pairs in
    # process its pairs are 75% double wins, 25% splits, 1% double losses.  At elo1=150 and
    # beta=0.001 100,000 simulated tests of that mix all accepted H1, in 9 pairs (median) and
    # never more than 29 of the 40 allowed.
    status, report, stderr = arena_match(
        "greedy", "random", "--sprt", "elo0=0", "elo1=150", "beta=0.001", "--max-games", "80"
    )
    assert status == 0, stderr
    sprt = report["sprt"]
    assert isinstance(sprt, dict) and sprt["result"] == "H1"
    assert sprt["llr"] >= sprt["upper"] > 0
    assert all(llr_ < sprt["upper"] for llr_ in sprt["llr_history"][:-1])
    assert sum(sprt["pentanomial"]) == sprt["pairs"] == len(sprt["llr_history"]) <= 40
    match = report["match"]
    assert isinstance(match, dict) and len(match["games"]) == 2 * sprt["pairs"]


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_bot_against_itself_does_not_pass(bwrap: str) -> None:
    # greedy is deterministic, so each pair's two games are one game seen from both sides:
    # every pair splits, and the test accepts H0 after 6 pairs.
    status, report, stderr = arena_match(
        "greedy", "greedy", "--sprt", "elo0=0", "elo1=150", "--max-games", "40"
    )
    sprt = report["sprt"]
    assert isinstance(sprt, dict)
    assert status == 1 and sprt["result"] == "H0", stderr
    assert sprt["pentanomial"] == [0, 0, 6, 0, 0]


def test_max_games_stops_an_undecided_test_with_status_3(bwrap: str) -> None:
    status, report, _ = arena_match(
        "random", "random", "--sprt", "elo0=0", "elo1=5", "--max-games", "2"
    )
    sprt = report["sprt"]
    assert isinstance(sprt, dict)
    assert status == 3 and sprt["result"] is None and sprt["pairs"] == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["random", "greedy", "--sprt", "elo0=0"], "needs elo1=NUMBER"),
        (["random", "greedy", "--max-games", "10"], "--max-games goes with --sprt"),
        (
            ["random", "greedy", "--sprt", "elo0=0", "elo1=5", "--max-games", "1"],
            "--max-games must be at least 2",
        ),
        (
            [
                "random",
                "greedy",
                "random",
                "greedy",
                "--variant",
                "scopone",
                "--sprt",
                "elo0=0",
                "elo1=5",
            ],
            "--sprt compares two bots",
        ),
    ],
)
def test_bad_sprt_requests_get_one_line_and_status_2(argv: list[str], message: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1
