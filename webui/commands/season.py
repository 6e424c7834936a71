"""``arena season``: create a season from the shell, run it on workers, print its standings.

``arena season create NAME --bot random --bot greedy ...``, ``arena season run NAME``
(starts local worker processes when no broker is configured, shows a progress bar, prints the
table), ``arena season standings NAME``, ``arena season list``,
``arena season recompute-ratings`` and ``recompute-reads``. Django is loaded only when one of
them runs; the logic is in
:mod:`webui.league.cli`, shared with the Django management commands.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from webui.league import cli

HELP = "create, run and follow seasons on workers"


def _platform(action: str) -> Callable[[argparse.Namespace], int]:
    def call(args: argparse.Namespace) -> int:
        cli.setup()
        result: int = getattr(cli, action)(args)
        return result

    return call


def register(subparsers: Any) -> None:
    """Adds ``season create|run|standings|list|recompute-ratings|recompute-reads`` to the
    ``arena`` parser."""
    parser = subparsers.add_parser(
        "season",
        help="create, run and follow seasons (every format: `season create --help`) on workers",
        description="Seasons from the shell. Configuration comes from the environment "
        "(ARENA_DATABASE_URL, ARENA_BROKER_URL, ARENA_DATA_DIR...); without a broker, "
        "`run` starts local worker processes itself.",
    )
    sub = parser.add_subparsers(dest="season_command", metavar="ACTION", required=True)
    for name, adder, action, help_text in [
        ("create", cli.add_create_arguments, "create", "create a season"),
        ("run", cli.add_run_arguments, "run", "run a season to its end and print the table"),
        ("standings", cli.add_standings_arguments, "standings", "print a season's table"),
        ("list", cli.add_list_arguments, "list_seasons", "list the seasons"),
        (
            "recompute-ratings",
            cli.add_recompute_arguments,
            "recompute",
            "recompute every rating from the results, in order",
        ),
        (
            "recompute-reads",
            cli.add_recompute_reads_arguments,
            "recompute_reads",
            "rebuild the site's read models (head-to-head, cached pages) and report differences",
        ),
    ]:
        action_parser = sub.add_parser(name, help=help_text, description=help_text.capitalize())
        adder(action_parser)
        action_parser.set_defaults(func=_platform(action))
