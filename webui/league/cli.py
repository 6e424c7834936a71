"""Seasons from the shell: the argument parsers and actions behind ``arena season ...`` and the
Django management commands (``create_season``, ``run_season``, ``standings``,
``recompute_ratings``). Output with ``rich`` for people and ``--json`` for machines.

The actions need Django set up (:func:`setup`); the ``arena`` command calls it only when a
season command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

SYSTEM_USER = "arena"


def setup(migrate: bool = True) -> None:
    """Loads Django with the project's settings and, for the embedded default, migrates."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)


def fail(message: str) -> int:
    """Prints a one-line error and returns the exit status of a user error."""
    print(f"error: {message}", file=sys.stderr)
    return 2


def parse_option(text: str) -> tuple[str, Any]:
    """``target=21`` to ``("target", 21)``: values are JSON when they parse, else strings."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise ValueError(f"option {text!r}: expected NAME=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def resolve_entrant(text: str) -> Any:
    """A bot version from ``name@N``, a registered bot's name (its newest ready version), a
    sample bot's name or a bot folder (registered on the way)."""
    from django.contrib.auth.models import User

    from arena.runner import BotError, BotRef

    from . import errors, versions
    from .models import Bot, BotVersion

    name, at, number = text.partition("@")
    if at:
        version = BotVersion.objects.filter(
            bot__name=name, number=number if number.isdigit() else -1
        ).first()
        if version is None:
            raise errors.LeagueError(f"no bot version {text!r}")
        return version
    bot = Bot.objects.filter(name=text).first()
    if bot is not None and not Path(text).is_dir():
        version = bot.latest_ready_version()
        if version is None:
            raise errors.LeagueError(f"bot {text!r} has no validated version")
        return version
    try:
        ref = BotRef.parse(text)
    except BotError as error:
        raise errors.LeagueError(str(error)) from None
    if ref.folder is None:
        raise errors.LeagueError(f"{text!r}: give a folder, a sample bot or name@N")
    owner, _ = User.objects.get_or_create(username=SYSTEM_USER, defaults={"is_staff": True})
    return versions.register_folder_bot(owner, ref.folder, validate=False)


# ---- create ------------------------------------------------------------------------------


