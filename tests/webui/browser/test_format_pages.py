"""The pages of the season formats in headless Chromium: Swiss rounds as they are paired, the
tables and replays of a scopa-3 season, the rota of rotating partnerships, the two ladders of
a partnership variant, and the season form's choice of format."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.services]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


def versions(owner: Any, count: int) -> list[Any]:
    """``count`` ready versions of distinct bots (the random sample's code)."""
    from webui.league import versions

    out = []
    for i in range(count):
        bot = versions.create_bot(owner, f"entrant-{i + 1}")
        version, _ = versions.register_version(
            bot,
            sha256=f"{i:064x}",
            manifest={"name": bot.name, "variants": ["*"]},
            source_dir=str(SAMPLES / "random"),
            validate=False,
        )
        out.append(version)
    return out


@pytest.fixture
def staff(transactional_db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("staff", password="staff-pass-123", is_staff=True)


def play_round(season: Any, greedy: frozenset[int]) -> None:
    """Plays the open round's matches in this process, then schedules the next round."""
    from webui.league import matches, seasons
    from webui.league.models import Match
    from webui.web.sampledata import match_report

    for match in Match.objects.filter(season=season, status="scheduled").order_by("board"):
        claim = matches.claim_match(match.pk, "browser-test")
        assert claim is not None
        ids = [v.pk for v in match.entrants()]
        matches.record_result(
            claim,
            match_report(
                match, greedy_entrants=frozenset(i for i, vid in enumerate(ids) if vid in greedy)
            ),
        )
    seasons.schedule_next_round(season.pk)


def test_a_swiss_season_page_shows_each_round_as_it_is_paired(
    page: Any, live_server: Any, staff: Any, artifacts: Path
) -> None:
    from webui.league import seasons, variants

    entrants = versions(staff, 7)
    season = seasons.create_season(
        name="Swiss page",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=entrants,
        format="swiss",
        seed=4,
    )
    seasons.start_season(season)
    page.goto(f"{live_server.url}/seasons/{season.pk}/")
    rounds = page.locator("#schedule h3")
    assert rounds.count() == 1 and "Round 1" in str(rounds.first.text_content())
    assert page.locator("table.swiss-round tbody tr").count() == 4  # 3 boards and the bye
    assert "has the bye (1)" in str(page.text_content("table.swiss-round tr.bye"))
    assert "5 rounds" in str(page.text_content(".replay-head"))

    play_round(season, frozenset({entrants[0].pk, entrants[1].pk}))
    page.reload()
    assert page.locator("#schedule h3").count() == 2
    second = page.locator("table.swiss-round").nth(1)
    scores = second.locator("tbody tr:not(.bye) td:nth-child(3)").all_text_contents()
    scores += second.locator("tbody tr:not(.bye) td:nth-child(5)").all_text_contents()
    round_one_scores = {row.standing.score for row in seasons.league_standings(season)}
    assert {float(s) for s in scores} <= round_one_scores
    headings = page.eval_on_selector_all(
        "#standings thead th", "ths => ths.map(t => t.textContent)"
    )
    assert {"Byes", "Buchholz", "SB"} <= set(headings)
    assert page.locator("#standings tbody tr").count() == 7
    assert not page.locator(".bracket").count()
    page.screenshot(path=str(artifacts / "season-swiss.png"), full_page=True)


def test_a_three_player_season_page_lists_its_tables_and_its_replays_show_three_hands(
    page: Any, live_server: Any, staff: Any, artifacts: Path
) -> None:
    from webui.league import seasons, variants
    from webui.league.models import Game
    from webui.web.sampledata import play_season

    entrants = versions(staff, 4)
    season = seasons.create_season(
        name="Three page", variant=variants.get_variant("scopa-3"), entrants=entrants, seed=6
    )
    seasons.start_season(season)
    play_season(season, greedy_versions=frozenset({entrants[0].pk}))
    page.goto(f"{live_server.url}/seasons/{season.pk}/")
    headings = page.eval_on_selector_all(
        "#standings thead th", "ths => ths.map(t => t.textContent)"
    )
    assert headings[3:6] == ["1st", "2nd", "3rd"]
    assert "Placement points per game: 2 for first" in str(page.text_content("#standings"))
    tables = page.locator("#schedule .table-seats")
    assert tables.count() == 4  # every triple of four, one table a round
    assert page.locator("table.xtable tbody tr").count() == 4
    page.screenshot(path=str(artifacts / "season-three-player.png"), full_page=True)

    page.goto(f"{live_server.url}/variants/scopa-3/")
    assert page.locator("table.leaderboard tbody tr").count() == 4
    assert "rated from each game's full ranking" in str(page.text_content("main"))

    game = Game.objects.filter(match__season=season).order_by("id").first()
    assert game is not None
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.wait_for_selector(".v-board")
    places = page.eval_on_selector_all(
        ".v-seat", "seats => seats.map(s => [s.dataset.seat, s.dataset.place])"
    )
    assert places == [["0", "bottom"], ["1", "right"], ["2", "left"]]
    hands = page.evaluate(
        "document.getElementById('viewer').viewer.data.frames[0].hands.map(h => h.length)"
    )
    assert len(hands) == 3 and min(hands) > 0
    for seat, size in enumerate(hands):
        assert page.locator(f'.v-seat[data-seat="{seat}"] .card').count() == size
    page.select_option(".v-view", "1")  # only what seat 1 saw
    assert page.locator('.v-seat[data-seat="1"] .card:not(.card-back)').count() == hands[1]
    assert page.locator('.v-seat[data-seat="0"] .card-back').count() == hands[0]
    assert page.locator('.v-seat[data-seat="2"] .card-back').count() == hands[2]
    page.select_option(".v-view", "all")
    page.keyboard.press("End")
    header = page.eval_on_selector_all(
        ".v-breakdown thead th", "ths => ths.map(t => t.textContent)"
    )
    assert len(header[1:]) == 3  # three players score apart
    page.screenshot(path=str(artifacts / "replay-viewer-scopa-3.png"), full_page=True)


def test_the_partnership_rota_and_the_two_ladders_of_scopone(
    page: Any, live_server: Any, staff: Any, artifacts: Path
) -> None:
    from webui.league import seasons, variants
    from webui.web.sampledata import play_season

    entrants = versions(staff, 5)
    season = seasons.create_season(
        name="Rota page",
        variant=variants.get_variant("scopone", {"target": 1}),
        entrants=entrants,
        format="partnerships",
        seed=3,
    )
    seasons.start_season(season)
    play_season(season, greedy_versions=frozenset({entrants[0].pk}))
    page.goto(f"{live_server.url}/seasons/{season.pk}/")
    assert "Table rota" in str(page.text_content("#schedule h2"))
    assert "one bot sits out each round, each bot once" in str(page.text_content("#schedule"))
    rows = page.locator("table.rota tbody tr")
    assert rows.count() == 5
    sat_out = [
        str(t).strip()
        for t in page.locator("table.rota tbody tr td:nth-child(3)").all_text_contents()
    ]
    assert sorted(sat_out) == sorted(v.label for v in entrants)
    first = str(rows.first.locator(".rota-table").text_content())
    assert " & " in first and " v " in first
    assert not page.locator("table.xtable").count()
    page.screenshot(path=str(artifacts / "season-partnerships.png"), full_page=True)

    page.goto(f"{live_server.url}/variants/{season.variant.slug}/")
    assert "Classic" in str(page.text_content("nav.ladders strong"))
    assert not page.locator("table.leaderboard").count()  # nobody on the classic ladder
    page.click("nav.ladders a")
    page.wait_for_url("**?ladder=partners")
    assert "Rotating partnerships" in str(page.text_content("nav.ladders strong"))
    assert "each bot" in str(page.text_content(".ladder-note"))
    assert page.locator("table.leaderboard tbody tr").count() == 5
    page.screenshot(path=str(artifacts / "leaderboard-partners.png"), full_page=True)


def test_staff_create_a_swiss_season_with_the_form_and_a_bad_one_is_refused(
    page: Any, live_server: Any, staff: Any, artifacts: Path
) -> None:
    from webui.league.models import Season

    entrants = versions(staff, 4)
    page.goto(f"{live_server.url}/seasons/new/")
    page.fill("input[name=username]", "staff")
    page.fill("input[name=password]", "staff-pass-123")
    page.click("form.stack button[type=submit]")
    page.wait_for_url("**/seasons/new/")
    page.fill("input[name=name]", "Form Swiss")
    page.select_option("select[name=variant]", "scopa")
    page.select_option("select[name=format]", "swiss")
    page.select_option("select[name=entrants]", [str(v.pk) for v in entrants])
    page.fill("input[name=rounds]", "4")  # four entrants allow three rounds at most
    page.click("#season-form button[type=submit]")
    alert = str(page.text_content("#season-form .notice.error"))
    assert "a Swiss of 4 rounds needs at least 5 entrants, not 4" in alert
    assert not Season.objects.exists()
    page.screenshot(path=str(artifacts / "season-form-refused.png"), full_page=True)
    page.fill("input[name=rounds]", "3")
    page.click("#season-form button[type=submit]")
    page.wait_for_url("**/seasons/*/")
    season = Season.objects.get(name="Form Swiss")
    assert (season.format, season.format_options, season.status) == (
        "swiss",
        {"rounds": 3},
        "running",
    )
    assert "Round 1" in str(page.text_content("#schedule"))
