"""Training environment speed: random steps per second of ``arena.env`` beside the raw engine.

Plays whole games with a uniformly random legal move at every turn three ways, interleaved in
the same run: the engine alone (``Deal.legal_moves``, ``apply_unchecked``, deals scored and
dealt by ``Game``), the PettingZoo AEC environment as a trainer drives it (``env.last()`` with
the observation vector and the action mask, a random action among the mask's ones,
``env.step``; the legal ids read as ``np.flatnonzero(mask.view(bool))``), once raw and once
wrapped as ``arena.env.env`` returns it, and the single-seat Gymnasium environment against the
in-process random player.  A step is one move of the game.  Times are process CPU time on one
core; each figure is the median of several runs.  The overhead is the engine's steps per
second over the environment's.  Where the compiled core is built, the engine plays on it (the
``Deal`` API), and the figures also hold the core's own C loop of random deals and the vector
environment (:class:`arena.env.vector.VectorScopaEnv`, ``copy=False``, random legal actions
drawn in C) at N = 1, 64 and 1,024 games.  Needs the ``rl`` extra.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

SUMMARY = "the training environment's random steps per second, beside the engine's"

DEFAULT_VARIANTS = ("scopa", "scopone", "quindici")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``arena bench env``."""
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--seconds",
        type=float,
        default=1.0,
        metavar="S",
        help="CPU seconds per measurement (default 1)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        metavar="N",
        help="measurements per figure; the median is reported (default 3)",
    )
    parser.add_argument(
        "--variant",
        action="append",
        metavar="NAME",
        dest="variants",
        help=f"only this variant (repeatable; default: {', '.join(DEFAULT_VARIANTS)})",
    )


def _timed(seconds: float, play_game: Callable[[int], int]) -> float:
    """Steps per CPU second of whole games played until ``seconds`` have passed."""
    clock = time.process_time
    start = clock()
    steps = 0
    game = 0
    while True:
        steps += play_game(game)
        game += 1
        elapsed = clock() - start
        if elapsed >= seconds:
            return steps / elapsed


def engine_game(variant: str) -> Callable[[int], int]:
    """One random game on the engine alone; returns its moves."""
    from arena.engine import Game, rules_for

    rules = rules_for(variant)

    def play(seed: int) -> int:
        pick = random.Random(seed).random
        game = Game(rules, seed)
        steps = 0
        while not game.is_over():
            deal = game.new_deal()
            while not deal.is_over():
                moves = deal.legal_moves()
                deal.apply_unchecked(moves[int(pick() * len(moves))])
                steps += 1
            game.finish_deal(deal)
        return steps

    return play


def aec_game(variant: str, wrapped: bool) -> Callable[[int], int]:
    """One random game through the AEC environment, as a trainer's loop drives it."""
    import numpy as np

    from arena import env as scopa_env

    env = scopa_env.env(variant) if wrapped else scopa_env.raw_env(variant)
    flatnonzero = np.flatnonzero

    def play(seed: int) -> int:
        pick = random.Random(seed).random
        env.reset(seed=seed)
        steps = 0
        for _agent in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = flatnonzero(observation["action_mask"].view(bool))
            env.step(int(legal[int(pick() * len(legal))]))
            steps += 1
        return steps

    return play


def seat_game(variant: str) -> Callable[[int], int]:
    """One random game of the single-seat environment against the random player."""
    import numpy as np

    from arena import env as scopa_env

    env = scopa_env.SeatEnv(variant, opponent="random")

    def play(seed: int) -> int:
        pick = random.Random(seed).random
        observation, _ = env.reset(seed=seed)
        done = False
        while not done:
            legal = np.flatnonzero(observation["action_mask"].view(bool))
            observation, _, done, _, _ = env.step(int(legal[int(pick() * len(legal))]))
        assert env.aec.game is not None
        # Every seat's moves: each deal plays every card but the starting table's.
        return env.aec.game.deal_index * (40 - env.rules.table_size)

    return play


def core_loop(variant: str) -> Callable[[int], int]:
    """256 random deals in the compiled core's C loop; returns their moves."""
    from arena.engine import core, rules_for

    compiled = core.compiled
    assert compiled is not None
    rules = rules_for(variant)

    def play(seed: int) -> int:
        moves: int = compiled.random_deals(rules, seed, 256, seed + 1)[0]
        return moves

    return play


def vector_steps(variant: str, n: int) -> Callable[[int], int]:
    """64 steps of the vector environment of ``n`` games; returns the steps (moves) made."""
    from arena.env.vector import VectorScopaEnv

    env = VectorScopaEnv(variant, num_envs=n, copy=False)
    env.reset(seed=1)

    def play(seed: int) -> int:
        for _ in range(64):
            env.step(env.sample_actions())
        return 64 * n

    return play


