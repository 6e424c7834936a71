"""URL routes of the site: pages under ``/``, the JSON API under ``/api/``."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver

app_name = "web"

urlpatterns: list[URLPattern | URLResolver] = []
