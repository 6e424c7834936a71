"""The replay viewer in headless Chromium: stepping with keys, buttons and swipes shows the
engine's frames, the hands of one seat only on request (and then nothing that seat did not know
yet), the fault, each capture and the deal's score."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from arena.engine import (
    POINT_CATEGORIES,
    Deal,
    Move,
    card_name,
    italian_name,
    parse_card,
    parse_cards,
    rules_for,
)

pytestmark = [pytest.mark.browser, pytest.mark.services]


def position(page: Any) -> str:
    return str(page.text_content(".v-pos"))


def frame_data(page: Any, index: int) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        "(i) => document.getElementById('viewer').viewer.data.frames[i]", index
    )
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
    assert sorted(
        page.eval_on_selector_all(".v-table .card", "cs => cs.map(c => c.dataset.card)")
    ) == sorted(frame["table"])
    assert "Fault · timeout" in str(page.text_content(".v-event"))  # the arena played move 3
    assert "Played by the arena (timeout)" in str(page.text_content(".v-event"))

    page.click("button[data-act=next]")
    assert position(page).endswith(f"move 4/{moves}")
    page.click("button[data-act=prev]")
    page.keyboard.press("ArrowLeft")
    assert position(page).endswith(f"move 2/{moves}")

    # Only what seat 0 saw: its own cards, the backs of the other hand.
    page.select_option(".v-view", "0")
    assert position(page) == "Deal 1 · move 2"  # a seat knows neither the deals nor the end
    frame = frame_data(page, 2)
    assert page.locator('.v-seat[data-seat="0"] .card:not(.card-back)').count() == len(
        frame["hands"][0]
    )
    assert page.locator('.v-seat[data-seat="1"] .card-back').count() == len(frame["hands"][1])
    assert page.locator('.v-seat[data-seat="1"] .card:not(.card-back)').count() == 0
    page.keyboard.press("ArrowRight")  # the keys step the game, not the menu just used
    assert position(page) == "Deal 1 · move 3"
    assert page.input_value(".v-view") == "0"
    page.keyboard.press("ArrowLeft")
    page.select_option(".v-view", "all")

    # A capture is named with the cards taken.
    frames = page.evaluate("document.getElementById('viewer').viewer.data.frames.length")
    capture = next(
        i for i in range(1, frames) if (frame_data(page, i)["move"] or {}).get("capture")
    )
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
    # Its rows are the engine's point categories (the five every variant scores, and an extra
    # one only when a side scored it), then the totals.
    rows = page.eval_on_selector_all(".v-breakdown tbody th", "ths => ths.map(t => t.textContent)")
    shown_at = page.evaluate("document.getElementById('viewer').viewer.index")
    points = frame_data(page, shown_at)["score"]["points"]
    shown = [
        c.label for c in POINT_CATEGORIES if not c.is_optional or any(p[c.key] for p in points)
    ]
    assert rows == [*shown, "Deal total", "Game total"]

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


def test_the_viewer_fits_a_phone(
    page: Any, live_server: Any, played_game: Any, artifacts: Path
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{live_server.url}/games/{played_game.pk}/")
    page.wait_for_selector(".v-board")
    page.keyboard.press("ArrowRight")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing sticks out sideways
    card = page.locator(".v-seat .card").first.bounding_box()
    assert card is not None and card["width"] >= 30  # cards stay readable
    page.screenshot(path=str(artifacts / "replay-viewer-phone.png"), full_page=True)


def test_a_replay_file_opens_without_being_stored(
    page: Any, live_server: Any, played_game: Any, tmp_path: Path
) -> None:
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
    golden = Path(__file__).resolve().parents[2] / "engine" / "golden" / "scopone.json"
    page.goto(f"{live_server.url}/replay/")
    page.set_input_files("#replay-open input[type=file]", str(golden))
    page.wait_for_selector("#replay-open-viewer .v-board")
    places = page.eval_on_selector_all(
        ".v-seat", "seats => seats.map(s => [s.dataset.seat, s.dataset.place])"
    )
    assert places == [["0", "bottom"], ["1", "right"], ["2", "top"], ["3", "left"]]
    assert page.locator(".v-seat .card").count() == 36  # nine cards in each hand
    page.select_option(".v-view", "2")  # seat 2 at the bottom, the others around it
    assert page.get_attribute('.v-seat[data-seat="2"]', "data-place") == "bottom"
    assert page.get_attribute('.v-seat[data-seat="3"]', "data-place") == "right"
    assert page.locator('.v-seat[data-seat="0"] .card-back').count() == 9
    page.keyboard.press("End")
    header = page.eval_on_selector_all(
        ".v-breakdown thead th", "ths => ths.map(t => t.textContent)"
    )
    assert header[1:] == ["Seats 0+2", "Seats 1+3"]  # partnerships score together
    page.screenshot(path=str(artifacts / "replay-viewer-scopone.png"), full_page=True)


# Everything in the viewer that names a card: drawn cards, the move list, the Italian names.
SHOWN_CARDS = """() => {
  const root = document.getElementById('viewer');
  return {
    drawn: [...root.querySelectorAll('svg.card[data-card]')].map(c => c.dataset.card),
    log: [...root.querySelectorAll('.v-log li')].map(li => li.textContent),
    text: root.innerText,
    faults: root.querySelectorAll('.v-fault-item').length,
    spoilers: [...document.querySelectorAll('[data-spoiler]')].map(n => !n.hidden),
    scrubber: !root.querySelector('.v-scrub').hidden,
  };
}"""
ITALIAN = {
    "Asso": 1,
    "Due": 2,
    "Tre": 3,
    "Quattro": 4,
    "Cinque": 5,
    "Sei": 6,
    "Sette": 7,
    "Fante": 8,
    "Cavallo": 9,
    "Re": 10,
}
SUITS = {"denari": "d", "coppe": "c", "bastoni": "b", "spade": "s"}


def cards_named(shown: dict[str, Any]) -> set[str]:
    """Every card the viewer names anywhere: drawn, in the move list or in words."""
    names = set(shown["drawn"])
    for line in shown["log"]:
        names.update(re.findall(r"\b(?:10|[1-9])[dcbs]\b", line))
    for rank, suit in re.findall(
        r"\b(Asso|Due|Tre|Quattro|Cinque|Sei|Sette|Fante|Cavallo|Re)"
        r" di (denari|coppe|bastoni|spade)\b",
        shown["text"],
    ):
        names.add(f"{ITALIAN[rank]}{SUITS[suit]}")
    return names


def log_line(step: int, move: dict[str, Any]) -> str:
    """A move as the move list writes it: the cards by name, as Play and the CLI name them."""
    taken = [italian_name(parse_card(c)) for c in move["capture"]]
    capture = " takes " + ", ".join(taken) if taken else ""
    return f"{step}{move['seat']} {italian_name(parse_card(move['card']))}{capture}"


def test_a_seat_view_shows_only_what_that_seat_knew_at_each_step(
    page: Any, live_server: Any, played_game: Any, artifacts: Path
) -> None:
    replay = played_game.replay
    first = replay["deals"][0]
    moves = first["moves"]
    fault_move = min(f["move"] for f in replay["faults"] if f["deal"] == 0)
    rules = rules_for(replay["variant"], replay.get("options") or None)
    deal = Deal.from_deck(rules, first["dealer"], parse_cards(first["deck"]))

    page.goto(f"{live_server.url}/games/{played_game.pk}/")
    page.wait_for_selector(".v-board")
    everything = page.evaluate(SHOWN_CARDS)
    assert len(everything["log"]) == len(moves)  # every hand shown: the whole deal is listed
    assert everything["spoilers"] == [True] and everything["scrubber"]

    page.select_option(".v-view", "0")
    for step in range(len(moves) + 1):
        if step:
            page.keyboard.press("ArrowRight")
            raw = moves[step - 1]
            deal.apply(Move.from_json(raw))
        shown = page.evaluate(SHOWN_CARDS)
        listed = [line.removesuffix(" ★") for line in shown["log"]]  # a sweep is starred
        assert listed == [log_line(i + 1, m) for i, m in enumerate(moves[:step])]
        seen = deal.observation(0)
        known = set(seen.hand) | set(seen.table)
        for _, move in seen.history:
            known |= {move.card, *move.capture}
        leaked = cards_named(shown) - {card_name(c) for c in known}
        assert not leaked, f"step {step}: seat 0 could not know {sorted(leaked)} yet"
        assert shown["faults"] == (1 if step > fault_move else 0), step
        assert shown["spoilers"] == [False]  # the page's outcome line is hidden
        assert not shown["scrubber"]
        if step == 5:
            page.screenshot(path=str(artifacts / "replay-viewer-seat-view.png"), full_page=True)

    # The next deal starts its list afresh; back to every hand, the whole deal is listed again.
    page.keyboard.press("ArrowRight")
    assert page.evaluate(SHOWN_CARDS)["log"] == []
    assert "seat=0" in page.url
    page.select_option(".v-view", "all")
    assert len(page.evaluate(SHOWN_CARDS)["log"]) == len(replay["deals"][1]["moves"])
    assert "seat=" not in page.url


# True once the page has not scrolled for 300 ms.
RESTING = """() => new Promise(done => {
  const y = scrollY;
  setTimeout(() => done(scrollY === y), 300);
})"""


def swipe(cdp: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A finger's stroke through Chromium's own input pipeline (not a synthetic DOM event)."""
    (x0, y0), (x1, y1) = start, end
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for k in range(1, 9):
        cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": "touchMove",
                "touchPoints": [{"x": x0 + (x1 - x0) * k / 8, "y": y0 + (y1 - y0) * k / 8}],
            },
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_on_a_touch_screen_swipes_step_and_the_buttons_are_big_enough(
    browser: Any, live_server: Any, played_game: Any
) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/games/{played_game.pk}/")
        page.wait_for_selector(".v-board")
        for box in page.locator(".v-btn").evaluate_all(
            "bs => bs.map(b => b.getBoundingClientRect().toJSON())"
        ):
            assert box["width"] >= 44 and box["height"] >= 44, box  # a fingertip's size
        moves = len(played_game.replay["deals"][0]["moves"])
        page.tap("button[data-act=next]")  # the click follows the touch a moment later
        page.wait_for_function("document.getElementById('viewer').dataset.frame === '1'")
        assert position(page) == f"Deal 1/{len(played_game.replay['deals'])} · move 1/{moves}"
        # Swipes come after the taps: a tap while the page still glides only stops it.
        page.locator(".v-table").scroll_into_view_if_needed()
        table = page.locator(".v-table").bounding_box()
        assert table is not None
        y = table["y"] + table["height"] / 2
        cdp = context.new_cdp_session(page)
        swipe(cdp, (330, y), (90, y))  # right to left: the next move
        page.wait_for_function("document.getElementById('viewer').dataset.frame === '2'")
        swipe(cdp, (330, y), (90, y))
        page.wait_for_function("document.getElementById('viewer').dataset.frame === '3'")
        swipe(cdp, (90, y), (330, y))  # left to right: back one
        page.wait_for_function("document.getElementById('viewer').dataset.frame === '2'")
        swipe(cdp, (200, y), (210, y - 150))  # mostly upwards: a scroll, not a step
        page.wait_for_function(RESTING)  # the page may glide on after the finger lifts
        assert page.evaluate("document.getElementById('viewer').dataset.frame") == "2"
    finally:
        context.close()
