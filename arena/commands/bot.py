"""``arena bot``: tools for bot authors: ``new`` (a bot folder from a template), ``check`` (the
compliance suite), ``describe``, ``submit`` (:mod:`arena.commands.submit`), ``promote``
(:mod:`arena.commands.promote`) and ``status`` (:mod:`arena.commands.bot_status`).

``arena bot new NAME [--lang python|javascript]`` writes a working bot folder
(:mod:`arena.sdk.scaffold`) and, for JavaScript, installs its packages with npm.
``arena bot check TARGET`` runs :mod:`arena.sdk.compliance` against a bot: TARGET is a bot
folder with a ``bot.toml`` (started here, unsandboxed: check only bots you trust) or
``grpc://HOST:PORT`` / ``unix:///path.sock`` for a bot you run yourself. Exit status 0 when every
check passes, 1 when one fails, 2 for bad arguments. This command does not play matches
(``arena match`` does).
"""

from __future__ import annotations

import argparse
import getpass
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HELP = "write a new bot, check it, submit it to the site"

GRPC_PREFIX = "grpc://"


def register(subparsers: Any) -> None:
    """Adds ``bot check`` and ``bot describe`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "bot",
        help="write a new bot, check it, submit it to the site",
        description="Tools for bot authors: a bot in five minutes is `arena bot new my-bot`, "
        "`arena match my-bot random`, `arena login` and `arena bot submit my-bot`.",
    )
    sub = parser.add_subparsers(dest="bot_command", metavar="ACTION", required=True)
    new = sub.add_parser(
        "new",
        help="write a new bot folder from a template",
        description="Writes a working bot folder: bot.toml, the bot with a commented choose(), "
        "a test that plays it against the random bot, and a README. For JavaScript it also "
        "runs npm install (the packages go in node_modules/, which is uploaded with the bot).",
        epilog="Next: cd NAME, then `arena match . random` and `arena bot check .`.",
    )
    new.add_argument("name", metavar="NAME", help="the bot's name: [a-z0-9-], 1 to 40 characters")
    new.add_argument(
        "--lang",
        choices=("python", "javascript"),
        default="python",
        help="the bot's language (default python, with the arena's SDK)",
    )
    new.add_argument(
        "--dir",
        metavar="FOLDER",
        default=None,
        help="where to write it (default: ./NAME); must be new or empty",
    )
    new.add_argument(
        "--author", default=None, help="the author in bot.toml (default: your login name)"
    )
    new.add_argument("--no-install", action="store_true", help="JavaScript: do not run npm install")
    new.set_defaults(func=run_new)
    check = sub.add_parser(
        "check",
        help="run the compliance checks against a bot",
        description="Checks that a bot follows the scopa.arena.v1 protocol: Describe, health, "
        "one legal answer per turn request over a whole game of each variant it supports, and "
        "weird-but-legal situations. TARGET is a bot folder (started here without a sandbox) "
        "or grpc://HOST:PORT for a bot you run yourself.",
    )
    check.add_argument("target", metavar="TARGET", help="bot folder, or grpc://HOST:PORT")
    check.add_argument(
        "--variants",
        metavar="V,V",
        help="comma-separated variants for the full-game checks (default: all it supports)",
    )
    check.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.set_defaults(func=run_check)
    describe = sub.add_parser(
        "describe",
        help="print what a bot says about itself",
        description="Calls Describe on a bot and prints the answer.",
    )
    describe.add_argument("target", metavar="TARGET", help="bot folder, or grpc://HOST:PORT")
    describe.set_defaults(func=run_describe)
    from arena.commands import bot_status, promote, submit

    submit.register(sub)
    promote.register(sub)
    bot_status.register(sub)


def _address(target: str) -> str | None:
    """The gRPC target of an address-like TARGET, or None when it names a folder."""
    if target.startswith(GRPC_PREFIX):
        return target[len(GRPC_PREFIX) :]
    if target.startswith("unix:"):
        return target
    return None


def _fail(message: str) -> int:
    print(f"arena bot: {message}", file=sys.stderr)
    return 2


def _with_bot(target: str, action: Any) -> int:
    """Runs ``action(address)`` against TARGET, starting the bot folder first if it is one."""
    from arena.sdk.launch import LocalBot, ManifestError

    address = _address(target)
    if address is not None:
        if not address:
            return _fail(f"{target!r} names no address; use grpc://HOST:PORT")
        status: int = action(address)
        return status
    if not Path(target).is_dir():
        return _fail(f"{target!r} is neither a bot folder nor grpc://HOST:PORT")
    try:
        bot = LocalBot(target)
    except ManifestError as exc:
        return _fail(str(exc))
    try:
        bot.start()
    except RuntimeError as exc:
        print(f"arena bot: {exc}", file=sys.stderr)
        return 1
    try:
        status = action(bot.address)
    finally:
        bot.stop()
    return status


def run_check(args: argparse.Namespace) -> int:
    """``arena bot check``."""
    from arena.engine import VARIANTS

    variants = None
    if args.variants:
        variants = [v.strip() for v in args.variants.split(",") if v.strip()]
        unknown = [v for v in variants if v not in VARIANTS]
        if unknown:
            return _fail(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")

    def check(address: str) -> int:
        from rich.console import Console
        from rich.table import Table

        from arena.sdk.compliance import CheckResult, results_json, run_checks

        console = Console(stderr=args.json)

        from arena.commands import shown

        def progress(result: CheckResult) -> None:
            if not args.json:
                mark = "[green]pass[/]" if result.ok else "[red]FAIL[/]"
                console.print(f"{mark} {shown(result.name)}")

        results = run_checks(address, variants=variants, seed=args.seed, progress=progress)
        ok = all(r.ok for r in results)
        if args.json:
            print(results_json(results))
        else:
            table = Table(title=f"compliance of {args.target}")
            table.add_column("check")
            table.add_column("result")
            table.add_column("detail")
            table.add_column("s", justify="right")
            for r in results:
                verdict = "[green]pass[/]" if r.ok else "[red]FAIL[/]"
                table.add_row(shown(r.name), verdict, shown(r.detail), f"{r.seconds:.2f}")
            console.print(table)
            passed = sum(r.ok for r in results)
            console.print(f"{passed}/{len(results)} checks passed")
        return 0 if ok else 1

    return _with_bot(args.target, check)


def run_describe(args: argparse.Namespace) -> int:
    """``arena bot describe``."""

    def describe(address: str) -> int:
        import grpc

        from arena.protocol import PROTOCOL_VERSION, bot_pb2, bot_pb2_grpc

        with grpc.insecure_channel(address) as channel:
            try:
                info = bot_pb2_grpc.BotStub(channel).Describe(
                    bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=10
                )
            except grpc.RpcError as exc:
                print(
                    f"arena bot: Describe failed at {address}: {exc.code().name}", file=sys.stderr
                )
                return 1
        from arena.text import printable

        # What the bot says of itself is shown as text, never as terminal commands.
        print(
            f"name: {printable(info.name)}\nversion: {printable(info.version)}\n"
            f"author: {printable(info.author)}"
        )
        print(f"variants: {printable(', '.join(info.variants))}\nprotocol: {info.protocol_version}")
        if info.language:
            print(f"language: {printable(info.language)}")
        return 0

    return _with_bot(args.target, describe)


def run_new(args: argparse.Namespace) -> int:
    """``arena bot new``."""
    from arena.sdk.scaffold import ScaffoldError, new_bot

    folder = Path(args.dir or args.name)
    author = args.author if args.author is not None else _login_name()
    try:
        written = new_bot(folder, args.name, args.lang, author)
    except ScaffoldError as exc:
        return _fail(str(exc))
    print(
        f"Wrote {args.lang} bot {args.name!r} in {folder}/: "
        + ", ".join(sorted({str(p.relative_to(folder)).split("/")[0] for p in written}))
    )
    if args.lang == "javascript" and not args.no_install:
        status = _npm_install(folder)
        if status:
            return status
    where = "." if folder.resolve() == Path.cwd() else str(folder)
    print("Next:")
    if where != ".":
        print(f"  cd {where}")
    if args.lang == "javascript" and args.no_install:
        print("  npm install             # the packages of package.json, into node_modules/")
    print("  arena match . random    # play it against the random bot")
    print("  arena bot check .       # the protocol's compliance checks")
    print(
        "  "
        + ("python -m unittest" if args.lang == "python" else "npm test          ")
        + "      # its tests"
    )
    print("  arena login             # once: a token from the site's account page")
    print("  arena bot submit .      # upload it; the site plays its validation games")
    print(f"  arena bot status {args.name} --follow   # its validation, games and rating")
    return 0


def _login_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _npm_install(folder: Path) -> int:
    """Installs a JavaScript bot's packages with npm, as scripts/setup does the sample bot's."""
    npm = shutil.which("npm")
    if npm is None:
        print(
            f"arena bot: npm not found: install Node.js and npm, then run npm install in {folder}",
            file=sys.stderr,
        )
        return 1
    from rich.console import Console

    with Console(stderr=True).status(f"npm install in {folder} …"):
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
            cwd=folder,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        print(f"arena bot: npm install failed in {folder}: {last}", file=sys.stderr)
        return 1
    print(f"Installed the packages of package.json into {folder}/node_modules/")
    return 0
