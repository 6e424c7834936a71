"""The fair-play audits' tasks, on their own queue (:func:`webui.league.queue.audit_queue`):
``arena.fairplay_audit(audit_id)`` runs one queued audit (:mod:`webui.fairplay.audits`) and
``arena.fairplay_sweep()`` (celery beat) queues one for every bot with new rated games.

Audits never delay league work: their queue is served only by ``arena worker --audit`` (one
at a time by default), each audit runs at a lower CPU priority (``nice`` + 10), and an audit
that finds a league match waiting for a worker waits itself and looks again later.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.db import close_old_connections

from webui.fairplay import audits
from webui.league import queue
from webui.training.sprt_tests import league_work_waiting
from workers.tasks import arena_task

YIELD_S = 10.0
"""Seconds an audit waits before it looks again for the league's waiting work."""
NICENESS = 10

_niced = False


def lower_priority() -> None:
    """Lowers this worker process's CPU priority once (matches on the host come first)."""
    global _niced
    if not _niced:
        os.nice(NICENESS)
        _niced = True


@arena_task("arena.fairplay_audit")
def fairplay_audit(audit_id: int, yields: int = 0) -> str:
    """Runs a queued audit, after the league's waiting matches."""
    lower_priority()
    if yields < settings.ARENA_FAIRPLAY_MAX_YIELDS and league_work_waiting():
        queue.send("arena.fairplay_audit", audit_id, yields + 1, countdown=YIELD_S)
        return f"audit {audit_id}: behind the league's work"
    try:
        done = audits.run_audit(audit_id)
    finally:
        close_old_connections()
    if done is None:
        return f"audit {audit_id}: not queued"
    return f"audit {audit_id}: {'flagged' if done.flagged else 'not flagged'}"


@arena_task("arena.fairplay_sweep")
def fairplay_sweep() -> str:
    """Queues an audit of every bot with rated games since its last audit."""
    return f"fair-play audits queued: {audits.queue_due()}"
