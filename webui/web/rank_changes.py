"""Rank changes on the leaderboards: each row's rank now beside its rank 24 hours ago.

The stated point is the start of the hour 24 hours ago (:func:`since`), so a leaderboard's ranks
of then are computed once an hour and cached (:func:`ranks_at`): one query over the ladder's
ratings, each rating's value then read from its history through the ``(rating, seq)`` index
(the newest point before the cutoff). A page then costs a cache read; the other engineer's read
models can take the same figures over.

A row gets ``rank_before`` (None when it was not rated then: ``new``) and ``rank_change``
(positive: it climbed).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.cache import cache
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from webui.league.models import Rating, RatingHistory

from .shapes import LeaderRow

PERIOD = timedelta(hours=24)
CACHE_S = 3600
SINCE_TEXT = "in the last 24 hours"


def since(now: datetime | None = None) -> datetime:
    """The point the changes are counted from: the start of the hour 24 hours ago."""
    then = (now or timezone.now()) - PERIOD
    return then.replace(minute=0, second=0, microsecond=0)


def ranks_at(variant_id: int, pool: str, cutoff: datetime) -> dict[int, int]:
    """Rating id -> its rank in ``variant_id``'s ``pool`` at ``cutoff`` (rated ones only)."""
    key = f"ranks:{variant_id}:{pool}:{cutoff.strftime('%Y%m%d%H')}"
    found = cache.get(key)
    if isinstance(found, dict):
        return found
    then = Subquery(
        RatingHistory.objects.filter(rating=OuterRef("pk"), created__lt=cutoff)
        .order_by("-seq")
        .values("conservative")[:1]
    )
    rows = (
        Rating.objects.filter(variant_id=variant_id, pool=pool)
        .annotate(then=then)
        .filter(then__isnull=False)
        .values_list("id", "then")
    )
    order = sorted(rows, key=lambda row: (-row[1], row[0]))  # as the leaderboard: ties by id
    ranks = {rating_id: rank for rank, (rating_id, _) in enumerate(order, start=1)}
    cache.set(key, ranks, CACHE_S)
    return ranks


def add_rank_changes(
    rows: list[LeaderRow], variant_id: int, pool: str, now: datetime | None = None
) -> list[LeaderRow]:
    """Adds ``rank_before`` and ``rank_change`` to leaderboard rows (each with ``rating_id``
    and ``rank``); returns the rows."""
    before = ranks_at(variant_id, pool, since(now))
    for row in rows:
        was = before.get(int(row["rating_id"]))
        row["rank_before"] = was
        row["rank_change"] = None if was is None else was - int(row["rank"])
    return rows
