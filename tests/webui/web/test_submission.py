"""Uploading bot versions over the web form and the API: good archives become versions that a
worker validates; every kind of bad archive is refused with its message and stores nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from archive_samples import BAD_ARCHIVES, HOSTILE_ARCHIVES, bad_crc_zip, good_zip
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from webui.league import bot_files
from webui.league.models import Bot, BotArchive, BotVersion

pytestmark = pytest.mark.django_db


def stored_files() -> set[Path]:
    """Every file under the archives and unpacked-bots folders."""
    out: set[Path] = set()
    for folder in (Path(settings.ARENA_ARCHIVES_DIR), Path(settings.ARENA_BOTS_DIR)):
        if folder.exists():
            out |= {p for p in folder.rglob("*")}
    return out


def queued_messages() -> set[Path]:
    folder = Path(settings.ARENA_BROKER_DIR) / "queue"
    return set(folder.glob("*")) if folder.exists() else set()


def upload_web(client: Any, data: bytes, name: str = "my-bot") -> Any:
    return client.post(f"/bots/{name}/upload/", {"archive": SimpleUploadedFile("bot.zip", data)})


def upload_api(client: Any, token: str, data: bytes, name: str = "my-bot") -> Any:
    return client.post(
        f"/api/bots/{name}/versions",
        {"archive": SimpleUploadedFile("bot.zip", data)},
        HTTP_AUTHORIZATION=token,
    )


@pytest.mark.parametrize("kind", sorted(BAD_ARCHIVES))
def test_it_rejects_a_bad_archive_over_the_web_with_its_message(
    kind: str, client: Any, users: dict[str, Any]
) -> None:
    data, words = BAD_ARCHIVES[kind]
    before = stored_files()
    client.force_login(users["owner"])
    response = upload_web(client, data)
    assert response.status_code == 400
    page = response.content.decode()
    assert words.replace("'", "&#x27;").replace('"', "&quot;") in page
    assert "Nothing was stored" in page
    assert not BotVersion.objects.exists()
    assert not BotArchive.objects.exists()
    assert stored_files() == before


@pytest.mark.parametrize("kind", sorted(BAD_ARCHIVES))
def test_it_rejects_a_bad_archive_over_the_api_with_its_message(
    kind: str, client: Any, tokens: dict[str, str]
) -> None:
    data, words = BAD_ARCHIVES[kind]
    before = stored_files()
    response = upload_api(client, tokens["owner"], data)
    assert response.status_code == (413 if kind == "too-big" else 400)
    assert words in response.json()["error"]
    assert not BotVersion.objects.exists()
    assert not BotArchive.objects.exists()
    assert stored_files() == before


def test_it_rejects_an_archive_of_another_bot(client: Any, tokens: dict[str, str]) -> None:
    before = stored_files()
    response = upload_api(client, tokens["owner"], good_zip("someone-else"))
    assert response.status_code == 400
    assert "names bot 'someone-else'" in response.json()["error"]
    assert not BotVersion.objects.exists()
    assert not BotArchive.objects.exists()
    assert stored_files() == before


def test_an_upload_becomes_a_version_that_a_worker_validates(
    client: Any, tokens: dict[str, str], django_capture_on_commit_callbacks: Any
) -> None:
    queued = queued_messages()
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_api(client, tokens["owner"], good_zip())
    assert response.status_code == 201
    body = response.json()
    version = BotVersion.objects.get()
    assert body["id"] == version.pk and body["number"] == 1
    assert version.status == BotVersion.Status.VALIDATING
    folder = Path(settings.ARENA_DATA_DIR) / version.source_dir
    assert not folder.exists()  # the request writes no file: a worker unpacks the archive
    assert bot_files.local_folder(version) == folder
    assert (folder / "bot.toml").is_file() and (folder / "bot.py").is_file()
    # the sandbox runs the bot as another user: its folder must be readable by all
    assert folder.stat().st_mode & 0o755 == 0o755
    assert (folder / "bot.py").stat().st_mode & 0o644 == 0o644
    # the database keeps the archive itself, for workers on any host; no archive file
    archive = BotArchive.objects.get()
    assert (archive.sha256, archive.kind, archive.size) == (version.sha256, "zip", len(good_zip()))
    assert bytes(archive.data) == good_zip()
    assert version.archive_path == ""
    new = [json.loads(p.read_text()) for p in queued_messages() - queued]
    assert [(m["headers"]["task"], m["headers"]["argsrepr"]) for m in new] == [
        ("arena.validate_version", f"[{version.pk}]")
    ]


def test_the_same_archive_twice_is_one_version(client: Any, tokens: dict[str, str]) -> None:
    first = upload_api(client, tokens["owner"], good_zip())
    second = upload_api(client, tokens["owner"], good_zip())
    assert (first.status_code, second.status_code) == (201, 200)
    assert second.json()["created_now"] is False
    assert BotVersion.objects.count() == 1
    assert BotArchive.objects.count() == 1


@pytest.mark.parametrize("trouble", ["damaged", "missing"])
def test_uploading_the_same_archive_again_repairs_its_row(
    client: Any, tokens: dict[str, str], trouble: str
) -> None:
    first = upload_api(client, tokens["owner"], good_zip())
    assert first.status_code == 201
    version = BotVersion.objects.get()
    if trouble == "damaged":
        BotArchive.objects.update(data=good_zip()[:-1] + b"?")
    else:
        BotArchive.objects.all().delete()
    second = upload_api(client, tokens["owner"], good_zip())
    assert second.status_code == 200 and second.json()["id"] == version.pk
    archive = BotArchive.objects.get()
    assert bytes(archive.data) == good_zip() and archive.size == len(good_zip())
    assert BotVersion.objects.count() == 1


def test_the_raw_body_upload_works_too(client: Any, tokens: dict[str, str]) -> None:
    response = client.post(
        "/api/bots/my-bot/versions",
        good_zip(),
        content_type="application/zip",
        HTTP_AUTHORIZATION=tokens["owner"],
    )
    assert response.status_code == 201
    assert BotVersion.objects.filter(bot__name="my-bot").count() == 1


def test_a_new_bot_with_its_first_version_from_the_form(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["other"])
    response = client.post(
        "/bots/new/",
        {
            "name": "newbie",
            "description": "mine",
            "archive": SimpleUploadedFile("b.zip", good_zip("newbie")),
        },
    )
    assert response.status_code == 302
    bot = Bot.objects.get(name="newbie")
    assert bot.owner == users["other"]
    assert bot.versions.get().status == BotVersion.Status.VALIDATING


def test_it_rejects_a_new_bot_whose_archive_is_bad_and_keeps_no_bot(
    client: Any, users: dict[str, Any]
) -> None:
    client.force_login(users["other"])
    data, words = BAD_ARCHIVES["path-escape"]
    response = client.post(
        "/bots/new/",
        {
            "name": "newbie",
            "archive": SimpleUploadedFile("b.zip", data),
        },
    )
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Bot.objects.filter(name="newbie").exists()


def test_the_owner_sees_the_validation_log_and_others_do_not(
    client: Any, users: dict[str, Any], tokens: dict[str, str]
) -> None:
    from webui.league import versions
    from webui.web.sampledata import engine_replay

    upload_api(client, tokens["owner"], good_zip())
    version = BotVersion.objects.get()
    versions.finish_validation(
        version.pk,
        False,
        "crashed at move 3",
        "Traceback: oops in bot",
        engine_replay("scopa", 5, ["my-bot@1", "random@1"]),
    )
    client.force_login(users["owner"])
    page = client.get("/bots/my-bot/v1/").content.decode()
    assert "crashed at move 3" in page and "Traceback: oops in bot" in page
    client.force_login(users["other"])
    page = client.get("/bots/my-bot/v1/").content.decode()
    assert "crashed at move 3" in page and "Traceback: oops in bot" not in page
    api = client.get("/api/bots/my-bot/versions/1", HTTP_AUTHORIZATION=tokens["other"]).json()
    assert "validation_log" not in api
    api = client.get("/api/bots/my-bot/versions/1", HTTP_AUTHORIZATION=tokens["owner"]).json()
    assert api["validation_log"] == "Traceback: oops in bot"
    frames = "/api/bots/my-bot/versions/1/validation/frames"
    assert client.get(frames, HTTP_AUTHORIZATION=tokens["other"]).status_code == 403
    game = client.get(frames, HTTP_AUTHORIZATION=tokens["owner"]).json()
    assert game["players"] == ["my-bot@1", "random@1"] and game["error"] is None


ROUTES = ["web upload", "web new bot", "api multipart", "api body"]


def upload_by(route: str, client: Any, users: dict[str, Any], token: str, data: bytes) -> Any:
    """``data`` uploaded by the owner over ``route``: every route that takes a bot.toml."""
    if route.startswith("web"):
        client.force_login(users["owner"])
    if route == "web upload":
        return upload_web(client, data)
    if route == "web new bot":
        archive = SimpleUploadedFile("b.zip", data)
        return client.post("/bots/new/", {"name": "my-bot-2", "archive": archive})
    if route == "api multipart":
        return upload_api(client, token, data)
    return client.post(
        "/api/bots/my-bot/versions",
        data,
        content_type="application/zip",
        HTTP_AUTHORIZATION=token,
    )


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", sorted(HOSTILE_ARCHIVES))
def test_it_refuses_each_costly_upload_on_every_route_naming_the_bound(
    kind: str, route: str, client: Any, users: dict[str, Any], tokens: dict[str, str]
) -> None:
    data, words = HOSTILE_ARCHIVES[kind]
    before = stored_files()
    response = upload_by(route, client, users, tokens["owner"], data)
    assert response.status_code == 400
    text = response.json()["error"] if route.startswith("api") else response.content.decode()
    assert words in text
    assert not BotVersion.objects.exists()
    assert not BotArchive.objects.exists()
    assert not Bot.objects.filter(name="my-bot-2").exists()
    assert stored_files() == before


def test_a_zip_damaged_past_its_directory_is_stored_and_fails_validation_once(
    client: Any, tokens: dict[str, str]
) -> None:
    from workers import tasks

    # The request reads a zip's directory and bot.toml alone; the worker reads every byte.
    response = upload_api(client, tokens["owner"], bad_crc_zip())
    assert response.status_code == 201
    version = BotVersion.objects.get()
    assert tasks.validate_version.run(version.pk).startswith(f"version {version.pk}: failed")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED
    assert "damaged at 'bot.py'" in version.status_reason
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: nothing to do"
