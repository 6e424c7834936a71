"""Concurrent clients against a real server: ``arena bench site --concurrency N``.

``N`` threads, each with its own kept-alive HTTP connection, request one page's URLs as fast as
the server answers until the page's share of requests is done; then the next page. Every
answer is read whole. Per page: p50, p95 and the largest latency, errors (a failed connection
or any status but 200) among them answers of 500 and above, and requests per second. The first
page is the baseline (``/healthz``: one ``SELECT 1``), measured in the same run under the same
load. Standard library only; the server is started by :mod:`webui.bench.site` with the
production configuration (:class:`webui.serving.ProductionServer`).
"""

from __future__ import annotations

import http.client
import itertools
import json
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class PageLoad:
    """What one page's requests gave."""

    page: str
    url: str
    times_ms: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0

    @property
    def errors(self) -> int:
        """Requests that failed or did not answer 200."""
        return sum(n for status, n in self.statuses.items() if status != "200")

    @property
    def server_errors(self) -> int:
        """Answers of 500 and above."""
        return sum(n for status, n in self.statuses.items() if status[:1] == "5")

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile of the latencies, nearest rank."""
        ordered = sorted(self.times_ms)
        if not ordered:
            return math.nan
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]

    def row(self) -> dict[str, Any]:
        """The page's figures, JSON-ready."""
        count = len(self.times_ms)
        return {
            "page": self.page,
            "url": self.url,
            "requests": count,
            "p50": round(self.percentile(50), 2),
            "p95": round(self.percentile(95), 2),
            "max": round(max(self.times_ms, default=math.nan), 2),
            "errors": self.errors,
            "server_errors": self.server_errors,
            "statuses": dict(sorted(self.statuses.items())),
            "requests_per_s": round(count / self.wall_s, 1) if self.wall_s else 0.0,
        }


