"""Engine speed: random deals per second for each named variant, on both engines and a naive one.

Plays random deals (a fresh seeded deck each, a uniformly random legal move each turn, the deal
scored at the end) on one core: with the pure-Python engine, with the compiled core through the
same ``Deal`` API, with the core's own C loop (:func:`arena.engine._core.random_deals`, what
search and training use), and with a naive engine measured in the same run (legal moves from
every subset of the table by :mod:`itertools`, the whole state copied at every move).  Times
are process CPU time, so other work on a shared machine does not count against either; each
figure is the median of several runs.  Nothing here is a test: it prints figures, it asserts
none.  ``--differential N`` instead plays N random deals per rule set on both engines and checks
they agree (:mod:`arena.engine.differential`).
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from arena.engine import VARIANTS, Card, Deal, Game, Move, Rules, core, rules_for, score_deal
from arena.engine.cards import RANK

SUMMARY = "random deals per second: the pure engine, the compiled core, a naive engine"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``arena bench engine``."""
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--seconds",
        type=float,
        default=0.5,
        metavar="S",
        help="CPU seconds per measurement (default 0.5)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        metavar="N",
        help="measurements per figure; the median is reported (default 3)",
    )
    parser.add_argument(
        "--differential",
        type=int,
        default=0,
        metavar="N",
        help="instead of timing: play N random deals per rule set on both engines and compare",
    )
    parser.add_argument(
        "--variant",
        action="append",
        metavar="NAME",
        dest="variants",
        help="only this variant (repeatable; default: every named variant)",
    )


# -- the naive engine ---------------------------------------------------------------------------


class NaiveDeal:
    """A deal the obvious way: lists of cards, every subset tried, a new state per move."""

    __slots__ = (
        "captured",
        "dealer",
        "hands",
        "last",
        "rules",
        "scope",
        "stock",
        "table",
        "to_move",
    )

    def __init__(self, rules: Rules, deal: Deal) -> None:
        self.rules = rules
        self.dealer = deal.dealer
        self.hands = [list(h) for h in deal.hands]
        self.table = list(deal.table)
        self.stock = list(deal.stock)
        self.captured: list[list[Card]] = [[] for _ in range(rules.num_sides)]
        self.scope = [0] * rules.num_sides
        self.last = -1
        self.to_move = deal.to_move

    def copy(self) -> NaiveDeal:
        other = NaiveDeal.__new__(NaiveDeal)
        other.rules = self.rules
        other.dealer = self.dealer
        other.hands = [list(h) for h in self.hands]
        other.table = list(self.table)
        other.stock = list(self.stock)
        other.captured = [list(p) for p in self.captured]
        other.scope = list(self.scope)
        other.last = self.last
        other.to_move = self.to_move
        return other

    def is_over(self) -> bool:
        return not self.hands[self.to_move]

    def legal_moves(self) -> list[Move]:
        rules = self.rules
        table = self.table
        subsets = [s for k in range(1, len(table) + 1) for s in itertools.combinations(table, k)]
        moves: list[Move] = []
        for card in self.hands[self.to_move]:
            value = RANK[card]
            if rules.assi and value == 1:
                aces: list[tuple[Card, ...]] = [(c,) for c in table if RANK[c] == 1]
                if not table:
                    caps: list[tuple[Card, ...]] = [()]
                elif aces and rules.assi_ace_takes_ace:
                    caps = aces
                else:
                    caps = [tuple(table)]
            elif rules.quindici:
                caps = [s for s in subsets if sum(RANK[c] for c in s) + value == 15] or [()]
            else:
                caps = [s for s in subsets if len(s) == 1 and RANK[s[0]] == value]
                if not caps:
                    caps = [
                        s for s in subsets if len(s) > 1 and sum(RANK[c] for c in s) == value
                    ] or [()]
            moves.extend(Move(card, cap) for cap in caps)
        return moves

    def play(self, move: Move) -> NaiveDeal:
        nxt = self.copy()
        seat = nxt.to_move
        side = self.rules.side_of(seat)
        nxt.hands[seat].remove(move.card)
        if move.capture:
            for c in move.capture:
                nxt.table.remove(c)
            nxt.captured[side] += [move.card, *move.capture]
            nxt.last = seat
            last_play = not nxt.stock and all(not h for h in nxt.hands)
            ace_sweep = (
                self.rules.assi
                and RANK[move.card] == 1
                and not (self.rules.assi_ace_takes_ace and any(RANK[c] == 1 for c in move.capture))
            )
            if (
                not nxt.table
                and (not last_play or self.rules.last_play_scopa)
                and (not ace_sweep or self.rules.assi_sweep_is_scopa)
            ):
                nxt.scope[side] += 1
        elif (
            self.rules.assi
            and RANK[move.card] == 1
            and not nxt.table
            and (self.rules.assi_empty_table == "pile")
        ):
            nxt.captured[side].append(move.card)
        else:
            nxt.table.append(move.card)
        nxt.to_move = (seat + 1) % self.rules.players
        if all(not h for h in nxt.hands):
            if nxt.stock:
                for i in range(3 * self.rules.players):
                    nxt.hands[(nxt.to_move + i) % self.rules.players].append(nxt.stock.pop(0))
            elif nxt.last >= 0:
                nxt.captured[self.rules.side_of(nxt.last)] += nxt.table
                nxt.table = []
        return nxt


