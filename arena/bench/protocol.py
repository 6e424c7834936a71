"""``arena bench protocol``: a turn through the runner beside the raw gRPC round trip.

Every figure comes from the same run, against the same kind of bot process (the echo bot,
:mod:`arena.runner.echo_bot`: raw gRPC, it answers every turn with index 0 at once), started
and sandboxed the same way and reached over the same kind of socket (a unix socket in the
seat's folder):

- the floor: one echo bot process, one bare ``Play`` stream; one ``TurnRequest`` written and
  its ``TurnResponse`` read, over and over. The requests are real turn requests of random
  games, as the runner builds them (observation, legal moves, clock and the ``moves_before``
  the seat would get), so a floor request is the size of a real one. Like the runner's, they
  are encoded before the clock starts and written as bytes. The median round trip;
- the alternating floor: the same bare round trips, but the seats' processes asked in turn,
  as many processes as the game has seats, each request carrying that seat's ``moves_before``.
  In a game each bot sleeps while the others play, so each wakes for its turn: this is what
  a game's turn costs with no arena at all;
- through the runner: :func:`arena.runner.run_match` between echo bots; each turn's round
  trip as the runner's clock measures it (the request written, the answer read and checked);
  and, for context, a game's wall time divided by its decisions (which adds the events of
  deal and game ends, the engine's work, building requests and the replay).

The target (issue: at most 1.3x) is judged against the floor, the single-process ping-pong;
the alternating floor is printed beside it to show what the seats' taking turns costs by
itself. The three measurements are interleaved in rounds, so that other work on the machine
weighs on all of them; medians. Run by hand, not as a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUMMARY = "gRPC round trips per decision, beside a bare round trip"

TARGET_RATIO = 1.3
DEFAULT_VARIANTS = ("scopa", "scopone")

HELP = """\
Measures the per-decision round trip of a turn through the match runner against the raw gRPC
ping-pong floor measured in the same run, for each variant.

floor:              one sandboxed echo bot (raw gRPC, answers at once) over a unix socket; a
                    real turn request (observation, legal moves, clock, moves_before; encoded
                    beforehand and written as bytes, as the runner writes its requests) and its
                    answer read, over and over, on one Play stream.
alternating floor:  the same, with as many bot processes as the game has seats, asked in turn
                    (each wakes from sleep for its turn, as in a game).
runner:             arena.runner.run_match between echo bots; each turn's round trip as the
                    runner measures it (request written, answer read and checked).

