"""A bot's own log beside the replay, in headless Chromium: its owner steps through the game
and sees, at each move of its bot, the line its bot wrote at that turn; another user sees the
same replay with no log, and no sign of one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_session import log_in
from talker_match import play_and_record, talker_seat

pytestmark = [pytest.mark.browser, pytest.mark.services]


@pytest.fixture
def logged_game(transactional_db: Any) -> tuple[Any, dict[str, Any]]:
    from django.contrib.auth.models import User

    users = {
        "owner": User.objects.create_user("owner", password="owner-pass-123"),
        "other": User.objects.create_user("other", password="other-pass-123"),
        "staff": User.objects.create_user("staff", password="staff-pass-123", is_staff=True),
    }
    match = play_and_record(users["owner"], users["staff"])
    return match.games.order_by("index").first(), users


def test_the_owner_sees_its_bot_s_log_turn_by_turn_beside_the_replay(
    browser: Any, live_server: Any, logged_game: tuple[Any, dict[str, Any]], artifacts: Path
) -> None:
    game, users = logged_game
    seat = talker_seat(game)
    moves = [m["seat"] for m in game.replay["deals"][0]["moves"]]
    mine = [i for i, s in enumerate(moves) if s == seat]  # its moves in the first deal
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in(context, live_server, users["owner"])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_selector(".v-board")
    pane = page.locator(f'.bot-log[data-seat="{seat}"]')
    pane.wait_for()
    assert page.locator(".bot-log").count() == 1  # its own seat only
    assert "Before its first move" in str(pane.locator(".bot-log-turn").text_content())
    # Step to just after its second move: the pane shows the line of that turn.
    for _ in range(mine[1] + 1):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "m => document.querySelector('.bot-log').dataset.move === String(m)", arg=mine[1]
    )
    text = str(pane.locator("pre").text_content())
    assert text.strip() == f"talker: seat {seat} deal 0 turn 1"
    assert "Its move just played: deal 1, move" in str(pane.locator(".bot-log-turn").text_content())
    # One step on (the other seat's move): its last turn is still shown, named as such.
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('.bot-log-turn').textContent.startsWith('Its last move')"
    )
    assert str(pane.locator("pre").text_content()).strip() == text.strip()
    download = page.locator("#bot-logs a[download]")
    assert download.get_attribute("href") == f"/api/games/{game.pk}/logs/text"
    page.screenshot(path=str(artifacts / "game-log-owner.png"), full_page=True)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    log_in(phone, live_server, users["owner"])
    small = phone.new_page()
    small.goto(f"{live_server.url}/games/{game.pk}/#f={mine[1] + 1}")
    small.wait_for_selector(".bot-log pre")
    small.screenshot(path=str(artifacts / "game-log-owner-phone-dark.png"), full_page=True)
    phone.close()
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def test_another_user_sees_the_replay_without_any_log(
    browser: Any, live_server: Any, logged_game: tuple[Any, dict[str, Any]], artifacts: Path
) -> None:
    game, users = logged_game
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    log_in(context, live_server, users["other"])
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_selector(".v-board")
    page.keyboard.press("ArrowRight")
    assert page.locator("#bot-logs").count() == 0
    assert "log" not in str(page.locator("main").text_content()).lower().replace("login", "")
    assert not [url for url in asked if "/logs" in url]
    page.screenshot(path=str(artifacts / "game-log-other-user.png"), full_page=True)
    context.close()
