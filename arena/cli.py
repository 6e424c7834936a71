"""The ``arena`` command line.

Each subcommand lives in its own module under :mod:`arena.commands` and is imported only when it
is called, so ``arena replay verify`` never loads gRPC or Django.  A command module provides
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking the parsed
arguments and returning an exit status.
"""

from __future__ import annotations

import argparse
import importlib
import signal
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Modules are imported lazily, when their command is chosen.
COMMANDS: dict[str, tuple[str, str]] = {
    "replay": ("arena.commands.replay", "verify and show game records (REPLAY.md format)"),
    "bench": ("arena.commands.bench", "benchmarks: engine, protocol, match, season, site"),
    "match": ("arena.commands.match", "play a match between bots (sandboxed, over gRPC)"),
    "bot": ("arena.commands.bot", "write a new bot, check it, submit it to the site"),
    "login": ("arena.commands.login", "keep a site's address and API token for bot submit"),
    "worker": ("arena.commands.worker", "run a Celery worker that plays matches"),
    "season": ("arena.commands.season", "create, run and follow seasons on workers"),
    "demo": ("arena.commands.demo", "set up, play a short season of sample bots, serve the site"),
    "web": ("arena.commands.web", "serve the site at http://127.0.0.1:8000"),
    "password": ("arena.commands.password", "set a new password for an account of this "
                 "installation"),
    "doctor": ("arena.commands.doctor", "say which of the bot sandbox's protections this host "
               "gives"),
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser; with ``only``, just that command's module is imported."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Scopa Arena: rules engine, bot matches, seasons and the site.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            subparsers.add_parser(name, help=help_text, add_help=False)
            continue
        module = importlib.import_module(module_name)
        module.register(subparsers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: a command stops as after Ctrl-C, stopping what it started (local
    workers, servers) on its way out. ``arena worker`` installs Celery's own handling."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in args_list if not a.startswith("-")), None)
    only = chosen if chosen in COMMANDS else None
    if only is None and chosen is None:
        only = "__none__"  # plain `arena` or `arena --help`: list commands without importing any
    parser = build_parser(only)
    args = parser.parse_args(args_list)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0 if args.command is None else 2
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        status: int = args.func(args)
    except Terminated:
        print("terminated", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return status


if __name__ == "__main__":
    sys.exit(main())
