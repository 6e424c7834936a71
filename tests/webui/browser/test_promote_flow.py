"""Test, then promote, in headless Chromium on a phone and a laptop, light and dark: the owner's
bot page shows the candidate beside the ladder version, its test button opens the SPRT form
with the candidate chosen against the ladder version, the started test estimates the pairs
left once pairs are counted, and the promote button makes the candidate the ladder version.
Screenshots go to ``test-artifacts/promote/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_session import log_in
from test_responsive import check_page, open_context

pytestmark = [pytest.mark.browser, pytest.mark.services]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.fixture
def candidate_site(transactional_db: Any, settings: Any) -> Any:
    """ada's ``ada-bot``: version 1 (random) on the ladder, version 2 (greedy) validated."""
    from django.contrib.auth.models import User

    from webui.league import versions

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    ada = User.objects.create_user("ada", password="ada-pass-123")
    bot = versions.create_bot(ada, "ada-bot")
    for number, sample in enumerate(("random", "greedy"), start=1):
        version, _ = versions.register_version(
            bot,
            sha256=f"{number}" * 64,
            code_sha256=f"{number + 4}" * 64,
            manifest={"name": "ada-bot", "variants": ["*"]},
            source_dir=str(SAMPLES / sample),
        )
        assert versions.finish_validation(version.pk, True)
    return ada


def shot(page: Any, artifacts: Path, name: str, size: str, scheme: str) -> None:
    out = artifacts / "promote"
    out.mkdir(exist_ok=True)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.screenshot(path=str(out / f"{name}-{size}-{scheme}.png"), full_page=True)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_the_owner_tests_then_promotes_the_candidate(
    browser: Any,
    live_server: Any,
    candidate_site: Any,
    artifacts: Path,
    size: str,
    scheme: str,
) -> None:
    from webui.league.models import LadderEntry
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    context = open_context(browser, size, scheme)
    log_in(context, live_server, candidate_site)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{live_server.url}/bots/ada-bot/")
        box = page.locator("#promotion")
        assert box.is_visible()
        text = " ".join(str(box.text_content()).split())
        assert "ada-bot@2 passed validation and is not on the ladder" in text
        assert "ada-bot@1 plays there now" in text
        shot(page, artifacts, "bot-candidate", size, scheme)
        problems = check_page(page, "bot", size, scheme)

        page.locator("#promotion a.button").click()  # the SPRT form, candidate chosen
        page.wait_for_url("**/bots/ada-bot/tests/")
        form = page.locator("#sprt-form")
        assert form.locator("select[name=version]").input_value() == "2"
        assert "against the ladder version ada-bot@1" in str(form.text_content())
        shot(page, artifacts, "sprt-form-default", size, scheme)
        problems += check_page(page, "sprt form", size, scheme)

        form.locator("button[type=submit]").click()  # the test starts; no worker plays it here
        page.wait_for_url("**/bots/ada-bot/tests/*/")
        assert "ada-bot@2 vs ada-bot@1" in str(page.text_content("h1"))
        test = SprtTest.objects.get(bot__name="ada-bot")
        for index, scores in enumerate([[1.0, 1.0], [1.0, 0.5], [0.5, 0.5], [1.0, 0.5]]):
            sprt_tests.record_pair(test.pk, index, scores, [])  # as workers count pairs
        page.reload()
        assert "pairs left" in str(page.text_content("#sprt-left"))
        shot(page, artifacts, "sprt-test-pairs-left", size, scheme)
        problems += check_page(page, "sprt test", size, scheme)

        page.goto(f"{live_server.url}/bots/ada-bot/")
        page.locator("#promote-form button").click()
        page.wait_for_selector(".messages")
        assert "ada-bot@2 is the ladder version now." in str(page.text_content(".messages"))
        assert page.locator("#promotion").count() == 0  # no candidate is left
        assert LadderEntry.objects.get(bot__name="ada-bot").version.number == 2
        shot(page, artifacts, "bot-promoted", size, scheme)
        problems += check_page(page, "bot promoted", size, scheme)
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not problems, "\n".join(problems)


def test_another_user_sees_no_candidate_and_no_promote_button(
    browser: Any, live_server: Any, candidate_site: Any
) -> None:
    from django.contrib.auth.models import User

    bea = User.objects.create_user("bea", password="bea-pass-123")
    context = open_context(browser, "laptop", "light")
    log_in(context, live_server, bea)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/bots/ada-bot/")
        assert page.locator("h1").text_content() == "ada-bot"
        assert page.locator("#promotion").count() == 0
        assert page.locator("#promote-form").count() == 0
    finally:
        context.close()
