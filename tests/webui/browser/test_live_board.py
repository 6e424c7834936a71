"""The live board of a match in Chromium: every deal's moves, each game listed as it ends, the
board from the first paint, on a phone and a laptop, light and dark.

The moves are those of a real match (the sample bots, played by the runner before the page is
opened); the test hands them to the real publisher (:class:`webui.league.live.LivePublisher`)
as the worker does, a few at a time, and the match page follows them through three deals of
its first game and into its second.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]
DASH = "\u2013"  # the en dash the pages put between scores

# The log of the live board, deal by deal: {"Deal 1": [moves...], ...} in the order shown.
LOG_BY_DEAL = """() => {
  const out = [];
  for (const li of document.querySelectorAll('.live-viewer .v-log li')) {
    if (li.classList.contains('v-log-deal')) out.push([li.innerText, 0]);
    else if (out.length) out[out.length - 1][1] += 1;
  }
  return out;
}"""

NEWEST_IN_VIEW = """() => {
  const log = document.querySelector('.live-viewer .v-log');
  const cur = log.querySelector('li.current');
  const box = log.getBoundingClientRect();
  const at = cur.getBoundingClientRect();
  return at.top >= box.top - 1 && at.bottom <= box.bottom + 1;
}"""


def played_events() -> list[tuple[str, Any]]:
    """A real match of two games between two sample bots, as the runner tells it: each move
    (``on_move``) and each finished game (``progress``), in order; one whose first game
    lasts three deals at least."""
    from arena.runner import BotRef, MatchSpec, run_match

    for seed in range(5, 10):
        events: list[tuple[str, Any]] = []
        told = events.append
        spec = MatchSpec(
            [BotRef.parse("random"), BotRef.parse("greedy")],
            "scopa",
            games=2,
            seed=seed,
            sandbox=False,
            on_move=lambda move, told=told: told(("move", move)),
        )
        run_match(spec, lambda done, total, outcome, told=told: told(("game", outcome)))
        if any(kind == "move" and e.game == 0 and e.deal == 2 for kind, e in events):
            return events
    raise AssertionError("no seed gave a first game of three deals")


@pytest.fixture
def running_match(transactional_db: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A season's match between random@1 and greedy@1, marked as being played by a worker."""
    from django.contrib.auth.models import User

    from webui.league import seasons, variants
    from webui.league.models import Match
    from webui.league.versions import register_folder_bot

    monkeypatch.setattr("webui.web.live_progress.POLL_MS", 300)
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    versions = [
        register_folder_bot(staff, ROOT / "sample_bots" / name, validate=False)
        for name in ("random", "greedy")
    ]
    season = seasons.create_season(
        name="Live board",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        games_per_pairing=2,
    )
    seasons.start_season(season)
    match = Match.objects.get(season=season)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.RUNNING)
    match.refresh_from_db()
    return match


def feed(publisher: Any, events: list[tuple[str, Any]], until: int) -> None:
    """Hands events[:until] to the publisher (those not handed yet) and writes the state."""
    start = getattr(publisher, "fed", 0)
    for kind, event in events[start:until]:
        if kind == "move":
            publisher.on_move(event)
        else:
            publisher.on_game(0, 2, event)
    publisher.fed = until
    assert publisher.publish()


def first_index(events: list[tuple[str, Any]], test: Any) -> int:
    return next(k for k, (kind, event) in enumerate(events) if test(kind, event))


def shoot(tab: Any, artifacts: Path, name: str) -> None:
    """Screenshots of the page on a phone and a laptop, light and dark; nothing overflows."""
    for width, size in ((390, "phone"), (1280, "laptop")):
        for scheme in ("light", "dark"):
            tab.emulate_media(color_scheme=scheme)
            tab.set_viewport_size({"width": width, "height": 900})
            assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            # The newest move is in view in the log's own scroll box (once redrawn at this size).
            tab.wait_for_function(NEWEST_IN_VIEW, timeout=10_000)
            tab.screenshot(path=str(artifacts / f"{name}-{size}-{scheme}.png"), full_page=True)
    tab.emulate_media(color_scheme="light")