# -- measuring -----------------------------------------------------------------------------------


def _engine_deals(rules: Rules, seconds: float, seed: int) -> float:
    """Random deals per CPU second with the engine."""
    pick = random.Random(seed).random
    clock = time.process_time
    deals = 0
    start = clock()
    players = rules.players
    while True:
        deal = Deal.from_deck(rules, deals % players, Game.deck_for(seed, deals))
        moves = deal.legal_moves()
        while moves:
            deal.apply_unchecked(moves[int(pick() * len(moves))])
            moves = deal.legal_moves()
        deal.score()
        deals += 1
        if deals % 16 == 0 and clock() - start >= seconds:
            return deals / (clock() - start)


def _core_loop_deals(rules: Rules, seconds: float, seed: int) -> float:
    """Random deals per CPU second with the compiled core's C loop (0 when it is not built)."""
    compiled = core.compiled
    if compiled is None:
        return 0.0
    clock = time.process_time
    deals = 0
    chunk = 256
    start = clock()
    while True:
        compiled.random_deals(rules, seed + deals, chunk, seed)
        deals += chunk
        if clock() - start >= seconds:
            return deals / (clock() - start)


def _naive_deals(rules: Rules, seconds: float, seed: int) -> float:
    """Random deals per CPU second with the naive engine."""
    pick = random.Random(seed).random
    clock = time.process_time
    deals = 0
    start = clock()
    while True:
        state = NaiveDeal(
            rules, Deal.from_deck(rules, deals % rules.players, Game.deck_for(seed, deals))
        )
        while not state.is_over():
            moves = state.legal_moves()
            state = state.play(moves[int(pick() * len(moves))])
        score_deal(rules, state.captured, state.scope)
        deals += 1
        if deals % 4 == 0 and clock() - start >= seconds:
            return deals / (clock() - start)


def _movegen_us(rules: Rules, deals: int, seed: int, naive: bool, repeat: int = 16) -> float:
    """Microseconds of CPU per legal-move generation over the positions of random deals.

    At every position of the deals, ``repeat`` extra generations are timed on their own (CPU
    time, so other processes on the machine do not count); the cost of reading the clock,
    measured on the same positions with nothing between two reads, is taken off (with 16 calls
    a read, it is a tenth of the figure or less). Timing only the calls keeps the figure free of
    everything else the loop does, and of the other processes of a busy machine.
    """
    clock = time.process_time
    pick = random.Random(seed).random
    positions = 0
    spent = 0.0
    idle = 0.0
    for index in range(deals):
        deal = Deal.from_deck(rules, index % rules.players, Game.deck_for(seed, index))
        state: Deal | NaiveDeal = NaiveDeal(rules, deal) if naive else deal
        while not state.is_over():
            moves = state.legal_moves()
            start = clock()
            for _ in range(repeat):
                state.legal_moves()
            middle = clock()
            idle += clock() - middle
            spent += middle - start
            positions += 1
            move = moves[int(pick() * len(moves))]
            if isinstance(state, NaiveDeal):
                state = state.play(move)
            else:
                state.apply_unchecked(move)
    return max(spent - idle, 0.0) / (repeat * positions) * 1e6


