"""Games per second through the runner, with sandboxed bot processes, beside the engine alone.

Plays a match between two sample bots (random vs random by default) through
:func:`arena.runner.run_match`, each seat its own sandboxed process over gRPC, and, in the same
run, the same number of games of random moves in this process with the engine alone: the
difference is what processes, the protocol, clocks and replays cost. Also reports how long a
sandboxed bot takes to start (from launch to ``LISTENING``). Run by hand, not as a test.

Each run plays the match twice: as the arena plays it, each game of a duplicate set played by
bot processes that have seen no other game of it (``games_per_second``: new processes for the
first set's later games, then processes resting since an earlier set; see
:class:`arena.runner.seats.Slot`), and as a baseline with the processes reused across a set
(``reused_games_per_second``: the old, unsafe way, which a process of one game of a set knows
the next's hands; only here). ``fresh_over_reused`` is the median over the runs of the ratio
measured within each run; the other figures are the median run's. ``--exec`` adds, per run, the
match with every seat started by ``exec`` (no fork server, no sandbox built ahead: what the
fork server saves), ``--prestart`` one with the next game's seats started whole ahead,
``--new-processes`` one with a new process for every later game of a set and none resting
(the arena before resting processes).

Before the runs, a short match (``--warmup`` games, 4 by default, not counted) pays what a
runner process does once whatever it plays: starting its fork server, writing the package's
bytecode, taking its copies of ``/etc`` and ``/proc``. Without it that cost (about 300 ms, 4%
of a 40-game match here) fell on whichever match the first run played first: the fresh one.

``cpu_ms_per_game`` and ``reused_cpu_ms_per_game`` are the whole host's busy CPU time (from
``/proc/stat``: every process, the kernel's work included) during each match, by game: what a
fresh process per game costs where there is no idle core to hide it on. None where there is no
``/proc/stat``. On a host shared with other work they count that work too:
``own_cpu_ms_per_game`` and ``reused_own_cpu_ms_per_game`` count only the bench's own
processes (the runner, its fork server, the sandboxes and the bots; :func:`own_cpu_ms`), and
are None where that cannot be told.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import dataclasses
import json
import os
import random
import statistics
import time
from pathlib import Path
from typing import Any

SUMMARY = "a whole match between sample bots, and what the arena adds"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    parser.add_argument("--games", type=int, default=40, help="games to play (40)")
    parser.add_argument("--variant", default="scopa", help="variant (scopa)")
    parser.add_argument(
        "--bots", nargs=2, default=["random", "random"], metavar="BOT", help="two sample bots"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs, each fresh and reused (3)")
    parser.add_argument(
        "--prestart",
        action="store_true",
        help="also play each run with the next game's seats started ahead (MatchSpec.prestart)",
    )
    parser.add_argument(
        "--exec",
        action="store_true",
        dest="exec_seats",
        help="also play each run with every seat started by exec, none forked and no sandbox "
        "built ahead (MatchSpec.fork_seats=False: the arena before its fork server)",
    )
    parser.add_argument(
        "--new-processes",
        action="store_true",
        dest="new_processes",
        help="also play each run with a new process for every later game of a set, none "
        "resting (MatchSpec.rest_seats=False: the arena before resting processes)",
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=4,
        metavar="GAMES",
        help="games of a match played first and not counted: the runner's one-time start-up "
        "(4; 0: none)",
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


def host_cpu_ms() -> float | None:
    """The host's busy CPU time so far, in ms (user, nice, system, interrupts; not idle, I/O
    wait or steal), or None where ``/proc/stat`` cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
        ticks = sum(int(fields[index]) for index in (1, 2, 3, 6, 7))
    except (OSError, ValueError, IndexError):
        return None
    return ticks * 1000.0 / os.sysconf("SC_CLK_TCK")


_OWN_GROUP: Path | None = None
_OWN_TRIED = False


def own_cpu_ms() -> float | None:
    """The CPU time so far of this process and everything it started since the first call
    (the runner, its fork server, sandboxes and bots), in ms: what the arena itself spent,
    whatever else the host runs. None where it cannot be told: it needs root and a cgroup v1
    ``cpuacct`` hierarchy of its own (the seats' groups join ``cpu``, ``memory``, ``pids``
    and ``freezer``, not ``cpuacct``), into which the first call moves this process."""
    global _OWN_GROUP, _OWN_TRIED
    if not _OWN_TRIED:
        _OWN_TRIED = True
        _OWN_GROUP = _own_group()
    if _OWN_GROUP is None:
        return None
    try:
        return int((_OWN_GROUP / "cpuacct.usage").read_text()) / 1e6
    except (OSError, ValueError):
        return None


