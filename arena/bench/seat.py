"""``arena bench seat``: what one fresh seat costs, forked, beside the same seat by ``exec``.

Every game of a duplicate set after the first is played by fresh bot processes, so a seat's
restart is paid once a game or so (``arena bench match`` shows it in games per second, where
the whole host's noise swings a ratio by a tenth from run to run). This bench takes one seat of
a sample bot through its restart cycle alone, over and over: made ready ahead (sandbox built,
bot forked in, confined, waiting; :meth:`arena.runner.process.BotProcess.prepare`), started,
asked ``Describe`` over a new channel, stopped. Beside it, in the same run and interleaved in
rounds, the same cycle with the seat started by ``exec`` (no fork server, nothing made ready
ahead: the arena before its fork server), the baseline.

For each way it reports the whole host's busy CPU a cycle (``/proc/stat``: every process and the
kernel's work, which is what a restart takes from the games being played beside it), the wall
time a cycle, and the start a game waits for (from the start to ``Describe`` answered: what
lies on a game's path when its seats were made ready ahead); medians of the rounds. Needs the
sandbox (root and bubblewrap). Run by hand, not as a test. Beside the host's CPU,
``own_cpu_ms``: the CPU of the bench's own processes only
(:func:`arena.bench.match.own_cpu_ms`), which other work on a shared host does not move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

SUMMARY = "one seat's restart cycle, forked, beside the same seat by exec"

WAYS = ("forked", "exec")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.add_argument("--bot", default="random", help="a sample bot (random)")
    parser.add_argument("--cycles", type=int, default=30, help="cycles a round, each way (30)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each way (3)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _seat(bot: str, fork: bool) -> Any:
    from arena.runner import BotRef
    from arena.runner.match import default_limits
    from arena.runner.process import BotProcess

    ref = BotRef.parse(bot)
    assert ref.folder is not None and ref.manifest is not None
    return BotProcess(
        label=f"bench-{'forked' if fork else 'exec'}",
        command=list(ref.manifest.command),
        folder=ref.folder,
        limits=default_limits(40, 60_000),
        sandboxed=True,
        python=True,
        fork=fork,
    )


async def _describe(address: str) -> None:
    from arena.runner.link import BotLink

    link = BotLink(address)
    try:
        await link.describe(10.0)
    finally:
        await link.close()


def cycles(process: Any, count: int, loop: asyncio.AbstractEventLoop) -> dict[str, float | None]:
    """``count`` restart cycles of ``process``: the host's busy CPU (None without
    ``/proc/stat``) and the wall time a cycle (ms), and the median start to ``Describe``
    answered (ms). Raises what a start raises."""
    from arena.bench.match import CpuReading

    starts = []
    before = CpuReading.now()
    began = time.perf_counter()
    for _ in range(count):
        process.prepare()  # False by exec: its start does it all
        started = time.perf_counter()
        process.start({"SCOPA_BOT_SEED": "1"})
        loop.run_until_complete(_describe(process.address))
        starts.append((time.perf_counter() - started) * 1000.0)
        process.stop()
    wall = (time.perf_counter() - began) * 1000.0 / count
    used = CpuReading.now().since(before, count)
    return {
        "cpu_ms": used.host,
        "own_cpu_ms": used.own,
        "wall_ms": wall,
        "start_ms": statistics.median(starts),
    }


def measure(bot: str, count: int, rounds: int) -> dict[str, Any]:
    """The figures: for each way, the medians of ``rounds`` rounds of ``count`` cycles (the
    ways interleaved, after one warm-up cycle each), and each round's."""
    from arena.runner import sandbox_available

    if not sandbox_available():
        raise RuntimeError("the sandbox (root and bubblewrap) is not available here")
    seats = {way: _seat(bot, way == "forked") for way in WAYS}
    loop = asyncio.new_event_loop()
    results: dict[str, list[dict[str, float | None]]] = {way: [] for way in WAYS}
    try:
        for way in WAYS:  # each way's one-time costs (the fork server, copies) paid first
            cycles(seats[way], 1, loop)
        for index in range(rounds):
            order = WAYS if index % 2 == 0 else WAYS[::-1]
            for way in order:
                results[way].append(cycles(seats[way], count, loop))
    finally:
        for process in seats.values():
            process.close()
        loop.close()
    figures: dict[str, Any] = {"bot": bot, "cycles": count, "rounds": rounds}
    for way in WAYS:
        for key in ("cpu_ms", "own_cpu_ms", "wall_ms", "start_ms"):
            values = [result[key] for result in results[way]]
            known = [value for value in values if value is not None]
            figures[f"{way}_{key}"] = (
                round(statistics.median(known), 1) if len(known) == len(values) else None
            )
        figures[f"{way}_rounds"] = [
            {key: None if value is None else round(value, 1) for key, value in result.items()}
            for result in results[way]
        ]
    forked, by_exec = figures["forked_cpu_ms"], figures["exec_cpu_ms"]
    figures["forked_over_exec_cpu"] = (
        round(forked / by_exec, 3) if forked is not None and by_exec else None
    )
    return figures


def run(args: argparse.Namespace) -> int:
    """``arena bench seat``."""
    from arena.runner import BotError, HostError
    from arena.runner.process import StartError

    if args.cycles < 1 or args.rounds < 1:
        print("arena bench seat: --cycles and --rounds must be at least 1")
        return 2
    try:
        figures = measure(args.bot, args.cycles, args.rounds)
    except (BotError, HostError, StartError, RuntimeError, ValueError) as error:
        print(f"arena bench seat: {error}")
        return 2
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"one seat of {figures['bot']}, {figures['cycles']} restart cycles a round, "
        f"medians of {figures['rounds']} rounds",
        title_justify="left",
    )
    table.add_column("started")
    table.add_column("host CPU a cycle", justify="right")
    table.add_column("own CPU a cycle", justify="right")
    table.add_column("wall a cycle", justify="right")
    table.add_column("start to Describe", justify="right")
    labels = {"forked": "forked, made ready ahead (the arena)", "exec": "by exec (baseline)"}

    def ms(value: float | None) -> str:
        return "unknown" if value is None else f"{value:.1f} ms"

    for way in WAYS:
        table.add_row(
            labels[way],
            ms(figures[f"{way}_cpu_ms"]),
            ms(figures[f"{way}_own_cpu_ms"]),
            ms(figures[f"{way}_wall_ms"]),
            ms(figures[f"{way}_start_ms"]),
        )
    console = Console()
    console.print(table)
    if figures["forked_over_exec_cpu"] is not None:
        console.print(f"host CPU, forked / exec: {figures['forked_over_exec_cpu']:.2f}")
    return 0
