"""The version tests' pages (described in :data:`webui.web.pages.PAGES`)."""

from __future__ import annotations

from django.urls import path

from webui.web import converters

from . import views

converters.register()

urlpatterns = [
    path("bots/<slug:name>/tests/", views.bot_tests, name="sprt-tests"),
    path("bots/<slug:name>/tests/<id:test_id>/", views.test_page, name="sprt-test"),
    path("bots/<slug:name>/tests/<id:test_id>/promote/", views.promote, name="sprt-promote"),
    path("bots/<slug:name>/tests/<id:test_id>/stop/", views.stop, name="sprt-stop"),
]
