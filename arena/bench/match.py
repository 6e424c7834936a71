"""Games per second through the runner, with sandboxed bot processes, beside the engine alone.

Plays a match between two sample bots (random vs random by default) through
:func:`arena.runner.run_match`, each seat its own sandboxed process over gRPC, and, in the same
run, the same number of games of random moves in this process with the engine alone: the
difference is what processes, the protocol, clocks and replays cost. Also reports how long a
sandboxed bot takes to start (from launch to ``LISTENING``). Run by hand, not as a test.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

SUMMARY = "a whole match between sample bots, and what the arena adds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.add_argument("--games", type=int, default=40, help="games to play (40)")
    parser.add_argument("--variant", default="scopa", help="variant (scopa)")
    parser.add_argument(
        "--bots", nargs=2, default=["random", "random"], metavar="BOT", help="two sample bots"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def engine_games(variant: str, games: int, seed: int = 1) -> tuple[float, int]:
    """Seconds to play ``games`` random games with the engine alone, and their decisions."""
    from arena.engine import Game, rules_for

    rules = rules_for(variant)
    pick = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for index in range(games):
        game = Game(rules, seed + index)
        while not game.is_over():
            deal = game.new_deal()
            while not deal.is_over():
                legal = deal.legal_moves()
                deal.observation(deal.to_move)  # what a seat is sent
                deal.apply_unchecked(pick.choice(legal))
                decisions += 1
            game.finish_deal(deal)
    return time.perf_counter() - start, decisions


def measure(games: int, variant: str, bots: list[str]) -> dict[str, Any]:
    """Plays the match and the engine-only games; returns the figures."""
    from arena.runner import BotRef, MatchSpec, run_match, sandbox_available

    spec = MatchSpec(
        [BotRef.parse(bot) for bot in bots], variant, games=games, seed=1, move_time_ms=5000
    )
    started = time.perf_counter()
    report = run_match(spec)
    total = time.perf_counter() - started
    played = [game for game in report.games if game.void is None]
    decisions = sum(game.moves for game in played)
    first = report.games[0].duration_ms if report.games else 0
    later = [game.duration_ms for game in report.games[1:]]
    played_ms = [game.duration_ms - game.start_ms for game in report.games]
    restarts = [game.start_ms for game in report.games[1:] if game.start_ms >= 1.0]
    engine_seconds, engine_decisions = engine_games(variant, len(report.games))
    return {
        "variant": variant,
        "bots": report.labels,
        "sandboxed": sandbox_available(),
        "games": len(report.games),
        "faults": sum(len(game.faults) for game in report.games),
        "seconds": round(total, 3),
        "games_per_second": round(len(report.games) / total, 2),
        "decisions_per_second": round(decisions / total, 1),
        "first_game_ms_with_start_up": first,
        "median_game_ms": statistics.median(later) if later else first,
        "median_game_ms_without_start_up": round(statistics.median(played_ms), 1),
        "restarts": len(restarts),
        "median_restart_ms": round(statistics.median(restarts), 1) if restarts else 0.0,
        "engine_games_per_second": round(len(report.games) / engine_seconds, 1),
        "engine_decisions_per_second": round(engine_decisions / engine_seconds, 1),
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench match``."""
    from arena.runner import BotError

    if args.games < 2:
        print("arena bench match: --games must be at least 2")
        return 2
    try:
        figures = measure(args.games, args.variant, args.bots)
    except (BotError, ValueError) as error:
        print(f"arena bench match: {error}")
        return 2
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    where = "sandboxed (bubblewrap)" if figures["sandboxed"] else "not sandboxed"
    table = Table(
        title=f"{' vs '.join(figures['bots'])}, {figures['variant']}, {where}",
        title_justify="left",
    )
    table.add_column("measure")
    table.add_column("games/s", justify="right")
    table.add_column("decisions/s", justify="right")
    table.add_row(
        f"through the runner ({figures['games']} games, {figures['seconds']} s)",
        f"{figures['games_per_second']:.1f}",
        f"{figures['decisions_per_second']:.0f}",
    )
    table.add_row(
        "engine alone, same number of random games (baseline)",
        f"{figures['engine_games_per_second']:.1f}",
        f"{figures['engine_decisions_per_second']:.0f}",
    )
    console = Console()
    console.print(table)
    console.print(
        f"median game {figures['median_game_ms']} ms "
        f"({figures['median_game_ms_without_start_up']} ms of play); the first game, with the "
        f"bots' start-up, {figures['first_game_ms_with_start_up']} ms; {figures['faults']} faults"
    )
    console.print(
        f"{figures['restarts']} games started fresh bot processes (each game of a duplicate set "
        f"after the first), {figures['median_restart_ms']} ms each (median)"
    )
    return 0
