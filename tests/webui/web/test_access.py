"""Who may change what: a bot's owner, another user, staff and nobody, on every write path of
the site and of the API. Only the owner changes a bot; only staff create and start seasons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from archive_samples import good_zip
from django.core.files.uploadedfile import SimpleUploadedFile

from webui.league.models import Bot, BotVersion, Season
from webui.web.models import ApiToken

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"

pytestmark = pytest.mark.django_db


def season_form(versions: list[Any], name: str = "Spring") -> dict[str, Any]:
    return {
        "name": name,
        "variant": "scopa",
        "entrants": [v.pk for v in versions],
        "games_per_pairing": 2,
        "knockout_size": 0,
        "move_time_ms": 1000,
        "bank_ms": 30000,
    }


def season_json(versions: list[Any], name: str = "Spring") -> str:
    return json.dumps({"name": name, "variant": "scopa", "entrants": [v.label for v in versions]})


# ---- bots: web ---------------------------------------------------------------------------


def test_the_owner_uploads_a_version_on_the_site(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["owner"])
    response = client.post(
        "/bots/my-bot/upload/", {"archive": SimpleUploadedFile("b.zip", good_zip())}
    )
    assert response.status_code == 302
    assert BotVersion.objects.filter(bot__name="my-bot").count() == 1


@pytest.mark.parametrize("actor", ["other", "staff"])
def test_it_rejects_an_upload_by_anyone_but_the_owner_on_the_site(
    actor: str, client: Any, users: dict[str, Any]
) -> None:
    client.force_login(users[actor])
    response = client.post(
        "/bots/my-bot/upload/", {"archive": SimpleUploadedFile("b.zip", good_zip())}
    )
    assert response.status_code == 403
    assert "only the owner" in response.content.decode()
    assert not BotVersion.objects.exists()


def test_it_rejects_an_upload_by_nobody_on_the_site(client: Any, users: dict[str, Any]) -> None:
    response = client.post(
        "/bots/my-bot/upload/", {"archive": SimpleUploadedFile("b.zip", good_zip())}
    )
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert not BotVersion.objects.exists()


def test_the_owner_edits_the_description(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["owner"])
    assert client.post("/bots/my-bot/edit/", {"description": "new"}).status_code == 302
    assert Bot.objects.get(name="my-bot").description == "new"


@pytest.mark.parametrize("actor", ["other", "staff"])
def test_it_rejects_a_description_edit_by_anyone_but_the_owner_on_the_site(
    actor: str, client: Any, users: dict[str, Any]
) -> None:
    client.force_login(users[actor])
    assert client.post("/bots/my-bot/edit/", {"description": "hacked"}).status_code == 403
    assert Bot.objects.get(name="my-bot").description == "the owner's bot"


def test_it_rejects_a_new_bot_from_nobody(client: Any, users: dict[str, Any]) -> None:
    response = client.post("/bots/new/", {"name": "anon-bot"})
    assert response.status_code == 302
    assert not Bot.objects.filter(name="anon-bot").exists()


def test_it_rejects_a_taken_bot_name(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["other"])
    response = client.post("/bots/new/", {"name": "my-bot"})
    assert response.status_code == 400
    assert "is taken" in response.content.decode()
    assert Bot.objects.get(name="my-bot").owner == users["owner"]


# ---- seasons: web ------------------------------------------------------------------------


def test_staff_create_and_start_a_season_on_the_site(
    client: Any, users: dict[str, Any], ready_versions: list[Any]
) -> None:
    client.force_login(users["staff"])
    response = client.post("/seasons/new/", season_form(ready_versions))
    assert response.status_code == 302
    season = Season.objects.get(name="Spring")
    assert season.status == Season.Status.DRAFT
    response = client.post(f"/seasons/{season.pk}/start/")
    assert response.status_code == 302
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING
    assert season.rounds.count() == 1


@pytest.mark.parametrize("actor", ["owner", "other"])
def test_it_rejects_a_season_from_a_user_on_the_site(
    actor: str, client: Any, users: dict[str, Any], ready_versions: list[Any]
) -> None:
    client.force_login(users[actor])
    assert client.get("/seasons/new/").status_code == 403
    assert client.post("/seasons/new/", season_form(ready_versions)).status_code == 403
    assert not Season.objects.exists()


@pytest.mark.parametrize("actor", ["owner", "other"])
def test_it_rejects_a_season_start_by_a_user_on_the_site(
    actor: str, client: Any, users: dict[str, Any], ready_versions: list[Any]
) -> None:
    from webui.league import seasons, variants

    season = seasons.create_season(
        name="Draft", variant=variants.get_variant("scopa"), entrants=ready_versions
    )
    client.force_login(users[actor])
    assert client.post(f"/seasons/{season.pk}/start/").status_code == 403
    season.refresh_from_db()
    assert season.status == Season.Status.DRAFT


def test_it_rejects_a_season_with_an_unvalidated_entrant(
    client: Any, users: dict[str, Any], ready_versions: list[Any]
) -> None:
    from webui.league import versions

    bot = Bot.objects.get(name="my-bot")
    pending, _ = versions.register_version(bot, sha256="9" * 64, manifest={}, source_dir="x")
    client.force_login(users["staff"])
    form = season_form(ready_versions)
    form["entrants"].append(pending.pk)
    response = client.post("/seasons/new/", form)
    assert response.status_code == 400
    assert not Season.objects.exists()


# ---- tokens ------------------------------------------------------------------------------


def test_it_rejects_revoking_another_users_token(client: Any, users: dict[str, Any]) -> None:
    token, _ = ApiToken.issue(users["owner"], "laptop")
    client.force_login(users["other"])
    client.post("/accounts/", {"action": "revoke", "token": str(token.pk)})
    assert ApiToken.objects.filter(pk=token.pk).exists()
    client.force_login(users["owner"])
    client.post("/accounts/", {"action": "revoke", "token": str(token.pk)})
    assert not ApiToken.objects.filter(pk=token.pk).exists()


def test_a_new_token_is_shown_once_and_stored_hashed(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["other"])
    page = client.post("/accounts/", {"action": "create", "name": "ci"}).content.decode()
    token = ApiToken.objects.get(user=users["other"])
    key = page.split('<code id="new-token">')[1].split("<")[0]
    assert key.startswith("sa_") and key not in token.key_hash
    assert client.get("/api/me", HTTP_AUTHORIZATION=f"Bearer {key}").json()["username"] == "other"


# ---- bots: API ---------------------------------------------------------------------------


def test_it_rejects_api_writes_without_a_token(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["owner"])  # a session is not enough for the API's writes
    assert client.post("/api/bots", "{}", content_type="application/json").status_code == 401
    assert (
        client.patch(
            "/api/bots/my-bot", '{"description": "x"}', content_type="application/json"
        ).status_code
        == 401
    )
    assert (
        client.post(
            "/api/bots/my-bot/versions", good_zip(), content_type="application/zip"
        ).status_code
        == 401
    )
    assert Bot.objects.get(name="my-bot").description == "the owner's bot"
    assert not BotVersion.objects.exists()


def test_it_rejects_a_bad_token(client: Any, users: dict[str, Any]) -> None:
    response = client.post(
        "/api/bots",
        '{"name": "x"}',
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer sa_not-a-token",
    )
    assert response.status_code == 401
    assert response.json() == {"error": "the API token is not valid"}
    assert not Bot.objects.filter(name="x").exists()


def test_a_user_creates_a_bot_over_the_api(
    client: Any, tokens: dict[str, str], users: dict[str, Any]
) -> None:
    response = client.post(
        "/api/bots",
        '{"name": "api-bot", "description": "d"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["other"],
    )
    assert response.status_code == 201
    assert Bot.objects.get(name="api-bot").owner == users["other"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('{"name": "Bad Name"}', "use 1 to 40"),
        ('{"name": "my-bot"}', "is taken"),
        ('{"description": "no name"}', "missing field 'name'"),
        ('{"name": 5}', "must be a str"),
        ("not json", "not JSON"),
        ("[1, 2]", "must be a JSON object"),
    ],
)
def test_it_rejects_a_bad_new_bot_over_the_api(
    body: str, words: str, client: Any, tokens: dict[str, str]
) -> None:
    response = client.post(
        "/api/bots", body, content_type="application/json", HTTP_AUTHORIZATION=tokens["other"]
    )
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert Bot.objects.count() == 1


def test_the_owner_patches_the_description(client: Any, tokens: dict[str, str]) -> None:
    response = client.patch(
        "/api/bots/my-bot",
        '{"description": "better"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["owner"],
    )
    assert response.status_code == 200
    assert Bot.objects.get(name="my-bot").description == "better"


@pytest.mark.parametrize("actor", ["other", "staff"])
def test_it_rejects_a_patch_by_anyone_but_the_owner_over_the_api(
    actor: str, client: Any, tokens: dict[str, str]
) -> None:
    response = client.patch(
        "/api/bots/my-bot",
        '{"description": "hacked"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens[actor],
    )
    assert response.status_code == 403
    assert "only the owner" in response.json()["error"]
    assert Bot.objects.get(name="my-bot").description == "the owner's bot"


@pytest.mark.parametrize("actor", ["other", "staff"])
def test_it_rejects_an_upload_by_anyone_but_the_owner_over_the_api(
    actor: str, client: Any, tokens: dict[str, str]
) -> None:
    response = client.post(
        "/api/bots/my-bot/versions",
        {"archive": SimpleUploadedFile("b.zip", good_zip())},
        HTTP_AUTHORIZATION=tokens[actor],
    )
    assert response.status_code == 403
    assert not BotVersion.objects.exists()


# ---- seasons: API ------------------------------------------------------------------------


def test_staff_create_and_start_a_season_over_the_api(
    client: Any, tokens: dict[str, str], ready_versions: list[Any]
) -> None:
    response = client.post(
        "/api/seasons",
        season_json(ready_versions),
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["staff"],
    )
    assert response.status_code == 201
    season_id = response.json()["season"]["id"]
    started = client.post(f"/api/seasons/{season_id}/start", HTTP_AUTHORIZATION=tokens["staff"])
    assert started.status_code == 202
    assert started.json()["status"] == "running"
    again = client.post(f"/api/seasons/{season_id}/start", HTTP_AUTHORIZATION=tokens["staff"])
    assert again.status_code == 409
    assert Season.objects.get().rounds.count() == 1


@pytest.mark.parametrize("actor", ["owner", "other"])
def test_it_rejects_a_season_from_a_user_over_the_api(
    actor: str, client: Any, tokens: dict[str, str], ready_versions: list[Any]
) -> None:
    response = client.post(
        "/api/seasons",
        season_json(ready_versions),
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens[actor],
    )
    assert response.status_code == 403
    assert "only staff" in response.json()["error"]
    assert not Season.objects.exists()


@pytest.mark.parametrize("actor", ["owner", "other"])
def test_it_rejects_a_season_start_by_a_user_over_the_api(
    actor: str, client: Any, tokens: dict[str, str], ready_versions: list[Any]
) -> None:
    from webui.league import seasons, variants

    season = seasons.create_season(
        name="Draft", variant=variants.get_variant("scopa"), entrants=ready_versions
    )
    response = client.post(f"/api/seasons/{season.pk}/start", HTTP_AUTHORIZATION=tokens[actor])
    assert response.status_code == 403
    season.refresh_from_db()
    assert season.status == Season.Status.DRAFT


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"variant": "poker"}, "poker"),
        ({"entrants": ["nobody@1"]}, "no such bot version"),
        ({"games_per_pairing": 0}, "between 1 and 100"),
        ({"knockout_size": 9}, "knockout size"),
        ({"name": ""}, "needs a name"),
        ({"format": "ladder"}, "format 'ladder': one of round-robin, swiss, tables, partnerships"),
        ({"format": "swiss"}, "a Swiss of 3 rounds needs at least 4 entrants, not 2"),
        ({"format": "swiss", "rounds": 0}, "field 'rounds' must be between 1 and 255"),
        ({"format": "partnerships", "variant": "scopone"}, "rotating partnerships need 4, 5, 8"),
        ({"format": "tables"}, "format 'tables' is for variants of three sides or more"),
        ({"rounds": 2}, "rounds 2: only a Swiss season takes a number of rounds"),
        ({"format": 3}, "field 'format' must be a str"),
    ],
)
def test_it_rejects_a_bad_season_over_the_api(
    change: dict[str, Any],
    words: str,
    client: Any,
    tokens: dict[str, str],
    ready_versions: list[Any],
) -> None:
    body = json.loads(season_json(ready_versions))
    body.update(change)
    response = client.post(
        "/api/seasons",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["staff"],
    )
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert not Season.objects.exists()


def test_staff_create_a_swiss_season_over_the_api_and_read_its_first_round(
    client: Any, tokens: dict[str, str], users: dict[str, Any]
) -> None:
    from webui.league.versions import register_folder_bot

    versions = [
        register_folder_bot(users["staff"], SAMPLES / name, validate=False)
        for name in ("random", "greedy", "ismcts", "js-random")
    ]
    body = {
        "name": "Swiss",
        "variant": "scopa",
        "format": "swiss",
        "rounds": 3,
        "start": True,
        "entrants": [v.label for v in versions],
    }
    response = client.post(
        "/api/seasons",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["staff"],
    )
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["format"] == {
        "name": "swiss",
        "label": "Swiss",
        "options": {"rounds": 3},
        "rounds": 3,
        "bye_score": 1.0,
    }
    assert data["season"]["format_options"] == {"rounds": 3}
    assert data["season"]["swiss_rounds"] == 3 and data["season"]["matches_scheduled"] == 2
    assert data["season"]["matches_total"] == 6  # three rounds of two matches
    (first,) = data["schedule"]
    assert first["number"] == 1 and first["bye"] is None and len(first["pairings"]) == 2
    assert {p["a"]["label"] for p in first["pairings"]} | {
        p["b"]["label"] for p in first["pairings"]
    } == {v.label for v in versions}


def test_a_leaderboard_says_which_ladder_it_shows_and_refuses_another(client: Any, db: Any) -> None:
    from webui.league import variants

    scopone = variants.get_variant("scopone")
    solo = client.get("/api/variants/scopone/leaderboard").json()
    assert solo["ladder"] == "solo" and set(solo["ladders"]) == {"solo", "partners"}
    partners = client.get("/api/variants/scopone/leaderboard?ladder=partners").json()
    assert partners["ladder"] == "partners" and partners["ratings"] == []
    variants.get_variant("scopa")
    refused = client.get("/api/variants/scopa/leaderboard?ladder=partners")
    assert refused.status_code == 400
    assert refused.json() == {"error": "ladder 'partners': scopa has solo"}
    page = client.get("/variants/scopone/?ladder=partners")
    assert page.status_code == 200
    assert "This ladder: rotating partnerships: each bot" in page.content.decode()
    assert client.get("/variants/scopa/?ladder=partners").status_code == 404
    assert scopone.slug == "scopone"
