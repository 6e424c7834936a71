"""``arena match``: play a match between bots and print the table, as chess engine testers do.

``arena match BOT BOT [BOT BOT] --variant V [--games N] [--seed S] [--move-time MS]
[--bank MS] [--json] [--replays DIR] [--unsafe-no-sandbox]``. A BOT is a sample bot's name, a
bot folder with ``bot.toml``, or ``grpc://HOST:PORT``. This module is the command line only;
the match itself is :func:`arena.runner.run_match`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

HELP = "play a match between bots (sandboxed, over gRPC)"

DEFAULT_GAMES = 10
MIB = 1024**2
DEFAULT_MOVE_MS = 1000
DEFAULT_BANK_MS = 60_000


def register(subparsers: Any) -> None:
    """Adds ``match`` to the ``arena`` parser."""
    from arena.runner.sandbox import Limits

    defaults = Limits()
    parser = subparsers.add_parser(
        "match",
        help="play a match between bots (sandboxed processes over gRPC)",
        description=(
            "Plays a match between bots in duplicate sets: every set deals the same decks with "
            "the seats swapped (rotated in partnership games), so deal luck cancels. Each seat "
            "is its own sandboxed process. Prints a table per bot with the Elo difference, its "
            "95% error and the likelihood of superiority (LOS)."
        ),
        epilog=(
            "BOT is a sample bot's name (random, greedy, ismcts, js-random), a folder with a "
            "bot.toml, or grpc://HOST:PORT for a bot you run yourself. Partnership variants "
            "(scopone, scopa-4, scientifico...) take two bots, each playing both seats of its "
            "side as two separate processes, or four. Examples:\n"
            "  arena match random greedy --variant scopa --games 20\n"
            "  arena match greedy ismcts --variant scopone --replays out/\n"
            "  arena match ./my-bot grpc://127.0.0.1:50051 --json\n"
            "  arena match ./new-bot ./old-bot --sprt elo0=0 elo1=10 --max-games 4000"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bots", nargs="+", metavar="BOT", help="two to four bots")
    parser.add_argument("--variant", default="scopa", help="variant of RULES.md (default scopa)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override one rule option, e.g. --option target=21 (repeatable)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=DEFAULT_GAMES,
        metavar="N",
        help=f"games to play, rounded up to whole duplicate sets (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        metavar="S",
        help="match seed, to play the same deals again (default: drawn from secrets; a seed "
        "a bot can guess lets it re-deal the game, so give one only to bots you trust)",
    )
    parser.add_argument(
        "--move-time",
        type=int,
        default=DEFAULT_MOVE_MS,
        metavar="MS",
        help=f"limit per move in milliseconds (default {DEFAULT_MOVE_MS})",
    )
    parser.add_argument(
        "--bank",
        type=int,
        default=DEFAULT_BANK_MS,
        metavar="MS",
        help=f"each seat's time for a whole game in milliseconds (default {DEFAULT_BANK_MS})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--sprt",
        nargs="+",
        default=None,
        metavar="PARAM",
        help="play duplicate pairs until an SPRT decides whether the first bot (NEW) is "
        "stronger than the second (OLD): elo0=E0 elo1=E1 [alpha=0.05 beta=0.05], in logistic "
        "Elo; exit 0 for H1 (NEW is about elo1 stronger), 1 for H0, 3 undecided at --max-games",
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=None,
        metavar="N",
        help="with --sprt: stop undecided after N games (default 20000)",
    )
    parser.add_argument(
        "--replays", type=Path, default=None, metavar="DIR", help="write one replay per game here"
    )
    parser.add_argument(
        "--unpaced",
        action="store_true",
        help="in a partnership variant, play each move as soon as it is answered instead of at "
        "its turn's next release point (faster, but a partner's think time then tells the "
        "other more; for a local match, never one that counts)",
    )
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run every bot without the bubblewrap sandbox (only limits); for bots you trust",
    )
    limits = parser.add_argument_group(
        "limits of each seat (see docs/SECURITY.md; `arena doctor` says how this host "
        "enforces them)"
    )
    limits.add_argument(
        "--memory",
        type=int,
        default=None,
        metavar="MIB",
        help="memory of a seat's processes and tmpfs folders together "
        f"(default {defaults.memory_bytes // MIB})",
    )
    limits.add_argument(
        "--processes",
        type=int,
        default=None,
        metavar="N",
        help=f"processes and threads of a seat (default {defaults.processes})",
    )
    limits.add_argument(
        "--tmp-size",
        type=int,
        default=None,
        metavar="MIB",
        help=f"size of a seat's /tmp and of its /dev/shm (default {defaults.tmp_bytes // MIB})",
    )
    limits.add_argument(
        "--cpu-time",
        type=int,
        default=None,
        metavar="S",
        help="CPU seconds of each bot process (default: every game's bank, "
        "one and a half times, plus a minute)",
    )
    limits.add_argument(
        "--file-size",
        type=int,
        default=None,
        metavar="MIB",
        help=f"largest file a bot may write (default {defaults.file_bytes // MIB})",
    )
    limits.add_argument(
        "--open-files",
        type=int,
        default=None,
        metavar="N",
        help=f"open files of each bot process (default {defaults.open_files})",
    )
    parser.set_defaults(func=run)


def limits_from_args(args: argparse.Namespace, games: int, bank_ms: int) -> Any:
    """The seat limits the flags ask for (None: the defaults). Raises ValueError."""
    from arena.runner.match import default_limits

    given = {
        "memory_bytes": None if args.memory is None else args.memory * MIB,
        "processes": args.processes,
        "tmp_bytes": None if args.tmp_size is None else args.tmp_size * MIB,
        "cpu_seconds": args.cpu_time,
        "file_bytes": None if args.file_size is None else args.file_size * MIB,
        "open_files": args.open_files,
    }
    chosen = {key: value for key, value in given.items() if value is not None}
    if not chosen:
        return None
    flags = {
        "memory_bytes": "--memory",
        "processes": "--processes",
        "tmp_bytes": "--tmp-size",
        "cpu_seconds": "--cpu-time",
        "file_bytes": "--file-size",
        "open_files": "--open-files",
    }
    try:
        return dataclasses.replace(default_limits(games, bank_ms), **chosen)
    except ValueError as error:  # "limit memory_bytes must be ...": name the flag instead
        text = str(error)
        for key, flag in flags.items():
            if key in text:
                scale = MIB if key.endswith("_bytes") else 1
                low = int(text.split("at least ")[1].split(",")[0]) // scale
                unit = " MiB" if scale == MIB else ""
                raise ValueError(f"{flag} must be at least {low}{unit}") from None
        raise


def parse_options(items: list[str]) -> dict[str, Any]:
    """``["target=21", "re_bello=true"]`` -> ``{"target": 21, "re_bello": True}``."""
    options: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--option {item!r}: expected NAME=VALUE")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return options


def run(args: argparse.Namespace) -> int:
    """``arena match``."""
    from arena.commands import sprt
    from arena.commands.match_output import print_header, print_table
    from arena.runner import BotError, BotRef, MatchError, MatchSpec, run_match, sandbox_available

    games = args.games
    try:
        if args.sprt is not None:
            games = args.max_games if args.max_games is not None else sprt.DEFAULT_MAX_GAMES
            if games < 2:
                raise ValueError(f"--max-games must be at least 2 (one pair), got {games}")
        elif args.max_games is not None:
            raise ValueError("--max-games goes with --sprt (use --games for a fixed match)")
        if not 2 <= len(args.bots) <= 4:
            raise ValueError(f"a match takes two to four bots, got {len(args.bots)}")
        entrants = [BotRef.parse(text) for text in args.bots]
        spec = MatchSpec(
            entrants=entrants,
            variant=args.variant,
            options=parse_options(args.option),
            games=games,
            seed=args.seed,
            move_time_ms=args.move_time,
            bank_ms=args.bank,
            replays_dir=args.replays,
            sandbox=not args.unsafe_no_sandbox,
            limits=limits_from_args(args, games, args.bank),
            pace_partners=False if args.unpaced else None,
        )
        if args.replays is not None and args.replays.exists() and not args.replays.is_dir():
            raise ValueError(f"--replays {args.replays}: not a folder")
        from arena.runner.match import check_spec

        check_spec(spec)
        test = sprt.check(args, spec) if args.sprt is not None else None
    except (BotError, MatchError, ValueError) as error:
        print(f"arena match: {error}", file=sys.stderr)
        return 2
    if test is not None:
        return sprt.run(args, spec, test)

    if not args.json:
        print_header(spec, sandbox_available())
    if args.json:
        report = run_match(spec)
    else:
        report = _run_with_progress(spec, run_match)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return 0
    print_table(report)
    return 0


def _run_with_progress(spec: Any, run_match: Any) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[score]}"),
        console=console,
        transient=False,
    ) as progress:
        task = progress.add_task("games", total=None, score="")
        wins: dict[int, int] = {}

        def update(done: int, total: int, outcome: Any) -> None:
            for entrant in outcome.winner_entrants:
                wins[entrant] = wins.get(entrant, 0) + 1
            score = " ".join(f"{wins.get(i, 0)}" for i in range(len(spec.entrants)))
            progress.update(task, completed=done, total=total, score=f"wins {score}")

        return run_match(spec, progress=update)
