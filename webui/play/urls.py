"""URL routes of the Play page, under ``/play/``."""

from __future__ import annotations

from django.urls import URLPattern, path

from webui.web import converters

from . import views

converters.register()  # "id": a key that fits its column (1 to 18 digits), else a 404

urlpatterns: list[URLPattern] = [
    path("", views.index, name="play"),
    path("<id:game_id>/", views.table, name="play-game"),
    path("<id:game_id>/state", views.state, name="play-state"),
    path("<id:game_id>/move", views.move, name="play-move"),
    path("<id:game_id>/resign", views.resign, name="play-resign"),
    path("<id:game_id>/replay/", views.replay, name="play-replay"),
    path("<id:game_id>/frames", views.frames, name="play-frames"),
]
