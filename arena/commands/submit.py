"""``arena bot submit FOLDER``: upload a bot folder to the site and wait for its validation.

Packs the folder (:mod:`arena.sdk.packing`), checks the archive against the site's own upload
rules before sending anything (:mod:`arena.archives`: no Django), then, with the API
token of ``arena login`` or ``ARENA_TOKEN`` (:mod:`arena.sdk.credentials`): creates the bot the
first time, uploads the archive with a progress bar, follows the version until a worker has
played its validation games (a duplicate pair against the random bot, the seats swapped), and
prints the result, the games' score and faults, and the version's address. ``--json`` prints
the same for machines.

Exit status: 0 ready (or uploaded, with ``--no-wait``); 1 refused, by the site's checks or by
its validation games; 2 not submitted (a bad folder, no token or a wrong one, no answer from the
site); 3 still validating when ``--timeout`` ran out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

READY, REFUSED, NOT_SUBMITTED, PENDING = 0, 1, 2, 3
POLL_S = 1.0


def register(sub: Any) -> None:
    """Adds ``arena bot submit`` to the ``arena bot`` parser."""
    parser = sub.add_parser(
        "submit",
        help="upload a bot folder to the site and wait for its validation",
        description="Packs FOLDER (bot.toml at its top), uploads it as a new version of its bot "
        "(creating the bot the first time) with the API token of `arena login` or "
        "ARENA_TOKEN, waits while a worker plays its validation games (a duplicate pair "
        "against the random bot), and prints the result with the version's address. Left out "
        "of the upload: .git and "
        "other version control, caches (__pycache__, *.pyc, .pytest_cache, .mypy_cache, "
        ".ruff_cache, .cache), virtualenvs (.venv, venv), editor files and "
        "node_modules/.bin; node_modules itself goes in (the arena provides Node.js, not "
        "packages).",
        epilog="Exit status: 0 ready (or uploaded, with --no-wait); 1 refused by the site's "
        "checks or by its validation games; 2 not submitted (bad folder, no or wrong token, no "
        "answer from the site); 3 still validating when --timeout ran out.",
    )
    parser.add_argument("folder", metavar="FOLDER", help="the bot's folder, with its bot.toml")
    parser.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="the site (default: ARENA_SERVER, else the one of arena login, "
        "else http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--description", default="", help="the bot's description, when this upload creates the bot"
    )
    parser.add_argument(
        "--test-then-promote",
        action="store_true",
        help="promote the version to the ladder when a version test (SPRT) of it against the "
        "ladder version accepts H1; without it, a bot's later version waits for `arena bot "
        "promote` (its first version enters the ladder at once)",
    )
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="return once uploaded, without waiting for the validation",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="how long to wait for the validation (default 600 s)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the result as JSON (progress goes to stderr)"
    )
    parser.set_defaults(func=run)


class Failure(Exception):
    """Ends the command with one line and an exit status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def run(args: argparse.Namespace) -> int:
    """``arena bot submit``."""
    try:
        return submit(args)
    except Failure as failure:
        print(f"arena bot submit: {failure}", file=sys.stderr)
        return failure.status