The target, at most 1.3x, is judged against the floor (the single-process ping-pong). Rounds of
the three measurements are interleaved; figures are medians.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.description = HELP
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--requests", type=int, default=2000, help="floor round trips per variant, each (2000)"
    )
    parser.add_argument(
        "--games", type=int, default=20, help="games through the runner per variant (20)"
    )
    parser.add_argument(
        "--rounds", type=int, default=10, help="interleaved rounds the work is split into (10)"
    )
    parser.add_argument(
        "--variant",
        action="append",
        default=None,
        help="a variant to measure; repeat for more (default: scopa and scopone)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def sample_requests(variant: str, count: int, seed: int = 1) -> list[list[bytes]]:
    """Serialized ``ArenaMessage`` turn requests of random games, by seat, as the runner sends
    them: each carries, in ``moves_before``, the moves made since that seat's last turn."""
    from arena.engine import Game, rules_for
    from arena.protocol import convert

    rules = rules_for(variant)
    rng = random.Random(seed)
    by_seat: list[list[bytes]] = [[] for _ in range(rules.players)]
    game_seed = seed
    made = 0
    while made < count:
        game = Game(rules, game_seed)
        game_seed += 1
        while not game.is_over() and made < count:
            deal = game.new_deal()
            unsent: list[list[Any]] = [[] for _ in range(rules.players)]
            while not deal.is_over():
                seat = deal.to_move
                legal = deal.legal_moves()
                obs = deal.observation(seat)
                message = convert.turn_request_message(
                    made + 1, obs, legal, 1000, 60_000, unsent[seat]
                )
                unsent[seat] = []
                by_seat[seat].append(message.SerializeToString())
                made += 1
                move = rng.choice(legal)
                deal.apply(move)
                for each in unsent:
                    each.append(convert.move_played(seat, move))
            game.finish_deal(deal)
    return by_seat


async def _floor(addresses: list[str], requests: list[list[bytes]], count: int) -> list[float]:
    """Round trips (ms) of bare ``Play`` streams, one per address, asked in turn.

    With one address: the floor (the first seat's requests, over and over). With one address
    per seat: seat k's process gets seat k's requests, the seats in turn.
    """
    import grpc.aio

    from arena.protocol import bot_pb2
    from arena.runner.link import CHANNEL_OPTIONS, PLAY_METHOD

    channels = [grpc.aio.insecure_channel(a, options=CHANNEL_OPTIONS) for a in addresses]
    calls = []
    for channel in channels:
        await channel.channel_ready()
        # Requests written as the bytes they are, as the runner writes its turn requests.
        play = channel.stream_stream(
            PLAY_METHOD,
            request_serializer=bytes,
            response_deserializer=bot_pb2.TurnResponse.FromString,
        )
        calls.append(play())
    times: list[float] = []
    warm_up = 50
    for i in range(count + warm_up):
        seat = i % len(calls)
        call = calls[seat]
        seat_requests = requests[seat]
        message = seat_requests[(i // len(calls)) % len(seat_requests)]
        start = time.perf_counter()
        await call.write(message)
        await call.read()
        if i >= warm_up:
            times.append((time.perf_counter() - start) * 1000.0)
    for call in calls:
        await call.done_writing()
        try:  # the bot ends its side: the call's status arrives before this loop closes
            await asyncio.wait_for(call.code(), 5.0)
        except TimeoutError:
            call.cancel()
    for channel in channels:
        await channel.close()
    return times


def measure(variant: str, requests: int, games: int, rounds: int = 10) -> dict[str, Any]:
    """The three measurements of one variant, interleaved in ``rounds``."""
    from arena.engine import rules_for
    from arena.runner import BotRef, MatchSpec, run_match, sandbox_available
    from arena.runner.echo_bot import write_folder
    from arena.runner.process import BotProcess
    from arena.runner.sandbox import Limits

    sandboxed = sandbox_available()
    players = rules_for(variant).players
    floor: list[float] = []
    alternating: list[float] = []
    turns: list[float] = []
    walls: list[float] = []
    # Encoded before the timing starts, as the runner encodes each turn request before its
    # clock starts; both write bytes that need no serializing.
    by_seat = sample_requests(variant, 600)
    sizes = [len(message) for seat in by_seat for message in seat]
    per_round = max(1, requests // rounds)
    with tempfile.TemporaryDirectory(prefix="scopa-bench-") as tmp:
        folder = write_folder(Path(tmp) / "echo")
        parsed = BotRef.parse(str(folder))
        bot = BotRef(text=parsed.text, folder=parsed.folder, manifest=parsed.manifest, trusted=True)
        processes = [
            BotProcess(
                label=f"echo-floor-{seat}",
                command=["python", "-m", "arena.runner.echo_bot"],
                folder=folder,
                limits=Limits(),
                sandboxed=sandboxed,
                python=True,
            )
            for seat in range(players)
        ]
        for process in processes:
            process.start()
        addresses = [process.address for process in processes]
        try:
            for round_index in range(rounds):
                floor += asyncio.run(_floor(addresses[:1], by_seat[:1], per_round))
                alternating += asyncio.run(_floor(addresses, by_seat, per_round))
                spec = MatchSpec(
                    [bot, bot],
                    variant,
                    games=max(2, games // rounds),
                    seed=round_index + 1,
                    move_time_ms=5000,
                    sandbox=sandboxed,
                    # The protocol's cost, not the pacing of partners' turns (a policy of
                    # the league's partnership games, measured apart: docs/BENCHMARKS.md).
                    pace_partners=False,
                )
                report = run_match(spec)
                for game in report.games:
                    turns += game.turn_ms
                    if game.moves and not game.faults:  # without the bots' start-up
                        walls.append((game.duration_ms - game.start_ms) / game.moves)
        finally:
            for process in processes:
                process.stop()
    floor_median = statistics.median(floor)
    alternating_median = statistics.median(alternating)
    turn_median = statistics.median(turns)
    wall_median = statistics.median(walls) if walls else float("nan")
    return {
        "variant": variant,
        "seats": players,
        "sandboxed": sandboxed,
        "socket": "unix",
        "rounds": rounds,
        "request_bytes_median": int(statistics.median(sizes)),
        "floor_requests": len(floor),
        "floor_median_ms": round(floor_median, 4),
        "alternating_floor_requests": len(alternating),
        "alternating_floor_median_ms": round(alternating_median, 4),
        "alternating_floor_ratio": round(alternating_median / floor_median, 3),
        "runner_decisions": len(turns),
        "runner_round_trip_median_ms": round(turn_median, 4),
        "ratio": round(turn_median / floor_median, 3),
        "ratio_to_alternating_floor": round(turn_median / alternating_median, 3),
        "target_ratio": TARGET_RATIO,
        "within_target": turn_median / floor_median <= TARGET_RATIO,
        "runner_games": len(walls),
        "runner_wall_median_ms_per_decision": round(wall_median, 4),
        "wall_ratio": round(wall_median / floor_median, 3),
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench protocol``."""
    from arena.engine import VARIANTS

    variants = list(args.variant or DEFAULT_VARIANTS)
    for variant in variants:
        if variant not in VARIANTS:
            print(f"arena bench protocol: unknown variant {variant!r}", file=sys.stderr)
            return 2
    if args.requests < 10 or args.games < 1 or not 1 <= args.rounds <= args.requests:
        print(
            "arena bench protocol: --requests must be >= 10, --games >= 1, --rounds >= 1",
            file=sys.stderr,
        )
        return 2
    results = [measure(v, args.requests, args.games, args.rounds) for v in variants]
    if args.json:
        print(json.dumps({"target_ratio": TARGET_RATIO, "variants": results}, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    where = "sandboxed (bubblewrap)" if results[0]["sandboxed"] else "not sandboxed"
    table = Table(
        title=f"per decision, ms (medians); echo bots {where}, unix socket",
        title_justify="left",
    )
    for column in ("variant", "request", "floor", "alternating", "runner", "x floor", "x alt."):
        table.add_column(column, justify="left" if column == "variant" else "right")
    table.add_column("decision", justify="right")
    for figures in results:
        table.add_row(
            f"{figures['variant']} ({figures['seats']})",
            f"{figures['request_bytes_median']} B",
            f"{figures['floor_median_ms']:.3f}",
            f"{figures['alternating_floor_median_ms']:.3f}",
            f"{figures['runner_round_trip_median_ms']:.3f}",
            f"{figures['ratio']:.2f}",
            f"{figures['ratio_to_alternating_floor']:.2f}",
            f"{figures['runner_wall_median_ms_per_decision']:.3f}",
        )
    console = Console()
    console.print(table)
    console.print(
        "variant (seats); request: median turn request size; floor: one bot process, a real "
        "turn request and its answer, over and over; alternating: the same with one process "
        "per seat asked in turn (each wakes for its turn, as in a game); runner: a turn's round "
        "trip through arena.runner (request written to answer checked); decision: a game's "
        "wall time / its decisions (adds the engine, building requests, the deal and game "
        "events, the replay)."
    )
    for figures in results:
        verdict = "within" if figures["within_target"] else "ABOVE"
        console.print(
            f"{figures['variant']}: a turn through the runner is {figures['ratio']:.2f}x the "
            f"floor, {verdict} the target of {TARGET_RATIO}x (judged against the floor). Bare "
            f"turns alternating between {figures['seats']} bot processes are "
            f"{figures['alternating_floor_ratio']:.2f}x the floor by themselves; the runner's "
            f"turn is {figures['ratio_to_alternating_floor']:.2f}x theirs."
        )
    return 0
