"""The Celery application of the workers: the league's queue (:mod:`webui.league.queue`: broker,
reliability settings, the periodic sweep and ladder) with the workers' tasks included.

``celery -A workers.celery_app`` and ``arena worker`` load it. This module defines no task;
they are in :mod:`workers.tasks`, :mod:`workers.ladder` and :mod:`workers.play`.
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")

from webui.league import queue

TASK_MODULES = (
    "workers.tasks",
    "workers.ladder",
    "workers.play",
    "workers.training",
    "workers.fairplay",
)
"""The modules that define the workers' tasks, imported by a worker when it starts."""

app = queue.current_app()
app.conf.update(include=list(TASK_MODULES))
