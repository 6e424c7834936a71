"""Strength benchmark: a sample bot against another over duplicate deals (run by hand).

Each deck is played twice with the sides swapped, so the luck of the cards cancels: the bot
under test (``--bot``: informed, ismcts, greedy) sits in seats 0 and 2 for one play and in 1
and 3 for the other, the opponent (``--opponent``) in the rest. Both policies run in-process
(no gRPC), one deck per task over a pool of worker processes. Prints a table: deals, deal
wins/draws/losses for the bot, win rate with a 95% Wilson interval, average points per deal of
each side, and the average time per move of the bot; Ctrl-C stops it with the figures of the
decks played so far. Not a test: nothing is asserted.

    python benchmarks/strength.py --bot informed --opponent greedy --variant scopone \
        --deals 400 --iterations 1000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.engine import Deal, Game, Move, Observation, needs_redeal, rules_for  # noqa: E402
from sample_bots.greedy.policy import choose_move as greedy_move  # noqa: E402
from sample_bots.informed import search as informed  # noqa: E402
from sample_bots.ismcts import search as ismcts  # noqa: E402

BOTS = ("informed", "ismcts", "greedy")
Policy = Callable[[Observation, Sequence[Move]], Move]
PlayerSpec = tuple[str, "informed.SearchConfig | ismcts.SearchConfig | None"]


def policy_for(spec: PlayerSpec) -> Policy:
    """The in-process policy of a bot name and its search configuration."""
    name, config = spec
    if isinstance(config, informed.SearchConfig):
        informed_config = config
        return lambda obs, legal: informed.search(obs, legal, informed_config).move
    if isinstance(config, ismcts.SearchConfig):
        ismcts_config = config
        return lambda obs, legal: ismcts.search(obs, legal, ismcts_config).move
    if name == "greedy":
        return greedy_move
    raise ValueError(f"no policy for bot {name!r}")


@dataclass(frozen=True)
class DealOutcome:
    """One play of one deck: the points of each team and the bot's thinking time."""

    deck_index: int
    bot_side: int
    bot_points: int
    opponent_points: int
    moves: int
    seconds: float


def deck_for(variant: str, seed: int, index: int) -> list[int]:
    """The ``index``-th deck of the set, redealt as the rules require."""
    rules = rules_for(variant)
    dealer = index % rules.players
    attempt = 0
    while True:
        deck = Game.deck_for(seed, index, attempt)
        if not needs_redeal(rules, Deal.from_deck(rules, dealer, deck).table):
            return deck
        attempt += 1


def play_deck(task: tuple[str, int, int, PlayerSpec, PlayerSpec]) -> list[DealOutcome]:
    """Plays one deck twice, the bot as side 0 then as side 1."""
    variant, seed, index, bot_spec, opponent_spec = task
    bot, opponent = policy_for(bot_spec), policy_for(opponent_spec)
    rules = rules_for(variant)
    deck = deck_for(variant, seed, index)
    outcomes = []
    for bot_side in (0, 1):
        deal = Deal.from_deck(rules, index % rules.players, deck)
        moves, seconds = 0, 0.0
        while not deal.is_over():
            seat = deal.to_move
            legal = deal.legal_moves()
            obs = deal.observation(seat)
            if rules.side_of(seat) == bot_side:
                began = time.perf_counter()
                move = bot(obs, legal)
                seconds += time.perf_counter() - began
                moves += 1
            else:
                move = opponent(obs, legal)
            deal.apply(move)
        points = [p["total"] for p in deal.score().points]
        outcomes.append(
            DealOutcome(index, bot_side, points[bot_side], points[1 - bot_side], moves, seconds)
        )
    return outcomes


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(outcomes: list[DealOutcome], wall: float) -> dict[str, Any]:
    """The figures of the table, JSON-ready."""
    n = len(outcomes)
    wins = sum(1 for o in outcomes if o.bot_points > o.opponent_points)
    draws = sum(1 for o in outcomes if o.bot_points == o.opponent_points)
    losses = n - wins - draws
    moves = sum(o.moves for o in outcomes)
    by_deck: dict[int, int] = {}
    for o in outcomes:
        by_deck[o.deck_index] = by_deck.get(o.deck_index, 0) + o.bot_points - o.opponent_points
    pair_wins = sum(1 for d in by_deck.values() if d > 0)
    pair_draws = sum(1 for d in by_deck.values() if d == 0)
    low, high = wilson(wins, n)
    decisive = wins + losses
    return {
        "deals": n,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / n if n else 0.0,
        "win_rate_95": [low, high],
        "score_rate": (wins + draws / 2) / n if n else 0.0,
        "decisive_win_rate": wins / decisive if decisive else 0.0,
        "bot_points_per_deal": sum(o.bot_points for o in outcomes) / n if n else 0.0,
        "opponent_points_per_deal": sum(o.opponent_points for o in outcomes) / n if n else 0.0,
        "duplicate_pairs": len(by_deck),
        "pair_wins": pair_wins,
        "pair_draws": pair_draws,
        "ms_per_move": 1000 * sum(o.seconds for o in outcomes) / moves if moves else 0.0,
        "wall_seconds": wall,
    }


def player_spec(
    name: str, iterations: int | None, seconds: float | None, args: argparse.Namespace
) -> PlayerSpec:
    """A bot and its search budget; the search options of ``args`` tune the bot under test."""
    budget: dict[str, Any] = {
        "iterations": None if seconds else iterations,
        "time_limit": seconds,
        "seed": args.seed,
    }
    tuning = {
        key: value
        for key, value in (
            ("exploration", args.exploration),
            ("rollout_epsilon", args.epsilon),
            ("margin_weight", args.margin),
        )
        if value is not None
    }
    if name == "informed":
        for key in ("mode", "inference", "inference_weak", "rollout", "expansion", "endgame"):
            if getattr(args, key) is not None:
                tuning[key] = getattr(args, key)
        return name, informed.SearchConfig(**budget, **tuning)
    if name == "ismcts":
        return name, ismcts.SearchConfig(**budget, **tuning)
    return name, None


