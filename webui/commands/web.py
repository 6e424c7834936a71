"""``arena web``: serve the site (and, without a broker, a local worker for uploads).

Migrates the database, gathers the static files, and serves the Django site on one machine;
with the embedded broker it also starts a local worker process so that uploaded bot versions
get validated, and a local Play worker (a pool of threads of its own, ``arena worker --play``)
for the Play page's games, so a person's game never takes the process that plays matches.
``--production`` serves it as a deployment does instead of with Django's development server:
gunicorn with ``webui/gunicorn_conf.py`` behind nginx with ``deploy/nginx/arena.conf.template``
(:mod:`webui.serving`). A real deployment runs those, ``arena worker`` and
``arena worker --play`` under a supervisor (docker-compose.yml). Django is loaded only when the
command runs. SIGTERM stops it as Ctrl-C does, local workers included.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

HELP = "serve the site at http://127.0.0.1:8000"


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that ``arena web`` and ``arena demo`` share."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes to start while serving (default: 1 with "
        "the embedded broker, 0 when ARENA_BROKER_URL names a real one); a "
        "local Play worker starts with them",
    )


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
    parser.add_argument(
        "--production",
        action="store_true",
        help="serve with the production configuration: gunicorn "
        "(webui/gunicorn_conf.py) behind nginx (deploy/nginx/)",
    )
    parser.add_argument(
        "--no-nginx",
        action="store_true",
        help="with --production: gunicorn alone on --host:--port, no nginx "
        "in front (slow clients then hold gunicorn threads)",
    )
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


def serve(
    host: str, port: int, workers: int | None, *, production: bool = False, nginx: bool = True
) -> int:
    """Serves the site until interrupted (Ctrl-C or SIGTERM), with local workers when there is
    no broker; ``production``: gunicorn (behind nginx when ``nginx``) instead of Django's
    development server."""
    from django.conf import settings
    from django.core.servers.basehttp import WSGIServer, get_internal_wsgi_application, run

    from webui.local_workers import LocalWorkers, adopt_orphans, keep_running, stop_all

    count = workers if workers is not None else (1 if settings.ARENA_EMBEDDED_BROKER else 0)
    pools: list[LocalWorkers] = []
    if count > 0:
        adopt_orphans(pools)  # a killed worker's bots become ours to stop
        env = {"ARENA_DATA_DIR": str(settings.ARENA_DATA_DIR)}
        pools.append(LocalWorkers(count, env=env, log_dir=settings.ARENA_LOGS_DIR).start())
        # People's games have a pool of their own: an open tab never holds a match's process.
        pools.append(
            LocalWorkers(
                1, concurrency=None, play=True, env=env, log_dir=settings.ARENA_LOGS_DIR
            ).start()
        )
        keep_running(
            pools,
            lambda line: print(
                f"{line} (logs: {settings.ARENA_LOGS_DIR})", file=sys.stderr, flush=True
            ),
        )
    shown = f"[{host}]" if ":" in host else host

    def bound(actual_port: object) -> None:
        print(f"Serving the site at http://{shown}:{actual_port}/ (Ctrl+C to stop)", flush=True)

    status = 0
    interrupted = False
    try:
        if production:
            status = _serve_production(host, port, nginx, bound)
        else:
            run(
                host,
                port,
                get_internal_wsgi_application(),
                threading=True,
                server_cls=WSGIServer,
                ipv6=":" in host,
                on_bind=bound,
            )
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (arena.cli.Terminated)
        interrupted = True
    finally:
        # At once, cold: a match in play is played again later, never waited for.
        stop_all(pools)
    if interrupted:  # last: after the workers, and after the requests still being answered
        print("stopped", file=sys.stderr)
    return status


def _serve_production(host: str, port: int, nginx: bool, bound: Any) -> int:
    """gunicorn (and nginx) until interrupted; 1 if one of them stops on its own."""
    from django.conf import settings

    from webui.serving import ProductionServer, ServingError

    server = ProductionServer(host, port, nginx=nginx, log_dir=settings.ARENA_LOGS_DIR / "web")
    try:
        try:
            server.start()
        except ServingError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        how = "gunicorn behind nginx" if nginx else "gunicorn, no nginx in front"
        print(f"({how}; logs in {server.log_dir})", flush=True)
        bound(port)
        while True:
            problem = server.failed()
            if problem:
                print(f"error: {problem}: {server.log_tail(problem.split()[0])}", file=sys.stderr)
                return 1
            time.sleep(0.5)
    finally:
        server.stop()


def run(args: argparse.Namespace) -> int:
    """``arena web``."""
    problem = check_port(args.host, args.port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.workers is not None and args.workers < 0:
        print(f"error: --workers {args.workers}: must not be negative", file=sys.stderr)
        return 2
    if args.no_nginx and not args.production:
        print("error: --no-nginx goes with --production", file=sys.stderr)
        return 2
    if args.production and not args.no_nginx:
        from webui.serving import find_nginx

        if find_nginx() is None:
            print(
                "error: --production needs nginx (scripts/services installs it), or add --no-nginx",
                file=sys.stderr,
            )
            return 2
    prepare()
    return serve(
        args.host, args.port, args.workers, production=args.production, nginx=not args.no_nginx
    )
