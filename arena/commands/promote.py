"""``arena bot promote BOT VERSION``: make a version of your bot its ladder version.

An upload is a candidate: the ladder keeps playing the bot's current version until its owner
promotes another (this command, the button on the bot's page, ``POST
/api/bots/<name>/promote``), or until a version test of a version uploaded with ``arena bot
submit --test-then-promote`` accepts H1. Talks to the site's JSON API with the token of
``arena login`` or ``ARENA_TOKEN`` (:mod:`arena.sdk.credentials`), as ``arena bot submit``
does. Exit status: 0 promoted (or the ladder version already); 1 refused by the site (not your
bot, no such version, not validated, retired); 2 not asked (no token, no answer).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

PROMOTED, REFUSED, NOT_ASKED = 0, 1, 2


def register(sub: Any) -> None:
    """Adds ``arena bot promote`` to the ``arena bot`` parser."""
    parser = sub.add_parser(
        "promote",
        help="make a version of your bot its ladder version",
        description="Makes VERSION (a number that passed validation) the ladder version of "
        "your bot BOT. An upload waits as a candidate until then (its first version excepted), "
        "unless it was submitted with --test-then-promote and a version test of it accepts H1.",
        epilog="Exit status: 0 promoted; 1 refused by the site; 2 not asked (no token, no answer).",
    )
    parser.add_argument("bot", metavar="BOT", help="the bot's name on the site")
    parser.add_argument("version", metavar="VERSION", help="the version's number: 3 or my-bot@3")
    parser.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="the site (default: ARENA_SERVER, else the one of arena login, "
        "else http://127.0.0.1:8000)",
    )
    parser.add_argument("--json", action="store_true", help="print the ladder entry as JSON")
    parser.set_defaults(func=run)


def version_number(bot: str, text: str) -> int:
    """``3`` or ``bot@3`` as 3; ValueError quoting the text otherwise.

    >>> version_number("my-bot", "my-bot@3"), version_number("my-bot", "4")
    (3, 4)
    """
    name, at, number = text.rpartition("@")
    if at and name != bot:
        raise ValueError(f"version {text!r} is not a version of bot {bot!r}")
    if not number.isdigit() or len(number) > 9 or int(number) < 1:
        raise ValueError(f"version {text!r}: give its number, such as 3 (or {bot}@3)")
    return int(number)


def run(args: argparse.Namespace) -> int:
    """``arena bot promote``."""
    from arena.commands import shown
    from arena.sdk.client import ArenaClient, ClientError
    from arena.sdk.credentials import CredentialsError, resolve

    def fail(status: int, message: str) -> int:
        print(f"arena bot promote: {message}", file=sys.stderr)
        return status

    try:
        number = version_number(args.bot, args.version)
    except ValueError as exc:
        return fail(NOT_ASKED, str(exc))
    try:
        creds = resolve(args.server)
    except CredentialsError as exc:
        return fail(NOT_ASKED, str(exc))
    if not creds.token:
        return fail(
            NOT_ASKED,
            f"no API token for {creds.server}: run `arena login --server {creds.server}` once "
            "(or set ARENA_TOKEN)",
        )
    try:
        answer = ArenaClient(creds.server, creds.token).promote(args.bot, number)
    except ClientError as exc:
        return fail(REFUSED if 400 <= exc.status < 500 else NOT_ASKED, str(exc))
    if args.json:
        print(json.dumps(answer, indent=2, ensure_ascii=False))
        return PROMOTED
    entry = answer.get("entry") or {}
    from rich.console import Console

    out = Console(highlight=False, soft_wrap=True)
    out.print(
        f"{shown(str(entry.get('label')))} is the ladder version of {shown(args.bot)} "
        f"({shown(str(entry.get('status')))})"
    )
    return PROMOTED
