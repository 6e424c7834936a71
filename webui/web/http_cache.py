"""HTTP caching of what never changes: a recorded game's replay and its viewer frames.

A game is stored once it is over, and its replay is never written again, so its replay
download and its frames are answered with a long-lived ``Cache-Control`` (``immutable``: a
browser or a proxy keeps them a year without asking again) and an ``ETag`` naming the game,
the moment it was recorded and the version of the frames' format; a request whose
``If-None-Match`` names it is a 304 with no body. The frames are computed from the replay once
and kept, compressed, in the ``frames`` cache, which every web process shares (Redis when the
platform runs it, files under the data folder otherwise: ``webui.settings.live_cache``), so no
process computes them again; a request for them reads one indexed row (when the game was
recorded), and the replay only the first time.

Every other page and list answers conditional requests through Django's
``ConditionalGetMiddleware`` (an ``ETag`` of the answer's bytes; 304 when it matches), which
saves the transfer, not the work. This module is the immutable answers only.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from datetime import datetime

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils.http import parse_etags

IMMUTABLE = "public, max-age=31536000, immutable"
"""The ``Cache-Control`` of an answer that never changes (a year: the longest HTTP allows)."""
FRAMES_FORMAT = 1
"""The version of the frames' shape: a change to :mod:`webui.web.replay_frames` that changes
what a game's frames hold bumps it, so cached frames and browsers' copies are not reused."""
FRAMES_CACHE = "frames"
"""The cache alias of the frames (``webui.settings.CACHES``)."""
FRAMES_TTL_S = 86_400
"""How long computed frames are kept after they were last computed (a day)."""


def game_etag(game_id: int, recorded: datetime, kind: str) -> str:
    """The strong ETag of a recorded game's ``kind`` (``replay``, ``frames``).

    The moment it was recorded tells two games of one id apart (a database made afresh).
    """
    stamp = int(recorded.timestamp() * 1_000_000)
    version = f"-f{FRAMES_FORMAT}" if kind == "frames" else ""
    return f'"game-{game_id}-{stamp}-{kind}{version}"'


def matches(request: HttpRequest, etag: str) -> bool:
    """Whether the request's ``If-None-Match`` names ``etag`` (weakly: a proxy that
    compressed the answer made its ETag weak)."""
    header = request.headers.get("If-None-Match", "")
    if not header:
        return False
    if header.strip() == "*":
        return True
    return etag in {e.removeprefix("W/") for e in parse_etags(header)}


def immutable(request: HttpRequest, etag: str, make: Callable[[], HttpResponse]) -> HttpResponse:
    """A 304 when the request already holds ``etag``, else ``make()``; both marked
    immutable with that ETag."""
    response = HttpResponseNotModified() if matches(request, etag) else make()
    response["ETag"] = etag
    response["Cache-Control"] = IMMUTABLE
    return response


def pack(body: bytes) -> bytes:
    """An answer's bytes as the shared cache keeps them: frames are repetitive JSON, about a
    tenth of their size compressed."""
    return zlib.compress(body, 6)


def unpack(packed: bytes) -> bytes:
    """The bytes :func:`pack` kept."""
    return zlib.decompress(packed)
