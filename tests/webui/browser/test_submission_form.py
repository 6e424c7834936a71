"""The submission form in headless Chromium: a user signs in, submits a bot with its archive,
sees it waiting for validation, and gets a clear refusal (and nothing stored) for a bad one."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.services]

MANIFEST = """name = "web-bot"
version = "1.0.0"
author = "Tester"
command = ["python", "bot.py"]
variants = ["*"]
"""


def zip_of(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_a_user_submits_a_bot_and_a_bad_archive_is_refused(
    page: Any, live_server: Any, transactional_db: Any, tmp_path: Path, artifacts: Path
) -> None:
    from django.contrib.auth.models import User

    from webui.league.models import Bot, BotVersion

    User.objects.create_user("writer", password="writer-pass-123")
    good = tmp_path / "web-bot.zip"
    good.write_bytes(zip_of({"bot.toml": MANIFEST, "bot.py": "print('hi')\n"}))
    bad = tmp_path / "evil.zip"
    bad.write_bytes(zip_of({"bot.toml": MANIFEST, "../../escape.py": "x"}))

    page.goto(f"{live_server.url}/bots/new/")
    assert "/accounts/login/" in page.url  # the form needs an account
    page.fill("input[name=username]", "writer")
    page.fill("input[name=password]", "writer-pass-123")
    page.click("form.stack button[type=submit]")
    page.wait_for_url("**/bots/new/")

    page.fill("input[name=name]", "web-bot")
    page.fill("textarea[name=description]", "Submitted from the browser")
    page.set_input_files("input[name=archive]", str(good))
    page.screenshot(path=str(artifacts / "submission-form.png"), full_page=True)
    page.click("#bot-form button[type=submit]")
    page.wait_for_url("**/bots/web-bot/")
    assert "version 1 is being validated" in str(page.text_content(".messages"))
    assert "validating" in str(page.text_content("table.data"))
    assert BotVersion.objects.get(bot__name="web-bot").status == "validating"

    page.set_input_files("#upload-form input[name=archive]", str(bad))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("[role=alert]")
    alert = str(page.text_content("[role=alert]"))
    assert "escapes the archive's folder" in alert
    assert "Nothing was stored" in str(page.text_content("main"))
    assert BotVersion.objects.filter(bot__name="web-bot").count() == 1
    assert Bot.objects.get(name="web-bot").description == "Submitted from the browser"
    page.screenshot(path=str(artifacts / "submission-refused.png"), full_page=True)
