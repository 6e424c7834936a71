"""Hostile uploads beside ``arena bench site --hostile N``: ``N`` threads upload archives
whose size the sender chooses and whose cost the site must bound, over the API, for as long as
the crowd run lasts.

The archives (:func:`hostile_archives`), each a few hundred bytes to a few KiB: a ``bot.toml``
of one dotted key with thousands of parts (quadratic in Python's TOML parser), one with arrays
nested far deeper than the parser's recursion, and a tree of thousands of nested folders.
``scale`` shrinks them all (the smoke test's). Standard library only; the answers are
counted, never checked: the bench measures what they cost the site's other readers.
"""

from __future__ import annotations

import http.client
import io
import threading
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

DOTTED_PARTS = 32_000
"""The dotted key's parts at scale 1 (``x.x. ... .y = 1``: 64 KiB, the manifest's limit)."""
DEEP_ARRAYS = 2_000
DEEP_FOLDERS = 2_000


def _manifest(name: str, extra: str) -> str:
    return (
        f'name = "{name}"\nversion = "1.0.0"\ncommand = ["python", "bot.py"]\n'
        f'variants = ["*"]\n{extra}\n'
    )


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return buffer.getvalue()


def hostile_archives(name: str, scale: float = 1.0) -> dict[str, bytes]:
    """The hostile archives for bot ``name``, by kind, at ``scale`` of their full size."""
    dotted = max(2, int(DOTTED_PARTS * scale))
    arrays = max(2, int(DEEP_ARRAYS * scale))
    folders = max(2, int(DEEP_FOLDERS * scale))
    bot = "print('hello')\n"
    return {
        "dotted-key manifest": _zip(
            {"bot.toml": _manifest(name, "x." * (dotted - 1) + "y = 1"), "bot.py": bot}
        ),
        "deep-array manifest": _zip(
            {"bot.toml": _manifest(name, "deep = " + "[" * arrays + "]" * arrays), "bot.py": bot}
        ),
        "deep folders": _zip(
            {"bot.toml": _manifest(name, ""), "bot.py": bot, "d/" * folders + "f.txt": "x"}
        ),
    }


@dataclass
class Uploads:
    """What the uploaders sent and were answered."""

    statuses: dict[str, int] = field(default_factory=dict)
    times_ms: list[float] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        ordered = sorted(self.times_ms)
        p95 = ordered[max(0, -(-95 * len(ordered) // 100) - 1)] if ordered else 0.0
        return {
            "uploads": len(ordered),
            "statuses": dict(sorted(self.statuses.items())),
            "p95": round(p95, 1),
            "max": round(ordered[-1], 1) if ordered else 0.0,
        }


class HostileUploaders:
    """``count`` threads uploading :func:`hostile_archives` in turn to ``bot`` with ``token``
    until :meth:`stop`; each upload waits at most ``timeout_s`` for its answer."""

    def __init__(
        self,
        base_url: str,
        bot: str,
        token: str,
        count: int,
        scale: float = 1.0,
        timeout_s: float = 60.0,
    ) -> None:
        parts = urlsplit(base_url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = f"/api/bots/{bot}/versions"
        self.token = token
        self.archives = list(hostile_archives(bot, scale).values())
        self.timeout_s = timeout_s
        self.result = Uploads()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._loop, args=(k,), daemon=True) for k in range(count)
        ]

    def _upload(self, data: bytes) -> str:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout_s)
        try:
            connection.request(
                "POST",
                self.path,
                body=data,
                headers={
                    "Host": self.host,
                    "Authorization": f"Bearer {self.token}",
                    "Content-Type": "application/zip",
                },
            )
            answer = connection.getresponse()
            answer.read()
            return str(answer.status)
        except (OSError, http.client.HTTPException) as error:
            return type(error).__name__
        finally:
            connection.close()

    def _loop(self, k: int) -> None:
        i = k
        while not self._stop.is_set():
            began = time.perf_counter()
            status = self._upload(self.archives[i % len(self.archives)])
            spent = (time.perf_counter() - began) * 1000
            with self._lock:
                self.result.times_ms.append(spent)
                self.result.statuses[status] = self.result.statuses.get(status, 0) + 1
            i += 1

    def __enter__(self) -> HostileUploaders:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        """Stops sending; waits for the uploads under way (each at most ``timeout_s``)."""
        self._stop.set()
        for thread in self._threads:
            thread.join()
