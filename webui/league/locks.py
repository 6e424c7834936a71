"""The league's one lock order, and a bounded retry when the database still finds a deadlock.

Every write path that locks rows of the league takes them in this order, each step only when
it needs it:

1. the variant's row (``league_variant``): ``FOR UPDATE`` by the rating writer and the ladder's
   scheduler, ``FOR KEY SHARE`` by a result and by a round's scheduler (:func:`share_variant`),
   before any other lock: a new match or game checks its variant's key at insert, and that
   check queued behind a waiting rating writer while holding a round was the cycle
   (schedule_round, update_ratings, record_result);
2. the season's row (its scheduler, ``FOR UPDATE``);
3. the round's row (a result, the scheduler closing it);
4. the match's row (a result, a claim, the sweep);
5. the read versions (:func:`webui.league.read_models.bump`, one sorted statement);
6. the games' advisory lock (their ids in commit order: the export's cursor).

A transaction that follows it waits, never deadlocks, against another that follows it;
:func:`retry_on_deadlock` is the backstop for what it cannot cover (the database picks a
victim; the victim's work, idempotent, runs again after a short, growing pause). Not a
general retry: only a deadlock or a serialization failure, only outside a transaction.
"""

from __future__ import annotations

import functools
import logging
import random
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.db import OperationalError, connection

from .models import Variant

log = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

ATTEMPTS = 5
"""Tries in all (the first and four retries)."""
FIRST_PAUSE_S = 0.05
"""The pause before the first retry; each next one doubles it (with up to 50% jitter)."""
RETRIED_SQLSTATES = frozenset({"40P01", "40001"})  # deadlock_detected, serialization_failure


def share_variant(variant_id: int) -> None:
    """Step 1 of the order for a writer that inserts rows referring to the variant: its row
    ``FOR KEY SHARE`` (what the insert's foreign key check takes anyway, taken first)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {Variant._meta.db_table} WHERE id = %s FOR KEY SHARE",
                [variant_id],
            )


def is_deadlock(error: BaseException) -> bool:
    """Whether ``error`` is the database giving up a transaction to break a cycle of locks."""
    cause = error.__cause__
    return getattr(cause, "sqlstate", None) in RETRIED_SQLSTATES


def retry_on_deadlock(function: Callable[P, R]) -> Callable[P, R]:
    """Runs ``function`` (one transaction of its own, idempotent) again when the database
    aborted it to break a deadlock: at most :data:`ATTEMPTS` times, with a growing pause.
    Inside a caller's transaction it runs once (that transaction is lost already)."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        pause = FIRST_PAUSE_S
        for attempt in range(1, ATTEMPTS + 1):
            outer = connection.in_atomic_block
            try:
                return function(*args, **kwargs)
            except OperationalError as error:
                if outer or attempt == ATTEMPTS or not is_deadlock(error):
                    raise
                log.warning(
                    "%s: %s; again in %.2f s (attempt %d of %d)",
                    function.__qualname__,
                    str(error).splitlines()[0],
                    pause,
                    attempt + 1,
                    ATTEMPTS,
                )
            time.sleep(pause * (1 + random.random() / 2))  # jitter: no secret
            pause *= 2
        raise AssertionError("unreachable")

    return wrapper
