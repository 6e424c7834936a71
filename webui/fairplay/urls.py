"""The fair-play audit's staff pages (described in :data:`webui.web.pages.PAGES`)."""

from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("bots/<slug:name>/fairplay/", views.bot_fairplay, name="fairplay"),
    path("bots/<slug:name>/fairplay/audit/", views.request_audit, name="fairplay-audit"),
]
