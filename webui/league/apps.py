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
        from . import formats, models, read_models

        read_models.connect_signals()
        # Season.format's choices are the format registry's.
        if formats.format_choices not in models.FORMAT_CHOICES:
            models.FORMAT_CHOICES.append(formats.format_choices)