VECTOR_SIZES = (1, 64, 1024)


def measure(
    variant: str, seconds: float, runs: int, tick: Callable[[], None] | None = None
) -> dict[str, Any]:
    """The figures of one variant: medians over ``runs`` interleaved runs."""
    from arena.engine import core

    players = {
        "engine": engine_game(variant),
        "aec_raw": aec_game(variant, wrapped=False),
        "aec_wrapped": aec_game(variant, wrapped=True),
        "seat_env": seat_game(variant),
    }
    if core.compiled is not None:
        players["core_loop"] = core_loop(variant)
        for n in VECTOR_SIZES:
            players[f"vector_{n}"] = vector_steps(variant, n)
    for play in players.values():  # warm the capture memo and the action tables
        _timed(min(seconds, 0.2), play)
    figures: dict[str, list[float]] = {name: [] for name in players}
    for _ in range(runs):
        for name, play in players.items():
            figures[name].append(_timed(seconds, play))
        if tick:
            tick()
    medians = {name: statistics.median(values) for name, values in figures.items()}
    engine = medians["engine"]
    extra = {
        f"{name}_steps_per_s": round(medians[name])
        for name in ("core_loop", *(f"vector_{n}" for n in VECTOR_SIZES))
        if name in medians
    }
    return {
        "variant": variant,
        "engine": core.backend(),
        **extra,
        "engine_steps_per_s": round(engine),
        "aec_raw_steps_per_s": round(medians["aec_raw"]),
        "aec_wrapped_steps_per_s": round(medians["aec_wrapped"]),
        "seat_env_steps_per_s": round(medians["seat_env"]),
        "aec_raw_overhead": round(engine / medians["aec_raw"], 2),
        "aec_wrapped_overhead": round(engine / medians["aec_wrapped"], 2),
        "seat_env_overhead": round(engine / medians["seat_env"], 2),
        "runs": {name: [round(v) for v in values] for name, values in figures.items()},
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench env``."""
    try:
        import arena.env  # noqa: F401
    except ImportError as exc:
        print(f"arena bench env: {exc}", file=sys.stderr)
        return 1
    from arena.engine import VARIANTS

    names = args.variants or list(DEFAULT_VARIANTS)
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        print(
            f"arena bench env: unknown variant {unknown[0]!r} (known: {', '.join(VARIANTS)})",
            file=sys.stderr,
        )
        return 1
    if not 0 < args.seconds <= 600 or not 1 <= args.runs <= 100:
        print(
            "arena bench env: --seconds must be in (0, 600] and --runs in 1..100", file=sys.stderr
        )
        return 1
    results: list[dict[str, Any]] = []
    if args.json:
        results = [measure(name, args.seconds, args.runs) for name in names]
        print(
            json.dumps(
                {
                    "results": results,
                    "clock": "process CPU time, one core",
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
                measure(name, args.seconds, args.runs, tick=lambda: progress.advance(task))
            )
    table = Table(
        title=f"random steps per CPU second, one core (median of {args.runs} runs of "
        f"{args.seconds:g} s, Python {platform.python_version()})"
    )
    for column in (
        "variant",
        "engine",
        "AEC raw",
        "overhead",
        "AEC env()",
        "overhead",
        "SeatEnv",
        "overhead",
    ):
        table.add_column(column, justify="left" if column == "variant" else "right")
    for r in results:
        table.add_row(
            r["variant"],
            f"{r['engine_steps_per_s']:,}",
            f"{r['aec_raw_steps_per_s']:,}",
            f"{r['aec_raw_overhead']:.1f}x",
            f"{r['aec_wrapped_steps_per_s']:,}",
            f"{r['aec_wrapped_overhead']:.1f}x",
            f"{r['seat_env_steps_per_s']:,}",
            f"{r['seat_env_overhead']:.1f}x",
        )
    console.print(table)
    if "core_loop_steps_per_s" in results[0]:
        vector = Table(title="the compiled core: its C loop and the vector environment")
        for column in ("variant", "core C loop", *(f"vector N={n}" for n in VECTOR_SIZES)):
            vector.add_column(column, justify="left" if column == "variant" else "right")
        for r in results:
            vector.add_row(
                r["variant"],
                f"{r['core_loop_steps_per_s']:,}",
                *(f"{r[f'vector_{n}_steps_per_s']:,}" for n in VECTOR_SIZES),
            )
        console.print(vector)
    console.print(
        f"A step is one move; the engine is the {results[0]['engine']} engine; the overhead is "
        "the engine's steps per second over the environment's (observation vector, action "
        "mask and checks included)."
    )
    return 0