def measure(
    rules: Rules, seconds: float, runs: int, tick: Callable[[], None] | None = None
) -> dict[str, Any]:
    """The figures of one variant: medians over ``runs`` alternating runs.

    ``deals_per_s`` is the pure engine's; ``core_deals_per_s`` the compiled core's through the
    ``Deal`` API and ``core_loop_deals_per_s`` its C loop (0 where the core is not built)."""
    built = core.compiled is not None
    with core.engine("python"):
        _engine_deals(rules, min(seconds, 0.2), seed=0)  # warm the capture memo
    fast: list[float] = []
    api: list[float] = []
    loop: list[float] = []
    slow: list[float] = []
    for run in range(runs):
        with core.engine("python"):
            fast.append(_engine_deals(rules, seconds, seed=run + 1))
        if built:
            with core.engine("core"):
                api.append(_engine_deals(rules, seconds, seed=run + 1))
            loop.append(_core_loop_deals(rules, seconds, seed=run + 1))
        slow.append(_naive_deals(rules, seconds, seed=run + 1))
        if tick:
            tick()
    fast_median = statistics.median(fast)
    slow_median = statistics.median(slow)
    api_median = statistics.median(api) if api else 0.0
    loop_median = statistics.median(loop) if loop else 0.0
    # About seconds/4 of CPU per pass of movegen measurement.
    with core.engine("python"):
        movegen = _movegen_us(rules, max(4, int(fast_median * seconds / 4)), 99, naive=False)
    naive_movegen = _movegen_us(rules, max(2, int(slow_median * seconds / 8)), 99, naive=True)
    return {
        "variant": rules.variant,
        "deals_per_s": round(fast_median, 1),
        "core_deals_per_s": round(api_median, 1),
        "core_loop_deals_per_s": round(loop_median, 1),
        "core_speedup": round(api_median / fast_median, 2),
        "core_loop_speedup": round(loop_median / fast_median, 2),
        "baseline_deals_per_s": round(slow_median, 1),
        "speedup": round(fast_median / slow_median, 2),
        "movegen_us": round(movegen, 3),
        "baseline_movegen_us": round(naive_movegen, 3),
        "runs": runs,
        "deals_per_s_runs": [round(x, 1) for x in fast],
        "core_loop_deals_per_s_runs": [round(x, 1) for x in loop],
        "baseline_deals_per_s_runs": [round(x, 1) for x in slow],
    }


def differential(args: argparse.Namespace) -> int:
    """``arena bench engine --differential N``: both engines on N random deals per rule set."""
    from arena.engine import differential as diff

    if core.compiled is None:
        print("arena bench engine: the compiled core is not built (scripts/setup)", file=sys.stderr)
        return 1
    sets = diff.rule_sets()
    report: list[dict[str, Any]] = []
    start = time.monotonic()
    try:
        for i, summary in enumerate(diff.run(args.differential)):
            report.append(summary)
            if not args.json:
                print(
                    f"[{i + 1}/{len(sets)}] {summary['rules']}: {summary['deals']:,} deals, "
                    f"{summary['positions']:,} positions, identical "
                    f"({time.monotonic() - start:.0f} s)",
                    flush=True,
                )
    except diff.Mismatch as exc:
        print(f"arena bench engine: the engines differ: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"identical": True, "sets": report}, indent=2))
    else:
        print(f"identical on all {len(sets)} rule sets")
    return 0


def run(args: argparse.Namespace) -> int:
    """``arena bench engine``."""
    names = args.variants or list(VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print(
            f"arena bench engine: unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})",
            file=sys.stderr,
        )
        return 1
    if not 0 < args.seconds <= 600 or not 1 <= args.runs <= 100:
        print(
            "arena bench engine: --seconds must be in (0, 600] and --runs in 1..100",
            file=sys.stderr,
        )
        return 1
    if args.differential:
        if not 1 <= args.differential <= 10_000_000:
            print("arena bench engine: --differential must be in 1..10000000", file=sys.stderr)
            return 1
        return differential(args)
    results: list[dict[str, Any]] = []
    if args.json:
        for name in names:
            results.append(measure(rules_for(name), args.seconds, args.runs))
        print(
            json.dumps(
                {
                    "results": results,
                    "clock": "process CPU time, one core",
                    "engine": core.describe(),
                    "python": platform.python_version(),
                    "seconds": args.seconds,
                },
                indent=2,
            )
        )
        return 0

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("measuring", total=len(names) * args.runs)
        for name in names:
            progress.update(task, description=f"measuring {name}")
            results.append(
                measure(
                    rules_for(name), args.seconds, args.runs, tick=lambda: progress.advance(task)
                )
            )
    table = Table(
        title=f"random deals on one core (median of {args.runs} runs of "
        f"{args.seconds:g} CPU s, Python {platform.python_version()})"
    )
    for column in (
        "variant",
        "pure deals/s",
        "core (Deal API)",
        "ratio",
        "core C loop",
        "ratio",
        "naive deals/s",
        "pure/naive",
    ):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for r in results:
        table.add_row(
            r["variant"],
            f"{r['deals_per_s']:,.0f}",
            f"{r['core_deals_per_s']:,.0f}",
            f"{r['core_speedup']:.1f}x",
            f"{r['core_loop_deals_per_s']:,.0f}",
            f"{r['core_loop_speedup']:.1f}x",
            f"{r['baseline_deals_per_s']:,.0f}",
            f"{r['speedup']:.1f}x",
        )
    console.print(table)
    if core.compiled is None:
        console.print("the compiled core is not built (scripts/setup): core columns are 0")
    return 0
