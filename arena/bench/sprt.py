"""The SPRT of ``arena match --sprt`` checked by simulation: wrong decisions and pairs used.

Runs the test of :mod:`arena.sprt` many times on pairs drawn at a known Elo difference and counts
how often it accepts H1 and H0 and how many pairs it takes.  Where the truth is ``elo0`` a
right test accepts H1 at most about ``alpha`` of the time; where it is ``elo1`` it accepts H0
at most about ``beta`` of the time.  The LLR is computed after every pair, as the command does.

The model of a pair's outcome: the pentanomial of two equal bots (``--shape``), tilted
exponentially until the mean score per game is the logistic score of the true Elo
(:func:`arena.sprt.tilted`).  The default shape was measured on 1,500 duplicate pairs of random
against random at ``scopa`` to 11 points: 20.3% of pairs won twice by one bot, 59.9% split,
19.8% won twice by the other; Scopa games have no draws, so a pair never scores 0.5 or 1.5.
``--shape independent`` is two independent games (25%, 50%, 25%).  Runs share two worker
processes; each run has its own seed, so a bench is reproducible with ``--seed``.
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from arena.bench import progress_bar
from arena.sprt import Sprt, SprtError, logistic_score, tilted

SUMMARY = "SPRT decisions simulated at known Elo differences: error rates and pairs used"

SHAPES: dict[str, tuple[float, ...]] = {
    "measured": (0.2, 0.0, 0.6, 0.0, 0.2),
    "independent": (0.25, 0.0, 0.5, 0.0, 0.25),
}
Z_95 = 1.959963984540054


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``arena bench sprt``."""
    parser.add_argument("--elo0", type=float, default=0.0, help="H0's Elo (default 0)")
    parser.add_argument("--elo1", type=float, default=10.0, help="H1's Elo (default 10)")
    parser.add_argument("--alpha", type=float, default=0.05, help="default 0.05")
    parser.add_argument("--beta", type=float, default=0.05, help="default 0.05")
    parser.add_argument(
        "--runs",
        type=int,
        default=500,
        metavar="N",
        help="simulated tests per true Elo (default 500)",
    )
    parser.add_argument(
        "--elo",
        type=float,
        action="append",
        default=None,
        metavar="E",
        dest="true_elos",
        help="a true Elo to simulate (repeatable; default: "
        "elo0 - d/2, elo0, the midpoint, elo1, elo1 + d/2 with d = elo1 - elo0)",
    )
    parser.add_argument(
        "--shape",
        default="measured",
        metavar="NAME|P0,P1,P2,P3,P4",
        help="the pentanomial of equal bots: measured (default), independent, "
        "or five probabilities",
    )
    parser.add_argument(
        "--max-pairs",
        type=int,
        default=100_000,
        metavar="N",
        help="a run still undecided after N pairs counts as undecided",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        metavar="N",
        help="processes (default 2)",
    )
    parser.add_argument("--seed", type=int, default=1, help="simulation seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def simulate(
    task: tuple[Sprt, tuple[float, ...], float, int, range, int],
) -> list[tuple[str | None, int]]:
    """The simulated tests numbered ``runs`` at the true Elo: (decision, pairs) each.  Run
    ``k`` draws from its own generator (seeded by the seed, the Elo and ``k``), so a run is the
    same whichever process plays it."""
    test, shape, elo, seed, runs, max_pairs = task
    probabilities = tilted(shape, elo)
    cumulative = [sum(probabilities[: i + 1]) for i in range(5)]
    cumulative[-1] = 1.0
    out: list[tuple[str | None, int]] = []
    for run in runs:
        rng = random.Random(f"{seed}:{elo}:{run}")
        draw = rng.random
        counts = [0, 0, 0, 0, 0]
        decision = None
        pairs = 0
        while decision is None and pairs < max_pairs:
            counts[bisect.bisect_right(cumulative, draw())] += 1
            pairs += 1
            decision = test.decide(counts)
        out.append((decision, pairs))
    return out