def _own_group() -> Path | None:
    root = Path("/sys/fs/cgroup/cpuacct")
    if os.geteuid() != 0 or root.is_symlink() or not (root / "cpuacct.usage").exists():
        return None  # none, or mounted with cpu (where a seat's group would take its bot)
    group = root / f"arena-bench-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return None

    def remove() -> None:  # this process and what is left of its children go back first
        with contextlib.suppress(OSError):
            for pid in (group / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    (root / "cgroup.procs").write_text(pid)
            group.rmdir()

    atexit.register(remove)
    return group


@dataclasses.dataclass(frozen=True)
class CpuReading:
    """The host's busy CPU (:func:`host_cpu_ms`) and the bench's own (:func:`own_cpu_ms`),
    in ms, each None where it cannot be read."""

    host: float | None
    own: float | None

    @classmethod
    def now(cls) -> CpuReading:
        return cls(host_cpu_ms(), own_cpu_ms())

    def since(self, before: CpuReading, per: int = 1) -> CpuReading:
        """What was used from ``before`` to this reading, divided by ``per``."""

        def spent(after: float | None, start: float | None) -> float | None:
            return None if after is None or start is None else (after - start) / per

        return CpuReading(spent(self.host, before.host), spent(self.own, before.own))


def play(
    games: int,
    variant: str,
    bots: list[str],
    *,
    fresh: bool,
    prestart: bool = False,
    fork: bool = True,
    rest: bool = True,
) -> tuple[Any, float, float | None, float | None]:
    """The report of one match, its seconds, the host's busy CPU ms during it and the CPU ms
    of the bench's own processes (:func:`own_cpu_ms`; None if unknown). ``fresh=False``
    reuses processes in a set, ``prestart`` starts the next game's seats ahead, ``fork=False``
    starts every seat by exec, ``rest=False`` a new process for each later game of a set."""
    from arena.runner import BotRef, MatchSpec, run_match

    spec = MatchSpec(
        [BotRef.parse(bot) for bot in bots],
        variant,
        games=games,
        seed=1,
        move_time_ms=5000,
        fresh_per_game=fresh,
        prestart=prestart,
        fork_seats=fork,
        rest_seats=rest,
    )
    before = CpuReading.now()
    started = time.perf_counter()
    report = run_match(spec)
    seconds = time.perf_counter() - started
    used = CpuReading.now().since(before)
    return report, seconds, used.host, used.own


def measure_runs(
    games: int,
    variant: str,
    bots: list[str],
    runs: int,
    prestart: bool = False,
    exec_seats: bool = False,
    warmup: int = 0,
    new_processes: bool = False,
) -> dict[str, Any]:
    """``runs`` runs of :func:`measure`, the figures of the median one with the medians;
    ``warmup`` games played first, not counted (see the module's notes)."""
    if warmup > 0:
        play(warmup, variant, bots, fresh=True)
    results = [
        measure(
            games,
            variant,
            bots,
            reused_first=index % 2 == 1,
            prestart=prestart,
            exec_seats=exec_seats,
            new_processes=new_processes,
        )
        for index in range(runs)
    ]
    results.sort(key=lambda figures: figures["games_per_second"])
    figures = dict(results[len(results) // 2])
    keys = ["games_per_second", "reused_games_per_second", "fresh_over_reused"]
    for cpu_keys in (
        ["cpu_ms_per_game", "reused_cpu_ms_per_game"],
        ["own_cpu_ms_per_game", "reused_own_cpu_ms_per_game"],
    ):
        if all(result[key] is not None for result in results for key in cpu_keys):
            keys += cpu_keys
    for name, _ in _beside(prestart, exec_seats, new_processes):
        keys += [f"{name}_games_per_second", f"{name}_over_reused"]
    for key in keys:
        figures[key] = round(statistics.median(result[key] for result in results), 2)
    figures["warmup_games"] = warmup
    figures["runs"] = [
        {key: result[key] for key in [*keys, "median_restart_ms"]} for result in results
    ]
    return figures


def _beside(
    prestart: bool, exec_seats: bool, new_processes: bool = False
) -> list[tuple[str, dict[str, bool]]]:
    """The matches asked for beside fresh and reused, by the name of their figures, with the
    options :func:`play` takes for each."""
    asked = [("prestart", {"prestart": True})] if prestart else []
    asked += [("exec", {"fork": False})] if exec_seats else []
    return asked + ([("new_processes", {"rest": False})] if new_processes else [])


def measure(
    games: int,
    variant: str,
    bots: list[str],
    *,
    reused_first: bool = False,
    prestart: bool = False,
    exec_seats: bool = False,
    new_processes: bool = False,
) -> dict[str, Any]:
    """Plays the match as the arena does and with processes reused (in the order asked), with
    seats started ahead, by exec and new for each later game of a set if asked, and the
    engine-only games; returns the figures."""
    from arena.runner import sandbox_available

    extra: dict[str, Any] = {}
    if reused_first:
        reused, reused_total, reused_cpu, reused_own = play(games, variant, bots, fresh=False)
        report, total, cpu, own = play(games, variant, bots, fresh=True)
    else:
        report, total, cpu, own = play(games, variant, bots, fresh=True)
        reused, reused_total, reused_cpu, reused_own = play(games, variant, bots, fresh=False)
    reused_rate = len(reused.games) / reused_total
    for name, options in _beside(prestart, exec_seats, new_processes):
        other, other_total, _, _ = play(games, variant, bots, fresh=True, **options)
        other_rate = len(other.games) / other_total
        extra[f"{name}_games_per_second"] = round(other_rate, 2)
        extra[f"{name}_over_reused"] = round(other_rate / reused_rate, 3)
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
        "reused_games_per_second": round(len(reused.games) / reused_total, 2),
        "fresh_over_reused": round((len(report.games) / total) / reused_rate, 3),
        "decisions_per_second": round(decisions / total, 1),
        "first_game_ms_with_start_up": first,
        "median_game_ms": statistics.median(later) if later else first,
        "median_game_ms_without_start_up": round(statistics.median(played_ms), 1),
        "cpu_ms_per_game": None if cpu is None else round(cpu / len(report.games), 1),
        "reused_cpu_ms_per_game": (
            None if reused_cpu is None else round(reused_cpu / len(reused.games), 1)
        ),
        "own_cpu_ms_per_game": None if own is None else round(own / len(report.games), 1),
        "reused_own_cpu_ms_per_game": (
            None if reused_own is None else round(reused_own / len(reused.games), 1)
        ),
        "restarts": len(restarts),
        "median_restart_ms": round(statistics.median(restarts), 1) if restarts else 0.0,
        "engine_games_per_second": round(len(report.games) / engine_seconds, 1),
        "engine_decisions_per_second": round(engine_decisions / engine_seconds, 1),
        **extra,
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench match``."""
    from arena.runner import BotError

    if args.games < 2:
        print("arena bench match: --games must be at least 2")
        return 2
    if args.runs < 1:
        print("arena bench match: --runs must be at least 1")
        return 2
    if args.warmup < 0:
        print("arena bench match: --warmup cannot be negative")
        return 2
    try:
        figures = measure_runs(
            args.games,
            args.variant,
            args.bots,
            args.runs,
            args.prestart,
            args.exec_seats,
            args.warmup,
            args.new_processes,
        )
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
        "the same, processes reused across a duplicate set (unsafe: bench only)",
        f"{figures['reused_games_per_second']:.1f}",
        "",
    )
    if "exec_games_per_second" in figures:
        table.add_row(
            "fresh processes, every seat started by exec (none forked, nothing ahead)",
            f"{figures['exec_games_per_second']:.1f}",
            "",
        )
    if "prestart_games_per_second" in figures:
        table.add_row(
            "fresh processes, the next game's started ahead (prestart)",
            f"{figures['prestart_games_per_second']:.1f}",
            "",
        )
    if "new_processes_games_per_second" in figures:
        table.add_row(
            "a new process for every later game of a set, none resting",
            f"{figures['new_processes_games_per_second']:.1f}",
            "",
        )
    table.add_row(
        "engine alone, same number of random games (baseline)",
        f"{figures['engine_games_per_second']:.1f}",
        f"{figures['engine_decisions_per_second']:.0f}",
    )
    console = Console()
    console.print(table)
    console.print(
        f"each game of a set by processes that saw no other / reused: "
        f"{figures['fresh_over_reused']:.2f} (median of "
        f"{len(figures['runs'])} runs, each ratio within its run: "
        f"{', '.join(str(run['fresh_over_reused']) for run in figures['runs'])})"
    )
    if "exec_over_reused" in figures:
        console.print(
            f"every seat started by exec / reused: {figures['exec_over_reused']:.2f} (median)"
        )
    if "new_processes_over_reused" in figures:
        console.print(
            f"a new process for every later game of a set / reused: "
            f"{figures['new_processes_over_reused']:.2f} (median)"
        )
    console.print(
        f"median game {figures['median_game_ms']} ms "
        f"({figures['median_game_ms_without_start_up']} ms of play); the first game, with the "
        f"bots' start-up, {figures['first_game_ms_with_start_up']} ms; {figures['faults']} faults"
    )
    console.print(
        f"{figures['restarts']} game{'' if figures['restarts'] == 1 else 's'} started new bot "
        f"processes (those a process resting since an earlier set could not play), "
        f"{figures['median_restart_ms']} ms each (median)"
    )
    if figures.get("cpu_ms_per_game") is not None:
        fresh_cpu, reused_cpu = figures["cpu_ms_per_game"], figures["reused_cpu_ms_per_game"]
        console.print(
            f"the host's busy CPU a game: {fresh_cpu:.0f} ms as the arena plays, "
            f"{reused_cpu:.0f} ms reused ({fresh_cpu - reused_cpu:+.0f} ms, medians)"
        )
    if figures.get("own_cpu_ms_per_game") is not None:
        fresh_own, reused_own = (
            figures["own_cpu_ms_per_game"],
            figures["reused_own_cpu_ms_per_game"],
        )
        console.print(
            f"the arena's own CPU a game (runner, sandboxes, bots): {fresh_own:.0f} ms as the "
            f"arena plays, {reused_own:.0f} ms reused ({fresh_own - reused_own:+.0f} ms)"
        )
    return 0
