"""A season before its first game: entry order is not a ranking, and there is no final to
project yet."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

NO_RANK = "\u2013"  # the en dash the page shows in place of a rank
SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


def test_a_season_with_no_game_shows_no_rank_and_no_projected_bracket(
    client: Any, users: dict[str, Any]
) -> None:
    from webui.league import seasons, variants
    from webui.league.versions import register_folder_bot

    entrants = [
        register_folder_bot(users["staff"], SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]
    season = seasons.create_season(
        name="Not yet",
        variant=variants.get_variant("scopa"),
        entrants=entrants,
        knockout_size=2,
        seed=3,
    )
    seasons.start_season(season)
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert "No games yet: the entrants in the order they entered, unranked." in page
    ranks = re.findall(r'<td class="rank">([^<]*)</td>', page)
    assert ranks == [NO_RANK, NO_RANK], ranks
    assert "projected" not in page and "Knockout" not in page
    assert client.get(f"/api/seasons/{season.pk}").json()["bracket"] is None


def test_once_a_game_is_played_the_ranks_and_the_projected_final_appear(
    client: Any, played_season: Any
) -> None:
    page = client.get(f"/seasons/{played_season.pk}/").content.decode()
    assert "No games yet" not in page
    ranks = re.findall(r'<td class="rank">([^<]*)</td>', page)
    assert ranks and ranks[0] == "1" and NO_RANK not in ranks, ranks