def submit(args: argparse.Namespace) -> int:
    """Every step of ``arena bot submit``; a :class:`Failure` stops it with one line."""
    from rich.console import Console

    from arena.commands import shown
    from arena.sdk.client import ArenaClient, ClientError
    from arena.sdk.credentials import CredentialsError, resolve

    # soft_wrap: a long line stays one line (a URL or a reason must not be cut for a pipe)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    out = err if args.json else Console(highlight=False, soft_wrap=True)
    if args.timeout <= 0:
        raise Failure(NOT_SUBMITTED, f"--timeout {args.timeout:g}: must be more than 0 seconds")
    try:
        creds = resolve(args.server)
    except CredentialsError as exc:
        raise Failure(NOT_SUBMITTED, str(exc)) from None
    packed = _pack(args.folder)
    manifest = packed.manifest
    skipped = ""
    if packed.skipped:
        more = ", …" if len(packed.skipped) > 4 else ""
        skipped = f" (left out: {', '.join(packed.skipped[:4])}{more})"
    out.print(
        f"Packed {manifest.label}: {len(packed.files):,} files, "
        f"{_size(packed.unpacked_bytes)}, {_size(len(packed.data))} to upload{skipped}"
    )
    if not creds.token:
        raise Failure(
            NOT_SUBMITTED,
            f"no API token for {creds.server}: run `arena login "
            f"--server {creds.server}` once (or set ARENA_TOKEN)",
        )

    client = ArenaClient(creds.server, creds.token)
    try:
        me = client.me()
    except ClientError as exc:
        if exc.status == 401:
            where = "ARENA_TOKEN" if creds.source == "ARENA_TOKEN" else "arena login"
            raise Failure(
                NOT_SUBMITTED,
                f"{creds.server} refused the token of {where} "
                f"({exc}): make one on {client.url('/accounts/')} and run arena "
                "login",
            ) from None
        raise Failure(NOT_SUBMITTED, str(exc)) from None

    name = manifest.name
    created_bot = False
    try:
        if name not in me.get("bots", []):
            existing = client.bot(name)
            if existing is not None:
                raise Failure(
                    NOT_SUBMITTED,
                    f"bot {name!r} belongs to {existing['bot']['owner']}"
                    f" on {creds.server}; choose another name in bot.toml",
                )
            client.create_bot(name, args.description)
            created_bot = True
            out.print(f"Created bot {name} for {me.get('username')} on {creds.server}")
        version = _upload(client, name, packed.data, err, args.test_then_promote)
    except ClientError as exc:
        status = REFUSED if 400 <= exc.status < 500 else NOT_SUBMITTED
        raise Failure(
            status,
            f"{creds.server} refused {manifest.label}: {exc}" if status == REFUSED else str(exc),
        ) from None

    label, number = version["label"], int(version["number"])
    url = client.url(f"/bots/{name}/v{number}/")
    warning = str(version.get("warning") or "")
    if version.get("created_now", True):
        out.print(f"Uploaded {label} (bot.toml's version {manifest.version})")
        if warning:
            err.print(f"[yellow]Warning:[/] {shown(warning)}")
    else:
        out.print(f"This archive is already {label}: nothing new was stored")
    if version["status"] == "validating" and not args.no_wait:
        version = _wait(client, name, number, args.timeout, err)
    validation = None
    if version["status"] in {"ready", "failed"}:
        try:
            validation = _validation(client.validation_frames(name, number))
        except ClientError:
            validation = None  # the result stands without the game's details
    result = {
        "server": creds.server,
        "bot": name,
        "version": number,
        "label": label,
        "status": version["status"],
        "reason": version.get("status_reason", ""),
        "url": url,
        "created_bot": created_bot,
        "new_version": bool(version.get("created_now", True)),
        "warning": warning,
        "test_then_promote": bool(args.test_then_promote),
        "archive": {
            "sha256": version.get("sha256"),
            "bytes": len(packed.data),
            "files": len(packed.files),
            "unpacked_bytes": packed.unpacked_bytes,
            "skipped": list(packed.skipped),
        },
        "validation": validation,
    }
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        _print_result(out, result)
        if version["status"] == "validating" and not args.no_wait:
            out.print(
                f"  Still validating after {args.timeout:g} s: no worker took it yet, or "
                "the game is long; its page shows the result when it is done."
            )
    if version["status"] == "ready":
        return READY
    if version["status"] == "failed":
        return REFUSED
    return READY if args.no_wait else PENDING


def _pack(folder: str) -> Any:
    """The folder packed and checked by the site's own upload rules, or a :class:`Failure`."""
    from arena.archives import (
        MAX_FILES,
        MAX_UNPACKED_BYTES,
        ArchiveError,
        check_archive,
    )
    from arena.engine import VARIANTS
    from arena.manifest import ManifestError
    from arena.sdk.packing import PackError, pack_folder

    try:
        packed = pack_folder(folder, max_files=MAX_FILES, max_bytes=MAX_UNPACKED_BYTES)
        check_archive(packed.data, frozenset(VARIANTS))
    except (ManifestError, PackError) as exc:
        raise Failure(NOT_SUBMITTED, str(exc)) from None
    except ArchiveError as exc:
        raise Failure(NOT_SUBMITTED, f"{folder}: the site would refuse it: {exc}") from None
    return packed


