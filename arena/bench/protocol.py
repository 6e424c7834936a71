"""What the arena adds to a gRPC round trip per decision, beside the bare round trip.

Both figures come from the same run, against the same kind of bot process (the echo bot,
:mod:`arena.runner.echo_bot`: it answers every turn at once), sandboxed the same way and
reached over the same kind of socket (a unix socket in the seat's folder):

- the floor: a bare ``Play`` stream, one ``TurnRequest`` (real observations and legal moves of
  random games) written and its ``TurnResponse`` read, over and over; the median round trip
  and, beside it, bare turns the way a game asks them: the seats' processes in turn, each
  after the events it gets (so each bot wakes from sleep, as in a game);
- through the runner: :func:`arena.runner.run_match` between two echo bots; the round trip of
  each turn as the runner's clock measures it (request written, answer read and checked), and,
  beside it, a game's wall time divided by its decisions (which adds every event to every
  seat, the engine's work and the replay); medians.

The target is a round trip of at most 1.3x the floor. The measurements are interleaved in
rounds, so that other work on the machine weighs on both. Run by hand, not as a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 1.3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.add_argument("--requests", type=int, default=3000, help="floor round trips (3000)")
    parser.add_argument("--games", type=int, default=20, help="games through the runner (20)")
    parser.add_argument("--variant", default="scopa", help="variant (scopa)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def sample_requests(variant: str, count: int, seed: int = 1) -> list[Any]:
    """``TurnRequest`` messages of real positions: random games' observations and moves."""
    from arena.engine import Game, rules_for
    from arena.protocol import convert

    rules = rules_for(variant)
    rng = random.Random(seed)
    messages: list[Any] = []
    game_seed = seed
    while len(messages) < count:
        game = Game(rules, game_seed)
        game_seed += 1
        while not game.is_over() and len(messages) < count:
            deal = game.new_deal()
            while not deal.is_over():
                legal = deal.legal_moves()
                obs = deal.observation(deal.to_move)
                messages.append(
                    convert.turn_request_message(len(messages) + 1, obs, legal, 1000, 60_000)
                )
                deal.apply(rng.choice(legal))
            game.finish_deal(deal)
    return messages


async def _floor(addresses: list[str], messages: list[Any], requests: int) -> list[float]:
    """Round trips of bare ``Play`` streams, one per address, asked in turn.

    With one address: a request written and its answer read, over and over (the floor). With
    one per seat: what a game's turn costs without the arena, each seat asked in turn after
    the events it gets (the moves since its last turn).
    """
    import grpc.aio

    from arena.engine import Move
    from arena.protocol import bot_pb2_grpc, convert
    from arena.runner.link import CHANNEL_OPTIONS

    event = convert.move_played_message(0, Move(3, ()))
    events = len(addresses) if len(addresses) > 1 else 0
    channels = [grpc.aio.insecure_channel(a, options=CHANNEL_OPTIONS) for a in addresses]
    calls = []
    for channel in channels:
        await channel.channel_ready()
        calls.append(bot_pb2_grpc.BotStub(channel).Play())
    times: list[float] = []
    warm_up = 100
    for i in range(requests + warm_up):
        call = calls[i % len(calls)]
        for _ in range(events):
            await call.write(event)
        message = messages[i % len(messages)]
        start = time.perf_counter()
        await call.write(message)
        await call.read()
        if i >= warm_up:
            times.append((time.perf_counter() - start) * 1000.0)
    for call in calls:
        await call.done_writing()
        call.cancel()
    for channel in channels:
        await channel.close()
    return times


