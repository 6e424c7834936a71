"""Keeping work moving: what a lost message or a dead worker left behind is enqueued again.

Run by celery beat as ``arena.sweep`` (every ``ARENA_SWEEP_INTERVAL_S``), by the loop of
``arena season run`` and by the demo's ladder loop. Duplicates are harmless: a match is claimed
once and recorded once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now
from django.utils import timezone

from .models import BotVersion, Game, Match, Season
from .queue import enqueue
from .ratings import RATED


def requeue_stale(
    now: datetime | None = None, grace_s: float = 30.0, waiting: int | None = None
) -> int:
    """Enqueues again what a lost message or a dead worker left behind; returns how many.

    Matches still ``scheduled`` ``grace_s`` after they were last enqueued (by ``now``, this
    host's clock unless given), and ``running`` matches whose lease ran out (by the database's
    clock, as every lease), get a new ``arena.play_match``; running seasons whose last
    round is complete get ``arena.schedule_round``. ``waiting`` is how many messages the queue
    holds, when known: while it holds any, scheduled matches are taken to be queued behind
    them, not lost, and are left alone. Versions validating for over ten minutes
    get ``arena.validate_version``; unrated results get ``arena.update_ratings``. Duplicates
    are harmless: a match is claimed once and recorded once.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=grace_s)
    count = 0
    with transaction.atomic():
        lost = Q(status=Match.Status.RUNNING, lease_until__lt=Now())  # the database's clock
        if not waiting:
            lost |= Q(status=Match.Status.SCHEDULED, enqueued_at__lt=cutoff)
        stale = list(Match.objects.filter(lost).values_list("pk", flat=True))
        for match_id in stale:
            Match.objects.filter(pk=match_id).update(enqueued_at=now)
            enqueue("arena.play_match", match_id)
            count += 1
        for season_id in Season.objects.filter(status=Season.Status.RUNNING).values_list(
            "pk", flat=True
        ):
            open_matches = Match.objects.filter(season_id=season_id).exclude(
                status__in=[Match.Status.DONE, Match.Status.VOID]
            )
            if not open_matches.exists():
                enqueue("arena.schedule_round", season_id)
                count += 1
        # A validation game takes a while: ask again only when it is clearly lost.
        validation_cutoff = now - timedelta(seconds=max(grace_s, 600.0))
        for version_id in BotVersion.objects.filter(
            status=BotVersion.Status.VALIDATING, created__lt=validation_cutoff
        ).values_list("pk", flat=True):
            enqueue("arena.validate_version", version_id)
            count += 1
        for variant_id in (
            Game.objects.filter(RATED, rating_seq__isnull=True, match__finished__lt=cutoff)
            .values_list("variant_id", flat=True)
            .distinct()
        ):
            enqueue("arena.update_ratings", variant_id)
            count += 1
    return count