def add_create_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``season create``."""
    parser.add_argument("name", help="the season's name (unique)")
    parser.add_argument("--variant", default="scopa", help="a RULES.md preset (default scopa)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a rule option, e.g. --option target=21 (repeatable)",
    )
    parser.add_argument(
        "--bot",
        action="append",
        default=[],
        required=True,
        metavar="BOT",
        help="an entrant: a sample bot (random, greedy, ismcts), a bot folder, "
        "a registered bot, or name@N (repeat, in entry order)",
    )
    # The formats and their options, read from the registry (it needs Django's models).
    from django.apps import apps

    if not apps.ready:
        setup(migrate=False)
    from .formats import FORMATS

    parser.add_argument(
        "--format",
        default="auto",
        choices=["auto", *FORMATS],
        help="; ".join(f"{key}: {cls.description}" for key, cls in FORMATS.items())
        + "; default (auto): round-robin for two sides, tables for more",
    )
    added: set[str] = set()
    for key, cls in FORMATS.items():
        declared_here = [o for o in cls.Options.declared() if o.name not in added]
        if not declared_here:
            continue
        group = parser.add_argument_group(f"options of format {key}")
        for declared in declared_here:
            added.add(declared.name)
            if declared.kind is bool:
                group.add_argument(
                    declared.flag, dest=declared.name, action="store_true", help=declared.help
                )
            else:
                group.add_argument(
                    declared.flag,
                    dest=declared.name,
                    type=int,
                    default=None,
                    metavar="N",
                    help=declared.help,
                )
    parser.add_argument(
        "--games",
        type=int,
        default=2,
        metavar="N",
        help="games per match (default 2: a duplicate set; rounded up to "
        "whole rotations: 3 at three-seat tables, 4 at partnership tables)",
    )
    parser.add_argument(
        "--move-time",
        type=int,
        default=1000,
        metavar="MS",
        help="time per move in ms (default 1000)",
    )
    parser.add_argument(
        "--bank",
        type=int,
        default=30_000,
        metavar="MS",
        help="extra time bank per game in ms (default 30000)",
    )
    parser.add_argument("--seed", type=int, default=None, help="the season's seed")
    parser.add_argument("--start", action="store_true", help="start it right away")
    parser.add_argument("--json", action="store_true", help="print the season as JSON")
    seats = parser.add_argument_group(
        "seat limits of the season's matches (default: the runner's, docs/SECURITY.md)"
    )
    for flag, name, text in SEAT_LIMIT_FLAGS:
        seats.add_argument(
            flag, type=int, default=None, metavar=name.split("_")[-1].upper(), help=text
        )


SEAT_LIMIT_FLAGS = (
    ("--memory", "memory_mb", "memory of a seat's processes and tmpfs folders, MiB"),
    ("--processes", "processes", "processes and threads of a seat"),
    ("--tmp-size", "tmp_mb", "size of a seat's /tmp and /dev/shm, MiB"),
    ("--cpu-time", "cpu_seconds", "CPU seconds of each bot process"),
    ("--file-size", "file_mb", "largest file a bot may write, MiB"),
    ("--open-files", "open_files", "open files of each bot process"),
)


def seat_limits_of(args: argparse.Namespace) -> dict[str, int]:
    """The seat limits the flags give, checked (a refusal names the flag)."""
    from .ranges import RangeError
    from .seat_limits import check_seat_limits

    chosen: dict[str, int] = {}
    for flag, name, _ in SEAT_LIMIT_FLAGS:
        value = getattr(args, field_of(flag))
        if value is None:
            continue
        try:
            check_seat_limits({name: value})
        except RangeError as error:
            raise RangeError(str(error).replace(f"limits.{name}", flag)) from None
        chosen[name] = value
    return chosen


def field_of(flag: str) -> str:
    """The attribute argparse gives an option: ``--move-time`` -> ``move_time``."""
    return flag.lstrip("-").replace("-", "_")


def create(args: argparse.Namespace) -> int:
    """``season create``: a draft season (or a started one with ``--start``)."""
    from . import ranges, seasons, variants
    from .formats import every_option

    try:
        # The same ranges as the API and the form, named as this command's options.
        options = {
            name: declared.check(getattr(args, name, None), label=declared.flag)
            for name, declared in every_option().items()
            if getattr(args, name, None) is not None
        }
        for flag, field in (
            ("--games", "games_per_pairing"),
            ("--move-time", "move_time_ms"),
            ("--bank", "bank_ms"),
            ("--seed", "seed"),
        ):
            value = getattr(args, field_of(flag))
            if value is not None:
                ranges.check_number(field, value, label=flag)
        ranges.check_bank(args.move_time, args.bank, "--bank", "--move-time")
        seat_limits = seat_limits_of(args)
        rules = dict(parse_option(o) for o in args.option)
        variant = variants.get_variant(args.variant, rules)
        entrants = [resolve_entrant(text) for text in args.bot]
        season = seasons.create_season(
            name=args.name,
            variant=variant,
            entrants=entrants,
            games_per_pairing=args.games,
            move_time_ms=args.move_time,
            bank_ms=args.bank,
            seed=args.seed,
            format=args.format,
            seat_limits=seat_limits,
            format_options=options,
        )
    except ValueError as error:
        return fail(str(error))
    if args.start:
        seasons.start_season(season)
    if args.json:
        print(json.dumps(season_json(season)))
    else:
        print(
            f"season {season.name!r} created ({season.status}): {variant.label}, "
            f"{season.get_format_display()}, {len(entrants)} entrants, "
            f"{seasons.planned_matches(season)} matches"
        )
    return 0


# ---- run -----------------------------------------------------------------------------------


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``season run``."""
    parser.add_argument("name", help="the season to run (a draft is started)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes to start (default: 1 with the embedded "
        "broker, 0 with ARENA_BROKER_URL, where running workers serve)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="S",
        help="give up after S seconds (default: wait)",
    )
    parser.add_argument("--json", action="store_true", help="print the final standings as JSON")


MAX_REPLACED_WORKERS = 5
"""How many exited local workers ``season run`` replaces before it gives up."""


class WorkersFailing(RuntimeError):
    """The local workers keep exiting: the season cannot go on here."""


