"""Test, then promote, through the API and the bot's page: an upload is a candidate, the ladder
version changes only when its owner promotes one, and code uploaded again is named."""

from __future__ import annotations

from typing import Any

import pytest
from archive_samples import make_tar, make_zip, manifest
from django.core.files.uploadedfile import SimpleUploadedFile

from webui.league import ladder, versions
from webui.league.models import Bot, BotVersion, LadderEntry

pytestmark = pytest.mark.django_db

FILES: dict[str, bytes | str] = {"bot.toml": manifest(), "bot.py": "print('hello')\n"}
CHANGED: dict[str, bytes | str] = {"bot.toml": manifest(), "bot.py": "print('better')\n"}


def upload(client: Any, token: str, data: bytes, **fields: str) -> Any:
    return client.post(
        "/api/bots/my-bot/versions",
        {"archive": SimpleUploadedFile("bot.zip", data), **fields},
        HTTP_AUTHORIZATION=token,
    )


def validated(number: int) -> BotVersion:
    """Version ``number`` of my-bot, passed by its validation as a worker records it."""
    version = BotVersion.objects.get(bot__name="my-bot", number=number)
    assert versions.finish_validation(version.pk, True)
    version.refresh_from_db()
    return version


def ladder_label() -> str:
    return LadderEntry.objects.select_related("version").get(bot__name="my-bot").version.label


def test_the_first_version_enters_the_ladder_and_a_later_one_waits_as_candidate(
    client: Any, tokens: dict[str, str]
) -> None:
    assert upload(client, tokens["owner"], make_zip(FILES)).status_code == 201
    validated(1)
    assert ladder_label() == "my-bot@1"
    answer = upload(client, tokens["owner"], make_zip(CHANGED))
    assert answer.status_code == 201 and answer.json()["warning"] == ""
    validated(2)
    assert ladder_label() == "my-bot@1"  # validation alone does not promote
    entry = client.get("/api/bots/my-bot/ladder").json()
    assert entry["entry"]["label"] == "my-bot@1"
    assert entry["candidate"] == {
        "version": 2,
        "label": "my-bot@2",
        "promote_on_pass": False,
        "same_code_as": None,
    }


def test_the_owner_promotes_the_candidate_over_the_api_and_others_cannot(
    client: Any, tokens: dict[str, str]
) -> None:
    upload(client, tokens["owner"], make_zip(FILES))
    validated(1)
    upload(client, tokens["owner"], make_zip(CHANGED))
    validated(2)
    refused = client.post(
        "/api/bots/my-bot/promote",
        {"version": 2},
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["other"],
    )
    assert refused.status_code == 403 and "only the owner" in refused.json()["error"]
    assert ladder_label() == "my-bot@1"
    done = client.post(
        "/api/bots/my-bot/promote",
        {"version": 2},
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["owner"],
    )
    assert done.status_code == 200, done.content
    assert done.json()["entry"]["label"] == "my-bot@2"
    assert done.json()["candidate"] is None  # an older version is a choice, not a candidate
    assert ladder_label() == "my-bot@2"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({}, 400, "give field 'version'"),
        ({"version": "two"}, 400, "'version'"),
        ({"version": 9}, 400, "bot 'my-bot' has no version 9"),
        ({"version": 2}, 400, "version my-bot@2 is validating, not ready"),
        ({"version": 1, "extra": 1}, 400, "extra"),
    ],
)
def test_it_rejects_a_bad_promotion_quoting_it_and_changes_nothing(
    client: Any, tokens: dict[str, str], body: dict[str, Any], status: int, words: str
) -> None:
    upload(client, tokens["owner"], make_zip(FILES))
    validated(1)
    upload(client, tokens["owner"], make_zip(CHANGED))  # version 2 is still validating
    answer = client.post(
        "/api/bots/my-bot/promote",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=tokens["owner"],
    )
    assert answer.status_code == status and words in answer.json()["error"]
    assert "\n" not in answer.json()["error"]
    assert ladder_label() == "my-bot@1"


def test_identical_code_uploaded_again_is_named_in_the_answer(
    client: Any, tokens: dict[str, str]
) -> None:
    first = upload(client, tokens["owner"], make_zip(FILES)).json()
    again = upload(client, tokens["owner"], make_zip(FILES))
    assert again.status_code == 200 and again.json()["created_now"] is False
    assert again.json()["warning"] == "this archive is my-bot@1 already: nothing new was stored"
    repacked = upload(client, tokens["owner"], make_tar(FILES))  # the same files, another archive
    assert repacked.status_code == 201
    out = repacked.json()
    assert out["sha256"] != first["sha256"] and out["code_sha256"] == first["code_sha256"]
    assert out["warning"].startswith("the code of my-bot@2 is identical to my-bot@1")
    changed = upload(client, tokens["owner"], make_tar(CHANGED)).json()
    assert changed["warning"] == "" and changed["code_sha256"] != first["code_sha256"]
    # A zip's code is read from its directory (no byte inflated in the request): other files
    # in a zip are other code, the same files the same code as in a tar.gz.
    zipped = upload(client, tokens["owner"], make_zip(CHANGED)).json()
    assert zipped["code_sha256"] == changed["code_sha256"] != first["code_sha256"]
    assert zipped["warning"].startswith("the code of my-bot@4 is identical to my-bot@3")


