"""URL routes of the site: pages under ``/``, the JSON API under ``/api/``."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path

from . import converters, guide, ladder_views, openapi, sdk, views

converters.register()  # before the patterns below (the API's too) are built

urlpatterns: list[URLPattern | URLResolver] = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("variants/", guide.variants, name="variants"),
    path("variants/<slug:slug>/", views.variant, name="variant"),
    path("rules/", guide.rules, name="rules"),
    path("write-a-bot/", guide.write_bot, name="write-bot"),
    path("write-a-bot/starter-kit-<slug:lang>.zip", guide.starter_kit, name="starter-kit"),
    path("sdk/", sdk.index, name="sdk"),
    path("sdk/<str:filename>", sdk.wheel_file, name="sdk-file"),
    path("data/", sdk.dataset, name="dataset"),
    path("authors/<str:username>/", guide.author, name="author"),
    path("notifications/", guide.notification_list, name="notifications"),
    path("bots/", views.bots, name="bots"),
    path("bots/new/", views.bot_new, name="bot-new"),
    path("bots/<slug:name>/", views.bot, name="bot"),
    path("bots/<slug:name>/upload/", views.bot_upload, name="bot-upload"),
    path("bots/<slug:name>/edit/", views.bot_edit, name="bot-edit"),
    path("bots/<slug:name>/v<num:number>/", views.version, name="version"),
    path("bots/<slug:name>/ladder/", ladder_views.bot_ladder, name="bot-ladder"),
    path("bots/<slug:name>/promote/", ladder_views.bot_promote, name="bot-promote"),
    path("ladder/", ladder_views.ladders, name="ladder"),
    path("ladder/<slug:slug>/", ladder_views.ladder_variant, name="ladder-variant"),
    path("challenges/", guide.challenge_list, name="challenges"),
    path("challenges/new/", ladder_views.challenge_new, name="challenge-new"),
    path("challenges/<id:match_id>/", ladder_views.challenge, name="challenge"),
    path("seasons/", views.seasons, name="seasons"),
    path("seasons/new/", views.season_new, name="season-new"),
    path("seasons/<id:season_id>/", views.season, name="season"),
    path("seasons/<id:season_id>/start/", views.season_start, name="season-start"),
    path("matches/<id:match_id>/", views.match, name="match"),
    path("tv/", views.tv, name="tv"),
    path("games/<id:game_id>/", views.game, name="game"),
    path("replay/", views.replay_open, name="replay-open"),
    path("cards/", views.cards, name="cards"),
    path("api/", views.api_docs, name="api-docs"),
    path("api/", include(openapi.urlpatterns())),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", guide.PasswordChangeView.as_view(), name="password-change"),
    path("accounts/", views.account, name="account"),
]
