"""The site's own data: API tokens. Everything about bots and seasons is in :mod:`webui.league`."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

TOKEN_PREFIX = "sa_"


def hash_token(key: str) -> str:
    """The sha256 under which a token is stored: the token itself is shown once, never kept."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A bearer token of the JSON API; ``Authorization: Bearer sa_...`` acts as its user."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=60)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12)  # the first characters, to tell tokens apart
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @classmethod
    def issue(cls, user: object, name: str) -> tuple[ApiToken, str]:
        """Creates a token for ``user`` and returns it with its secret key (shown once)."""
        key = TOKEN_PREFIX + secrets.token_urlsafe(30)
        token = cls.objects.create(
            user=user, name=name[:60] or "token", key_hash=hash_token(key), prefix=key[:10]
        )
        return token, key


class NotificationMark(models.Model):
    """How far a user has read their notifications: those after ``seen_until`` are new.

    Notifications themselves are not stored: they are read from what the league records
    (:mod:`webui.web.notifications`), so nothing in the league's write paths knows of them.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_mark"
    )
    seen_until = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.user} read up to {self.seen_until:%Y-%m-%d %H:%M}"
