"""Progress counts planned matches, not only the rounds scheduled so far, everywhere it shows.

A season schedules its rounds one at a time; its progress used to count the matches scheduled
so far, so a season of 12 planned matches read "0 of 2" after its first round was scheduled.
The live endpoints of a match and a season answer with what the database and the ``live``
cache hold, also when nothing is being played.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.services, pytest.mark.django_db]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"


@pytest.fixture
def season(users: dict[str, Any]) -> Any:
    """A started double round-robin of four bots: 12 matches planned, 2 scheduled."""
    from webui.league import seasons, variants
    from webui.league.models import BotVersion
    from webui.league.versions import register_folder_bot

    versions = [
        register_folder_bot(users["staff"], SAMPLES / name)
        for name in ("random", "greedy", "ismcts", "js-random")
    ]
    BotVersion.objects.update(status=BotVersion.Status.READY)
    s = seasons.create_season(
        name="Long season",
        variant=variants.get_variant("scopa"),
        entrants=list(BotVersion.objects.filter(pk__in=[v.pk for v in versions])),
        double_round_robin=True,
    )
    seasons.start_season(s)
    return s


def test_a_season_reads_matches_done_of_planned_everywhere(client: Any, season: Any) -> None:
    from webui.league import seasons
    from webui.league.models import Match

    assert seasons.planned_matches(season) == 12
    assert Match.objects.filter(season=season).count() == 2
    row = client.get(f"/api/seasons/{season.pk}").json()["season"]
    assert (row["matches_done"], row["matches_total"], row["matches_scheduled"]) == (0, 12, 2)
    listed = client.get("/api/seasons").json()["seasons"][0]
    assert (listed["matches_done"], listed["matches_total"]) == (0, 12)
    live = client.get(f"/api/seasons/{season.pk}/live").json()
    assert (live["matches_done"], live["matches_planned"], live["matches_scheduled"]) == (0, 12, 2)
    assert live["playing"] == []
    page = client.get(f"/seasons/{season.pk}/").content.decode()
    assert (
        '<span data-live="matches-done">0</span> of '
        '<span data-live="matches-planned">12</span> matches played'
    ) in page
    assert "0/12 matches" in client.get("/seasons/").content.decode()


def test_a_match_live_endpoint_reads_the_moves_its_worker_published(
    client: Any, season: Any
) -> None:
    from arena.runner import LiveMove
    from webui.league import matches
    from webui.league.live import LivePublisher
    from webui.league.models import Match

    match = Match.objects.filter(season=season).order_by("id").first()
    assert match is not None
    waiting = client.get(f"/api/matches/{match.pk}/live").json()
    assert (waiting["status"], waiting["games_done"], waiting["current"]) == ("scheduled", 0, None)
    assert "Waiting for a worker" in client.get(f"/matches/{match.pk}/").content.decode()
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    labels = [v.label for v in match.entrants()]
    with LivePublisher(match.pk, match.games_planned, labels) as publisher:
        publisher.on_move(
            LiveMove(
                game=1,
                deal=2,
                move=0,
                record={"seat": 1, "card": "7d", "capture": ["3b", "4d"], "ms": 3, "clock": 900},
                players=["x", "y"],
                totals=[5, 3],
                seats=[1, 0],
            )
        )
    data = client.get(f"/api/matches/{match.pk}/live").json()
    assert (data["status"], data["games_done"], data["games_planned"]) == ("running", 1, 2)
    current = data["current"]
    assert (current["game"], current["deal"], current["totals"]) == (1, 2, [5, 3])
    assert current["players"] == [labels[1], labels[0]]
    assert current["moves"][0]["text"] == (
        f"{labels[0]} plays Sette di denari, takes Tre di bastoni, Quattro di denari"
    )
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert f"{labels[0]} plays Sette di denari" in page and "data-live-url" in page
    season_live = client.get(f"/api/seasons/{season.pk}/live").json()
    assert [m["match"] for m in season_live["playing"]] == [match.pk]
    assert season_live["playing"][0]["current"]["moves"] == current["moves"]
    # A malformed id is a 404, as for every route.
    assert client.get("/api/matches/0/live").status_code == 404


def test_a_match_lists_each_game_as_it_ends_and_keeps_every_deal_of_the_game(
    client: Any, season: Any
) -> None:
    from arena.runner import GameOutcome, LiveMove
    from webui.league import matches
    from webui.league.live import LivePublisher
    from webui.league.models import Match

    match = Match.objects.filter(season=season).order_by("id").first()
    assert match is not None
    assert matches.claim_match(match.pk, "test") is not None
    labels = [v.label for v in match.entrants()]
    publisher = LivePublisher(match.pk, match.games_planned, labels)
    # The first game ends, won by the side of seat 1 (the match's first entrant)...
    publisher.on_game(
        1,
        2,
        GameOutcome(
            index=0,
            set_index=0,
            seed=1,
            seats=[1, 0],
            replay={},  # type: ignore[typeddict-item]
            totals=[4, 11],
            winner_side=1,
            winner_entrants=[0],
            void=None,
            forfeit=None,
            faults=[],
            duration_ms=900,
            moves=72,
            scope=[0, 1],
        ),
    )
    # ... and the second is in its second deal: 36 moves of the first deal and 14 of it.
    for k in range(50):
        deal, move = divmod(k, 36)
        publisher.on_move(
            LiveMove(
                game=1,
                deal=deal,
                move=move,
                record={"seat": move % 2, "card": "7d", "capture": [], "ms": 3, "clock": 900},
                players=["x", "y"],
                totals=[0, 0],
                seats=[0, 1],
            )
        )
    assert publisher.publish()
    data = client.get(f"/api/matches/{match.pk}/live").json()
    assert data["games_done"] == 1
    assert data["games"] == [
        {
            "index": 0,
            "players": [labels[1], labels[0]],
            "sides": [labels[1], labels[0]],
            "totals": [4, 11],
            "winner_side": 1,
            "outcome": f"{labels[0]} won",
            "void": False,
            "forfeit": False,
            "faults": 0,
        }
    ]
    assert data["wins"] == [1, 0]
    moves = data["current"]["moves"]
    assert len(moves) == 50 and [m["deal"] for m in moves[:1] + moves[-1:]] == [0, 1]
    # A season's progress, which lists several matches, gives the latest moves of each.
    playing = client.get(f"/api/seasons/{season.pk}/live").json()["playing"]
    assert [m["match"] for m in playing] == [match.pk]
    assert playing[0]["current"]["moves"] == moves[-40:]
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert "No games yet" not in page and f"{labels[0]} won" in page
    assert 'id="live-initial"' in page  # the board's first state, for its first paint
    assert '<b data-live="wins">1\u20130</b>' in page
