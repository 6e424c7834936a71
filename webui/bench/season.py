"""``arena bench season``: matches per minute on Celery workers, and the queue's own overhead.

Plays the same round-robin of sample bots (random and greedy versions) with one and with two
local worker processes, then the same season of *empty* matches (claimed, leased, recorded,
rated and scheduled like real ones, but with no game played), which is what the queue and the
data layer cost per match. Prints the figures beside each other, with the runner's own time per
match (the play itself) as the baseline.

By default it runs on a throwaway SQLite database with the embedded broker; ``--database-url``
and ``--broker-url`` point it at PostgreSQL and Redis. It loads Django only when it runs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SUMMARY = "scheduling and recording a season"

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench season``."""
    parser.add_argument(
        "--entrants",
        type=int,
        default=6,
        metavar="N",
        help="entrants in the round-robin (default 6: 15 matches)",
    )
    parser.add_argument(
        "--games", type=int, default=2, metavar="N", help="games per match (default 2)"
    )
    parser.add_argument(
        "--target",
        type=int,
        default=11,
        metavar="POINTS",
        help="game target (default 11, the standard game)",
    )
    parser.add_argument(
        "--workers",
        default="1,2",
        metavar="LIST",
        help="worker process counts to measure (default 1,2)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        metavar="URL",
        help="a database to use (default: SQLite in a temporary folder)",
    )
    parser.add_argument(
        "--broker-url",
        default=None,
        metavar="URL",
        help="a broker (default: the embedded filesystem broker)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="give up on a season after this long, showing what the workers "
        "logged (default: 60 s plus 30 s a pairing)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


class SeasonStalled(RuntimeError):
    """A measured season did not finish: its workers died or it passed its deadline."""


def _configure(args: argparse.Namespace, data_dir: Path) -> dict[str, str]:
    env = {
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_QUEUE": f"arena-bench-{os.getpid()}",
        "ARENA_SANDBOX": "auto",
        "ARENA_MATCH_LEASE_S": "10",
    }
    if args.database_url:
        env["ARENA_DATABASE_URL"] = args.database_url
    if args.broker_url:
        env["ARENA_BROKER_URL"] = args.broker_url
    for key in ("ARENA_DATABASE_URL", "ARENA_BROKER_URL"):
        if key not in env:
            os.environ.pop(key, None)
    os.environ.update(env)
    os.environ["DJANGO_SETTINGS_MODULE"] = "webui.settings"
    return env


def _entrants(count: int) -> list[Any]:
    from django.contrib.auth.models import User

    from webui.league.models import Bot
    from webui.league.versions import create_bot, register_version

    owner, _ = User.objects.get_or_create(username="bench")
    versions = []
    for i in range(count):
        sample = ("random", "greedy")[i % 2]
        name = f"bench-{sample}-{i + 1}"
        bot = Bot.objects.filter(name=name).first() or create_bot(owner, name)
        version, _ = register_version(
            bot,
            sha256=f"{i + 1:064x}",
            manifest={"name": sample},
            source_dir=str(SAMPLES / sample),
            validate=False,
        )
        versions.append(version)
    return versions


def _season(args: argparse.Namespace, label: str, entrants: list[Any], pool: Any) -> dict[str, Any]:
    from webui.league import seasons, variants

    season = seasons.create_season(
        name=f"bench {label} {time.time():.3f}",
        variant=variants.get_variant("scopa", {"target": args.target}),
        entrants=entrants,
        games_per_pairing=args.games,
        move_time_ms=2000,
        bank_ms=30_000,
        seed=1,
    )
    pairings = len(entrants) * (len(entrants) - 1) // 2
    timeout_s = args.timeout if args.timeout is not None else 60.0 + 30.0 * pairings

    def watch(done: int, scheduled: int) -> None:
        if pool.processes and all(p.poll() is not None for p in pool.processes):
            codes = ", ".join(str(p.returncode) for p in pool.processes)
            raise SeasonStalled(
                f"every worker exited (exit codes {codes}) with {done} of {scheduled} matches done"
            )

    started = time.perf_counter()
    try:
        seasons.run_season(
            season,
            poll_s=0.05,
            sweep_every_s=5.0,
            grace_s=30.0,
            timeout_s=timeout_s,
            progress=watch,
        )
    except TimeoutError as error:
        raise SeasonStalled(str(error)) from error
    elapsed = time.perf_counter() - started
    matches = list(season.matches.all())
    plays = [m.duration_ms or 0 for m in matches]
    return {
        "season": label,
        "matches": len(matches),
        "seconds": round(elapsed, 3),
        "matches_per_minute": round(len(matches) / elapsed * 60, 1),
        "wall_ms_per_match": round(elapsed / len(matches) * 1000, 1),
        "play_ms_median": statistics.median(plays),
    }


def _measure(
    args: argparse.Namespace,
    env: dict[str, str],
    workers: int,
    empty: bool,
    entrants: list[Any],
    log_dir: Path,
) -> dict[str, Any]:
    from webui.local_workers import LocalWorkers

    label = f"{'empty' if empty else 'played'}, {workers} worker{'s' if workers > 1 else ''}"
    worker_env = {**env, "ARENA_BENCH_EMPTY_MATCHES": "1" if empty else "0"}
    pool = LocalWorkers(
        workers,
        env=worker_env,
        log_dir=log_dir,
        loglevel="INFO",
        prefix="empty" if empty else "played",
    )
    pool.start()
    try:
        # A two-entrant warm-up: the workers are up and connected before the clock starts.
        _season(args, f"warm-up {label}", entrants[:2], pool)
        row = _season(args, label, entrants, pool)
    finally:
        pool.stop()
    row["workers"] = workers
    row["empty"] = empty
    return row


def run(args: argparse.Namespace) -> int:
    """Runs the benchmark and prints its table (or JSON)."""
    try:
        counts = [int(part) for part in args.workers.split(",") if part.strip()]
    except ValueError:
        print(f"arena bench season: --workers {args.workers!r}: a list like 1,2", file=sys.stderr)
        return 2
    if not counts or min(counts) < 1 or args.entrants < 2 or args.games < 1:
        print(
            "arena bench season: need --workers >= 1, --entrants >= 2 and --games >= 1",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        env = _configure(args, Path(tmp))
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", interactive=False, verbosity=0)
        entrants = _entrants(args.entrants)
        log_dir = Path(tmp) / "logs"
        try:
            rows = [_measure(args, env, n, False, entrants, log_dir) for n in counts]
            rows.append(_measure(args, env, 1, True, entrants, log_dir))
        except SeasonStalled as error:
            print(f"arena bench season: {error}", file=sys.stderr)
            _print_logs(log_dir)
            return 1
    empty = rows[-1]
    baseline = rows[0]
    if args.json:
        print(json.dumps({"rows": rows, "queue_overhead_ms_per_match": empty["wall_ms_per_match"]}))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"season of {args.entrants} entrants ({rows[0]['matches']} matches, "
        f"{args.games} games each, target {args.target})"
    )
    for column in ("run", "matches/min", "ms/match", "play ms", "speed-up"):
        table.add_column(column, justify="left" if column == "run" else "right", no_wrap=True)
    for row in rows:
        table.add_row(
            row["season"],
            f"{row['matches_per_minute']:.1f}",
            f"{row['wall_ms_per_match']:.0f}",
            f"{row['play_ms_median']:.0f}",
            f"{row['matches_per_minute'] / baseline['matches_per_minute']:.2f}x",
        )
    console = Console()
    console.print(table)
    console.print(
        "ms/match: wall time per match; play ms: the runner's own time per match (median); "
        "speed-up: against the first row."
    )
    console.print(
        f"queue overhead per match (empty match, 1 worker): {empty['wall_ms_per_match']:.0f} ms, "
        f"{empty['wall_ms_per_match'] / baseline['wall_ms_per_match'] * 100:.0f}% of a played "
        "match's wall time"
    )
    return 0


def _print_logs(log_dir: Path, size: int = 4000) -> None:
    """The end of each worker's log, on standard error: what a stalled season's workers said."""
    for log in sorted(log_dir.glob("*.log")):
        text = log.read_bytes()[-size:].decode(errors="replace")
        print(f"--- {log.name} (last {size} bytes) ---\n{text}", file=sys.stderr)