class _Client:
    """One kept-alive connection; reconnects after an error."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.timeout_s = timeout_s
        self.connection: http.client.HTTPConnection | None = None

    def get(self, path: str) -> str:
        """Requests ``path``, reads the whole answer; its status, or the error's name."""
        return self.fetch(path)[0]

    def fetch(self, path: str) -> tuple[str, bytes]:
        """Requests ``path``; its status (or the error's name) and its whole answer."""
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection(
                    self.host, self.port, timeout=self.timeout_s
                )
            self.connection.request("GET", path, headers={"Host": self.host})
            answer = self.connection.getresponse()
            body = answer.read()
            if answer.will_close:
                self.close()
            return str(answer.status), body
        except (OSError, http.client.HTTPException) as error:
            self.close()
            return type(error).__name__, b""

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def _run_clients(
    clients: int, client_loop: Callable[[int], None], start: threading.Barrier
) -> float:
    """Runs ``client_loop(k)`` for each of ``clients`` threads; once all have passed
    ``start`` (their warm-up done), times them to their end: the run's wall seconds."""
    threads = [threading.Thread(target=client_loop, args=(k,), daemon=True) for k in range(clients)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began


def load_page(
    base_url: str,
    page: str,
    urls: Sequence[str],
    clients: int,
    requests: int,
    warmup: int = 0,
    timeout_s: float = 30.0,
) -> PageLoad:
    """``clients`` threads share ``requests`` requests to ``urls`` (in turn); after
    ``warmup`` untimed ones per client, and every URL read once between them (the steady
    state a crowd sees: a page's first read after a write draws it, the others reuse it)."""
    result = PageLoad(page, urls[0])
    lock = threading.Lock()
    counter = itertools.count()
    start = threading.Barrier(clients + 1, timeout=300)

    def client_loop(k: int) -> None:
        client = _Client(base_url, timeout_s)
        try:
            for i in range(warmup):
                client.get(urls[(k + i) % len(urls)])
            for j in range(k, len(urls), clients):
                client.get(urls[j])
            start.wait()
            while True:
                i = next(counter)  # itertools.count is atomic under the GIL
                if i >= requests:
                    return
                began = time.perf_counter()
                status = client.get(urls[i % len(urls)])
                spent = (time.perf_counter() - began) * 1000
                with lock:
                    result.times_ms.append(spent)
                    result.statuses[status] = result.statuses.get(status, 0) + 1
        finally:
            client.close()

    result.wall_s = _run_clients(clients, client_loop, start)
    return result


def load_pages(
    base_url: str,
    pages: Sequence[tuple[str, Sequence[str]]],
    clients: int,
    requests: int,
    progress: Any = None,
) -> list[dict[str, Any]]:
    """:func:`load_page` for each page in turn (the first is the baseline); one row each."""
    rows = []
    for name, urls in pages:
        rows.append(load_page(base_url, name, urls, clients, requests, warmup=2).row())
        if progress is not None:
            progress(name)
    return rows


LIVE_PAGES: list[tuple[str, str]] = [
    ("Arena TV page", "/tv/"),
    ("Arena TV feed (API), every poll", "/api/tv?match={match}"),
    ("live board: the match page", "/matches/{match}/"),
    ("live board: its progress (API), every poll", "/api/matches/{match}/live"),
]
"""What a watcher of the crowd reads in turn: the TV and the board of the match it features
(``{match}``: the match the TV's last answer named)."""


class _Watcher:
    """A crowd's client on the live pages: it follows the match ``/api/tv`` features."""

    def __init__(self, client: _Client, fallback: int) -> None:
        self.client = client
        self.match = fallback

    def get(self, template: str) -> str:
        status, body = self.client.fetch(template.format(match=self.match))
        if template.startswith("/api/tv") and status == "200":
            try:
                featured = json.loads(body).get("match")
            except ValueError:
                featured = None
            if isinstance(featured, int):
                self.match = featured
        return status


def load_crowd(
    base_url: str,
    pages: Sequence[tuple[str, Sequence[str]]],
    clients: int,
    requests: int,
    timeout_s: float = 30.0,
    watchers: int = 0,
    live_match: int = 0,
) -> dict[str, Any]:
    """A crowd: ``clients`` threads share ``requests`` requests over every page at once, each
    client going from page to page in turn (page ``i % len(pages)`` for the ``i``-th request
    of the run, its URLs in turn), as readers browse; ``watchers`` of the clients read only
    :data:`LIVE_PAGES` in turn instead, following the featured match (``live_match`` until
    the TV names one). One row per page, the live pages' after the others (each page's share
    of the requests per second of the run), and ``all``: every request of the run."""
    loads = [PageLoad(name, urls[0]) for name, urls in pages]
    live_loads = [PageLoad(name, url) for name, url in LIVE_PAGES] if watchers else []
    every = PageLoad("all", "*")
    lock = threading.Lock()
    counter = itertools.count()
    live_counter = itertools.count()
    start = threading.Barrier(clients + 1, timeout=300)

    def client_loop(k: int) -> None:
        client = _Client(base_url, timeout_s)
        watcher = _Watcher(client, live_match) if k < watchers else None
        try:
            for name_urls in pages[k % len(pages) :][:2]:  # warm-up: a connection, a page
                client.get(name_urls[1][0])
            start.wait()
            while True:
                i = next(counter)
                if i >= requests:
                    return
                began = time.perf_counter()
                if watcher is not None:
                    j = next(live_counter) % len(LIVE_PAGES)
                    load = live_loads[j]
                    status = watcher.get(LIVE_PAGES[j][1])
                else:
                    page = i % len(pages)
                    urls = pages[page][1]
                    load = loads[page]
                    status = client.get(urls[(i // len(pages)) % len(urls)])
                spent = (time.perf_counter() - began) * 1000
                with lock:
                    for each in (load, every):
                        each.times_ms.append(spent)
                        each.statuses[status] = each.statuses.get(status, 0) + 1
        finally:
            client.close()

    wall = _run_clients(clients, client_loop, start)
    for load in (*loads, *live_loads, every):
        load.wall_s = wall
    return {"all": every.row(), "pages": [load.row() for load in (*loads, *live_loads)]}
