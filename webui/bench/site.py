"""``arena bench site``: response times of the leaderboard, a bot page and a replay page with
100,000 stored games.

Fills a throwaway database (PostgreSQL when it answers at 127.0.0.1:5432, else SQLite; or
``--database-url``) in bulk: bots, seasons of round-robin cycles, matches, games whose replays
are real engine-played games, ratings with their full history (synthetic trajectories: the
numbers do not matter here, the row counts do). Then requests each page through Django's full
request path (middleware, views, templates, queries; no network) and prints p50/p95 per page,
beside a baseline page that runs no query at all, measured in the same run.

``--concurrency N`` measures the real thing instead: the site served with its production
configuration (gunicorn with ``webui/gunicorn_conf.py`` behind nginx, :mod:`webui.serving`) on
the same database, and N concurrent clients over HTTP (:mod:`webui.bench.site_load`): p50, p95,
errors and 5xx answers per page, beside ``/healthz`` measured under the same load. ``--crowd``
then sends them over every page at once while the ladder plays and records results on a real
worker, a third of them watching (``/tv/``, its feed, and the live board of the match it
features, as their pages poll them). With
``--hostile N`` the crowd runs again while N threads upload hostile archives (a dotted-key and
a deep-array ``bot.toml``, a tree of nested folders: :mod:`webui.bench.site_uploads`; the
server's upload limits raised so that every one is checked), and ``/healthz``'s p95 is printed
beside the quiet crowd's, with their ratio. Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import socket
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from arena.engine.replay import Replay

SUMMARY = "page and API response times"

TARGET_P95_MS = 50.0
BENCH_DB = "arena_bench_site"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
LIVE_WAIT_S = 120.0
"""How long ``--crowd`` waits for the ladder's first match to be played before it starts."""
DEEP_PAGE = 200
"""The page of a long list the bench reads beside its first (20 games a page: a bot's 4,000th
game; a shorter list: four fifths of the way down)."""
SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench site``."""
    parser.add_argument(
        "--games", type=int, default=100_000, metavar="N", help="stored games (default 100000)"
    )
    parser.add_argument(
        "--bots", type=int, default=40, metavar="N", help="bots, one version each (default 40)"
    )
    parser.add_argument(
        "--requests",
        type=int,
        default=200,
        metavar="N",
        help="timed requests per page (default 200)",
    )
    parser.add_argument(
        "--database-url",
        default=None,
        metavar="URL",
        help="the database to fill (default: a scratch PostgreSQL database "
        f"{BENCH_DB!r} at 127.0.0.1:5432 when it answers, else SQLite)",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the filled database (and reuse it next time)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help="N concurrent HTTP clients against the production server "
        "(gunicorn behind nginx) instead of in-process requests",
    )
    parser.add_argument(
        "--no-nginx",
        action="store_true",
        help="with --concurrency: gunicorn alone, no nginx in front",
    )
    parser.add_argument(
        "--crowd",
        action="store_true",
        help="with --concurrency: also a mixed crowd while the ladder plays on a real "
        "worker: a third of the clients on /tv/ and the live board it features, the others "
        "over every page at once",
    )
    parser.add_argument(
        "--hostile",
        type=int,
        default=0,
        metavar="N",
        help="with --concurrency: the crowd again while N threads send hostile uploads "
        "(dotted-key and deep-array manifests, deep folders); /healthz p95 beside the quiet "
        "crowd's",
    )
    parser.add_argument(
        "--hostile-scale",
        type=float,
        default=1.0,
        metavar="F",
        help="the hostile archives at F of their full size, 0 < F <= 1 (default 1)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="with --concurrency: measure N times against the same server and "
        "report each figure's median and spread (default 1)",
    )
    parser.add_argument(
        "--cache-url",
        default=None,
        metavar="URL",
        help="the Redis of the site's shared caches (default: "
        "redis://127.0.0.1:6379/0 when it answers, under a key prefix of the "
        "run's own, removed at the end; 'none': files in the data folder)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _postgres_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1.0):
            return True
    except OSError:
        return False


def _admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres", autocommit=True) as conn:
        conn.execute(statement.encode())


def bench_database(
    database_url: str | None,
    keep: bool,
    name: str,
    data_dir: Path,
    *,
    sqlite_fallback: bool = True,
    **environ: str,
) -> tuple[str, bool]:
    """Points Django at a bench's database: ``database_url``, else a scratch PostgreSQL
    database ``name`` (emptied first unless ``keep``), else, without PostgreSQL and with
    ``sqlite_fallback``, a SQLite file in ``data_dir``; ``environ`` adds settings. Returns the
    URL and whether the database is the bench's own to drop."""
    ours = False
    url = database_url
    if url is None:
        if not sqlite_fallback or _postgres_answers():
            url = f"postgresql://postgres@127.0.0.1:5432/{name}"
            ours = True
            if not keep:
                _admin_sql(f"DROP DATABASE IF EXISTS {name}")
            try:
                _admin_sql(f"CREATE DATABASE {name}")
            except Exception as error:  # it exists (kept from a previous --keep run)
                if "already exists" not in str(error):
                    raise
        else:
            url = f"sqlite:///{data_dir / 'bench.sqlite3'}"
    os.environ.update(
        ARENA_DATABASE_URL=url,
        ARENA_DATA_DIR=str(data_dir),
        ARENA_HTTPS="0",
        ARENA_DEBUG="0",
        ARENA_ALLOWED_HOSTS="testserver,localhost,127.0.0.1",
        DJANGO_SETTINGS_MODULE="webui.settings",
        **environ,
    )
    os.environ.pop("ARENA_BROKER_URL", None)
    return url, ours