def run(args: argparse.Namespace) -> int:
    """``season run``: starts the season, local workers if needed (a worker that exits is
    replaced), waits with a progress bar."""
    from django.conf import settings
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from webui.local_workers import LocalWorkers, exited_line

    from . import seasons
    from .models import Season

    season = Season.objects.filter(name=args.name).first()
    if season is None:
        return fail(f"no season named {args.name!r}")
    count = args.workers
    if count is None:
        count = 1 if settings.ARENA_EMBEDDED_BROKER else 0
    if count < 0:
        return fail(f"--workers {count}: must not be negative")
    console = Console(stderr=True)
    workers = None
    if not count:
        console.print(
            "playing on the workers of the configured broker (start them with `arena worker`)"
        )
    if count:
        env = {"ARENA_DATA_DIR": str(settings.ARENA_DATA_DIR)}
        workers = LocalWorkers(count, env=env, log_dir=Path(settings.ARENA_LOGS_DIR)).start()
    try:
        with Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=args.json,
        ) as bar:
            task = bar.add_task(f"season {season.name}", total=seasons.planned_matches(season))

            def progress(done: int, scheduled: int) -> None:
                bar.update(task, completed=done)
                if workers is None:
                    return
                exits = workers.replace_exited(limit=MAX_REPLACED_WORKERS)
                for ended in exits:
                    console.print(
                        f"[yellow]{exited_line(ended)} (logs: {settings.ARENA_LOGS_DIR})[/]"
                    )
                if not all(ended.replaced for ended in exits):
                    raise WorkersFailing(
                        f"local workers exited more than {MAX_REPLACED_WORKERS} times; see "
                        f"their logs in {settings.ARENA_LOGS_DIR}"
                    )

            seasons.run_season(season, timeout_s=args.timeout, progress=progress)
    except (TimeoutError, WorkersFailing) as error:
        return fail(str(error))
    finally:
        if workers is not None:
            workers.stop()
    return show_standings(season, as_json=args.json)


# ---- standings, list, ratings ---------------------------------------------------------------


def add_standings_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``season standings``."""
    parser.add_argument("name", help="the season")
    parser.add_argument("--json", action="store_true", help="print JSON")


def standings(args: argparse.Namespace) -> int:
    """``season standings``: the table (and the champion once finished)."""
    from .models import Season

    season = Season.objects.filter(name=args.name).first()
    if season is None:
        return fail(f"no season named {args.name!r}")
    return show_standings(season, as_json=args.json)


def season_json(season: Any) -> dict[str, Any]:
    """A season, its format, its table and its champion, JSON-ready."""
    from .formats import format_of

    done, scheduled = season.progress()
    season_format = format_of(season)
    champion = season_format.champion()
    return {
        "name": season.name,
        "variant": season.variant.slug,
        "status": season.status,
        "format": season_format.summary(),
        "matches": {
            "done": done,
            "scheduled": scheduled,
            "planned": season_format.planned_matches(),
        },
        "champion": champion.label if champion else None,
        "champion_by": season_format.champion_by() if champion else None,
        "standings": [row.to_json(bot=row.version.label) for row in season_format.standings()],
    }


def _place_column(place: int) -> tuple[str, Any]:
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(place + 1, f"{place + 1}th")
    return ordinal, lambda row: str(row["places"][place])


def _cell(key: str) -> Any:
    """How a standing's ``key`` is printed."""
    if key in {"score", "buchholz", "sonneborn_berger"}:
        return lambda row: f"{row[key]:g}"
    if key == "points":
        return lambda row: f"{row['points_for']}-{row['points_against']}"
    return lambda row: str(row[key])


def standing_columns(columns: tuple[tuple[str, str], ...], seats: int = 3) -> list[tuple[str, Any]]:
    """The table's columns: a heading and how to print it from a row, the format's
    ``columns`` after rank, bot and games played."""
    out: list[tuple[str, Any]] = [
        ("#", lambda r: str(r["rank"])),
        ("bot", lambda r: r["bot"]),
        ("played", lambda r: str(r["played"])),
    ]
    for key, heading in columns:
        if key == "places":
            out += [_place_column(place) for place in range(seats)]
        else:
            out.append((heading, _cell(key)))
    return out


