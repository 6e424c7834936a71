"""The ladder's periodic task: ``arena.schedule_ladder``, run by celery beat.

It only calls :func:`webui.league.ladder.schedule`, which tops up each ladder's open matches
(enqueued on ``arena.play_match`` like a season's) and is safe to run at any time, twice.
"""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
django.setup()

from webui.league import ladder  # noqa: E402
from workers.tasks import arena_task  # noqa: E402


@arena_task("arena.schedule_ladder")
def schedule_ladder() -> int:
    """New ladder matches for the free slots of every ladder; returns how many."""
    return len(ladder.schedule())
