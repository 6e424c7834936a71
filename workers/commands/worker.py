"""``arena worker``: a Celery worker that plays the arena's matches, with sensible defaults.

It serves the broker the environment configures (``ARENA_BROKER_URL``, or the embedded
``filesystem://`` broker under ``ARENA_DATA_DIR``), one match per process at a time, with late
acknowledgement so a killed worker's match is played again. ``--beat`` also runs the periodic
sweep that finds work lost by a broker restart (run it once per deployment). ``--play`` serves
the Play page's games instead, from their own queue, in a pool of threads
(``ARENA_PLAY_SLOTS`` games at once): a game mostly waits for a person, so it never takes a
process that plays bot matches. A deployment runs at least one of each. Django is loaded only
when this command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import time
from typing import Any, NoReturn

from arena.process_groups import own_group_members, watch_lifeline

HELP = "run a Celery worker that plays matches"


def register(subparsers: Any) -> None:
    """Adds ``worker`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "worker",
        help="run a Celery worker that plays matches",
        description="Runs a Celery worker for the arena's tasks (validation games, matches, "
        "results, ratings). Stop it with Ctrl-C (a warm shutdown: the running match finishes).",
    )
    parser.add_argument(
        "--concurrency",
        "-c",
        type=int,
        default=None,
        metavar="N",
        help="matches played at once (default: the number of CPUs); with "
        "--play, games (default ARENA_PLAY_SLOTS, 16)",
    )
    parser.add_argument(
        "--play",
        action="store_true",
        help="serve the Play page's games (people against bots) instead of "
        "matches: their own queue, a pool of threads",
    )
    parser.add_argument(
        "--audit",
        action="store_true",
        help="serve the fair-play audits instead of matches: their own queue, one at a time "
        "(default concurrency 1), each at a lower CPU priority",
    )
    parser.add_argument(
        "--beat", action="store_true", help="also run the periodic sweep (one per deployment)"
    )
    parser.add_argument("--loglevel", "-l", default="INFO", help="log level (default INFO)")
    parser.add_argument(
        "--name", "-n", default=None, help="worker name (default arena@HOST; play@HOST with --play)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Starts the worker in this process; returns when it shuts down."""
    if args.concurrency is not None and args.concurrency < 1:
        print(f"error: --concurrency {args.concurrency}: must be at least 1")
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
    from django.conf import settings

    from arena.runner.protections import summary
    from workers.celery_app import app

    print(summary(), flush=True)  # what protects this host from the bots (`arena doctor`)
    watch_lifeline(_parent_died)  # started by `arena demo` or `arena web`: it goes with them

    if args.play:
        from webui.league.queue import play_queue

        queue, pool, name = play_queue(), "threads", "play@%h"
        slots = args.concurrency or settings.ARENA_PLAY_SLOTS
    elif args.audit:
        from webui.league.queue import audit_queue

        queue, pool, name = audit_queue(), "prefork", "audit@%h"
        slots = args.concurrency or 1
    else:
        queue, pool, name = settings.ARENA_QUEUE, "prefork", "arena@%h"
        slots = args.concurrency or os.cpu_count() or 1
    argv = [
        "worker",
        "--queues",
        queue,
        "--loglevel",
        args.loglevel,
        "--hostname",
        args.name or name,
        "--pool",
        pool,
        "--concurrency",
        str(slots),
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    if args.beat:
        argv += ["--beat", "--schedule", str(settings.ARENA_DATA_DIR / "celerybeat-schedule")]
    app.worker_main(argv)
    return 0


ORPHANED_GRACE_S = 2.0
"""How long a worker whose parent died waits for its killed pool children to go."""


def _parent_died() -> NoReturn:
    """The command that started this worker died without stopping it (SIGKILL, the OOM
    killer): ends everything this worker started, now, and then itself. Its pool children
    (its process group) first, killed; then the seat groups of every runner among them and
    itself (a frozen seat takes its SIGKILL only once thawed); a seat's sandbox dies with its
    runner (``--die-with-parent``) and a fork server when its runner's socket closes. What it
    was playing is played again once its lease runs out, as after a crashed host."""
    from arena.runner.cgroups import end_orphaned_seats, end_seats_of

    me = os.getpid()
    runners = {me}
    deadline = time.monotonic() + ORPHANED_GRACE_S
    while time.monotonic() < deadline:
        members = own_group_members()
        if not members:
            break
        runners.update(members)
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.05)
    end_seats_of(runners)
    end_orphaned_seats()
    if os.getpgid(0) == me:  # leads its own group: nothing of it stays
        os.killpg(me, signal.SIGKILL)
    os._exit(1)
