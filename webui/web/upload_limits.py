"""How many archives one user may upload: ``ARENA_UPLOADS_PER_HOUR`` and
``ARENA_UPLOADS_PER_DAY``, over the API and the pages together.

Every upload counts, a refused archive too (checking a hostile archive is the work being
bounded), in django-ratelimit's counters of the shared ``limits`` cache (docs/SECURITY.md,
"Work limits per user"). The upload past a limit is answered 429 before its archive is read.
This module counts; what an upload may hold is :mod:`arena.archives`'.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest

WINDOWS = (("hour", "h", "ARENA_UPLOADS_PER_HOUR"), ("day", "d", "ARENA_UPLOADS_PER_DAY"))


def upload_refusal(request: HttpRequest, user: Any) -> str | None:
    """Counts one upload of ``user``; the 429's one line when it passes a limit, else None."""
    from django_ratelimit import ALL
    from django_ratelimit.core import get_usage

    refusal = None
    for window, unit, name in WINDOWS:
        most = int(getattr(settings, name))
        usage = get_usage(
            request,
            group=f"uploads-per-{window}",
            key=lambda _group, _request: f"user:{user.pk}",
            rate=f"{most}/{unit}",
            method=ALL,
            increment=True,
        )
        if refusal is None and usage and usage["should_limit"]:
            refusal = (
                f"at most {most} uploads per {window} for one user ({name}); "
                f"try again in {max(1, int(usage['time_left']))} s"
            )
    return refusal
