"""The pages' reads in the cache every web process shares, keyed by the versions of their scopes.

A read (a leaderboard, a bot's charts, a season's standings, the home page) names the scopes it
shows (:mod:`webui.league.read_models`); its key carries their current versions, read in one
query. A write bumps its scopes in its own transaction, so once it has committed every read
of those scopes misses and is built again from what it wrote, while the reads of other scopes
stay cached: a ladder result makes its variant's leaderboard and its two bots' pages fresh, not
every season's.

Rebuilds are single-flight: the first reader to miss takes a short lock (``cache.add``) and
builds; the others wait up to :data:`WAIT_S` for its value, then build it themselves. A value is
only ever stored under the versions read before it was built, so no reader gets a value older
than the last write of its scopes. A scope never bumped (version 0) is not cached at all: it
has nothing recorded yet, and a number the database has never given out is not a version.
The cache is the ``reads`` alias (Redis, or files for the embedded setup); when it fails, the
read is built and served uncached.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

from django.core.cache import caches

from webui.league import read_models

T = TypeVar("T")

CACHE = "reads"
TIMEOUT_S = 3600
"""How long a built read stays (a newer version makes a new key long before)."""
LOCK_S = 10
"""The most a builder's lock holds (a builder that died frees it then)."""
WAIT_S = 1.0
"""How long a reader waits for another's build before building itself."""
POLL_S = 0.02

log = logging.getLogger(__name__)


def key_of(name: str, found: dict[str, int]) -> str:
    """The cache key of read ``name`` at the given scope versions."""
    return "read:" + name + ":" + ",".join(f"{scope}={number}" for scope, number in found.items())


def cached(name: str, scopes: Sequence[str], build: Callable[[], T]) -> T:
    """``build()``'s value for the current versions of ``scopes``, from the shared cache when
    another request built it already (single-flight on a miss)."""
    found = read_models.versions(scopes)
    if not all(found.values()):
        return build()
    key = key_of(name, found)
    cache = caches[CACHE]
    try:
        hit = cache.get(key)
        if hit is not None:
            return cast(T, hit["value"])
        builder = cache.add(key + ":lock", 1, LOCK_S)
        if builder:
            # A builder may have stored the value and let go of its lock between our miss
            # and our lock: look again before building it a second time.
            hit = cache.get(key)
            if hit is not None:
                cache.delete(key + ":lock")
                return cast(T, hit["value"])
        else:
            deadline = time.monotonic() + WAIT_S
            while time.monotonic() < deadline:
                time.sleep(POLL_S)
                hit = cache.get(key)
                if hit is not None:
                    return cast(T, hit["value"])
    except Exception:  # a cache that fails must not take the page down
        log.warning("reads cache unavailable for %s", name, exc_info=True)
        return build()
    if not builder:
        return build()  # the builder is slow or gone: build without waiting longer
    try:
        value = build()
    except BaseException:
        _quietly(name, lambda: cache.delete(key + ":lock"))
        raise
    _quietly(name, lambda: cache.set(key, {"value": value}, TIMEOUT_S))
    _quietly(name, lambda: cache.delete(key + ":lock"))
    return value


def _quietly(name: str, step: Callable[[], object]) -> None:
    try:
        step()
    except Exception:  # the value is served; only later readers miss it
        log.warning("reads cache unavailable for %s", name, exc_info=True)