def _redis_answers(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or 6379), timeout=1.0
        ):
            return True
    except OSError:
        return False


def _configure(args: argparse.Namespace, data_dir: Path) -> tuple[str, bool]:
    """Points Django at the bench database and the shared caches (the site's Redis, under a
    prefix of this run's own); returns the database's URL and whether it is ours to drop."""
    environ: dict[str, Any] = {"ARENA_LADDER_VARIANTS": "scopa"}
    cache_url = args.cache_url
    if cache_url is None and args.concurrency is not None and _redis_answers(DEFAULT_REDIS):
        cache_url = DEFAULT_REDIS
    if cache_url and cache_url != "none":
        environ["ARENA_CACHE_URL"] = cache_url
        environ["ARENA_BROKER_PREFIX"] = f"arena-bench-site-{os.getpid()}-"
    return bench_database(args.database_url, args.keep, BENCH_DB, data_dir, **environ)


def _forget_cached() -> None:
    """Removes this run's keys from the shared Redis (its prefix's)."""
    url = os.environ.get("ARENA_CACHE_URL")
    prefix = os.environ.get("ARENA_BROKER_PREFIX", "")
    if not url or not prefix.startswith("arena-bench-site-"):
        return
    import redis

    client = redis.Redis.from_url(url)
    for key in client.scan_iter(match=f"*{prefix}*", count=1000):
        client.delete(key)


def _replay_pool(count: int) -> list[Replay]:
    from webui.web.sampledata import engine_replay

    return [
        engine_replay("scopa", seed, ["a", "b"], greedy_seats=frozenset({seed % 2}))
        for seed in range(count)
    ]


def _insert(
    table: str, columns: list[str], types: list[str], rows: list[tuple[Any, ...]], extra: str = ""
) -> None:
    """Inserts many rows: one ``unnest`` of arrays on PostgreSQL, ``executemany`` elsewhere."""
    from django.db import connection

    if not rows:
        return
    names = ", ".join(f'"{c}"' for c in columns)  # quoted: "index" is a keyword in SQLite
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            arrays = ", ".join(f"%s::{t}[]" for t in types)
            cursor.execute(
                f"INSERT INTO {table} ({names}) SELECT * FROM unnest({arrays})",
                [list(column) for column in zip(*rows, strict=True)],
            )
        else:
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)


def _insert_games(rows: list[tuple[Any, ...]], pool: list[str], variant_id: int) -> None:
    """Inserts games whose replays are copies of the pool's (with their own player labels).

    On PostgreSQL the replay is copied inside the database from a temporary table, so 100,000
    games of real replays are stored in seconds instead of streaming gigabytes of JSON.
    """
    from django.db import connection

    columns = (
        'match_id, "index", variant_id, replay, seats, players, totals, winner_side, '
        "winner_entrant, void, faults, duration_ms, created, rating_seq"
    )
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "CREATE TEMP TABLE IF NOT EXISTS bench_pool (k int PRIMARY KEY, replay jsonb)"
            )
            cursor.execute("SELECT count(*) FROM bench_pool")
            if cursor.fetchone()[0] == 0:
                for k, text in enumerate(pool):
                    cursor.execute("INSERT INTO bench_pool VALUES (%s, %s::jsonb)", [k, text])
            cursor.execute(
                f"INSERT INTO league_game ({columns}) "
                "SELECT u.m, u.i, %s, jsonb_set(p.replay, '{players}', "
                "jsonb_build_array(u.l0, u.l1)), u.seats::jsonb, u.players::jsonb, "
                "u.totals::jsonb, u.w, u.we, '', '[]'::jsonb, 1500, now(), u.seq "
                "FROM unnest(%s::bigint[], %s::int[], %s::text[], %s::text[], %s::text[], "
                "%s::text[], %s::text[], %s::int[], %s::int[], %s::bigint[], %s::int[]) "
                "AS u(m, i, l0, l1, seats, players, totals, w, we, seq, k) "
                "JOIN bench_pool p ON p.k = u.k",
                [variant_id, *[list(c) for c in zip(*rows, strict=True)]],
            )
        else:
            out = []
            for m, i, l0, l1, seats, players, totals, w, we, seq, k in rows:
                replay = json.loads(pool[k])
                replay["players"] = [l0, l1]
                out.append(
                    (
                        m,
                        i,
                        variant_id,
                        json.dumps(replay),
                        seats,
                        players,
                        totals,
                        w,
                        we,
                        "",
                        "[]",
                        1500,
                        time.strftime("%Y-%m-%d %H:%M:%S"),
                        seq,
                    )
                )
            marks = ", ".join(["%s"] * 14)
            cursor.executemany(f"INSERT INTO league_game ({columns}) VALUES ({marks})", out)


