"""The pages that spare a bot author a checkout, in headless Chromium on a phone and a laptop,
light and dark: the data set page shows the download command with this site's address (and
for a bot once asked), the SDK page and the write-a-bot page show ``pip install`` from this
site, and a bot page's export button downloads that bot's games. Screenshots go to
``test-artifacts/sdkkit/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_responsive import check_page, open_context

pytestmark = [pytest.mark.browser, pytest.mark.services]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.fixture
def a_bot(transactional_db: Any) -> None:
    """ada's ``ada-bot`` with a validated version."""
    from django.contrib.auth.models import User

    from webui.league import versions

    ada = User.objects.create_user("ada", password="ada-pass-123")
    bot = versions.create_bot(ada, "ada-bot")
    version, _ = versions.register_version(
        bot,
        sha256="1" * 64,
        manifest={"name": "ada-bot", "variants": ["*"]},
        source_dir=str(SAMPLES / "random"),
    )
    assert versions.finish_validation(version.pk, True)


def shot(page: Any, artifacts: Path, name: str, size: str, scheme: str) -> None:
    out = artifacts / "sdkkit"
    out.mkdir(exist_ok=True)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.screenshot(path=str(out / f"{name}-{size}-{scheme}.png"), full_page=True)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_data_set_sdk_and_export_pages_name_this_site(
    browser: Any, live_server: Any, a_bot: None, artifacts: Path, size: str, scheme: str
) -> None:
    site = live_server.url
    context = open_context(browser, size, scheme, accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{site}/data/")
        command = page.locator("#download-command")
        assert command.is_visible()
        assert command.text_content() == f"arena games download {site} -o games.jsonl.gz"
        shot(page, artifacts, "data", size, scheme)
        problems = check_page(page, "data set", size, scheme)
        page.fill("input[name=bot]", "ada-bot")
        page.locator("#download button[type=submit]").click()
        page.wait_for_url("**/data/?*bot=ada-bot")
        assert page.locator("#download-command").text_content() == (
            f"arena games download {site} --bot ada-bot -o ada-bot.jsonl.gz"
        )

        page.goto(f"{site}/sdk/")
        install = str(page.locator("#install pre code").text_content())
        assert f"pip install {site}/sdk/scopa_arena_sdk-" in install
        shot(page, artifacts, "sdk", size, scheme)
        problems += check_page(page, "sdk", size, scheme)

        page.goto(f"{site}/write-a-bot/")
        assert f"pip install {site}/sdk/" in str(page.locator("#sdk-install").text_content())
        shot(page, artifacts, "write-a-bot", size, scheme)
        problems += check_page(page, "write a bot", size, scheme)

        page.goto(f"{site}/bots/ada-bot/")
        button = page.locator("#export-button")
        button.scroll_into_view_if_needed()
        assert button.is_visible()
        with page.expect_download() as download:
            button.click()
        assert download.value.suggested_filename.endswith(".jsonl.gz")
        shot(page, artifacts, "bot-export", size, scheme)
        problems += check_page(page, "bot", size, scheme)
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not problems, "\n".join(problems)