def wilson(k: int, n: int) -> tuple[float, float]:
    """Wilson's 95% interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + Z_95**2 / (2 * n)) / (1 + Z_95**2 / n)
    half = Z_95 * math.sqrt(p * (1 - p) / n + Z_95**2 / (4 * n * n)) / (1 + Z_95**2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def parse_shape(text: str) -> tuple[float, ...]:
    """A named shape or five probabilities; ValueError naming what is wrong."""
    if text in SHAPES:
        return SHAPES[text]
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise ValueError(
            f"--shape {text!r}: a name ({', '.join(SHAPES)}) or five probabilities"
        ) from None
    if (
        len(values) != 5
        or any(v < 0 for v in values)
        or not math.isclose(sum(values), 1.0, abs_tol=1e-6)
    ):
        raise ValueError(f"--shape {text!r}: five probabilities adding up to 1")
    if values != tuple(reversed(values)):
        raise ValueError(f"--shape {text!r}: two equal bots give a symmetric shape")
    return values


def run(args: argparse.Namespace) -> int:
    """``arena bench sprt``."""
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
        shape = parse_shape(args.shape)
        if not 1 <= args.runs <= 1_000_000 or args.max_pairs < 1 or args.workers < 1:
            raise ValueError("--runs must be 1..1000000, --max-pairs and --workers at least 1")
    except (SprtError, ValueError) as exc:
        print(f"arena bench sprt: {exc}", file=sys.stderr)
        return 1
    width = test.elo1 - test.elo0
    elos = args.true_elos or [
        test.elo0 - width / 2,
        test.elo0,
        (test.elo0 + test.elo1) / 2,
        test.elo1,
        test.elo1 + width / 2,
    ]
    chunk = max(1, math.ceil(args.runs / (4 * args.workers)))
    tasks = [
        (test, shape, elo, args.seed, range(start, min(start + chunk, args.runs)), args.max_pairs)
        for elo in elos
        for start in range(0, args.runs, chunk)
    ]
    began = time.perf_counter()
    results: dict[float, list[tuple[str | None, int]]] = {elo: [] for elo in elos}
    with (
        progress_bar("simulating runs", len(elos) * args.runs, quiet=args.json) as advance,
        ProcessPoolExecutor(max_workers=args.workers) as pool,
    ):
        for task, outcome in zip(tasks, pool.map(simulate, tasks), strict=True):
            results[task[2]] += outcome
            advance(len(outcome))
    rows = []
    for elo in elos:
        outcomes = results[elo]
        n = len(outcomes)
        h1 = sum(1 for d, _ in outcomes if d == "H1")
        h0 = sum(1 for d, _ in outcomes if d == "H0")
        pairs = [p for _, p in outcomes]
        rows.append(
            {
                "true_elo": elo,
                "score": round(logistic_score(elo), 5),
                "runs": n,
                "h1": round(h1 / n, 4),
                "h1_95": [round(x, 4) for x in wilson(h1, n)],
                "h0": round(h0 / n, 4),
                "h0_95": [round(x, 4) for x in wilson(h0, n)],
                "undecided": n - h0 - h1,
                "mean_pairs": round(statistics.fmean(pairs), 1),
                "median_pairs": statistics.median(pairs),
                "p90_pairs": sorted(pairs)[int(0.9 * (n - 1))],
            }
        )
    summary = {
        "test": {
            "elo0": test.elo0,
            "elo1": test.elo1,
            "alpha": test.alpha,
            "beta": test.beta,
            "lower": round(test.lower, 4),
            "upper": round(test.upper, 4),
        },
        "shape": list(shape),
        "seed": args.seed,
        "seconds": round(time.perf_counter() - began, 1),
        "rows": rows,
        "wrong_h1_at_elo0": next((r["h1"] for r in rows if r["true_elo"] == test.elo0), None),
        "wrong_h0_at_elo1": next((r["h0"] for r in rows if r["true_elo"] == test.elo1), None),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    _print(summary, test)
    return 0


def _print(summary: dict[str, Any], test: Sprt) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    shape = ", ".join(f"{p:g}" for p in summary["shape"])
    table = Table(
        title=f"SPRT {test.describe()}, bounds ({test.lower:.3f}, {test.upper:.3f}); "
        f"equal bots' pentanomial ({shape})",
        title_justify="left",
    )
    for column in (
        "true Elo",
        "score",
        "runs",
        "H1",
        "95%",
        "H0",
        "95%",
        "undecided",
        "mean pairs",
        "median",
        "90%",
    ):
        table.add_column(column, justify="right")
    for r in summary["rows"]:
        table.add_row(
            f"{r['true_elo']:+g}",
            f"{r['score']:.4f}",
            str(r["runs"]),
            f"{100 * r['h1']:.1f}%",
            f"{100 * r['h1_95'][0]:.1f}-{100 * r['h1_95'][1]:.1f}%",
            f"{100 * r['h0']:.1f}%",
            f"{100 * r['h0_95'][0]:.1f}-{100 * r['h0_95'][1]:.1f}%",
            str(r["undecided"]),
            f"{r['mean_pairs']:,.0f}",
            f"{r['median_pairs']:,.0f}",
            f"{r['p90_pairs']:,}",
        )
    console.print(table)
    console.print(
        f"wrong H1 where the truth is elo0: {_share(summary['wrong_h1_at_elo0'])} "
        f"(alpha {100 * test.alpha:g}%); wrong H0 where it is elo1: "
        f"{_share(summary['wrong_h0_at_elo1'])} (beta {100 * test.beta:g}%); "
        f"{summary['seconds']:.0f} s",
        highlight=False,
    )


def _share(rate: float | None) -> str:
    """A rate as a percentage, or why there is none (that true Elo was not among --elo)."""
    return "not run (not among --elo)" if rate is None else f"{100 * rate:.1f}%"
