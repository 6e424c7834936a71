"""The Play page in Chromium: a person plays a whole game against the random bot by tapping
cards, through a real worker, on a phone-sized touch screen in the dark scheme, and then
watches it in the replay viewer. With ``--docs-screenshots`` it renews the README's pictures
of the page."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from browser_session import log_in
from live_workers import Live
from play_helpers import WAIT_S

from arena.engine import POINT_CATEGORIES

pytestmark = [pytest.mark.services, pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
PHONE = {"width": 390, "height": 844}
DASH = "\u2013"  # between two counts: 21-19 set as the page sets it


def no_sideways_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.evaluate("window.innerWidth"), f"the page is {width} px wide"


def count_cells(page: Any, deal: int, key: str) -> tuple[str, int, int]:
    """A finished deal's row of ``key``: its count (yours, then the bot's) and the points."""
    cells = page.locator(f"#play-deals details[data-deal='{deal}'] tr[data-category='{key}'] td")
    count, mine, bot = cells.all_inner_texts()
    return count, int(mine), int(bot)


def check_every_deal_with_its_counts(page: Any, replay: dict[str, Any], artifacts: Path) -> None:
    """Every deal of the game stays on the page with its moves and the counts behind its
    points, and the counts agree with the points the replay recorded."""
    deals = page.locator("#play-deals details.play-deal")
    assert deals.count() == len(replay["deals"]), page.inner_text("#play-deals")
    for k, recorded in enumerate(replay["deals"]):
        details = page.locator(f"#play-deals details[data-deal='{k}']")
        details.locator("summary").click()
        moves = details.locator(".play-deal-moves li")
        assert moves.count() == len(recorded["moves"])
        for key, whole in (("carte", 40), ("denari", 10)):
            count, mine, bot = count_cells(page, k, key)
            a, b = (int(n) for n in count.split(DASH))
            assert a + b == whole, (key, count)
            assert (mine, bot) == (int(a > b), int(b > a)), (key, count, mine, bot)
        who, mine, bot = count_cells(page, k, "settebello")
        assert who == ("you" if mine else "the bot"), (who, mine, bot)
        primiera, mine, bot = count_cells(page, k, "primiera")
        a, b = (int(n) for n in primiera.split(DASH))  # the values: 78, 70
        assert max(a, b) >= 4 and not (mine and bot), (primiera, mine, bot)
    deals.first.screenshot(path=str(artifacts / "play-earlier-deal-phone-dark.png"))
    page.locator("#play-deals").screenshot(path=str(artifacts / "play-every-deal-phone-dark.png"))


def test_a_person_plays_a_whole_game_by_tapping_cards(
    browser: Any,
    live_server: Any,
    play_workers: Live,
    person: Any,
    settings: Any,
    artifacts: Path,
    request: pytest.FixtureRequest,
) -> None:
    from webui.play.models import PlayGame, PlayMove

    settings.ARENA_PLAY_MOVE_TIME_MS = 30_000
    settings.ARENA_PLAY_BANK_MS = 600_000
    docs = request.config.getoption("--docs-screenshots")
    context = browser.new_context(viewport=PHONE, color_scheme="dark", has_touch=True)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    log_in(context, live_server, person)
    play_workers.workers(play=True)

    page.goto(f"{live_server.url}/")
    page.click(".nav-toggle")
    page.click("#site-nav a[href='/play/']")
    page.wait_for_url("**/play/")
    no_sideways_scroll(page)
    page.select_option("select[name=variant]", "scopa")
    page.select_option("select[name=bot]", "random")
    page.check("input[name=seat][value=first]")
    if docs:
        page.screenshot(path=str(ROOT / "docs" / "screenshots" / "play-form-phone-dark.png"))
    page.click("#play-form button[type=submit]")
    page.wait_for_url("**/play/*/")

    taps = 0
    choices = 0
    shot = False
    long_list = breakdown = False
    deadline = time.monotonic() + WAIT_S * 2
    while time.monotonic() < deadline:
        page.wait_for_function(
            "['over', 'void'].includes(document.getElementById('play').dataset.status)"
            " || document.querySelector('#play-hand .play-card:enabled') !== null",
            timeout=WAIT_S * 1000,
        )
        status = page.get_attribute("#play", "data-status")
        if status in {"over", "void"}:
            break
        turn = page.get_attribute("#play", "data-turn")
        if not shot:
            no_sideways_scroll(page)
            page.screenshot(path=str(artifacts / "play-phone-dark.png"))
            if docs:
                page.screenshot(path=str(ROOT / "docs" / "screenshots" / "play-phone-dark.png"))
                laptop = browser.new_context(viewport={"width": 1280, "height": 800})
                log_in(laptop, live_server, person)
                tab = laptop.new_page()
                tab.goto(page.url)
                tab.wait_for_selector("#play-hand .play-card:enabled")
                tab.screenshot(path=str(ROOT / "docs" / "screenshots" / "play-laptop.png"))
                laptop.close()
            shot = True
        moves = page.locator("#play-moves li")
        if not long_list and moves.count() > 12:  # past a dozen moves, all are still listed
            numbers = moves.locator(".play-move-no").all_inner_texts()
            assert numbers == [str(k) for k in range(1, len(numbers) + 1)], numbers
            last = moves.last.locator(".play-move-no")
            assert last.evaluate("e => e.scrollWidth <= e.clientWidth")  # "10", not "0"
            long_list = True
        if not breakdown and page.locator("#play-last-deal").is_visible():
            rows = page.locator("#play-last-deal tbody th").all_inner_texts()
            every = [c for c in POINT_CATEGORIES if not c.is_optional]  # the engine's five
            assert rows[:5] == [c.label for c in every], rows
            assert rows[-1] == "Deal total"
            heads = page.locator("#play-last-deal thead th").all_inner_texts()
            assert heads == ["", "Count", "You", "Bot"], heads
            no_sideways_scroll(page)
            table = page.locator("#play-last-deal table")  # the counts fit a phone's width
            assert table.evaluate("t => t.scrollWidth <= t.parentElement.clientWidth")
            page.locator(".play-panels").screenshot(
                path=str(artifacts / "play-moves-and-score-phone-dark.png")
            )
            breakdown = True
        page.locator("#play-hand .play-card:enabled").first.tap()
        if page.locator("#play-captures").is_visible():
            choices += 1
            page.locator("#play-capture-list .play-capture").first.tap()
        taps += 1
        # The tapped turn is gone once the page shows the next turn or the bot's reply.
        page.wait_for_function(
            "t => document.getElementById('play').dataset.turn !== t"
            " || document.getElementById('play').dataset.yourTurn === '0'",
            arg=turn,
            timeout=WAIT_S * 1000,
        )
    assert page.get_attribute("#play", "data-status") == "over", page.inner_text("#play-status")
    assert "The game is over" in page.inner_text("#play-status")
    game = PlayGame.objects.get(user=person)
    assert game.forfeit is None and game.winner_side in {0, 1, None}
    played = [m for deal in game.replay["deals"] for m in deal["moves"] if m["seat"] == 0]
    assert len(played) == taps == PlayMove.objects.filter(game=game).count()
    assert not any(m.get("auto") for m in played)  # every card of the person's was tapped
    assert long_list and breakdown  # the move list past 12 moves, a deal's score by point
    assert sum(game.totals) > 0 and max(game.totals) >= 11
    assert not errors, errors
    assert page.inner_text("#play-target") == "First to 11 points wins."
    check_every_deal_with_its_counts(page, game.replay, artifacts)
    laptop = browser.new_context(viewport={"width": 1280, "height": 800}, color_scheme="light")
    log_in(laptop, live_server, person)
    tab = laptop.new_page()
    tab.goto(page.url)
    tab.wait_for_selector("#play-deals details.play-deal")
    tab.locator("#play-deals details.play-deal").first.locator("summary").click()
    assert tab.locator("#play-last-deal tr[data-category='carte'] td").count() == 3
    no_sideways_scroll(tab)
    tab.screenshot(path=str(artifacts / "play-over-laptop-light.png"), full_page=True)
    laptop.close()

    page.click("#play-replay")
    page.wait_for_url(f"**/play/{game.pk}/replay/")
    page.wait_for_selector(".v-board")
    assert "ada (human) v random@1" in page.inner_text("h1")
    no_sideways_scroll(page)
    context.close()
    print(f"{taps} cards tapped, {choices} capture choices")
