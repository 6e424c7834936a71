"""``arena password USER``: a new password for an account of this installation, no e-mail needed.

For an operator (or the demo's owner) whose user forgot a password: prints a new random one,
or sets the one read from standard input (``--stdin``). The account's sessions end and its
failed-login lock-outs are cleared. A person who is logged in changes their own password on the
site's account page. Django is loaded only when this command runs (:mod:`webui.accounts`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "set a new password for an account of this installation"


def register(subparsers: Any) -> None:
    """Adds ``arena password`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "password",
        help="set a new password for an account of this installation",
        description="Gives an account of this installation (ARENA_DATABASE_URL, else var/) a "
        "new password and prints it; the site sends no e-mail, so this is the operator's way "
        "back in. With --stdin the password is read from standard input instead.",
        epilog="Example: .venv/bin/arena password demo",
    )
    parser.add_argument("username", help="the account's user name")
    parser.add_argument(
        "--stdin", action="store_true", help="read the new password from standard input (one line)"
    )
    parser.add_argument(
        "--data-dir",
        default=None,
        metavar="DIR",
        help="the installation's data folder (default: ARENA_DATA_DIR, else var/ in the checkout)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """``arena password``."""
    import os
    from pathlib import Path

    if args.data_dir:
        os.environ["ARENA_DATA_DIR"] = str(Path(args.data_dir).resolve())
    password = None
    if args.stdin:
        password = sys.stdin.readline().rstrip("\n")
    from webui.league.cli import setup

    setup()
    from webui.accounts import AccountError, reset_password

    try:
        chosen = reset_password(args.username, password)
    except AccountError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if password is None:
        print(f"New password of {args.username}: {chosen}")
    else:
        print(f"Password of {args.username} changed.")
    print("Its sessions on the site have ended; log in again with it.", file=sys.stderr)
    return 0
