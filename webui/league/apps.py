"""Django application config of the data layer (``webui.league``)."""

from __future__ import annotations

from django.apps import AppConfig


class LeagueConfig(AppConfig):
    """Bots, versions, variants, seasons, matches, games, ratings."""

    name = "webui.league"
    label = "league"
    verbose_name = "League"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import read_models

        read_models.connect_signals()
