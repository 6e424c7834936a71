"""``{{ value|when }}``: a time as people read it ("5 minutes ago", "12 Mar 2026"), with the
exact time (UTC) on hover and in the ``datetime`` attribute for machines. Takes a datetime or
the ISO text the JSON reads give."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.timesince import timesince

register = template.Library()

RECENT = timedelta(days=7)


def _parse(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value
    if isinstance(value, str) and value:
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


@register.filter
def when(value: Any, empty: str = "\N{EN DASH}") -> SafeString | str:
    """A ``<time>`` element: relative within a week, the date after."""
    moment = _parse(value)
    if moment is None:
        return empty if not value else str(value)
    now = timezone.now()
    exact = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    if moment > now - RECENT:
        text = (
            "just now"
            if now - moment < timedelta(minutes=1)
            else f"{timesince(moment, now).split(',')[0]} ago"
        )
    else:
        text = moment.strftime("%-d %b %Y")
    return format_html('<time datetime="{}" title="{}">{}</time>', moment.isoformat(), exact, text)