def show_standings(season: Any, *, as_json: bool) -> int:
    """Prints a season's table with rich, or as JSON."""
    from rich.console import Console
    from rich.table import Table

    from .formats import format_of

    data = season_json(season)
    if as_json:
        print(json.dumps(data))
        return 0
    season_format = format_of(season)
    table = Table(
        title=f"{data['name']} ({data['variant']}, {data['format']['label']}, {data['status']})"
    )
    columns = standing_columns(season_format.columns, int(data["format"].get("seats", 3)))
    for heading, _ in columns:
        table.add_column(heading, justify="left" if heading == "bot" else "right")
    for row in data["standings"]:
        table.add_row(*(cell(row) for _, cell in columns))
    console = Console()
    console.print(table)
    note = season_format.note(data["format"])
    if note:
        console.print(note)
    if data["champion"]:
        top = season_format.knockout_entrants(len(data["standings"]))
        how = {
            "knockout": f" (the winner of the knockout of the top {top}, played after the table)",
            "table": " (the top of the table)",
        }.get(data["champion_by"] or "", "")
        console.print(f"champion: [bold]{data['champion']}[/bold]{how}")
    return 0


def add_list_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``season list``."""
    parser.add_argument("--json", action="store_true", help="print JSON")


def list_seasons(args: argparse.Namespace) -> int:
    """``season list``: every season with its status and progress."""
    from rich.console import Console
    from rich.table import Table

    from . import seasons
    from .models import Season

    rows: list[dict[str, Any]] = []
    for season in Season.objects.select_related("variant").order_by("created"):
        done, _scheduled = season.progress()
        rows.append(
            {
                "name": season.name,
                "variant": season.variant.slug,
                "format": season.format,
                "status": season.status,
                "done": done,
                "planned": seasons.planned_matches(season),
            }
        )
    if args.json:
        print(json.dumps(rows))
        return 0
    table = Table(title="seasons")
    for column in ("name", "variant", "format", "status", "matches"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row["name"],
            row["variant"],
            row["format"],
            row["status"],
            f"{row['done']}/{row['planned']}",
        )
    Console().print(table)
    return 0


def add_recompute_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``recompute_ratings``."""
    parser.add_argument("--variant", default=None, help="only this variant (slug)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def recompute(args: argparse.Namespace) -> int:
    """``recompute_ratings``: every rating rebuilt from the results in rating order.

    Prints how many ratings changed by more than 1e-9 (0 when the incremental ratings were
    right, which they should always be).
    """
    from . import ratings
    from .models import Rating, Variant

    variant_id = None
    if args.variant:
        variant = Variant.objects.filter(slug=args.variant).first()
        if variant is None:
            return fail(f"no variant {args.variant!r}")
        variant_id = variant.pk
    before = {(r.variant_id, r.key): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    counts = ratings.recompute_ratings(variant_id)
    after = {(r.variant_id, r.key): (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    changed = sum(
        1
        for key in set(before) | set(after)
        if (variant_id is None or key[0] == variant_id)
        and (
            key not in before
            or key not in after
            or before[key][2] != after[key][2]
            or abs(before[key][0] - after[key][0]) > 1e-9
            or abs(before[key][1] - after[key][1]) > 1e-9
        )
    )
    if args.json:
        print(json.dumps({"games": counts, "changed": changed}))
    else:
        for slug, games in counts.items():
            print(f"{slug}: {games} games rated")
        print(f"{changed} rating(s) differed from the incremental ones")
    return 0


def add_recompute_reads_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``recompute_reads``."""
    parser.add_argument("--json", action="store_true", help="print JSON")


def recompute_reads(args: argparse.Namespace) -> int:
    """``recompute_reads``: every read model of the site rebuilt from the league's tables.

    Prints how many records differed (0 when the read models kept up with every write, which
    they should always do) and how many scopes' cached reads will be built again.
    """
    from . import read_models

    report = read_models.recompute_reads()
    if args.json:
        print(json.dumps({"differences": report["head_to_head"], **report}))
    else:
        print(
            f"head-to-head: {report['head_to_head_records']} records, "
            f"{report['head_to_head']} differed from the games and were put right"
        )
        print(f"{report['scopes_bumped']} scope(s) moved on: their cached reads are built again")
        print(f"{report['head_to_head']} difference(s)")
    return 0
