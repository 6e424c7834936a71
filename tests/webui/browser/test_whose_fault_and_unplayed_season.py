"""In Chromium: a game list says whose fault a game had, and a season before its first game
ranks nobody and projects no final."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[3]
NO_RANK = "\u2013"  # the en dash shown in place of a rank


def test_a_game_list_names_the_seat_that_faulted(
    page: Any, live_server: Any, played_game: Any, artifacts: Path
) -> None:
    fault = played_game.faults[0]
    assert fault["kind"] == "timeout"
    version = played_game.players[fault["seat"]]
    from webui.league.models import BotVersion

    label = BotVersion.objects.get(pk=version).label
    page.goto(f"{live_server.url}/bots/{label.split('@')[0]}/")
    row = page.locator(f"#game-list tr:has(a[href='/games/{played_game.pk}/'])")
    assert f"1 fault: {label} timeout" in row.inner_text()
    page.locator("#games").screenshot(path=str(artifacts / "bot-games-whose-fault.png"))


def test_a_season_before_its_first_game_ranks_nobody(
    page: Any, live_server: Any, transactional_db: Any, artifacts: Path
) -> None:
    from django.contrib.auth.models import User

    from webui.league import seasons, variants
    from webui.league.versions import register_folder_bot

    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    entrants = [
        register_folder_bot(staff, ROOT / "sample_bots" / name, validate=False)
        for name in ("random", "greedy", "ismcts")
    ]
    season = seasons.create_season(
        name="Unplayed",
        variant=variants.get_variant("scopa"),
        entrants=entrants,
        knockout_size=2,
        seed=5,
    )
    seasons.start_season(season)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/seasons/{season.pk}/")
    assert "No games yet" in page.inner_text("#standings")
    ranks = page.locator("#standings td.rank").all_inner_texts()
    assert ranks == [NO_RANK] * 3, ranks
    assert page.locator(".bracket").count() == 0
    assert "projected" not in page.inner_text("main")
    page.screenshot(path=str(artifacts / "season-before-any-game.png"), full_page=True)