def fill(games: int, bots: int, progress: Any) -> dict[str, int]:
    """Bulk-stores ``games`` games between ``bots`` bots, with ratings and their history."""
    from django.contrib.auth.models import User
    from django.db import transaction

    from webui.league import variants
    from webui.league.models import (
        Bot,
        BotVersion,
        Game,
        Match,
        Rating,
        Round,
        Season,
        SeasonEntrant,
    )

    pick = random.Random(1)
    owner = User.objects.create_user("bench")
    variant = variants.get_variant("scopa")
    with transaction.atomic():
        bot_rows = Bot.objects.bulk_create(
            Bot(owner=owner, name=f"bot-{i:03d}", description="benchmark bot") for i in range(bots)
        )
        versions = BotVersion.objects.bulk_create(
            BotVersion(
                bot=b,
                number=1,
                sha256=f"{i:064x}",
                manifest={"name": b.name},
                source_dir="sample_bots/random",
                status=BotVersion.Status.READY,
            )
            for i, b in enumerate(bot_rows)
        )
    labels = [v.label for v in versions]
    pairs = [(a, b) for a in range(bots) for b in range(a + 1, bots)]
    matches_needed = math.ceil(games / 2)
    seasons = math.ceil(matches_needed / len(pairs))
    pool = [json.dumps(r) for r in _replay_pool(24)]
    strength = [pick.gauss(25, 4) for _ in range(bots)]
    history: list[list[tuple[int, float, float]]] = [[] for _ in range(bots)]
    mu = [25.0] * bots
    made_games = 0
    seq = 0
    summary = json.dumps({"wins": [1, 1], "points": [22, 22], "games": 2})
    for s in range(seasons):
        with transaction.atomic():
            season = Season.objects.create(
                name=f"Bench season {s + 1}",
                variant=variant,
                status=Season.Status.FINISHED,
                games_per_pairing=2,
            )
            SeasonEntrant.objects.bulk_create(
                SeasonEntrant(season=season, version=v, number=i + 1)
                for i, v in enumerate(versions)
            )
            rnd = Round.objects.create(season=season, number=1, status=Round.Status.DONE)
            created = time.strftime("%Y-%m-%d %H:%M:%S+00")
            todo = pairs[: min(len(pairs), matches_needed - s * len(pairs))]
            _insert(
                "league_match",
                [
                    "round_id",
                    "season_id",
                    "variant_id",
                    "kind",
                    "rated",
                    "priority",
                    "created",
                    "pairing",
                    "board",
                    "status",
                    "seed",
                    "games_planned",
                    "claim_token",
                    "claimed_by",
                    "attempts",
                    "summary",
                    "error",
                ],
                [
                    "bigint",
                    "bigint",
                    "bigint",
                    "text",
                    "boolean",
                    "int",
                    "timestamptz",
                    "text",
                    "int",
                    "text",
                    "bigint",
                    "int",
                    "text",
                    "text",
                    "int",
                    "jsonb",
                    "text",
                ],
                [
                    (
                        rnd.pk,
                        season.pk,
                        variant.pk,
                        "season",
                        True,
                        0,
                        created,
                        f"{a + 1}-{b + 1}",
                        k,
                        "done",
                        k,
                        2,
                        "",
                        "",
                        1,
                        summary,
                        "",
                    )
                    for k, (a, b) in enumerate(todo)
                ],
            )
            match_ids = list(
                Match.objects.filter(season=season).order_by("board").values_list("id", flat=True)
            )
            seats, game_rows = [], []
            for match_id, (a, b) in zip(match_ids, todo, strict=True):
                seats += [(match_id, 0, versions[a].pk, 0), (match_id, 1, versions[b].pk, 1)]
                for index in range(2):
                    if made_games >= games:
                        break
                    order = (a, b) if index == 0 else (b, a)
                    p_first = 1 / (1 + math.exp((strength[order[1]] - strength[order[0]]) / 4))
                    winner = 0 if pick.random() < p_first else 1
                    loser_points = pick.randint(2, 10)
                    totals = [11, loser_points] if winner == 0 else [loser_points, 11]
                    seq += 1
                    game_rows.append(
                        (
                            match_id,
                            index,
                            labels[order[0]],
                            labels[order[1]],
                            "[0, 1]" if index == 0 else "[1, 0]",
                            json.dumps([versions[e].pk for e in order]),
                            json.dumps(totals),
                            winner,
                            (index + winner) % 2,
                            seq,
                            made_games % len(pool),
                        )
                    )
                    for e in order:
                        won = order[winner] == e
                        mu[e] += (0.6 if won else -0.6) * 8 / math.sqrt(len(history[e]) + 8)
                        sigma = max(0.8, 8.333 / math.sqrt(1 + len(history[e]) / 4))
                        history[e].append((seq, mu[e], sigma))
                    made_games += 1
            _insert(
                "league_matchseat",
                ["match_id", "index", "version_id", "side"],
                ["bigint", "int", "bigint", "int"],
                seats,
            )
            _insert_games(game_rows, pool, variant.pk)
        progress(made_games)
    game_ids = dict(Game.objects.filter(variant=variant).values_list("rating_seq", "id"))
    with transaction.atomic():
        ratings = Rating.objects.bulk_create(
            Rating(
                variant=variant,
                key=f"v:{v.pk}",
                version=v,
                mu=h[-1][1],
                sigma=h[-1][2],
                conservative=h[-1][1] - 3 * h[-1][2],
                games=len(h),
                wins=len(h) // 2,
                losses=len(h) - len(h) // 2,
            )
            for v, h in zip(versions, history, strict=True)
            if h
        )
        now = time.strftime("%Y-%m-%d %H:%M:%S+00")
        rows = [
            (r.pk, game_ids[sq], sq, m, sg, m - 3 * sg, now)
            for r, h in zip(ratings, (h for h in history if h), strict=True)
            for sq, m, sg in h
        ]
        for start in range(0, len(rows), 50_000):
            _insert(
                "league_ratinghistory",
                ["rating_id", "game_id", "seq", "mu", "sigma", "conservative", "created"],
                ["bigint", "bigint", "bigint", "float8", "float8", "float8", "timestamptz"],
                rows[start : start + 50_000],
            )
    # The bulk writes above go around the league's writes: build the read models from them,
    # as an operator does after a restore.
    from webui.league import read_models

    read_models.recompute_reads()
    return {
        "games": made_games,
        "matches": Match.objects.count(),
        "bots": bots,
        "seasons": seasons,
        "rating_history": len(rows),
    }


