"""Django application config of the Play page (``webui.play``)."""

from __future__ import annotations

from django.apps import AppConfig


class PlayConfig(AppConfig):
    """Games between a person and a bot."""

    name = "webui.play"
    label = "play"
    verbose_name = "Play"
    default_auto_field = "django.db.models.BigAutoField"