def _upload(
    client: Any, name: str, data: bytes, console: Any, test_then_promote: bool = False
) -> dict[str, Any]:
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(
        TextColumn("Uploading"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("upload", total=len(data))

        def advance(sent: int, total: int) -> None:
            progress.update(task, completed=sent)

        version: dict[str, Any] = client.upload_version(
            name, data, advance, test_then_promote=test_then_promote
        )
    return version


def _wait(client: Any, name: str, number: int, timeout: float, console: Any) -> dict[str, Any]:
    """Follows the version until its validation is over, or ``timeout`` seconds."""
    from arena.sdk.client import ClientError

    start = time.monotonic()
    version: dict[str, Any] = {"status": "validating", "label": f"{name}@{number}"}
    with console.status("") as status:
        while True:
            elapsed = time.monotonic() - start
            status.update(
                f"Validating {name}@{number}: a game against the random bot on a "
                f"worker … {elapsed:.0f} s"
            )
            try:
                version = client.version(name, number)
            except ClientError as exc:
                if exc.status:  # the site answered: this will not get better by waiting
                    raise Failure(NOT_SUBMITTED, str(exc)) from None
            if version["status"] != "validating" or elapsed >= timeout:
                return version
            time.sleep(min(POLL_S, max(0.0, timeout - elapsed)))


def _validation(frames: dict[str, Any] | None) -> dict[str, Any] | None:
    """The validation game in a few fields: players, score, winner, how it ended, faults."""
    if not frames:
        return None
    result = frames.get("result") or {}
    totals = result.get("totals")
    if frames.get("frames"):  # none when the game ended before its first deal (a start fault)
        last = frames["frames"][-1]
        totals = (last.get("score") or {}).get("totals") or last.get("totals")
    winner = frames.get("winner")
    players = list(frames.get("players") or [])
    side_of = list(frames.get("side_of") or range(len(players)))
    return {
        "variant": frames.get("variant"),
        "players": players,
        "totals": totals,
        "winner": None
        if winner is None
        else " & ".join(p for p, side in zip(players, side_of, strict=False) if side == winner),
        "forfeit": result.get("forfeit"),
        "void": result.get("void"),
        "faults": [
            {k: f.get(k) for k in ("deal", "move", "seat", "kind", "detail")}
            for f in frames.get("faults") or []
        ],
    }


def _print_result(out: Any, result: dict[str, Any]) -> None:
    from arena.commands import shown  # what the site relays of a bot: text, no markup

    label, status = shown(result["label"]), result["status"]
    if status == "ready":
        out.print(f"[green]✓[/] {label} is ready: it played its validation game without a fault.")
    elif status == "failed":
        out.print(f"[red]✗[/] {label} was refused: {shown(result['reason'] or 'no reason')}")
    elif status == "validating":
        out.print(f"{label} is being validated; its page shows the result when it is done.")
    game = result["validation"]
    if game:
        score = " \u2013 ".join(str(t) for t in game["totals"] or [])  # an en dash
        players = " v ".join(game["players"])
        ending = f"{game['winner']} won" if game["winner"] else "a draw"
        if game["forfeit"]:
            ending += " by forfeit"
        if game["void"]:
            ending = f"void: {game['void']}"
        out.print(
            f"  Validation game ({shown(game['variant'])}): {shown(players)}, {score}; "
            f"{shown(ending)}."
        )
        for fault in game["faults"]:
            said = fault["detail"] and fault["detail"] in (result["reason"] or "")
            out.print(
                f"  Fault: deal {fault['deal'] + 1}, move {fault['move'] + 1}, seat "
                f"{fault['seat']}: {shown(fault['kind'])}"
                + (f" ({shown(fault['detail'])})" if fault["detail"] and not said else "")
            )
    out.print(
        f"  {shown(result['url'])}"
        + ("  (the bot's log and the game are there)" if status == "failed" else "")
    )


def _size(n: int) -> str:
    """A size in bytes for people: ``1.9 MB``."""
    if n < 1000:
        return f"{n} B"
    if n < 1000_000:
        return f"{n / 1000:.1f} kB"
    return f"{n / 1000_000:.1f} MB"
