"""``arena games download SITE [filters] -o FILE``: the site's games as a data set, in a file
that a stopped download resumes.

The site's ``/api/games/export`` answers a page of games as gzip-compressed JSON Lines; each
page is appended to FILE as it comes (one gzip member each, so FILE is one ``.jsonl.gz`` that
``zcat`` and :func:`arena.sdk.games.read_games` read whole). Run again with the same filters,
it reads FILE, drops a page cut short at its end, and asks for the games after the last id it
holds: no game twice, none missing (the site hands out game ids in the order results commit,
so no game can appear later below that id). FILE records its filters (in its first gzip
member's header); a resume with other filters is refused, as they would mix two data sets.
A 429 (the site's limit on pages a minute) is waited out.
Exit status: 0 when FILE holds every game the filters select, 3 when ``--max-pages`` stopped
it first (run it again to go on), 1 when the site refused or could not be reached, 2 for bad
arguments. ``--json`` prints a summary. Standard library and ``rich`` only: an HTTP client of
the site, nothing of the site itself.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import zlib
from pathlib import Path
from typing import Any

HELP = "download the site's games as a data set (JSON Lines, resumable)"

RETRIES = 5
"""Attempts at one page that could not be fetched (no answer), with a growing pause."""
MAX_WAIT_S = 120.0


def register(subparsers: Any) -> None:
    """Adds ``games download`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "games",
        help=HELP,
        description="The site's games as a data set: every rated game's replay, for training "
        "and analysis.",
    )
    sub = parser.add_subparsers(dest="games_command", metavar="ACTION", required=True)
    download = sub.add_parser(
        "download",
        help="download games into a .jsonl.gz file; run again to resume",
        description="Downloads the games the filters select from SITE into FILE (gzip JSON "
        "Lines, one game a line with its replay), a page at a time with a progress bar. Run it "
        "again with the same filters to resume where it stopped. Exit status 0 when done, 3 "
        "when --max-pages stopped it first, 1 when the site refused.",
        epilog="arena games download https://arena.example.org --variant scopa -o scopa.jsonl.gz",
    )
    download.add_argument(
        "site",
        metavar="SITE",
        nargs="?",
        default=None,
        help="the site's address (default: ARENA_SERVER, else the one of "
        "arena login, else http://127.0.0.1:8000)",
    )
    download.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="the file to write, or to resume (.jsonl.gz)",
    )
    download.add_argument("--variant", metavar="SLUG", help="only games of this variant")
    download.add_argument("--bot", metavar="NAME", help="only games this bot played in")
    download.add_argument(
        "--since", metavar="DATE", help="only games played from this date or date-time (ISO 8601)"
    )
    download.add_argument(
        "--until", metavar="DATE", help="only games played before this date or date-time (ISO 8601)"
    )
    download.add_argument(
        "--rated",
        choices=("true", "false", "any"),
        default="true",
        help="rated games (true, the default), unrated (false), or both",
    )
    download.add_argument(
        "--page-size",
        type=int,
        default=1000,
        metavar="N",
        help="games per page (default 1000; the site caps it)",
    )
    download.add_argument(
        "--max-pages",
        type=int,
        default=None,
        metavar="N",
        help="stop after N pages (exit status 3 if games are left)",
    )
    download.add_argument("--json", action="store_true", help="print a JSON summary")
    download.set_defaults(func=run_download)


def _fail(message: str, code: int = 1) -> int:
    print(f"arena games download: {message}", file=sys.stderr)
    return code


def page_lines(body: bytes) -> tuple[int, int]:
    """A page's games and its last game's id; ``ValueError`` when it is not one whole gzip
    member of JSON Lines."""
    unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        text = unpacker.decompress(body)
    except zlib.error as exc:
        raise ValueError(f"the page is not gzip: {exc}") from None
    if not unpacker.eof or unpacker.unused_data:
        raise ValueError("the page is cut short")
    games = last = 0
    for raw in text.splitlines():
        if raw.strip():
            games += 1
            last = int(json.loads(raw)["id"])
    return games, last


def fetch(client: Any, query: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """One page, waiting out the site's limit and retrying when it does not answer."""
    from arena.sdk.client import ClientError

    failures = 0
    while True:
        try:
            result: tuple[bytes, dict[str, str]] = client.export_page(query)
            return result
        except ClientError as exc:
            if exc.status == 429:
                time.sleep(min(MAX_WAIT_S, max(1.0, exc.retry_after)))
                continue
            failures += 1
            if (exc.status != 0 and exc.status < 500) or failures >= RETRIES:
                raise
            time.sleep(min(MAX_WAIT_S, 2.0**failures))


def run_download(args: argparse.Namespace) -> int:
    """``arena games download``."""
    from arena.sdk.client import ArenaClient, ClientError
    from arena.sdk.credentials import resolve
    from arena.sdk.games import GamesFileError, filters_member, scan

    if args.page_size < 1:
        return _fail(f"--page-size must be at least 1, not {args.page_size}", 2)
    if args.max_pages is not None and args.max_pages < 1:
        return _fail(f"--max-pages must be at least 1, not {args.max_pages}", 2)
    path = Path(args.output)
    try:
        held = scan(path)
    except GamesFileError as exc:
        return _fail(str(exc))
    filters: dict[str, str] = {
        name: str(value)
        for name in ("variant", "bot", "since", "until")
        if (value := getattr(args, name))
    }
    filters["rated"] = args.rated
    if held.filters is not None and held.filters != filters:
        return _fail(
            f"{path} holds games downloaded with {_filters_text(held.filters)}, not "
            f"{_filters_text(filters)}: resume with the same filters, or write another file",
            2,
        )
    dropped = held.size - held.good_bytes
    if dropped:
        with path.open("r+b") as handle:  # a page cut short while it was written
            handle.truncate(held.good_bytes)
    if held.good_bytes == 0:
        with path.open("wb") as handle:
            handle.write(filters_member(filters))
            handle.flush()
            os.fsync(handle.fileno())
    credentials = resolve(args.site)
    client = ArenaClient(credentials.server, credentials.token, timeout=120.0)
    query: dict[str, Any] = dict(filters)
    query["limit"] = args.page_size
    after, games, new, pages = held.last_id, held.games, 0, 0
    size = path.stat().st_size
    complete = False
    progress = _progress(args.json)
    task = None
    try:
        with progress, path.open("ab") as out:
            while True:
                query["after"] = after
                try:
                    body, headers = fetch(client, query)
                    count, last = page_lines(body)
                except ClientError as exc:
                    return _fail(f"{credentials.server}: {exc}")
                except (ValueError, KeyError) as exc:
                    return _fail(f"{credentials.server} sent a bad page: {exc}")
                if task is None:
                    remaining = int(headers.get("x-export-remaining") or 0)
                    task = progress.add_task("games", total=games + remaining, completed=games)
                if count:
                    out.write(body)
                    out.flush()
                    os.fsync(out.fileno())
                    size += len(body)
                    after, games, new = last, games + count, new + count
                pages += 1
                progress.update(task, completed=games)
                if not headers.get("x-export-next") or not count:
                    complete = True
                    break
                if args.max_pages is not None and pages >= args.max_pages:
                    break
    except KeyboardInterrupt:
        return _fail(f"stopped; {games} games in {path} (run again to resume)", 3)
    summary = {
        "file": str(path),
        "site": credentials.server,
        "games": games,
        "new": new,
        "pages": pages,
        "last_id": after,
        "bytes": size,
        "complete": complete,
        "dropped_bytes": dropped,
        "resumed": held.games > 0,
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        state = "complete" if complete else "stopped (run again to go on)"
        print(f"{path}: {games} games ({new} new, {size:,} bytes), {state}")
    return 0 if complete else 3


def _filters_text(filters: dict[str, str]) -> str:
    """Filters as the command line gives them: ``--variant scopa --rated true``."""
    return " ".join(f"--{name} {value}" for name, value in sorted(filters.items()))


def _progress(quiet: bool) -> Any:
    """A progress bar on standard error (none with ``--json``)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    return Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=quiet,
        transient=False,
    )
