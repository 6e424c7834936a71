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
