"""Logging a headless browser in without its login form (the form has tests of its own)."""

from __future__ import annotations

from typing import Any


def log_in(context: Any, live_server: Any, user: Any) -> None:
    """Gives the browser ``context`` the session cookie of ``user`` on ``live_server``."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