def measure(requests: int, games: int, variant: str, rounds: int = 5) -> dict[str, Any]:
    """Both measurements, interleaved in ``rounds`` so that a busy machine weighs on both."""
    from arena.runner import BotRef, MatchSpec, run_match, sandbox_available
    from arena.runner.echo_bot import write_folder
    from arena.runner.process import BotProcess
    from arena.runner.sandbox import Limits

    sandboxed = sandbox_available()
    rules_players = 2 if variant in {"scopa", "scopa-assi", "quindici", "scopa-veneta"} else 4
    floor: list[float] = []
    conversation: list[float] = []
    turns: list[float] = []
    walls: list[float] = []
    decisions = 0
    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        folder = write_folder(Path(tmp) / "echo")
        bot = BotRef.parse(str(folder))
        bot = BotRef(text=bot.text, folder=bot.folder, manifest=bot.manifest, trusted=True)
        processes = [
            BotProcess(
                label=f"echo-floor-{seat}",
                command=["python", "-m", "arena.runner.echo_bot"],
                folder=folder,
                limits=Limits(),
                sandboxed=sandboxed,
                python=True,
            )
            for seat in range(rules_players)
        ]
        messages = sample_requests(variant, 500)
        for process in processes:
            process.start()
        addresses = [process.address for process in processes]
        try:
            for round_index in range(rounds):
                per_round = max(1, requests // rounds)
                floor += asyncio.run(_floor(addresses[:1], messages, per_round))
                conversation += asyncio.run(_floor(addresses, messages, per_round))
                spec = MatchSpec(
                    [bot, bot],
                    variant,
                    games=max(2, games // rounds),
                    seed=round_index + 1,
                    move_time_ms=5000,
                    sandbox=sandboxed,
                )
                report = run_match(spec)
                for index, game in enumerate(report.games):
                    turns += game.turn_ms
                    decisions += len(game.turn_ms)
                    if index > 0 and game.moves and not game.faults:  # game 1 starts the bots
                        walls.append(game.duration_ms / game.moves)
        finally:
            for process in processes:
                process.stop()
    floor_median = statistics.median(floor)
    turn_median = statistics.median(turns)
    wall_median = statistics.median(walls)
    conversation_median = statistics.median(conversation)
    return {
        "variant": variant,
        "sandboxed": sandboxed,
        "socket": "unix",
        "rounds": rounds,
        "floor_requests": len(floor),
        "floor_median_ms": round(floor_median, 4),
        "conversation_median_ms": round(conversation_median, 4),
        "conversation_seats": rules_players,
        "conversation_ratio": round(conversation_median / floor_median, 3),
        "ratio_to_conversation": round(turn_median / conversation_median, 3),
        "runner_decisions": decisions,
        "runner_games": len(walls),
        "runner_round_trip_median_ms": round(turn_median, 4),
        "ratio": round(turn_median / floor_median, 3),
        "target_ratio": TARGET_RATIO,
        "runner_wall_median_ms_per_decision": round(wall_median, 4),
        "wall_ratio": round(wall_median / floor_median, 3),
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench protocol``."""
    if args.requests < 10 or args.games < 1:
        print("arena bench protocol: --requests must be >= 10 and --games >= 1")
        return 2
    figures = measure(args.requests, args.games, args.variant)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    where = "sandboxed (bubblewrap)" if figures["sandboxed"] else "not sandboxed"
    table = Table(
        title=f"per decision, {figures['variant']}, echo bot {where}, unix socket",
        title_justify="left",
    )
    table.add_column("measure")
    table.add_column("samples", justify="right")
    table.add_column("median ms", justify="right")
    table.add_column("x floor", justify="right")
    table.add_row(
        "bare gRPC round trip (the floor)",
        str(figures["floor_requests"]),
        f"{figures['floor_median_ms']:.3f}",
        "1.00",
    )
    table.add_row(
        f"bare turns, {figures['conversation_seats']} seats in turn, with their events",
        str(figures["floor_requests"]),
        f"{figures['conversation_median_ms']:.3f}",
        f"{figures['conversation_ratio']:.2f}",
    )
    table.add_row(
        "round trip of a turn through the runner",
        str(figures["runner_decisions"]),
        f"{figures['runner_round_trip_median_ms']:.3f}",
        f"{figures['ratio']:.2f}",
    )
    table.add_row(
        "whole decision: game time / decisions",
        f"{figures['runner_games']} games",
        f"{figures['runner_wall_median_ms_per_decision']:.3f}",
        f"{figures['wall_ratio']:.2f}",
    )
    console = Console()
    console.print(table)
    verdict = "within" if figures["ratio"] <= TARGET_RATIO else "ABOVE"
    console.print(
        f"a turn through the runner: {figures['ratio']:.2f}x the floor ({verdict} the target "
        f"of {TARGET_RATIO}x), {figures['ratio_to_conversation']:.2f}x the same turns without "
        "the arena. A whole decision also writes each seat its events, runs the engine and "
        "records the replay."
    )
    return 0
