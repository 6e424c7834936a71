"""The game featured live in Chromium: the home page's "Now playing" card and ``/tv/``, which
follows a match as it is played and moves on to the next match being played by itself when it
ends, then says plainly that nothing plays; on a phone and a laptop, light and dark.

The matches are real ladder matches claimed as a worker claims them; their moves are those of
a real match of the sample bots, handed to the real publisher a few at a time
(:class:`webui.league.live.LivePublisher`), and each result is recorded as a worker records it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from live_moves import played_moves, publish

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
DASH = "\u2013"


DOCS = ROOT / "docs" / "screenshots"
# The pictures docs/SITE.md shows, renewed with --docs-screenshots (scripts/screenshots).
DOCS_SHOTS = {
    "home-now-playing-phone-light": "home-now-playing-phone.png",
    "home-now-playing-laptop-light": "home-now-playing-laptop.png",
    "tv-live-phone-dark": "tv-phone-dark.png",
    "tv-live-laptop-dark": "tv-laptop-dark.png",
}


def shoot(tab: Any, artifacts: Path, name: str, ready: str, docs: bool = False) -> None:
    """Screenshots on a phone and a laptop, light and dark; nothing overflows the width."""
    for width, size in ((390, "phone"), (1280, "laptop")):
        for scheme in ("light", "dark"):
            tab.emulate_media(color_scheme=scheme)
            tab.set_viewport_size({"width": width, "height": 900})
            tab.wait_for_selector(ready, state="visible", timeout=10_000)
            assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            shot = f"{name}-{size}-{scheme}"
            tab.screenshot(path=str(artifacts / f"{shot}.png"), full_page=True)
            if docs and shot in DOCS_SHOTS:
                tab.screenshot(path=str(DOCS / DOCS_SHOTS[shot]), full_page=True)
    tab.emulate_media(color_scheme="light")
    tab.set_viewport_size({"width": 1280, "height": 900})


@pytest.fixture
def ladder_world(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """random@1 and greedy@1, and a way to start (claim) and end (record) ladder matches."""
    from django.contrib.auth.models import User

    from webui.league import matches, variants
    from webui.league.live import LivePublisher
    from webui.league.models import Match
    from webui.league.versions import register_folder_bot
    from webui.web.sampledata import match_report

    monkeypatch.setattr("webui.web.live_progress.POLL_MS", 300)
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    versions = [
        register_folder_bot(staff, ROOT / "sample_bots" / name, validate=False)
        for name in ("random", "greedy")
    ]
    claims: dict[int, Any] = {}
    publishers: dict[int, Any] = {}

    def start(order: list[int], moves: int) -> Any:
        entrants = [versions[k] for k in order]
        match = matches.create_open_match(
            Match.Kind.LADDER, variants.get_variant("scopa"), entrants, games=2, rated=True
        )
        claims[match.pk] = matches.claim_match(match.pk, "test")
        assert claims[match.pk] is not None
        publishers[match.pk] = LivePublisher(match.pk, 2, [v.label for v in entrants])
        publish(publishers[match.pk], moves)
        return match

    def end(match: Any) -> None:
        assert matches.record_result(claims.pop(match.pk), match_report(match))

    return {"start": start, "end": end, "publishers": publishers}


def test_the_home_page_features_a_game_and_tv_moves_on_to_the_next_by_itself(
    ladder_world: dict[str, Any],
    live_server: Any,
    page: Any,
    artifacts: Path,
    request: pytest.FixtureRequest,
) -> None:
    docs = bool(request.config.getoption("--docs-screenshots"))
    start, end = ladder_world["start"], ladder_world["end"]
    played_moves()  # played before the pages open
    base = live_server.url

    # Nothing plays: both say so.
    page.goto(f"{base}/")
    assert page.locator("#now-playing [data-tv='empty']").is_visible()
    assert "No game is being played right now" in page.locator("#now-playing").inner_text()
    page.goto(f"{base}/tv/")
    page.wait_for_function("() => Number(document.querySelector('#tv').dataset.liveSeen) > 0")
    assert page.locator("#tv [data-tv='empty']").is_visible()
    assert not page.locator("#tv [data-tv='body']").is_visible()
    shoot(page, artifacts, "tv-nothing-playing", "#tv [data-tv='empty']")

    first = start([0, 1], 20)
    # The home page's card: who plays, the score of the game, a link to watch it live.
    page.goto(f"{base}/")
    card = page.locator("#now-playing")
    # The kept page was drawn when nothing played: its first poll brings the card up to date.
    page.wait_for_function(
        f"() => document.querySelector('#now-playing').dataset.tvMatch === '{first.pk}'",
        timeout=20_000,
    )
    assert card.locator("[data-tv='title']").inner_text() == "random@1 v greedy@1"
    assert card.locator("[data-tv='watch']").get_attribute("href") == f"/matches/{first.pk}/"
    assert "Ladder match" in card.locator("[data-tv='about']").inner_text()
    totals = ladder_world["publishers"][first.pk].state["totals"]
    page.wait_for_function(
        "t => document.querySelector('#now-playing [data-tv=\"score\"]').innerText === t",
        arg=DASH.join(map(str, totals)),
    )
    shoot(page, artifacts, "home-now-playing", "#now-playing [data-tv='body']", docs)

    # /tv/ draws the board of the featured match, and follows its moves.
    page.goto(f"{base}/tv/")
    page.wait_for_selector("#tv .live-viewer .v-board", timeout=20_000)
    assert page.locator("#tv [data-tv='title']").inner_text() == "random@1 v greedy@1"
    assert page.locator("#tv").get_attribute("data-tv-match") == str(first.pk)
    page.evaluate("window.stillTheSamePage = true")
    publish(ladder_world["publishers"][first.pk], 26)
    page.wait_for_function(
        "() => document.querySelector('.v-pos').innerText.endsWith('move ' + "
        f"{ladder_world['publishers'][first.pk].state['moves'][-1]['move'] + 1})",
        timeout=20_000,
    )
    shoot(page, artifacts, "tv-live", "#tv .live-viewer .v-board", docs)

    # A second match starts: the TV stays with the one it shows while that is played.
    second = start([1, 0], 8)
    page.wait_for_function(
        "() => document.querySelector('#tv [data-tv=\"count\"]').innerText.startsWith('2 ')",
        timeout=20_000,
    )
    assert page.locator("#tv").get_attribute("data-tv-match") == str(first.pk)

    # The first ends: the TV moves on to the second by itself, without a reload.
    end(first)
    page.wait_for_function(
        f"() => document.querySelector('#tv').dataset.tvMatch === '{second.pk}'",
        timeout=20_000,
    )
    assert page.locator("#tv [data-tv='title']").inner_text() == "greedy@1 v random@1"
    assert page.locator("#tv [data-tv='title']").get_attribute("href") == f"/matches/{second.pk}/"
    page.wait_for_selector("#tv .live-viewer .v-board", timeout=20_000)
    assert page.evaluate("window.stillTheSamePage") is True
    shoot(page, artifacts, "tv-next-match", "#tv .live-viewer .v-board")

    # The home page now features the second.
    home = page.context.new_page()
    home.goto(f"{base}/")
    home.wait_for_function(
        f"() => document.querySelector('#now-playing').dataset.tvMatch === '{second.pk}'",
        timeout=20_000,
    )
    assert home.locator("#now-playing [data-tv='title']").inner_text() == "greedy@1 v random@1"
    home.close()

    # The second ends and nothing else plays: the TV says so, still the same page.
    end(second)
    page.wait_for_selector("#tv [data-tv='empty']", state="visible", timeout=20_000)
    assert not page.locator("#tv [data-tv='body']").is_visible()
    assert page.evaluate("window.stillTheSamePage") is True
