"""Uploads per user: the upload past ``ARENA_UPLOADS_PER_HOUR`` (or ``_PER_DAY``) is a 429
naming the limit, over the API and the pages alike, and stores nothing. Refused archives
count too."""

from __future__ import annotations

from typing import Any

import pytest
from archive_samples import good_zip
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_counters() -> None:
    from django.core.cache import caches

    caches["limits"].clear()


def upload_api(client: Any, token: str, data: bytes) -> Any:
    return client.post(
        "/api/bots/my-bot/versions",
        {"archive": SimpleUploadedFile("bot.zip", data)},
        HTTP_AUTHORIZATION=token,
    )


def versions() -> int:
    from webui.league.models import BotArchive, BotVersion

    return BotVersion.objects.count() + BotArchive.objects.count()


def test_it_refuses_the_upload_past_the_hourly_limit_over_the_api(
    client: Any, tokens: dict[str, str], settings: Any
) -> None:
    settings.ARENA_UPLOADS_PER_HOUR = 2
    assert upload_api(client, tokens["owner"], b"not an archive").status_code == 400
    assert upload_api(client, tokens["owner"], b"not one either").status_code == 400
    response = upload_api(client, tokens["owner"], good_zip())
    assert response.status_code == 429
    error = response.json()["error"]
    assert "at most 2 uploads per hour for one user (ARENA_UPLOADS_PER_HOUR)" in error
    assert "\n" not in error
    assert versions() == 0


def test_it_refuses_the_upload_past_the_daily_limit_on_the_page(
    client: Any, users: dict[str, Any], settings: Any
) -> None:
    settings.ARENA_UPLOADS_PER_DAY = 1
    client.force_login(users["owner"])
    page = "/bots/my-bot/upload/"
    first = client.post(page, {"archive": SimpleUploadedFile("bot.zip", good_zip())})
    assert first.status_code == 302
    stored = versions()
    second = client.post(page, {"archive": SimpleUploadedFile("bot.zip", good_zip())})
    assert second.status_code == 429
    assert (
        "at most 1 uploads per day for one user (ARENA_UPLOADS_PER_DAY)" in second.content.decode()
    )
    assert versions() == stored
