"""``arena bench export``: the games as a data set, measured: ``arena games download`` of every
stored game from the site served as in production, and what it costs the site's other pages.

Fills a throwaway PostgreSQL database (``arena_bench_export``; or ``--database-url``) with
``--games`` games whose replays are real engine-played games, as ``arena bench site`` does
(:func:`webui.bench.site.fill`), serves the site with its production configuration (gunicorn,
behind nginx unless ``--no-nginx``; :class:`webui.serving.ProductionServer`), and times:

- the download: ``arena games download`` of every game, a page of ``--page-size`` at a time
  (the site's per-client limit raised so that one client is not throttled: the figure is the
  site's own speed), its size on disk and per game;
- the latency of another page (``--page``, default the leaderboard) from a second client
  requesting it one at a time, first with the site idle (the baseline, measured in the same
  run) and then while the download runs: p50, p95, and their ratios;
- reading the file back: :func:`arena.sdk.games.read_games` over every game, and
  :meth:`~arena.sdk.games.ExportedGame.decisions` over the first 1,000.

Not a test: run it by hand. ``--keep`` keeps the filled database for the next run.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

SUMMARY = "the games download: time, size, and the latency of another page beside it"

BENCH_DB = "arena_bench_export"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench export``."""
    parser.add_argument(
        "--games", type=int, default=100_000, metavar="N", help="stored games (default 100000)"
    )
    parser.add_argument(
        "--bots", type=int, default=40, metavar="N", help="bots, one version each (default 40)"
    )
    parser.add_argument(
        "--page-size",
        type=int,
        default=2000,
        metavar="N",
        help="games per page of the download (default 2000, the site's most)",
    )
    parser.add_argument(
        "--page",
        default="/variants/scopa/",
        metavar="PATH",
        help="the other page timed beside the download (default the leaderboard)",
    )
    parser.add_argument(
        "--baseline-requests",
        type=int,
        default=200,
        metavar="N",
        help="requests of that page with the site idle (default 200)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        metavar="URL",
        help=f"the database to fill (default: a scratch database {BENCH_DB!r} at 127.0.0.1:5432)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the filled database (and reuse it next time)"
    )
    parser.add_argument("--no-nginx", action="store_true", help="gunicorn alone, no nginx")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _configure(args: argparse.Namespace, data_dir: Path) -> tuple[str, bool]:
    """Points Django at the bench database; returns its URL and whether it is ours to drop."""
    from webui.bench.site import bench_database

    return bench_database(
        args.database_url,
        args.keep,
        BENCH_DB,
        data_dir,
        sqlite_fallback=False,
        ARENA_EXPORT_PAGES_PER_MINUTE="100000",
        ARENA_EXPORT_MAX_LIMIT=str(args.page_size),
    )


