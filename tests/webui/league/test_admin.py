"""The league's Django admin: staff see every model's list and pages; others are sent away."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from league_helpers import SAMPLES

from webui.league import seasons, variants, versions
from webui.league.models import Match, Season

pytestmark = pytest.mark.django_db


@pytest.fixture
def season(db: Any) -> Season:
    from django.contrib.auth.models import User

    from webui.league.versions import register_folder_bot

    owner = User.objects.create_user("owner")
    versions = [register_folder_bot(owner, SAMPLES / n) for n in ("random", "greedy")]
    return seasons.create_season(
        name="admin", variant=variants.get_variant("scopa"), entrants=versions
    )


def staff_client() -> Client:
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_superuser("root", password="x"))
    return client


@pytest.mark.parametrize(
    "model", ["bot", "botversion", "variant", "season", "match", "game", "rating"]
)
def test_staff_see_every_league_list(season: Season, model: str) -> None:
    response = staff_client().get(f"/admin/league/{model}/", secure=True)
    assert response.status_code == 200


def test_staff_start_a_draft_season_from_the_admin(season: Season) -> None:
    client = staff_client()
    response = client.post(
        "/admin/league/season/",
        {"action": "start_seasons", "_selected_action": [season.pk]},
        secure=True,
    )
    assert response.status_code == 302
    season.refresh_from_db()
    assert season.status == "running"
    assert Match.objects.filter(season=season).count() == 1
    assert client.get(f"/admin/league/season/{season.pk}/change/", secure=True).status_code == 200


def test_it_sends_anonymous_visitors_to_the_login_page(season: Season) -> None:
    response = Client().get("/admin/league/season/", secure=True)
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_staff_see_stored_archives_without_their_bytes_and_cannot_add_one(db: Any) -> None:
    import hashlib

    data = b"not really an archive, but stored as one"
    sha = hashlib.sha256(data).hexdigest()
    assert versions.store_archive(sha, "zip", data)
    client = staff_client()
    listing = client.get("/admin/league/botarchive/", secure=True)
    assert listing.status_code == 200 and sha in listing.content.decode()
    page = client.get(f"/admin/league/botarchive/{sha}/change/", secure=True)
    assert page.status_code == 200 and str(len(data)) in page.content.decode()
    assert "not really an archive" not in page.content.decode()
    assert client.get("/admin/league/botarchive/add/", secure=True).status_code == 403