def _time_page(client: Any, urls: list[str], requests: int, before: Any = None) -> dict[str, float]:
    """Milliseconds per request over ``requests`` requests cycling through ``urls``."""
    for url in urls[:5]:  # warm-up: connections, template caches
        client.get(url)
    times = []
    for i in range(requests):
        url = urls[i % len(urls)]
        if before is not None:
            before(url)
        start = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
    times.sort()
    return {
        "p50": statistics.median(times),
        "p95": times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)],
        "max": times[-1],
    }


def _queries(client: Any, url: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(url)
    return len(captured.captured_queries)


def _sample_urls() -> tuple[list[str], list[int], int | None]:
    """The bots with most games, 50 random games and the first season: what pages show."""
    from django.db.models import Count

    from webui.league.models import Bot, Game, Season

    pick = random.Random(2)
    bots = list(
        Bot.objects.annotate(n=Count("versions__match_seats"))
        .order_by("-n")
        .values_list("name", flat=True)[:10]
    )
    last = Game.objects.order_by("-id").values_list("id", flat=True).first() or 1
    games = [pick.randint(1, last) for _ in range(50)]
    season = Season.objects.order_by("id").values_list("id", flat=True).first()
    return bots, games, season


def measure(requests: int) -> list[dict[str, Any]]:
    """Times each page; returns one row per page."""
    from django.core.cache import cache, caches
    from django.test import Client

    client = Client()
    bots, games, season = _sample_urls()
    if season is None:
        raise RuntimeError("the bench database holds no season")
    deep = deep_cursors(bots, season)
    pages = [
        ("baseline: the deck page (no query)", ["/cards/"], None),
        ("leaderboard", ["/variants/scopa/"], None),
        ("bot page (most games first)", [f"/bots/{b}/" for b in bots], None),
        ("bot page, nothing cached", [f"/bots/{b}/" for b in bots], lambda url: cache.clear()),
        ("replay page", [f"/games/{g}/" for g in games], None),
        (
            "bot games, wins, from page 200 on (API)",
            [f"/api/bots/{b}/games?result=win&after={deep['bots'][b]}" for b in bots],
            None,
        ),
        (
            "bot games, against one bot (API)",
            [
                f"/api/bots/{b}/games?opponent={bots[-1] if b != bots[-1] else bots[0]}"
                for b in bots
            ],
            None,
        ),
        ("season live progress (API)", [f"/api/seasons/{season}/live"], None),
        ("home page (for information)", ["/"], None),
        ("season page, 780 matches (for information)", [f"/seasons/{season}/"], None),
        (
            "replay frames, computed (no cache)",
            [f"/api/games/{g}/frames" for g in games],
            lambda url: caches["frames"].clear(),
        ),
        ("replay frames, cached", [f"/api/games/{g}/frames" for g in games[:5]], None),
    ]
    rows = []
    for name, urls, before in pages:
        figures = _time_page(client, urls, requests, before)
        rows.append(
            {
                "page": name,
                "url": urls[0],
                "queries": _queries(client, urls[0]),
                **{k: round(v, 2) for k, v in figures.items()},
            }
        )
    return rows


def _deep(keys: Any, count: int, per_page: int) -> str:
    """The cursor of page :data:`DEEP_PAGE` of a list (``keys``: its keys in order), or of
    the page four fifths down a shorter one."""
    from webui.web.paging import cursor_text

    at = min(DEEP_PAGE * per_page, int(count * 0.8)) - 1
    return cursor_text(tuple(keys[max(0, at)]))


def deep_cursors(bots: list[str], season: int) -> dict[str, Any]:
    """Cursors far down the long lists: each bot's games, every game, the season's matches."""
    from webui.league.models import Bot, Game, Match
    from webui.web import game_lists, match_lists

    out: dict[str, Any] = {"bots": {}}
    for name in bots:
        bot = Bot.objects.get(name=name)
        games = game_lists.games(bot, None, game_lists.Filters())
        out["bots"][name] = _deep(
            games.order_by(*game_lists.ORDER).values_list("match_id", "index"),
            games.count(),
            game_lists.DEFAULT_LIMIT,
        )
    everyone = Game.objects.order_by(*match_lists.GAMES_ORDER).values_list("id")
    out["games"] = _deep(everyone, Game.objects.count(), 20)
    matches = Match.objects.filter(season_id=season)
    out["season"] = _deep(
        matches.order_by(*match_lists.SEASON_ORDER).values_list("round__number", "board", "id"),
        matches.count(),
        match_lists.SEASON_PAGE,
    )
    return out


def concurrent_pages() -> list[tuple[str, list[str]]]:
    """The pages the concurrent clients request, the baseline first: every page and API read
    of the site that grows with its history, the first page of each long list and one far
    down it."""
    bots, games, season = _sample_urls()
    if season is None:
        raise RuntimeError("the bench database holds no season")
    deep = deep_cursors(bots, season)
    other = {b: bots[-1] if b != bots[-1] else bots[0] for b in bots}
    return [
        ("baseline: /healthz", ["/healthz"]),
        ("deck page (no query)", ["/cards/"]),
        ("home page", ["/"]),
        ("leaderboard", ["/variants/scopa/"]),
        ("leaderboard (API)", ["/api/variants/scopa/leaderboard"]),
        ("ladder leaderboard", ["/ladder/scopa/"]),
        ("bot page", [f"/bots/{b}/" for b in bots]),
        ("bot page, games page 200", [f"/bots/{b}/?after={deep['bots'][b]}" for b in bots]),
        ("bot (API)", [f"/api/bots/{b}" for b in bots]),
        ("bot's games (API)", [f"/api/bots/{b}/games" for b in bots]),
        (
            "bot's games, page 200 (API)",
            [f"/api/bots/{b}/games?after={deep['bots'][b]}" for b in bots],
        ),
        (
            "bot's games, wins against one bot (API)",
            [f"/api/bots/{b}/games?result=win&opponent={other[b]}" for b in bots],
        ),
        ("version's games (API)", [f"/api/bots/{b}/versions/1/games" for b in bots]),
        ("season page (780 matches)", [f"/seasons/{season}/"]),
        ("season page, matches page 11", [f"/seasons/{season}/?matches_after={deep['season']}"]),
        ("season (API)", [f"/api/seasons/{season}"]),
        (
            "season's matches, page 11 (API)",
            [f"/api/seasons/{season}/matches?after={deep['season']}"],
        ),
        ("season live progress (API)", [f"/api/seasons/{season}/live"]),
        ("Arena TV page", ["/tv/"]),
        ("Arena TV feed (API)", ["/api/tv"]),
        ("replay page", [f"/games/{g}/" for g in games]),
        ("replay frames (API)", [f"/api/games/{g}/frames" for g in games]),
        ("replay download (API)", [f"/api/games/{g}/replay" for g in games]),
        ("games list (API)", ["/api/games"]),
        ("games list, page 200 (API)", [f"/api/games?after={deep['games']}"]),
    ]


def _median_row(runs: list[dict[str, Any]], base_runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One page's figures over runs: each figure's median, the spread of p95 and requests/s,
    and their ratios to the baseline's of the same run (medians)."""
    row = dict(runs[len(runs) // 2])
    for key in ("p50", "p95", "max", "requests_per_s"):
        row[key] = round(statistics.median(r[key] for r in runs), 2)
    row["requests"] = sum(r["requests"] for r in runs)
    row["errors"] = sum(r["errors"] for r in runs)
    row["server_errors"] = sum(r["server_errors"] for r in runs)
    statuses: dict[str, int] = {}
    for r in runs:
        for status, n in r["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    row["statuses"] = dict(sorted(statuses.items()))
    row["p95_runs"] = [r["p95"] for r in runs]
    row["requests_per_s_runs"] = [r["requests_per_s"] for r in runs]
    row["p95_vs_baseline"] = round(
        statistics.median(
            r["p95"] / (b["p95"] or 1.0) for r, b in zip(runs, base_runs, strict=True)
        ),
        2,
    )
    row["requests_per_s_vs_baseline"] = round(
        statistics.median(
            r["requests_per_s"] / (b["requests_per_s"] or 1.0)
            for r, b in zip(runs, base_runs, strict=True)
        ),
        3,
    )
    return row


@contextmanager
def ladder_playing() -> Iterator[Any]:
    """The ladder playing on one real worker process (the embedded broker): the random and
    greedy sample bots, each its own owner's, on the scopa ladder; yields a function that
    counts the ladder games recorded since it started."""
    from django.conf import settings
    from django.contrib.auth.models import User

    from webui.commands.demo import LADDER_INTERVAL_S
    from webui.league import ladder, versions
    from webui.league.models import Game, Match
    from webui.local_workers import LocalWorkers

    for name in ("random", "greedy"):  # the ladder pairs only other owners' bots
        owner, _ = User.objects.get_or_create(username=f"bench-ladder-{name}")
        ladder.enter_version(versions.register_folder_bot(owner, SAMPLES / name))
    ladder_games = Game.objects.filter(match__kind="ladder")
    before = ladder_games.count()
    # The pages are measured while results come in, not the cap: a kept database's second
    # run within the hour would find both bots at their 20 matches and nothing played.
    cap = settings.ARENA_LADDER_CAP_PER_HOUR
    settings.ARENA_LADDER_CAP_PER_HOUR = 1_000_000
    pool = LocalWorkers(1, env={"ARENA_SANDBOX": "auto"}).start()
    loop = ladder.LadderLoop(interval_s=LADDER_INTERVAL_S).start()
    try:
        # The crowd's watchers follow a match being played: wait for the first.
        deadline = time.monotonic() + LIVE_WAIT_S
        while not Match.objects.filter(kind="ladder", status="running").exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"no ladder match started within {LIVE_WAIT_S:.0f} s")
            time.sleep(0.5)
        yield lambda: ladder_games.count() - before
    finally:
        loop.stop()
        pool.stop()
        settings.ARENA_LADDER_CAP_PER_HOUR = cap


def measure_concurrent(args: argparse.Namespace, console: Any) -> dict[str, Any]:
    """Serves the site as in production and loads each page with ``--concurrency`` clients,
    ``--runs`` times; with ``--crowd``, also every page at once while the ladder plays."""
    from webui.bench.site_load import load_crowd, load_pages
    from webui.serving import ProductionServer, free_port

    pages = concurrent_pages()
    result: dict[str, Any] = {"runs": args.runs, "concurrency": args.concurrency}
    # Hostile uploads are all checked (the limit per user would refuse them before the work).
    env = {"ARENA_UPLOADS_PER_HOUR": "1000000", "ARENA_UPLOADS_PER_DAY": "1000000"}
    with ProductionServer(
        port=free_port(), nginx=not args.no_nginx, env=env if args.hostile else None
    ) as server:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=args.json,
        ) as bar:
            runs = []
            for run in range(args.runs):
                task = bar.add_task(
                    f"{args.concurrency} clients, page by page, run {run + 1} of {args.runs}",
                    total=len(pages),
                )
                runs.append(
                    load_pages(
                        server.url,
                        pages,
                        args.concurrency,
                        args.requests,
                        progress=lambda name, task=task: bar.advance(task),
                    )
                )
            result["pages"] = [
                _median_row([r[k] for r in runs], [r[0] for r in runs]) for k in range(len(pages))
            ]
            if args.crowd or args.hostile:
                crowds = []
                hostile_crowds = []
                task = bar.add_task(
                    f"a crowd of {args.concurrency} while the ladder plays",
                    total=args.runs * (2 if args.hostile else 1),
                )
                crowd_requests = args.requests * len(pages) // 2
                watchers = args.concurrency // 3  # on /tv/ and the board it features
                with ladder_playing() as ladder_games:
                    for _ in range(args.runs):
                        crowds.append(
                            load_crowd(
                                server.url,
                                pages,
                                args.concurrency,
                                crowd_requests,
                                watchers=watchers,
                                live_match=_latest_ladder_match(),
                            )
                        )
                        bar.advance(task)
                    if args.hostile:
                        with hostile_uploaders(server.url, args) as uploaders:
                            for _ in range(args.runs):
                                hostile_crowds.append(
                                    load_crowd(server.url, pages, args.concurrency, crowd_requests)
                                )
                                bar.advance(task)
                    played = ladder_games()
                if args.hostile:
                    result["hostile"] = _hostile_figures(args, crowds, hostile_crowds, uploaders)
                base = [c["pages"][0] for c in crowds]
                result["crowd"] = {
                    "all": _median_row([c["all"] for c in crowds], base),
                    "pages": [
                        _median_row([c["pages"][k] for c in crowds], base)
                        for k in range(len(crowds[0]["pages"]))
                    ],
                    "ladder_games": played,
                    "watchers": watchers,
                }
        workers = os.environ.get("ARENA_WEB_WORKERS") or str((os.cpu_count() or 1) + 1)
        threads = os.environ.get("ARENA_WEB_THREADS") or "4"
    result["server"] = (
        "gunicorn" if args.no_nginx else "gunicorn behind nginx"
    ) + f", {workers} workers x {threads} threads"
    result["cache"] = "redis" if os.environ.get("ARENA_CACHE_URL") else "files"
    return result


def _latest_ladder_match() -> int:
    """The ladder match started last (the one being played), for the crowd's watchers."""
    from webui.league.models import Match

    return int(
        Match.objects.filter(kind="ladder").order_by("-pk").values_list("pk", flat=True).first()
        or 0
    )


def hostile_uploaders(url: str, args: argparse.Namespace) -> Any:
    """``--hostile`` uploaders of a bot of their own account, with its API token."""
    from django.contrib.auth.models import User

    from webui.bench.site_uploads import HostileUploaders
    from webui.league import versions
    from webui.league.models import Bot
    from webui.web.models import ApiToken

    user, _ = User.objects.get_or_create(username="bench-hostile")
    if not Bot.objects.filter(name="bench-hostile").exists():
        versions.create_bot(user, "bench-hostile", "")
    token = ApiToken.issue(user, "bench")[1]
    return HostileUploaders(url, "bench-hostile", token, args.hostile, scale=args.hostile_scale)


def _hostile_figures(
    args: argparse.Namespace,
    quiet: list[dict[str, Any]],
    hostile: list[dict[str, Any]],
    uploaders: Any,
) -> dict[str, Any]:
    """The crowd under hostile uploads, its ``/healthz`` p95 beside the quiet crowd's."""
    base = [c["pages"][0] for c in hostile]
    quiet_p95 = statistics.median(c["pages"][0]["p95"] for c in quiet)
    hostile_p95 = statistics.median(c["pages"][0]["p95"] for c in hostile)
    return {
        "uploaders": args.hostile,
        "scale": args.hostile_scale,
        "uploads": uploaders.result.row(),
        "all": _median_row([c["all"] for c in hostile], base),
        "pages": [
            _median_row([c["pages"][k] for c in hostile], base)
            for k in range(len(hostile[0]["pages"]))
        ],
        "healthz_quiet_p95": round(quiet_p95, 2),
        "healthz_p95": round(hostile_p95, 2),
        "healthz_p95_ratio": round(hostile_p95 / (quiet_p95 or 1.0), 2),
    }


def _figures_table(title: str, rows: list[dict[str, Any]], runs: int) -> Any:
    from rich.table import Table

    table = Table(title=title)
    spread = runs > 1
    for column in (
        "page",
        "p50 ms",
        "p95 ms",
        *(["p95 runs"] if spread else []),
        "errors",
        "5xx",
        "req/s",
        *(["req/s runs"] if spread else []),
        "p95 / baseline",
        "req/s / baseline",
    ):
        table.add_column(column, justify="left" if column == "page" else "right")
    for row in rows:
        table.add_row(
            row["page"],
            f"{row['p50']:.1f}",
            f"{row['p95']:.1f}",
            *([", ".join(f"{v:.0f}" for v in row["p95_runs"])] if spread else []),
            str(row["errors"]),
            str(row["server_errors"]),
            f"{row['requests_per_s']:.0f}",
            *([", ".join(f"{v:.0f}" for v in row["requests_per_s_runs"])] if spread else []),
            f"{row['p95_vs_baseline']:.1f}x",
            f"{row['requests_per_s_vs_baseline']:.2f}",
        )
    return table


def print_concurrent(result: dict[str, Any], engine: str, counts: dict[str, int]) -> None:
    """The concurrent figures as tables, each beside the baseline's of the same run
    (medians over the runs, with each run's figure when there are several)."""
    from rich.console import Console

    rows = result["pages"]
    runs = result["runs"]
    console = Console()
    console.print(
        _figures_table(
            f"{result['concurrency']} concurrent clients, page by page, {result['server']}: "
            f"{counts['games']:,} games on {engine}, {rows[0]['requests'] // runs} requests per "
            f"page, median of {runs} run{'s' if runs > 1 else ''}",
            rows,
            runs,
        )
    )
    crowd = result.get("crowd")
    if crowd:
        console.print(
            _figures_table(
                f"a crowd of {result['concurrency']} clients, {crowd.get('watchers', 0)} of them "
                "on /tv/ and the live board it features and the others over every page at "
                f"once, while the ladder played ({crowd['ladder_games']} ladder games recorded "
                "meanwhile)",
                [crowd["all"], *crowd["pages"]],
                runs,
            )
        )
    hostile = result.get("hostile")
    if hostile:
        uploads = hostile["uploads"]
        console.print(
            _figures_table(
                f"the same crowd while {hostile['uploaders']} clients sent hostile uploads "
                f"(scale {hostile['scale']:g}): {uploads['uploads']} uploads, answered "
                f"{uploads['statuses']}, p95 {uploads['p95']:.0f} ms",
                [hostile["all"], *hostile["pages"]],
                runs,
            )
        )
        console.print(
            f"/healthz p95 during hostile uploads: {hostile['healthz_p95']:.1f} ms; in the quiet "
            f"crowd: {hostile['healthz_quiet_p95']:.1f} ms ({hostile['healthz_p95_ratio']:.1f}x)"
        )
    every = rows + (crowd["pages"] if crowd else []) + (hostile["pages"] if hostile else [])
    errors = sum(r["errors"] for r in every)
    server_errors = sum(r["server_errors"] for r in every)
    console.print(
        f"errors: {errors} ({server_errors} answers of 500 and above)"
        + (
            ""
            if not errors
            else ": " + ", ".join(f"{r['page']} {r['statuses']}" for r in every if r["errors"])
        )
    )


def run(args: argparse.Namespace) -> int:
    """``arena bench site``."""
    if args.games < 1 or args.bots < 2 or args.requests < 1:
        print("error: --games and --requests must be positive and --bots at least 2")
        return 2
    if args.concurrency is not None and not 1 <= args.concurrency <= 1000:
        print(f"error: --concurrency {args.concurrency}: between 1 and 1000")
        return 2
    if args.concurrency is None and (args.no_nginx or args.crowd or args.runs != 1 or args.hostile):
        print("error: --no-nginx, --crowd, --hostile and --runs go with --concurrency")
        return 2
    if not 0 <= args.hostile <= 100:
        print(f"error: --hostile {args.hostile}: between 0 and 100")
        return 2
    if not 0 < args.hostile_scale <= 1:
        print(f"error: --hostile-scale {args.hostile_scale:g}: above 0, at most 1")
        return 2
    if not 1 <= args.runs <= 20:
        print(f"error: --runs {args.runs}: between 1 and 20")
        return 2
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
    from rich.table import Table

    console = Console(stderr=True)
    data_dir = Path(tempfile.mkdtemp(prefix="arena-bench-site-"))
    url, ours = _configure(args, data_dir)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    from django.db import connection

    from webui.league.models import Game

    try:
        stored = Game.objects.count()
        fill_s = 0.0
        counts: dict[str, int] = {"games": stored}
        if stored < args.games:
            if stored:
                console.print(
                    f"error: the database holds {stored} games, fewer than "
                    f"{args.games}; run without --keep to start afresh"
                )
                return 2
            start = time.perf_counter()
            with Progress(
                "[progress.description]{task.description}",
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=args.json,
            ) as bar:
                task = bar.add_task("storing games", total=args.games)
                counts = fill(args.games, args.bots, lambda done: bar.update(task, completed=done))
            fill_s = time.perf_counter() - start
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("ANALYZE")
        if args.concurrency is not None:
            loaded = measure_concurrent(args, console)
        else:
            rows = measure(args.requests)
    finally:
        connection.close()
        _forget_cached()
        if ours and not args.keep:
            _admin_sql(f"DROP DATABASE IF EXISTS {BENCH_DB}")
    engine = "PostgreSQL" if url.startswith("postgres") else "SQLite"
    if args.concurrency is not None:
        if args.json:
            print(
                json.dumps(
                    {
                        "database": engine,
                        "stored": counts,
                        "fill_s": round(fill_s, 1),
                        "requests": args.requests,
                        **loaded,
                    }
                )
            )
        else:
            print_concurrent(loaded, engine, counts)
        return 0
    result = {
        "database": engine,
        "stored": counts,
        "fill_s": round(fill_s, 1),
        "requests": args.requests,
        "target_p95_ms": TARGET_P95_MS,
        "pages": rows,
    }
    if args.json:
        print(json.dumps(result))
        return 0
    table = Table(
        title=f"Site response times: {counts['games']:,} games on {engine}, "
        f"{args.requests} requests per page (Django test client, no network)"
    )
    for column in ("page", "queries", "p50 ms", "p95 ms", "max ms", "p95 / baseline"):
        table.add_column(column, justify="left" if column == "page" else "right")
    base = rows[0]["p95"] or 1.0
    for row in rows:
        table.add_row(
            row["page"],
            str(row["queries"]),
            f"{row['p50']:.1f}",
            f"{row['p95']:.1f}",
            f"{row['max']:.1f}",
            f"{row['p95'] / base:.1f}x",
        )
    Console().print(table)
    if fill_s:
        console.print(
            f"stored {counts['games']:,} games, {counts.get('matches', 0):,} matches "
            f"and {counts.get('rating_history', 0):,} rating points in {fill_s:.0f} s"
        )
    slow = [r["page"] for r in rows[1:5] if r["p95"] >= TARGET_P95_MS]
    verdict = "all under" if not slow else "OVER for " + ", ".join(slow) + ";"
    Console().print(
        f"target: leaderboard, bot page and replay page p95 < {TARGET_P95_MS:.0f} "
        f"ms: {verdict} the target"
    )
    return 0