class Prober:
    """A second client: requests one page one at a time, each latency kept, until stopped."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times_ms: list[float] = []
        self.errors = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def once(self, connection: Any, path: str) -> None:
        start = time.perf_counter()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except OSError:
            ok = False
        if ok:
            self.times_ms.append((time.perf_counter() - start) * 1000)
        else:
            self.errors += 1

    def run(self, count: int | None = None) -> None:
        import http.client
        from urllib.parse import urlsplit

        parts = urlsplit(self.url)
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
        done = 0
        while not self._stop.is_set() and (count is None or done < count):
            self.once(connection, parts.path or "/")
            done += 1
        connection.close()

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def figures(self) -> dict[str, float]:
        ordered = sorted(self.times_ms)
        if not ordered:
            return {"requests": 0, "p50": float("nan"), "p95": float("nan")}
        return {
            "requests": len(ordered),
            "errors": self.errors,
            "p50": round(statistics.median(ordered), 2),
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
            "max": round(ordered[-1], 2),
        }


def run(args: argparse.Namespace) -> int:
    """``arena bench export``."""
    if args.games < 1 or args.bots < 2 or args.page_size < 1:
        print("error: --games and --page-size must be positive and --bots at least 2")
        return 2
    from rich.console import Console

    console = Console(stderr=True)
    data_dir = Path(tempfile.mkdtemp(prefix="arena-bench-export-"))
    url, ours = _configure(args, data_dir)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    from django.db import connection

    from arena.cli import main as arena_main
    from arena.sdk.games import read_games
    from webui.bench.site import fill
    from webui.league.models import Game
    from webui.serving import ProductionServer, free_port

    result: dict[str, Any] = {}
    try:
        stored = Game.objects.count()
        fill_s = 0.0
        if stored < args.games:
            if stored:
                console.print(
                    f"error: the database holds {stored} games, fewer than "
                    f"{args.games}; run without --keep to start afresh"
                )
                return 2
            console.print(f"storing {args.games:,} games ...")
            start = time.perf_counter()
            fill(args.games, args.bots, lambda done: None)
            fill_s = time.perf_counter() - start
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        stored = Game.objects.count()
        connection.close()
        out = data_dir / "games.jsonl.gz"
        with ProductionServer(port=free_port(), nginx=not args.no_nginx) as server:
            idle = Prober(server.url + args.page)
            idle.run(10)  # warm-up
            idle = Prober(server.url + args.page)
            idle.run(args.baseline_requests)
            busy = Prober(server.url + args.page)
            busy.start()
            console.print(f"downloading {stored:,} games ...")
            start = time.perf_counter()
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = arena_main(
                    [
                        "games",
                        "download",
                        server.url,
                        "-o",
                        str(out),
                        "--page-size",
                        str(args.page_size),
                        "--rated",
                        "any",
                        "--json",
                    ]
                )
            download_s = time.perf_counter() - start
            busy.stop()
        if code != 0:
            console.print(f"error: arena games download exited {code}")
            return 1
        start = time.perf_counter()
        read = sum(1 for _ in read_games(out))
        read_s = time.perf_counter() - start
        start = time.perf_counter()
        decisions = 0
        for k, game in enumerate(read_games(out)):
            if k >= 1000:
                break
            decisions += sum(1 for _ in game.decisions())
        decisions_s = time.perf_counter() - start
        size = out.stat().st_size
        base, load = idle.figures(), busy.figures()
        result = {
            "database": "PostgreSQL" if url.startswith("postgres") else "SQLite",
            "games": stored,
            "fill_s": round(fill_s, 1),
            "server": "gunicorn" if args.no_nginx else "gunicorn behind nginx",
            "page_size": args.page_size,
            "download_s": round(download_s, 2),
            "games_per_s": round(stored / download_s),
            "file_bytes": size,
            "bytes_per_game": round(size / max(1, stored), 1),
            "read_games_s": round(read_s, 2),
            "games_read": read,
            "decisions_first_1000_games": decisions,
            "decisions_per_s": round(decisions / decisions_s) if decisions_s else None,
            "page": args.page,
            "page_idle": base,
            "page_during_download": load,
            "p50_ratio": round(load["p50"] / base["p50"], 2) if base["p50"] else None,
            "p95_ratio": round(load["p95"] / base["p95"], 2) if base["p95"] else None,
        }
    finally:
        connection.close()
        shutil.rmtree(data_dir, ignore_errors=True)  # the download: ~1.5 kB a game
        if ours and not args.keep:
            from webui.bench.site import _admin_sql

            _admin_sql(f"DROP DATABASE IF EXISTS {BENCH_DB}")
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(
        f"{result['games']:,} games on {result['database']} ({result['server']}), pages of "
        f"{result['page_size']}:"
    )
    print(
        f"  download   {result['download_s']} s ({result['games_per_s']:,} games/s), "
        f"{result['file_bytes'] / 1e6:.1f} MB ({result['bytes_per_game']} bytes a game)"
    )
    print(
        f"  read back  {result['read_games_s']} s for every game; "
        f"{result['decisions_per_s']:,} decisions/s walked (first 1,000 games)"
    )
    print(
        f"  {args.page}: idle p50 {base['p50']} ms p95 {base['p95']} ms; during the "
        f"download p50 {load['p50']} ms p95 {load['p95']} ms "
        f"({result['p50_ratio']}x, {result['p95_ratio']}x)"
    )
    return 0
