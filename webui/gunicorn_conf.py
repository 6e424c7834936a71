"""Gunicorn's settings for the site in production: ``gunicorn -c python:webui.gunicorn_conf
webui.wsgi`` (docker-compose.yml, the image, and ``arena web --production``).

Threaded workers (``gthread``): each process serves ``threads`` requests at once, and a process
whose threads are all taken stops accepting connections (``worker_connections = threads``), so
they go to a process with a free thread. A client that sends its request slowly still holds a
thread while it does: gunicorn alone survives fewer such clients than ``workers x threads``,
where sync workers froze with three. In production nginx stands in front
(``deploy/nginx/arena.conf.template``): it reads every request whole before passing it on and
buffers the answers, so gunicorn never waits on a client at all.

Environment (all optional):

``ARENA_BIND``         the address gunicorn listens on (``0.0.0.0:8000``)
``ARENA_WEB_WORKERS``  worker processes (the number of CPUs + 1)
``ARENA_WEB_THREADS``  threads per worker (4); each may hold one database connection
``ARENA_WEB_TIMEOUT``  seconds a request may take before its worker is restarted (60)
``ARENA_WEB_MAX_REQUESTS``, ``ARENA_WEB_MAX_REQUESTS_JITTER``
                       a worker is replaced after this many requests, plus up to the jitter
                       (2000 and 200; 0: never), so workers do not all restart at once
``ARENA_WEB_MAX_RSS_MB``
                       a worker whose resident memory passes this after a request is replaced
                       (1024; 0: no ceiling)

The memory backstop (docs/SECURITY.md): memory a worker took for one request and kept is
given back when the worker is replaced. Either way the worker is replaced gracefully: it stops
accepting, finishes the requests it holds (``graceful_timeout``), and exits; the arbiter starts
another, and the others serve meanwhile (connections wait in the shared listening socket).
"""

from __future__ import annotations

import os
from typing import Any


def _count(name: str, default: int, ceiling: int, least: int = 1) -> int:
    """A whole-number setting from the environment, checked (one line when it is wrong)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not least <= int(text) <= ceiling:
        raise ValueError(f"{name}={text!r}: expected a whole number from {least} to {ceiling}")
    return int(text)


def _resident_bytes() -> int:
    """This process's resident memory (Linux; 0 where /proc does not say)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


bind = [os.environ.get("ARENA_BIND", "").strip() or "0.0.0.0:8000"]
worker_class = "gthread"
workers = _count("ARENA_WEB_WORKERS", (os.cpu_count() or 1) + 1, 64)
threads = _count("ARENA_WEB_THREADS", 4, 256)
# A process takes no more connections than it has threads: a busy one leaves new connections
# to the others instead of queueing them behind slow requests. Hence no keep-alive either
# (a kept-alive connection would count against the same limit); nginx keeps clients alive.
worker_connections = threads
keepalive = 0
timeout = _count("ARENA_WEB_TIMEOUT", 60, 3600)
graceful_timeout = 30
# The memory backstop: a worker is replaced after a number of requests (jittered, so the
# workers do not restart together), and sooner when it holds more than a ceiling.
max_requests = _count("ARENA_WEB_MAX_REQUESTS", 2000, 10**9, least=0)
max_requests_jitter = _count("ARENA_WEB_MAX_REQUESTS_JITTER", max_requests // 10, 10**9, least=0)
max_rss_mb = _count("ARENA_WEB_MAX_RSS_MB", 1024, 1 << 20, least=0)
accesslog = "-"
errorlog = "-"
# Within a container the proxy's address is not known in advance; outside one, only nginx on
# this host may say which scheme the client used.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
proc_name = "arena-web"
# gunicorn's control socket has one path per user ($HOME/.gunicorn): servers side by side on
# one host would take it from each other, and nothing here uses it.
control_socket_disable = True


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """After each request: a worker over ``ARENA_WEB_MAX_RSS_MB`` is replaced once the
    requests it holds are done (as after ``max_requests``)."""
    if not max_rss_mb or not worker.alive:
        return
    held = _resident_bytes()
    if held > max_rss_mb << 20:
        worker.log.info(
            "worker %s holds %d MB, over ARENA_WEB_MAX_RSS_MB=%d: replaced after its requests",
            worker.pid,
            held >> 20,
            max_rss_mb,
        )
        worker.alive = False
