"""The replay viewer in headless Chromium: stepping with keys and buttons shows the engine's
frames, the hands of one seat only on request, the fault, each capture and the deal's score."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.services]


def position(page: Any) -> str:
    return str(page.text_content(".v-pos"))


def frame_data(page: Any, index: int) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "(i) => document.getElementById('viewer').viewer.data.frames[i]", index)
    return result


def test_stepping_through_a_game_with_keys_and_buttons(
    page: Any, live_server: Any, played_game: Any, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/games/{played_game.pk}/")
    page.wait_for_selector(".v-board")
    deals = len(played_game.replay["deals"])
    moves = len(played_game.replay["deals"][0]["moves"])
    assert position(page) == f"Deal 1/{deals} · move 0/{moves}"
    assert page.locator(".v-table .card").count() == 4  # the four table cards of a scopa deal

    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert position(page) == f"Deal 1/{deals} · move 3/{moves}"
    frame = frame_data(page, 3)
    assert sorted(page.eval_on_selector_all(".v-table .card", "cs => cs.map(c => c.dataset.card)"
                                            )) == sorted(frame["table"])
    assert "Fault · timeout" in str(page.text_content(".v-event"))  # the arena played move 3
    assert "Played by the arena (timeout)" in str(page.text_content(".v-event"))

    page.click("button[data-act=next]")
    assert position(page).endswith(f"move 4/{moves}")
    page.click("button[data-act=prev]")
    page.keyboard.press("ArrowLeft")
    assert position(page).endswith(f"move 2/{moves}")

    # Only what seat 0 saw: its own cards, the backs of the other hand.
    page.select_option(".v-view", "0")
    frame = frame_data(page, 2)
    assert page.locator('.v-seat[data-seat="0"] .card:not(.card-back)').count() == len(
        frame["hands"][0])
    assert page.locator('.v-seat[data-seat="1"] .card-back').count() == len(frame["hands"][1])
    assert page.locator('.v-seat[data-seat="1"] .card:not(.card-back)').count() == 0
    page.keyboard.press("ArrowRight")  # the keys step the game, not the menu just used
    assert position(page).endswith(f"move 3/{moves}")
    assert page.input_value(".v-view") == "0"
    page.keyboard.press("ArrowLeft")
    page.select_option(".v-view", "all")

    # A capture is named with the cards taken.
    frames = page.evaluate("document.getElementById('viewer').viewer.data.frames.length")
    capture = next(i for i in range(1, frames) if (frame_data(page, i)["move"] or {}).get(
        "capture"))
    page.keyboard.press("Home")
    for _ in range(capture):
        page.keyboard.press("ArrowRight")
    taken = frame_data(page, capture)["move"]["capture"]
    assert " and takes " in str(page.text_content(".v-what"))
    assert page.locator(".v-play-cards .card").count() == 1 + len(taken)

    # The end of the first deal shows its score breakdown.
    page.keyboard.press("PageDown")
    assert position(page).startswith("Deal 2/")
    page.keyboard.press("ArrowLeft")
    assert page.is_visible(".v-breakdown")
    assert "Score of deal 1" in str(page.text_content(".v-score"))
    for row in ("Carte", "Denari", "Settebello", "Primiera", "Scope", "Deal total"):
        assert row in str(page.text_content(".v-breakdown"))

    # The end of the game: the totals and the winner of the record.
    page.keyboard.press("End")
    totals = page.eval_on_selector_all(".v-game-total td", "tds => tds.map(t => t.textContent)")
    assert [int(t) for t in totals] == played_game.totals
    assert "wins the game" in str(page.text_content(".v-result"))
    page.screenshot(path=str(artifacts / "replay-viewer-end.png"), full_page=True)

    # Space plays and pauses.
    page.keyboard.press("Home")
    page.select_option(".v-speed", "350")
    page.keyboard.press(" ")
    page.wait_for_function("document.getElementById('viewer').dataset.frame !== '0'")
    page.keyboard.press(" ")
    assert not page.locator(".viewer.is-playing").count()
    page.screenshot(path=str(artifacts / "replay-viewer.png"), full_page=True)


def test_the_viewer_fits_a_phone(page: Any, live_server: Any, played_game: Any,
                                 artifacts: Path) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/games/{played_game.pk}/")
    page.wait_for_selector(".v-board")
    page.keyboard.press("ArrowRight")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing sticks out sideways
    card = page.locator(".v-seat .card").first.bounding_box()
    assert card is not None and card["width"] >= 30  # cards stay readable
    page.screenshot(path=str(artifacts / "replay-viewer-phone.png"), full_page=True)


def test_a_replay_file_opens_without_being_stored(page: Any, live_server: Any,
                                                  played_game: Any, tmp_path: Path) -> None:
    import json

    from webui.league.models import Game

    path = tmp_path / "game.json"
    path.write_text(json.dumps(played_game.replay))
    count = Game.objects.count()
    page.goto(f"{live_server.url}/replay/")
    page.set_input_files("#replay-open input[type=file]", str(path))
    page.wait_for_selector("#replay-open-viewer .v-board")
    page.keyboard.press("End")
    assert "wins the game" in str(page.text_content(".v-result"))
    assert Game.objects.count() == count


def test_a_scopone_replay_seats_four_players_around_the_table(
    page: Any, live_server: Any, transactional_db: Any, artifacts: Path
) -> None:
    golden = Path(__file__).resolve().parents[1] / "engine" / "golden" / "scopone.json"
    page.goto(f"{live_server.url}/replay/")
    page.set_input_files("#replay-open input[type=file]", str(golden))
    page.wait_for_selector("#replay-open-viewer .v-board")
    places = page.eval_on_selector_all(
        ".v-seat", "seats => seats.map(s => [s.dataset.seat, s.dataset.place])")
    assert places == [["0", "bottom"], ["1", "right"], ["2", "top"], ["3", "left"]]
    assert page.locator(".v-seat .card").count() == 36  # nine cards in each hand
    page.select_option(".v-view", "2")  # seat 2 at the bottom, the others around it
    assert page.get_attribute('.v-seat[data-seat="2"]', "data-place") == "bottom"
    assert page.get_attribute('.v-seat[data-seat="3"]', "data-place") == "right"
    assert page.locator('.v-seat[data-seat="0"] .card-back').count() == 9
    page.keyboard.press("End")
    header = page.eval_on_selector_all(".v-breakdown thead th",
                                       "ths => ths.map(t => t.textContent)")
    assert header[1:] == ["Seats 0+2", "Seats 1+3"]  # partnerships score together
    page.screenshot(path=str(artifacts / "replay-viewer-scopone.png"), full_page=True)
