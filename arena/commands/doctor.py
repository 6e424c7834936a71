"""``arena doctor``: what protects the host and the games here, and what stands in for the rest.

Prints each protection of docs/SECURITY.md (the sandbox, the system-call filter, the seat
limits...) as this host gives it, or its fallback, with ``--json`` for machines. The exit
status is 0 when every protection is active, 1 when some fell back. Starts no bot.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

HELP = "say which of the bot sandbox's protections this host gives"


def register(subparsers: Any) -> None:
    """Adds ``doctor`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "doctor",
        help="say which of the sandbox's protections this host gives",
        description="Checks this host for each protection of the bot sandbox (bubblewrap, the "
        "system-call filter, per-seat memory and process limits, tmpfs sizes...) and says "
        "which are active and what replaces those that are not. Exit status 1 when any fell "
        "back.",
    )
    parser.add_argument("--json", action="store_true", help="print the protections as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``arena doctor``."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from arena.runner.protections import protections

    found = protections()
    missing = [p for p in found if not p.active]
    if args.json:
        print(
            json.dumps({"ok": not missing, "protections": [p.to_json() for p in found]}, indent=2)
        )
        return 1 if missing else 0
    table = Table(title="Bot sandbox on this host", title_justify="left")
    table.add_column("protection")
    table.add_column("")
    table.add_column("how, or what stands in for it", overflow="fold")
    for item in found:
        mark = "[green]yes[/]" if item.active else "[yellow]no[/]"
        table.add_row(escape(item.name), mark, escape(item.detail))
    console = Console()
    console.print(table)
    if missing:
        console.print(f"[yellow]{len(missing)} protection(s) fell back; see docs/SECURITY.md")
    else:
        console.print("[green]every protection is active")
    return 1 if missing else 0