def ignore_interrupts() -> None:
    """In a worker: Ctrl-C is the parent's to handle (it reports the decks played so far)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def describe(spec: PlayerSpec) -> str:
    """A bot and its budget and options, for the table's title: ``informed (1000 rollouts)``."""
    name, config = spec
    if config is None:
        return name
    budget = (
        f"{config.time_limit * 1000:.0f} ms"
        if config.time_limit
        else f"{config.iterations} {'rollouts' if name == 'informed' else 'iterations'}"
    )
    if isinstance(config, informed.SearchConfig):
        extra = (
            f", {config.mode}, inference {config.inference}/{config.inference_weak}, "
            f"{config.rollout} rollouts, {config.expansion} expansion, endgame {config.endgame}"
        )
        return f"{name} ({budget}{extra})"
    return f"{name} ({budget})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", choices=BOTS, default="informed", help="the bot under test")
    parser.add_argument("--opponent", choices=BOTS, default="greedy")
    parser.add_argument("--deals", type=int, default=400, help="deals, even (default 400)")
    parser.add_argument("--variant", default="scopone")
    parser.add_argument("--iterations", type=int, default=1000, help="the bot's budget a move")
    parser.add_argument("--time", type=float, default=None, help="the bot's seconds a move")
    parser.add_argument("--opponent-iterations", type=int, default=1000)
    parser.add_argument("--opponent-time", type=float, default=None)
    search = parser.add_argument_group("the search of the bot under test (default: its own)")
    search.add_argument("--mode", choices=("flat", "tree"), default=None, help="informed")
    search.add_argument("--inference", type=float, default=None, help="informed; 1.0: off")
    search.add_argument("--inference-weak", type=float, default=None, help="informed; 1.0: off")
    search.add_argument("--rollout", choices=("sweep", "greedy"), default=None, help="informed")
    search.add_argument("--expansion", choices=("random", "policy"), default=None, help="informed")
    search.add_argument(
        "--endgame", type=int, default=None, help="informed: cards left to solve exactly"
    )
    search.add_argument("--exploration", type=float, default=None)
    search.add_argument("--epsilon", type=float, default=None, help="rollout epsilon")
    search.add_argument("--margin", type=float, default=None, help="margin share of the reward")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.deals < 2 or args.deals % 2:
        print("strength: --deals must be an even number >= 2", file=sys.stderr)
        return 2
    bot = player_spec(args.bot, args.iterations, args.time, args)
    plain = argparse.Namespace(
        **{
            **vars(args),
            **dict.fromkeys(
                (
                    "mode",
                    "inference",
                    "inference_weak",
                    "rollout",
                    "expansion",
                    "endgame",
                    "exploration",
                    "epsilon",
                    "margin",
                )
            ),
        }
    )
    opponent = player_spec(args.opponent, args.opponent_iterations, args.opponent_time, plain)
    tasks = [(args.variant, args.seed, i, bot, opponent) for i in range(args.deals // 2)]
    outcomes: list[DealOutcome] = []
    began = time.perf_counter()
    from rich.console import Console
    from rich.progress import Progress

    interrupted = False
    with (
        Progress(console=Console(stderr=True), transient=True) as progress,
        multiprocessing.Pool(args.workers, initializer=ignore_interrupts) as pool,
    ):
        bar = progress.add_task("duplicate deals", total=args.deals)
        try:
            for pair in pool.imap_unordered(play_deck, tasks):
                outcomes.extend(pair)
                progress.advance(bar, len(pair))
        except KeyboardInterrupt:  # Ctrl-C: the figures of the decks played so far
            interrupted = True
    figures = summarize(outcomes, time.perf_counter() - began)
    figures["interrupted"] = interrupted
    figures["bot"] = describe(bot)
    figures["opponent"] = describe(opponent)
    figures["variant"] = args.variant
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    from rich.table import Table

    title = f"{figures['bot']} vs {figures['opponent']}, duplicate {args.variant} deals"
    table = Table(title=title)
    columns = ("deals", "W/D/L", "win rate", "95% interval", "score", "pts/deal", "pairs W/D/L")
    for column in (*columns, "ms/move"):
        table.add_column(column, justify="right", no_wrap=True)
    low, high = figures["win_rate_95"]
    pairs = figures["duplicate_pairs"]
    table.add_row(
        str(figures["deals"]),
        f"{figures['wins']}/{figures['draws']}/{figures['losses']}",
        f"{figures['win_rate']:.1%}",
        f"{low:.1%}-{high:.1%}",
        f"{figures['score_rate']:.1%}",
        f"{figures['bot_points_per_deal']:.2f}-{figures['opponent_points_per_deal']:.2f}",
        f"{figures['pair_wins']}/{figures['pair_draws']}/"
        f"{pairs - figures['pair_wins'] - figures['pair_draws']}",
        f"{figures['ms_per_move']:.0f}",
    )
    console = Console(width=None if sys.stdout.isatty() else 120)
    console.print(table)
    console.print(
        f"win rate: deals the bot's side won outright; score: wins + draws/2; "
        f"decisive deals only: {figures['decisive_win_rate']:.1%}; "
        f"wall {figures['wall_seconds']:.0f} s on {args.workers} worker(s)"
    )
    if interrupted:
        console.print(f"interrupted: {figures['deals']} of {args.deals} deals played")
    return 0


if __name__ == "__main__":
    sys.exit(main())
