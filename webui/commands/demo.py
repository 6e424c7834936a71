"""``arena demo``: the whole platform on one machine, in one command.

On a fresh checkout with nothing but Python: SQLite in ``var/`` (or ``--data-dir``), the
embedded broker and local worker processes (no Redis, no PostgreSQL), the demo's login printed
(every run: :mod:`webui.accounts`), the sample bots registered, and the site served at
http://127.0.0.1:8000 at once while a short season plays on it live (its progress, then its
standings, printed as it goes: :mod:`webui.demo`), with the ladder's scheduler running beside
it (:class:`webui.league.ladder.LadderLoop`). ``--no-serve`` plays the season with a progress
bar and stops after the standings. Ctrl-C or SIGTERM stops every process it started within
seconds (a match in play is played again on the next run). Environment variables
(``ARENA_DATABASE_URL``, ``ARENA_BROKER_URL``...) still win.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from arena.engine import VARIANTS
from webui.commands.web import add_serve_arguments, check_port, local_defaults, prepare, serve

HELP = "set up, play a short season of sample bots, serve the site"

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
DEFAULT_BOTS = ("random", "greedy", "ismcts")
DEMO_USER = "demo"
SEASON_WORKERS = 2
"""Local match workers while the demo serves (with the embedded broker)."""
LADDER_INTERVAL_S = 5.0
"""How often the demo's ladder loop schedules matches and sweeps."""
PAUSE_ENV = "ARENA_DEMO_LADDER_PAUSE_S"
"""The seconds between the end of one ladder match and the sample bots' next once the season
is over (default :data:`HOUSE_PAUSE_S`); the loop then looks that often too, when it is
shorter than :data:`LADDER_INTERVAL_S`."""
HOUSE_PAUSE_S = 5.0


def house_pause_s() -> float:
    """The demo's pause between its sample bots' ladder matches (:data:`PAUSE_ENV`); raises
    ValueError quoting a value that is not a number of seconds from 0 to 3600."""
    raw = os.environ.get(PAUSE_ENV, "").strip()
    try:
        pause = float(raw) if raw else HOUSE_PAUSE_S
    except ValueError:
        raise ValueError(f"{PAUSE_ENV}={raw!r}: not a number of seconds") from None
    if not 0 <= pause <= 3600:  # also NaN
        raise ValueError(f"{PAUSE_ENV}={raw!r}: between 0 and 3600 seconds")
    return pause


