"""Django application config of the site (``webui.web``)."""

from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    """The site: pages, API, replay viewer."""

    name = "webui.web"
    label = "web"
    verbose_name = "Scopa Arena site"
    default_auto_field = "django.db.models.BigAutoField"