def test_test_then_promote_is_kept_from_the_upload_and_bad_values_are_refused(
    client: Any, tokens: dict[str, str]
) -> None:
    bad = upload(client, tokens["owner"], make_zip(FILES), test_then_promote="maybe")
    assert bad.status_code == 400 and "'test_then_promote': 'maybe'" in bad.json()["error"]
    assert not BotVersion.objects.exists()
    asked = upload(client, tokens["owner"], make_zip(FILES), test_then_promote="true")
    assert asked.status_code == 201 and asked.json()["promote_on_pass"] is True
    raw = client.post(
        "/api/bots/my-bot/versions?test_then_promote=1",
        make_tar(CHANGED),
        content_type="application/gzip",
        HTTP_AUTHORIZATION=tokens["owner"],
    )
    assert raw.status_code == 201 and raw.json()["promote_on_pass"] is True
    plain = upload(client, tokens["owner"], make_zip({**CHANGED, "notes.txt": "x"}))
    assert plain.json()["promote_on_pass"] is False


def test_the_bot_page_offers_the_owner_alone_the_promote_button(
    client: Any, users: dict[str, Any], tokens: dict[str, str]
) -> None:
    upload(client, tokens["owner"], make_zip(FILES))
    validated(1)
    upload(client, tokens["owner"], make_tar(FILES))  # identical code, repacked
    validated(2)
    client.force_login(users["other"])
    assert b"promote-form" not in client.get("/bots/my-bot/").content
    client.post("/bots/my-bot/promote/", {"version": "2"})
    assert ladder_label() == "my-bot@1"
    client.force_login(users["owner"])
    page = client.get("/bots/my-bot/").content.decode()
    assert 'id="promote-form"' in page and "Promote my-bot@2 to the ladder" in page
    assert "my-bot@2 has the same code as my-bot@1" in page
    bad = client.post("/bots/my-bot/promote/", {"version": "2x"}, follow=True)
    assert "version &#x27;2x&#x27;: not a version number" in bad.content.decode()
    assert ladder_label() == "my-bot@1"
    done = client.post("/bots/my-bot/promote/", {"version": "2"}, follow=True)
    assert "my-bot@2 is the ladder version now." in done.content.decode()
    assert ladder_label() == "my-bot@2"


def test_a_web_upload_asks_for_test_then_promote_and_warns_of_identical_code(
    client: Any, users: dict[str, Any]
) -> None:
    client.force_login(users["owner"])
    client.post("/bots/my-bot/upload/", {"archive": SimpleUploadedFile("a.zip", make_zip(FILES))})
    page = client.post(
        "/bots/my-bot/upload/",
        {"archive": SimpleUploadedFile("a.tgz", make_tar(FILES)), "test_then_promote": "on"},
        follow=True,
    ).content.decode()
    assert "The code of my-bot@2 is identical to my-bot@1" in page
    assert BotVersion.objects.get(bot__name="my-bot", number=2).promote_on_pass is True
    assert ladder.candidate(BotVersion.objects.get(number=1).bot) is None  # none validated


def test_a_trusted_newer_version_replaces_the_ladder_version_only_when_asked(
    users: dict[str, Any],
) -> None:
    from pathlib import Path

    bot = Bot.objects.get(name="my-bot")
    folder = str(Path(__file__).resolve().parents[3] / "sample_bots" / "random")

    def trusted(number: int) -> BotVersion:
        version, _ = versions.register_version(
            bot, sha256=f"{number}" * 64, manifest={}, source_dir=folder, validate=False
        )
        return version

    assert ladder.enter_version(trusted(1)) is not None
    ladder.enter_version(trusted(2))
    assert ladder_label() == "my-bot@1"
    ladder.enter_version(trusted(3), replace=True)  # arena demo's samples, changed on disk
    assert ladder_label() == "my-bot@3"
    ladder.enter_version(BotVersion.objects.get(bot=bot, number=2), replace=True)
    assert ladder_label() == "my-bot@3"  # never back to an older one


def test_the_ladder_page_names_the_candidate(
    client: Any, users: dict[str, Any], tokens: dict[str, str]
) -> None:
    upload(client, tokens["owner"], make_zip(FILES))
    validated(1)
    upload(client, tokens["owner"], make_zip(CHANGED), test_then_promote="true")
    validated(2)
    client.force_login(users["owner"])
    page = client.get("/bots/my-bot/ladder/").content.decode()
    assert "Candidate: <strong>my-bot@2</strong>, validated and not on the ladder yet" in page
    assert "a version test of it that accepts H1 promotes it" in page