def register(subparsers: Any) -> None:
    """Adds ``arena demo`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "demo",
        help="set everything up, play a short season between the sample bots, serve the site",
        description="One command on a fresh machine: SQLite and local workers (no servers "
        "needed), the login printed, the sample bots registered, and the site served at "
        "http://127.0.0.1:8000 at once while a short season plays on it live; its standings "
        "are printed when it ends. Ctrl-C stops it all.",
    )
    parser.add_argument(
        "--bots",
        nargs="+",
        default=list(DEFAULT_BOTS),
        metavar="BOT",
        help=f"sample bots (or bot folders) to enter (default: {' '.join(DEFAULT_BOTS)})",
    )
    parser.add_argument("--variant", default="scopa", help="the variant (default scopa)")
    parser.add_argument(
        "--games",
        type=int,
        default=2,
        metavar="N",
        help="games per pairing (default 2: one duplicate set)",
    )
    parser.add_argument(
        "--knockout",
        type=int,
        default=None,
        metavar="N",
        help="a knockout for the top N after the league (default: the top "
        "2 play a final when there are 3 or more bots; 0 for none)",
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="where the database, bots and logs go (default: ARENA_DATA_DIR, "
        "else var/ in the checkout)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=900.0,
        metavar="S",
        help="with --no-serve: give up on the season after S seconds (default 900)",
    )
    parser.add_argument(
        "--no-serve",
        action="store_true",
        help="play the season with a progress bar, print the standings, and stop (no site)",
    )
    add_serve_arguments(parser)
    parser.set_defaults(func=run)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _season_name() -> str:
    from webui.league.models import Season

    n = Season.objects.filter(name__startswith="Demo season").count() + 1
    while Season.objects.filter(name=f"Demo season {n}").exists():
        n += 1
    return f"Demo season {n}"


def run(args: argparse.Namespace) -> int:
    """``arena demo``."""
    if args.games < 1:
        return _fail(f"--games {args.games}: at least 1")
    if len(args.bots) < 2:
        return _fail("--bots: a season needs at least 2 bots")
    if len(set(args.bots)) != len(args.bots):
        return _fail("--bots: a bot is listed twice")
    rules = VARIANTS.get(args.variant)
    if rules is None:
        return _fail(f"unknown variant {args.variant!r} (known: {', '.join(VARIANTS)})")
    knockout = args.knockout
    if knockout is None:  # a knockout follows a two-side round-robin only
        knockout = 2 if len(args.bots) >= 3 and rules.num_sides == 2 else 0
    if knockout and not 2 <= knockout <= len(args.bots):
        return _fail(f"--knockout {knockout}: between 2 and {len(args.bots)}, or 0")
    try:
        pause = house_pause_s()
    except ValueError as error:
        return _fail(str(error))
    if not args.no_serve:
        problem = check_port(args.host, args.port)
        if problem:
            return _fail(problem)
    if args.data_dir:
        os.environ["ARENA_DATA_DIR"] = str(Path(args.data_dir).resolve())
    local_defaults()

    from rich.console import Console

    console = Console(stderr=True)
    console.print("[bold]Scopa Arena demo[/bold]: setting up (database, static files)…")
    prepare()
    from arena.runner.protections import summary

    console.print(summary(), highlight=False)  # `arena doctor` says more

    from django.conf import settings

    log_file = _log_to_file(settings.ARENA_LOGS_DIR / "demo.log")
    from webui.accounts import demo_login
    from webui.demo import SeasonWatch, adopt_sample_bots, house_owner
    from webui.league import cli, errors, seasons, variants, versions

    # ---- the login first, on every run (an interrupted run must not lose it) ---------------
    login = demo_login()
    _print_login(console, login, args)
    house = house_owner()  # the sample bots' owner: a bot submitted as `demo` meets them
    entrants = []
    for name in args.bots:
        folder = Path(name) if Path(name).is_dir() else SAMPLES / name
        if not (folder / "bot.toml").is_file():
            return _fail(
                f"bot {name!r}: not a sample bot ({', '.join(DEFAULT_BOTS)}) "
                "nor a folder with a bot.toml"
            )
        try:
            entrants.append(versions.register_folder_bot(house, folder, validate=False))
        except errors.LeagueError as error:
            return _fail(str(error))
    adopt_sample_bots(entrants, house)
    try:
        variant = variants.get_variant(args.variant)
        season = seasons.create_season(
            name=_season_name(),
            variant=variant,
            entrants=entrants,
            knockout_size=knockout,
            games_per_pairing=args.games,
            created_by=login.user,
        )
    except errors.LeagueError as error:
        return _fail(str(error))
    console.print(
        f"Bots: {', '.join(v.label for v in entrants)}. Playing "
        f"[bold]{season.name}[/bold] ({variant.label}, {seasons.planned_matches(season)} "
        f"matches) on local workers; data in {settings.ARENA_DATA_DIR}, the site's "
        f"requests and warnings in {log_file}"
    )
    if args.no_serve:
        return int(
            cli.run(
                argparse.Namespace(name=season.name, workers=2, timeout=args.timeout, json=False)
            )
        )
    # ---- the site at once, the season played meanwhile ------------------------------------
    from webui.league import ladder

    seasons.start_season(season)
    for version in entrants:  # the sample bots are trusted: ready without a validation game
        ladder.enter_version(version, replace=True)  # changed sample code replaces the old
    base = f"http://{args.host}:{args.port}"
    console.print(
        f"Watch it live at [bold]{base}/seasons/{season.pk}/[/bold]; the "
        f"leaderboard, the ladder and every replay are on the site too."
    )

    def finished(done: object) -> None:
        cli.show_standings(done, as_json=False)
        console.print(
            f"{season.name} is over. The ladder plays on while the site is up: the sample "
            f"bots take turns, a match at a time ([bold]{base}/tv/[/bold] shows the game "
            "being played), and a bot you submit plays its first ladder match about a "
            f"minute after it passes validation ([bold]{base}/ladder/[/bold]); "
            f"[bold]{base}/write-a-bot/[/bold] says how to write one."
        )

    watch = SeasonWatch(
        season.pk, lambda line: console.print(line, highlight=False), finished
    ).start()
    from webui.league.queue import play_queue, queue_depth
    from webui.play import games

    def keep_playing() -> None:
        """Once the season is over, the sample bots play each other on the ladder whenever
        it is idle, a match at a time, so that a visitor always finds a game being played."""
        if watch.finished.is_set():
            ladder.house_match(house, variant, pause)

    loop = ladder.LadderLoop(
        interval_s=min(LADDER_INTERVAL_S, max(0.5, pause)),
        also=[
            lambda: games.sweep(waiting=queue_depth(play_queue())),  # the Play page's games
            keep_playing,
        ],
    ).start()
    workers = args.workers
    if workers is None and settings.ARENA_EMBEDDED_BROKER:
        workers = SEASON_WORKERS
    try:
        return serve(args.host, args.port, workers)
    finally:
        watch.stop()
        loop.stop()


def _log_to_file(path: Path) -> Path:
    """Sends this process's log to ``path`` (appended) instead of the terminal, which keeps
    the login, the season's progress and the standings: the development server's request
    lines (``django.server``), a warning per 404 (``django.request``), the ladder's and the
    runner's info lines. Errors still reach the terminal too. Made the site's logging
    settings, so that loading the site again (the server's WSGI application does) keeps it."""
    import copy
    import logging.config

    from django.conf import settings

    path.parent.mkdir(parents=True, exist_ok=True)
    config: dict[str, Any] = copy.deepcopy(dict(settings.LOGGING))
    handlers: dict[str, dict[str, Any]] = config.setdefault("handlers", {})
    for handler in handlers.values():
        handler["level"] = "ERROR"
    handlers["demo_file"] = {
        "class": "logging.FileHandler",
        "filename": str(path),
        "encoding": "utf-8",
        "formatter": "plain",
    }
    config.setdefault("root", {}).setdefault("handlers", []).append("demo_file")
    loggers: dict[str, Any] = config.setdefault("loggers", {})
    loggers["django"] = {"handlers": [], "level": "INFO", "propagate": True}  # a 404's warning
    loggers["django.server"] = {"handlers": ["demo_file"], "level": "INFO", "propagate": False}
    settings.LOGGING = config
    logging.config.dictConfig(config)
    return path


def _print_login(console: Any, login: Any, args: argparse.Namespace) -> None:
    """The demo account's login, or how to get a new password when its owner changed it."""
    where = f"http://{args.host}:{args.port}/accounts/login/"
    if login.password is not None:
        console.print(
            f"Log in as [bold]{DEMO_USER}[/bold] / [bold]{login.password}[/bold] "
            f"at {where} (staff and administrator, also of /admin/) to submit bots "
            "and run seasons. A new password: .venv/bin/arena password demo",
            highlight=False,
        )
    else:
        console.print(
            f"Log in as [bold]{DEMO_USER}[/bold] at {where} with the password you "
            "chose on the site; forgotten it? .venv/bin/arena password demo prints "
            "a new one.",
            highlight=False,
        )
