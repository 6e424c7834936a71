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
"""

from __future__ import annotations

import os


def _count(name: str, default: int, ceiling: int) -> int:
    """A whole-number setting from the environment, checked (one line when it is wrong)."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    if not text.isdigit() or not 1 <= int(text) <= ceiling:
        raise ValueError(f"{name}={text!r}: expected a whole number from 1 to {ceiling}")
    return int(text)


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
accesslog = "-"
errorlog = "-"
# Within a container the proxy's address is not known in advance; outside one, only nginx on
# this host may say which scheme the client used.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
proc_name = "arena-web"
# gunicorn's control socket has one path per user ($HOME/.gunicorn): servers side by side on
# one host would take it from each other, and nothing here uses it.
control_socket_disable = True
