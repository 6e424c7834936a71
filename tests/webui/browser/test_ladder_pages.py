"""The ladder page and the challenge form in headless Chromium: an owner challenges a bot from
the ladder page, a bad request shows its message and queues nothing, the result page shows the
score with Elo +- error and LOS, and the pages fit a phone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.services]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.fixture
def ladder_site(transactional_db: Any, settings: Any) -> Any:
    """random and greedy on the ladder with a played ladder match; ada owns ``ada-bot``."""
    from django.contrib.auth.models import User

    from webui.league import ladder, matches, ratings, variants, versions
    from webui.league.models import Match
    from webui.web.sampledata import match_report

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    staff = User.objects.create_user("arena", is_staff=True)
    ada = User.objects.create_user("ada", password="ada-pass-123")
    for name in ("random", "greedy"):
        ladder.enter_version(versions.register_folder_bot(staff, SAMPLES / name))
    bot = versions.create_bot(ada, "ada-bot")
    version, _ = versions.register_version(
        bot, sha256="e" * 64, manifest={"name": "ada-bot"}, source_dir=str(SAMPLES / "random")
    )
    versions.finish_validation(version.pk, True)
    for match_id in ladder.schedule():
        match = Match.objects.get(pk=match_id)
        claim = matches.claim_match(match_id, "test")
        assert claim is not None
        matches.record_result(claim, match_report(match))
    ratings.update_ratings(variants.get_variant("scopa").pk)
    return ada


def log_in(page: Any, base: str) -> None:
    page.goto(f"{base}/accounts/login/?next=/ladder/scopa/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=password]", "ada-pass-123")
    page.click("form.stack button[type=submit]")
    page.wait_for_url("**/ladder/scopa/")


def test_an_owner_challenges_from_the_ladder_page_and_sees_the_result(
    page: Any,
    live_server: Any,
    ladder_site: Any,
) -> None:
    from webui.league import matches
    from webui.league.models import Match
    from webui.web.sampledata import match_report

    log_in(page, live_server.url)
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == 2  # the ladder match's two bots, rated
    assert "provisional" in str(rows.first.text_content())
    form = page.locator("#challenge-form")
    form.locator("select[name=bot]").select_option("ada-bot")
    form.locator("select[name=opponent]").select_option("greedy")
    form.locator("input[name=deals]").evaluate("el => el.removeAttribute('max')")
    form.locator("input[name=deals]").fill("40")
    form.locator("button[type=submit]").click()
    page.wait_for_selector("[role=alert]")
    assert "deals must be a whole number from 1 to 10" in str(page.text_content("[role=alert]"))
    assert not Match.objects.filter(kind="challenge").exists()

    page.locator("#challenge-form input[name=deals]").fill("1")
    page.locator("#challenge-form input[name=rated]").check()
    page.locator("#challenge-form button[type=submit]").click()
    page.wait_for_url("**/challenges/*/")
    challenge = Match.objects.get(kind="challenge")
    assert challenge.rated and challenge.games_planned == 2
    assert "rated on the ladder" in str(page.text_content("main"))
    assert "scheduled" in str(page.text_content("#challenge-result"))

    claim = matches.claim_match(challenge.pk, "test")  # what a worker does
    assert claim is not None
    matches.record_result(claim, match_report(challenge, greedy_entrant=1))
    page.wait_for_selector("[data-los]", timeout=20_000)  # the page reloads until it is done
    assert "Elo difference" in str(page.text_content("main"))
    assert "%" in str(page.text_content("[data-los]"))
    # What is known, never "± inf": one game each way has no 95% margin yet, and says so.
    from webui.league import challenges

    expected = challenges.result(challenge).estimate.summary().replace("+/-", "±")
    assert str(page.text_content("[data-elo]")).strip() == expected
    assert "inf" not in str(page.text_content("#challenge-result"))


@pytest.mark.parametrize(
    "path", ["/ladder/", "/ladder/scopa/", "/bots/ada-bot/ladder/", "/challenges/new/"]
)
def test_the_ladder_pages_fit_a_phone(
    browser: Any, live_server: Any, ladder_site: Any, path: str
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/login/")
        page.fill("input[name=username]", "ada")
        page.fill("input[name=password]", "ada-pass-123")
        page.click("form.stack button[type=submit]")
        page.wait_for_load_state("load")
        page.goto(live_server.url + path)
        page.wait_for_load_state("load")
        assert page.locator("h1").count() == 1
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"{path} is {width} px wide"
        page.click(".nav-toggle")  # the collapsing menu still opens, with the ladder in it
        assert page.locator("#site-nav a[href='/ladder/']").is_visible()
    finally:
        context.close()
