"""Django application config of the fair-play audits (``webui.fairplay``)."""

from __future__ import annotations

from django.apps import AppConfig


class FairPlayConfig(AppConfig):
    """Staff's audits of whether a bot plays as if it saw hidden cards."""

    name = "webui.fairplay"
    label = "fairplay"
    verbose_name = "Fair-play audits"
    default_auto_field = "django.db.models.BigAutoField"
