"""``arena bench swiss``: a Swiss season against a full round-robin on the same field.

A field of bots of known strength plays both formats in the same run: the round-robin (every
pair once, the baseline) and a Swiss of the default ``ceil(log2 n) + 2`` rounds, paired by
:mod:`arena.scheduling.swiss`. Each match is ``--games`` real engine games in duplicate sets
(the same decks twice, seats swapped), played in process by the sample bots, made by their
own scripts through the SDK (:func:`arena.sdk.launch.load_bot`: no gRPC, no sandbox, no
database: what is measured is the format, not the platform). Reported
for each format: the matches played, and the Spearman rank correlation of its final
standings with the known strength order; medians over ``--repeats`` independent runs (other
seeds, the field numbered afresh each time so that entry order tells nothing), and the ratio
of the two correlations.

The field: ``--tiers`` strength levels, each held by an equal share of the bots. A bot of
level ``t`` of ``k`` plays the greedy sample policy with probability ``t / (k - 1)`` and a
uniformly random legal move otherwise, so strength rises with the level by construction
(greedy wins about 90% of its games against random); bots of one level are equally strong, and
the correlation counts them as tied. ``--ismcts 400,800`` makes the top levels ISMCTS search
bots, ordered by budget; they are not in the default field because at small budgets the search
is not reliably stronger than greedy (50 iterations win about 40% of their games against it),
which would make the "known" order a guess, and because a round-robin of them takes hours.

The goal: the Swiss reaches at least 0.9 of the round-robin's correlation with at most 15% of
its matches.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

SUMMARY = "a Swiss season against a full round-robin: matches and ranking quality"

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench swiss``."""
    parser.add_argument(
        "--bots", type=int, default=64, metavar="N", help="bots in the field (default 64)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=None,
        metavar="N",
        help="Swiss rounds (default ceil(log2 N) + 2)",
    )
    parser.add_argument(
        "--target",
        type=int,
        default=11,
        metavar="POINTS",
        help="game target (default 11, the standard game)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=8,
        metavar="N",
        help="games per match, in duplicate sets of two (default 8)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=3,
        metavar="N",
        help="independent runs of both formats; medians are reported (default 3)",
    )
    parser.add_argument(
        "--tiers",
        type=int,
        default=8,
        metavar="K",
        help="strength levels, each held by an equal share of the bots (default 8)",
    )
    parser.add_argument(
        "--ismcts",
        default="",
        metavar="BUDGETS",
        help="ISMCTS bots to put at the top, by iterations, e.g. 400,800 (default none)",
    )
    parser.add_argument(
        "--workers", type=int, default=2, metavar="N", help="processes playing matches (default 2)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the first run's seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


@dataclass(frozen=True)
class BotSpec:
    """One bot of the field: a mix of the greedy policy and random moves, or an ISMCTS budget.

    ``greedy_share`` between 0 and 1 is how often the bot plays the greedy sample policy's best
    move (a uniformly random legal move otherwise: 0 is random, 1 greedy). Below 0 the bot plays
    the greedy policy's *worst* move that share of the time (-1: always), which is weaker than
    random: levels under random without a new policy to write.
    """

    greedy_share: float = 1.0
    ismcts: int = 0

    @property
    def label(self) -> str:
        """``greedy 75%``, ``random``, ``anti-greedy 50%`` or ``ismcts 400``."""
        if self.ismcts:
            return f"ismcts {self.ismcts}"
        if self.greedy_share == 0:
            return "random"
        if self.greedy_share < 0:
            return f"anti-greedy {-self.greedy_share:.0%}"
        return f"greedy {self.greedy_share:.0%}"


def field(bots: int, ismcts: Sequence[int], tiers: int) -> list[BotSpec]:
    """The field, weakest first, in ``tiers`` strengths of equal size (the top ones ISMCTS)."""
    mixed_tiers = tiers - len(ismcts)
    specs = []
    for i in range(bots):
        tier = i * tiers // bots
        if tier >= mixed_tiers:
            specs.append(BotSpec(ismcts=sorted(ismcts)[tier - mixed_tiers]))
        else:
            specs.append(BotSpec(tier / (mixed_tiers - 1) if mixed_tiers > 1 else 1.0))
    return specs


def strength_rank(specs: Sequence[BotSpec]) -> list[float]:
    """Each bot's rank by known strength (1 the strongest), tied bots sharing the average."""
    key = [(s.ismcts, s.greedy_share) for s in specs]
    return average_ranks([tuple(-x for x in k) for k in key])


def average_ranks(values: Sequence[Any]) -> list[float]:
    """1-based ranks of ``values`` in ascending order, ties sharing their average rank.

    >>> average_ranks([10, 20, 10, 30])
    [1.5, 3.0, 1.5, 4.0]
    """
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for k in range(start, end + 1):
            ranks[order[k]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


Policy = Callable[[Any, list[Any], random.Random], Any]


@cache
def _sample_bot(name: str, *args: str) -> Any:
    """A sample bot made in this process by its own script (one per process and arguments)."""
    from arena.sdk.launch import load_bot

    return load_bot(SAMPLE_BOTS / name, args if args else None)


def least_liked(bot: Any, obs: Any, legal: Sequence[Any]) -> Any:
    """The legal move ``bot`` likes least, the first of equals, from its choices between two.

    For a bot whose choice is the best move by a value of (observation, move), the first of
    equals (the greedy sample bot): of ``[a, b]`` it chooses ``b`` only when ``b`` is worth
    more, so a move it refuses in favour of the worst so far is worth strictly less.
    """
    worst = legal[0]
    for move in legal[1:]:
        if bot.choose(obs, [move, worst]) == worst:
            worst = move
    return worst


def _policy(spec: BotSpec) -> Policy:
    if spec.ismcts:
        searcher = _sample_bot("ismcts", "--iterations", str(spec.ismcts))

        def searching(obs: Any, legal: list[Any], rng: random.Random) -> Any:
            return searcher.choose(obs, legal)

        return searching

    greedy = _sample_bot("greedy")
    share = abs(spec.greedy_share)
    if spec.greedy_share < 0:

        def contrary(obs: Any, legal: list[Any], rng: random.Random) -> Any:
            if rng.random() < share:
                return least_liked(greedy, obs, legal)
            return rng.choice(legal)

        return contrary

    def mixed(obs: Any, legal: list[Any], rng: random.Random) -> Any:
        return greedy.choose(obs, legal) if rng.random() < share else rng.choice(legal)

    return mixed


def play_match(
    task: tuple[BotSpec, BotSpec, int, int, int],
) -> tuple[list[int | None], list[tuple[int, int]]]:
    """Duplicate sets: the same decks twice, seats swapped. Winners and totals, by entrant."""
    from arena.engine import Game, rules_for

    first, second, seed, target, sets = task
    rules = rules_for("scopa", {"target": target})
    policies = [_policy(first), _policy(second)]
    winners: list[int | None] = []
    totals: list[tuple[int, int]] = []
    for index in range(2 * sets):
        swapped = index % 2 == 1
        set_seed = seed * 1_009 + index // 2
        seating = [1, 0] if swapped else [0, 1]  # entrant of each seat
        game = Game(rules, set_seed)
        rngs = [random.Random(set_seed * 2 + e) for e in range(2)]
        while not game.is_over():
            deal = game.new_deal()
            while not deal.is_over():
                entrant = seating[deal.to_move]
                legal = deal.legal_moves()
                deal.apply(policies[entrant](deal.observation(deal.to_move), legal, rngs[entrant]))
            game.finish_deal(deal)
        winners.append(None if game.winner is None else seating[game.winner])
        by_entrant = [0, 0]
        for seat, entrant in enumerate(seating):
            by_entrant[entrant] = game.totals[seat]
        totals.append((by_entrant[0], by_entrant[1]))
    return winners, totals


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the two lists' average ranks.

    >>> spearman([1, 2, 3], [1, 2, 3]), spearman([1, 2, 3], [3, 2, 1])
    (1.0, -1.0)
    >>> round(spearman([1, 2, 3, 4], [1, 1, 2, 2]), 4)
    0.8944
    """
    if len(a) != len(b) or len(a) < 2:
        raise ValueError("two lists of the same length (at least 2) are needed")
    ra, rb = average_ranks(a), average_ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return cov / var if var else 0.0


class Runner:
    """Plays batches of matches over a process pool, with a progress bar."""

    def __init__(
        self,
        specs: list[BotSpec],
        target: int,
        pool: ProcessPoolExecutor,
        progress: Callable[[int], None],
        sets: int = 1,
    ) -> None:
        self.specs, self.target, self.pool, self.progress = specs, target, pool, progress
        self.sets = sets
        self.played = 0

    def play(self, pairings: Sequence[tuple[int, int]], seed: int) -> list[Any]:
        """Results of the pairings (entrant numbers 1..n), each match seeded apart."""
        from arena.scheduling import GameResult

        tasks = [
            (self.specs[a - 1], self.specs[b - 1], seed * 100_003 + k, self.target, self.sets)
            for k, (a, b) in enumerate(pairings)
        ]
        results: list[GameResult] = []
        for (a, b), (winners, totals) in zip(
            pairings, self.pool.map(play_match, tasks, chunksize=4), strict=True
        ):
            for index, (winner, total) in enumerate(zip(winners, totals, strict=True)):
                # Recorded as the seats of each game (sides = seats): the second game of a
                # set has the entrants swapped.
                swapped = index % 2 == 1
                sides = (b, a) if swapped else (a, b)
                side_winner = None if winner is None else (1 - winner if swapped else winner)
                side_totals = (total[1], total[0]) if swapped else total
                results.append(GameResult(sides, side_winner, side_totals))
            self.played += 1
            self.progress(1)
        return results


def round_robin_run(runner: Runner, n: int, seed: int) -> tuple[int, list[int]]:
    """A full round-robin: matches played and the final order (entrant numbers, best first)."""
    from arena.scheduling import round_robin, standings

    pairings = [p for plan in round_robin(n) for p in plan.pairings]
    games = runner.play(pairings, seed)
    return len(pairings), [s.entrant for s in standings(range(1, n + 1), games)]


def swiss_run(runner: Runner, n: int, rounds: int, seed: int) -> tuple[int, list[int]]:
    """A Swiss of ``rounds`` rounds: matches played and the final order."""
    from arena.scheduling import GameResult
    from arena.scheduling.swiss import (
        SwissRound,
        pair_swiss_round,
        swiss_players,
        swiss_standings,
    )

    games: list[GameResult] = []
    paired: list[SwissRound] = []
    matches = 0
    bye_score = float(runner.sets)  # a drawn match: half its games
    for number in range(rounds):
        byes: dict[int, int] = {}
        for r in paired:
            if r.bye is not None:
                byes[r.bye] = byes.get(r.bye, 0) + 1
        table = swiss_standings(range(1, n + 1), games, byes, bye_score)
        this = pair_swiss_round(swiss_players(table, paired))
        games += runner.play(this.pairings, seed * 1_000 + number)
        matches += len(this.pairings)
        paired.append(this)
    byes = {}
    for r in paired:
        if r.bye is not None:
            byes[r.bye] = byes.get(r.bye, 0) + 1
    final = swiss_standings(range(1, n + 1), games, byes, bye_score)
    return matches, [s.entrant for s in final]


def run(args: argparse.Namespace) -> int:
    """Runs the benchmark and prints its table (or JSON)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from arena.scheduling import SchedulingError
    from arena.scheduling.swiss import check_swiss, default_swiss_rounds

    try:
        budgets = [int(b) for b in args.ismcts.split(",") if b.strip()]
    except ValueError:
        print(f"arena bench swiss: --ismcts {args.ismcts!r}: a list like 400,800", file=sys.stderr)
        return 2
    n = args.bots
    if (
        n < 4
        or not 2 <= args.tiers <= n
        or len(budgets) > args.tiers - 2
        or (args.repeats < 1 or args.workers < 1 or args.target < 1 or any(b < 1 for b in budgets))
    ):
        print(
            "arena bench swiss: need --bots >= 4, --tiers between 2 and --bots with two "
            "more than the ISMCTS budgets, and --repeats, --workers, --target and every "
            "budget >= 1",
            file=sys.stderr,
        )
        return 2
    rounds = args.rounds if args.rounds is not None else default_swiss_rounds(n)
    try:
        check_swiss(n, rounds)
    except SchedulingError as error:
        print(f"arena bench swiss: --rounds: {error}", file=sys.stderr)
        return 2
    field_specs = field(n, budgets, args.tiers)

    def placed(order: list[int]) -> list[float]:
        """Each bot's place in the final standings (1 the first), by entrant number."""
        places = [0.0] * n
        for position, entrant in enumerate(order, start=1):
            places[entrant - 1] = float(position)
        return places

    rows: list[dict[str, Any]] = []
    per_run = n * (n - 1) // 2 + rounds * (n // 2)
    console = Console(stderr=True)
    started = time.perf_counter()
    with (
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=args.json,
        ) as bar,
        ProcessPoolExecutor(max_workers=args.workers) as pool,
    ):
        task = bar.add_task(f"{n} bots, {args.repeats} runs", total=per_run * args.repeats)
        runner = Runner(
            field_specs,
            args.target,
            pool,
            lambda k: bar.advance(task, k),
            sets=max(1, math.ceil(args.games / 2)),
        )
        for repeat in range(args.repeats):
            seed = args.seed + repeat
            # Entry order tells the formats nothing: each run numbers the field afresh.
            specs = list(field_specs)
            random.Random(seed).shuffle(specs)
            runner.specs = specs
            truth = strength_rank(specs)
            clock = time.perf_counter()
            rr_matches, rr_order = round_robin_run(runner, n, seed)
            rr_seconds = time.perf_counter() - clock
            clock = time.perf_counter()
            sw_matches, sw_order = swiss_run(runner, n, rounds, seed)
            sw_seconds = time.perf_counter() - clock
            rows.append(
                {
                    "seed": seed,
                    "round_robin_matches": rr_matches,
                    "swiss_matches": sw_matches,
                    "round_robin_spearman": round(spearman(placed(rr_order), truth), 4),
                    "swiss_spearman": round(spearman(placed(sw_order), truth), 4),
                    "round_robin_seconds": round(rr_seconds, 2),
                    "swiss_seconds": round(sw_seconds, 2),
                }
            )
    elapsed = time.perf_counter() - started
    rr = statistics.median(r["round_robin_spearman"] for r in rows)
    sw = statistics.median(r["swiss_spearman"] for r in rows)
    ratios = [
        r["swiss_spearman"] / r["round_robin_spearman"]
        for r in rows
        if r["round_robin_spearman"] > 0
    ]
    summary = {
        "bots": n,
        "rounds": rounds,
        "target": args.target,
        "field": [s.label for s in field_specs],
        "swiss_matches": rows[0]["swiss_matches"],
        "round_robin_matches": rows[0]["round_robin_matches"],
        "match_share": round(rows[0]["swiss_matches"] / rows[0]["round_robin_matches"], 4),
        "swiss_spearman": sw,
        "round_robin_spearman": rr,
        "spearman_ratio": round(statistics.median(ratios), 4) if ratios else math.nan,
        "goal_met": bool(ratios)
        and statistics.median(ratios) >= 0.9
        and rows[0]["swiss_matches"] <= 0.15 * rows[0]["round_robin_matches"],
        "runs": rows,
        "seconds": round(elapsed, 1),
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    _print(summary)
    return 0


def _print(summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"{summary['bots']} bots of known strength, target {summary['target']}: "
        f"Swiss of {summary['rounds']} rounds against a round-robin "
        f"(medians of {len(summary['runs'])} runs)"
    )
    for column in (
        "format",
        "matches",
        "share of the round-robin",
        "Spearman (median)",
        "runs",
        "of the round-robin's",
    ):
        table.add_column(column, justify="left" if column == "format" else "right")
    runs = summary["runs"]
    table.add_row(
        "round-robin (baseline)",
        str(summary["round_robin_matches"]),
        "100%",
        f"{summary['round_robin_spearman']:.3f}",
        " ".join(f"{r['round_robin_spearman']:.3f}" for r in runs),
        "1.00",
    )
    table.add_row(
        "Swiss",
        str(summary["swiss_matches"]),
        f"{summary['match_share']:.1%}",
        f"{summary['swiss_spearman']:.3f}",
        " ".join(f"{r['swiss_spearman']:.3f}" for r in runs),
        f"{summary['spearman_ratio']:.2f}",
    )
    console = Console()
    console.print(table)
    console.print(
        f"goal (>= 0.90 of the correlation with <= 15% of the matches): "
        f"{'met' if summary['goal_met'] else 'not met'}; "
        f"{summary['seconds']:.0f} s in all"
    )
