"""``arena web``: serve the site (and, without a broker, a local worker for uploads).

Migrates the database, gathers the static files, and serves the Django site on one machine;
with the embedded broker it also starts a local worker process so that uploaded bot versions
get validated. For a real deployment run ``gunicorn webui.wsgi`` and ``arena worker`` under a
supervisor instead (docker-compose.yml). Django is loaded only when the command runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that ``arena web`` and ``arena demo`` share."""
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="local worker processes to start while serving (default: 1 with "
                        "the embedded broker, 0 when ARENA_BROKER_URL names a real one)")


def register(subparsers: Any) -> None:
    """Adds ``arena web`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "web",
        help="serve the site at http://127.0.0.1:8000",
        description="Serve the Scopa Arena site on this machine. Configuration comes from the "
        "environment (ARENA_DATABASE_URL, ARENA_DATA_DIR, ARENA_BROKER_URL...); without it, "
        "SQLite in var/ and a local worker.",
    )
    add_serve_arguments(parser)
    parser.set_defaults(func=run)


def local_defaults() -> None:
    """Environment defaults for serving on one's own machine (explicit settings win)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
    os.environ.setdefault("ARENA_HTTPS", "0")  # plain http://127.0.0.1, no HTTPS redirect
    os.environ.setdefault("ARENA_SANDBOX", "auto")  # bubblewrap when the machine has it


def prepare() -> None:
    """Loads Django, migrates the database and gathers the static files."""
    local_defaults()
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)


def check_port(host: str, port: int) -> str | None:
    """None when ``host:port`` can be listened on, else why not (one line)."""
    import socket

    if not 0 < port < 65536:
        return f"--port {port}: must be between 1 and 65535"
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as error:
        return f"cannot listen on {host}:{port}: {error.strerror or error}"
    return None


def serve(host: str, port: int, workers: int | None) -> int:
    """Serves the site until interrupted, with local workers when there is no broker."""
    from django.conf import settings
    from django.core.servers.basehttp import WSGIServer, get_internal_wsgi_application, run

    from workers.local import LocalWorkers

    count = workers if workers is not None else (1 if settings.ARENA_EMBEDDED_BROKER else 0)
    pool = None
    if count > 0:
        pool = LocalWorkers(
            count, env={"ARENA_DATA_DIR": str(settings.ARENA_DATA_DIR)},
            log_dir=settings.ARENA_LOGS_DIR,
        ).start()
    shown = f"[{host}]" if ":" in host else host

    def bound(actual_port: object) -> None:
        print(f"Serving the site at http://{shown}:{actual_port}/ (Ctrl+C to stop)", flush=True)

    try:
        run(host, port, get_internal_wsgi_application(), threading=True,
            server_cls=WSGIServer, ipv6=":" in host, on_bind=bound)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        if pool is not None:
            pool.stop()
    return 0


def run(args: argparse.Namespace) -> int:
    """``arena web``."""
    problem = check_port(args.host, args.port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.workers is not None and args.workers < 0:
        print(f"error: --workers {args.workers}: must not be negative", file=sys.stderr)
        return 2
    prepare()
    return serve(args.host, args.port, args.workers)