def test_the_live_board_shows_every_deal_and_lists_each_game_as_it_ends(
    running_match: Any, live_server: Any, page: Any, artifacts: Path
) -> None:
    from webui.league.live import LivePublisher

    match = running_match
    events = played_events()
    labels = [v.label for v in match.entrants()]
    assert labels == ["random@1", "greedy@1"]
    publisher = LivePublisher(match.pk, match.games_planned, labels)
    # Game 1 up to the fourth move of its third deal.
    third_deal = first_index(events, lambda k, e: k == "move" and e.game == 0 and e.deal == 2)
    feed(publisher, events, third_deal + 4)
    expected = [
        (
            f"DEAL {deal + 1}",
            sum(1 for k, e in events[: third_deal + 4] if k == "move" and e.deal == deal),
        )
        for deal in range(3)
    ]
    assert expected[0][1] > 20 and expected[2][1] == 4

    # First paint: the board is drawn from the page itself, with no poll answered.
    url = f"{live_server.url}/matches/{match.pk}/"
    for width in (390, 1280):
        tab = page.context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        tab.set_viewport_size({"width": width, "height": 900})
        tab.route("**/live", lambda route: route.abort())
        tab.goto(url, wait_until="domcontentloaded")
        assert tab.locator(".live-viewer .v-board").count() == 1
        got = [(head.upper(), n) for head, n in tab.evaluate(LOG_BY_DEAL)]
        assert got == expected, "every deal's moves, oldest first"
        assert tab.locator(".live-viewer .v-log li.current").count() == 1
        assert (
            tab.locator(".live-viewer .v-log li").last.get_attribute("class").startswith("current")
        )
        assert tab.locator('[data-live="current"] .live-moves').count() == 0
        assert not errors, f"JavaScript errors: {errors}"
        tab.close()

    page.goto(url)
    assert [(h.upper(), n) for h, n in page.evaluate(LOG_BY_DEAL)] == expected
    assert page.locator(".v-pos").inner_text() == "Game 1 of 2 · deal 3 · move 4"
    assert page.locator('[data-live="games"]').inner_text().startswith("No game finished yet")
    shoot(page, artifacts, "live-board-deal-3")
    page.evaluate("window.stillTheSamePage = true")

    # A reader who scrolls back to the first deal stays there while moves come in.
    page.evaluate("document.querySelector('.live-viewer .v-log').scrollTop = 0")
    feed(publisher, events, third_deal + 6)
    page.wait_for_function(
        "() => document.querySelector('.v-pos').innerText.endsWith('move 6')", timeout=20_000
    )
    assert [(h.upper(), n) for h, n in page.evaluate(LOG_BY_DEAL)][2] == ("DEAL 3", 6)
    assert page.evaluate("document.querySelector('.live-viewer .v-log').scrollTop") == 0
    assert page.locator(".live-viewer .v-log li.v-log-deal").first.is_visible()

    # Game 1 ends: it is listed at once, before anything is recorded, with the games won.
    second = first_index(events, lambda k, e: k == "move" and e.game == 1)
    feed(publisher, events, second + 3)
    page.wait_for_selector('[data-live="games"] table tbody tr', timeout=20_000)
    first_game = events[second - 1][1]
    row = page.locator('[data-live="games"] tbody tr').first.inner_text()
    assert DASH.join(str(t) for t in first_game.totals) in row
    assert page.locator('[data-live="games-done"]').inner_text() == "1"
    wins = [0, 0]
    for entrant in first_game.winner_entrants:
        wins[entrant] += 1
    assert page.locator('[data-live="wins"]').inner_text() == DASH.join(map(str, wins))
    # The board moved on to game 2: its first deal's moves only.
    page.wait_for_function(
        "() => document.querySelector('.v-pos').innerText.startsWith('Game 2 of 2')",
        timeout=20_000,
    )
    assert [(h.upper(), n) for h, n in page.evaluate(LOG_BY_DEAL)] == [("DEAL 1", 3)]
    shoot(page, artifacts, "live-board-game-2")

    # Game 2 ends: both are listed, oldest first, on the same page.
    feed(publisher, events, len(events))
    page.wait_for_function(
        "() => document.querySelectorAll('[data-live=\"games\"] tbody tr').length === 2",
        timeout=20_000,
    )
    rows = page.locator('[data-live="games"] tbody tr td:first-child').all_inner_texts()
    assert rows == ["1", "2"]
    assert page.locator('[data-live="games-done"]').inner_text() == "2"
    assert page.evaluate("window.stillTheSamePage") is True
    shoot(page, artifacts, "live-board-games")
