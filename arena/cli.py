"""The ``arena`` command line.

Its commands are entry points of the group ``scopa_arena.commands`` (:mod:`arena.plugins`, as
pytest finds its plugins): the library's own (``replay``, ``match``, ``bot``, ``login``,
``bench``, ``doctor``, ``games``, in :mod:`arena.commands`) and the platform's (``season``,
``demo``, ``web`` from :mod:`webui.commands`, ``worker`` from :mod:`workers.commands`), which
appear when the platform is installed. The library imports none of them by name. An entry
point names a module with ``HELP`` (one line) and ``register(subparsers)``, which adds the
command's parser and sets ``func`` to a callable taking the parsed arguments and returning an
exit status.

Only the chosen command's module is imported, so ``arena replay verify`` never loads gRPC or
Django; ``arena --help`` imports each (they import nothing heavy at the top) for its line of
help. A command whose module cannot be imported (the platform's, without Django) is left out of
the list, and choosing it says why in one line.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence

from arena.plugins import COMMANDS, load, plugins


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser: every command registered in full, or with ``only`` just that
    one (``"__none__"``: each command's line of help, none registered)."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Scopa Arena: rules engine, bot matches, seasons and the site.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, entry in plugins(COMMANDS).items():
        if only is not None and only not in {name, "__none__"}:
            continue
        module = load(entry)
        if isinstance(module, str):
            continue  # not available here: main() says why when it is chosen
        if only == "__none__":
            subparsers.add_parser(name, help=str(getattr(module, "HELP", "")), add_help=False)
        else:
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
    commands = plugins(COMMANDS)
    only = chosen if chosen in commands else None
    if only is not None:
        module = load(commands[only])
        if isinstance(module, str):
            print(f"arena {only}: not available here: {module}", file=sys.stderr)
            return 2
    if only is None and chosen is None:
        only = "__none__"  # plain `arena` or `arena --help`: list commands, register none
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
