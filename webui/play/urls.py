"""URL routes of the Play page, under ``/play/``."""

from __future__ import annotations

from django.urls import URLPattern, path

from . import views

urlpatterns: list[URLPattern] = [
    path("", views.index, name="play"),
    path("<int:game_id>/", views.table, name="play-game"),
    path("<int:game_id>/state", views.state, name="play-state"),
    path("<int:game_id>/move", views.move, name="play-move"),
    path("<int:game_id>/replay/", views.replay, name="play-replay"),
    path("<int:game_id>/frames", views.frames, name="play-frames"),
]
