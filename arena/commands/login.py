"""``arena login``: keep a site's address and an API token for ``arena bot submit``.

The token is one made on the site's account page (``/accounts/``, "Create a token"): pasted
here (hidden as it is typed, or read from standard input when that is not a terminal), checked
against the site (``/api/me``), then saved by :mod:`arena.sdk.credentials` (mode 0600). The
command line never sees a password. ``ARENA_TOKEN`` and ``ARENA_SERVER`` win over what is
saved; ``arena login --show`` says what the commands would use.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from typing import Any

HELP = "keep a site's address and API token for bot submit"


def register(subparsers: Any) -> None:
    """Adds ``arena login`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "login",
        help="keep a site's address and API token for arena bot submit",
        description="Asks for an API token made on the site's account page (log in on the "
        "site, open your account page, 'Create a token'), checks it with the site and keeps it "
        "in ~/.config/scopa-arena/credentials.json, readable by you only. ARENA_TOKEN and "
        "ARENA_SERVER, when set, win over it.",
        epilog='For scripts: echo "$TOKEN" | arena login --server URL',
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="the site (default: ARENA_SERVER, else the last one logged in to, "
        "else http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--show",
        action="store_true",
        help="say which site and token the commands use, and who that is",
    )
    parser.set_defaults(func=run)


def _fail(message: str, status: int = 2) -> int:
    print(f"arena login: {message}", file=sys.stderr)
    return status


def run(args: argparse.Namespace) -> int:
    """``arena login``."""
    from arena.sdk.client import ArenaClient, ClientError
    from arena.sdk.credentials import SERVER_ENV, TOKEN_ENV, CredentialsError, resolve, save

    try:
        creds = resolve(args.server)
    except CredentialsError as exc:
        return _fail(str(exc))
    client = ArenaClient(creds.server)
    if args.show:
        if not creds.token:
            return _fail(f"no token for {creds.server}: run arena login", 1)
        client.token = creds.token
        try:
            me = client.me()
        except ClientError as exc:
            return _fail(f"{creds.server} does not take the token of {creds.source}: {exc}", 1)
        print(f"{creds.server} as {me['username']} (token from {creds.source})")
        return 0

    if sys.stdin.isatty():
        print(
            f"Make a token on {client.url('/accounts/')} (log in, then 'Create a token') and "
            "paste it here.",
            file=sys.stderr,
        )
        try:
            token = getpass.getpass("Token: ").strip()
        except EOFError:
            token = ""
    else:
        token = sys.stdin.readline().strip()
    if not token:
        return _fail("no token given; make one on " + client.url("/accounts/"))
    if any(c.isspace() for c in token) or len(token) > 200:
        return _fail(
            "that is not a token: paste the one line the account page shows (it starts with sa_)"
        )
    client.token = token
    try:
        me = client.me()
    except ClientError as exc:
        if exc.status == 401:
            return _fail(f"{creds.server} refused this token ({exc}); nothing was saved")
        return _fail(f"{exc}; nothing was saved")
    path = save(creds.server, token)
    print(
        f"Logged in to {creds.server} as {me['username']}; the token is kept in {path} "
        "(readable by you only)."
    )
    overriding = [name for name in (TOKEN_ENV, SERVER_ENV) if os.environ.get(name)]
    if overriding:
        print(
            f"Note: {' and '.join(overriding)} set in this shell win over what was saved.",
            file=sys.stderr,
        )
    return 0
