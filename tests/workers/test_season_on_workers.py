"""Seasons played by real Celery worker processes on Redis and PostgreSQL, and their failures.

The workers are subprocesses (:class:`webui.local_workers.LocalWorkers`, the ``live`` fixtures of
``conftest.py``) that see the same database as the test (pytest-django's test database, in
``transaction=True`` tests so their writes are visible) and a queue of their own: on the
machine's Redis under this run's key prefix, or on a private ``redis-server`` for the test that
restarts it. Short games (target 1: about one deal) keep each season to seconds. Every test
checks that each match is recorded exactly once, whatever happened to the workers or the broker.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

from arena.engine.replay import verify_replay
from arena.rating import RatedGame, Ratings
from arena.scheduling import GameResult, standings

pytestmark = [pytest.mark.services, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
SHORT = {"target": 1}


def register(names: list[str]) -> list[Any]:
    from django.contrib.auth.models import User

    from webui.league import versions

    owner, _ = User.objects.get_or_create(username="arena")
    return [versions.register_folder_bot(owner, SAMPLES / name) for name in names]


def new_season(name: str, bots: list[str], **kwargs: Any) -> Any:
    from webui.league import seasons, variants

    defaults: dict[str, Any] = {"games_per_pairing": 2, "move_time_ms": 1000, "bank_ms": 10_000}
    return seasons.create_season(
        name=name,
        variant=variants.get_variant("scopa", SHORT),
        entrants=register(bots),
        seed=11,
        **{**defaults, **kwargs},
    )


def run(season: Any, live: Any, timeout_s: float = 150.0) -> None:
    from webui.league import seasons

    try:
        seasons.run_season(season, timeout_s=timeout_s, sweep_every_s=1.0, grace_s=5.0)
    except TimeoutError as error:
        raise AssertionError(f"{error}\n--- worker logs ---\n{live.logs()}") from None


def assert_recorded_once(season: Any) -> None:
    """Every match done, with exactly its planned games, each index once."""
    from webui.league import seasons
    from webui.league.models import Game, Match

    matches = list(Match.objects.filter(season=season))
    assert matches and all(m.status == "done" for m in matches), [
        (m.pairing, m.status, m.error) for m in matches
    ]
    for match in matches:
        indexes = sorted(Game.objects.filter(match=match).values_list("index", flat=True))
        assert indexes == list(range(match.games_planned)), (match.pairing, indexes)
    assert seasons.planned_matches(season) == len(matches)


def test_a_season_of_four_sample_bots_finishes_and_its_tables_agree_with_the_replays(
    live: Any,
) -> None:
    from webui.league import ratings, seasons
    from webui.league.models import Game, Rating, SeasonEntrant

    season = new_season("four", ["random", "greedy", "ismcts", "js-random"], knockout_size=2)
    live.workers(2)
    run(season, live)
    season.refresh_from_db()
    assert season.status == "finished"
    assert_recorded_once(season)

    # Every replay re-plays to the recorded result.
    number_of = {e.version_id: e.number for e in SeasonEntrant.objects.filter(season=season)}
    league_results = []
    games = list(Game.objects.filter(match__season=season).select_related("match__round"))
    assert len(games) == (6 + 1) * 2
    for game in games:
        report = verify_replay(game.replay)
        assert report["ok"], report.get("error")
        assert report["winner"] == game.winner_side
        assert report["totals"] == game.totals
        if game.match.round.phase == "league":
            league_results.append(
                GameResult(
                    tuple(number_of[game.players[side]] for side in range(2)),
                    report["winner"],
                    tuple(report["totals"]),
                )
            )
    # The standings are what the replays say.
    expected = standings(number_of.values(), league_results)
    table = seasons.league_standings(season)
    assert [(r.number, r.standing.score) for r in table] == [(s.entrant, s.score) for s in expected]
    # The champion won the final.
    final = season.rounds.order_by("-number").first()
    assert final.phase == "knockout"
    assert seasons.season_champion(season) == final.matches.get().winner

    # The ratings are the replays' winners rated in rating order...
    ordered = Game.objects.filter(variant=season.variant, void="").order_by("rating_seq")
    assert [g.rating_seq for g in ordered] == list(range(1, len(games) + 1))
    ladder = Ratings()
    for game in ordered:
        winner = verify_replay(game.replay)["winner"]
        ladder.rate(RatedGame(((game.players[0],), (game.players[1],)), winner))
    stored = {
        r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.filter(variant=season.variant)
    }
    assert stored == {k: (e.mu, e.sigma, e.games) for k, e in ladder.entries.items()}
    # ... and recomputing them from scratch gives the same numbers.
    ratings.recompute_ratings(season.variant_id)
    assert {
        r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.filter(variant=season.variant)
    } == stored


def test_a_worker_on_another_host_unpacks_an_uploaded_bot_from_the_database_and_plays_it(
    live: Any,
) -> None:
    from django.conf import settings
    from django.contrib.auth.models import User
    from worker_helpers import archive_files, folder_files, playable_zip

    from webui.league import seasons, variants, versions
    from webui.league.models import BotVersion
    from webui.web.submission import add_version

    # Uploaded here (the site's host); the worker shares only PostgreSQL and Redis with it.
    worker_data = Path(live.env["ARENA_DATA_DIR"])
    assert worker_data != Path(settings.ARENA_DATA_DIR)
    owner = User.objects.create_user("author")
    version, _ = add_version(versions.create_bot(owner, "uploaded"), playable_zip("uploaded"))
    live.workers(1)
    wait_for(
        lambda: BotVersion.objects.get(pk=version.pk).status != "validating", 60, "the validation"
    )
    version.refresh_from_db()
    assert version.status == "ready", (version.status_reason, live.logs())
    season = seasons.create_season(
        name="second host",
        variant=variants.get_variant("scopa", SHORT),
        entrants=[version, *register(["random"])],
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=10_000,
        seed=11,
    )
    run(season, live)
    assert_recorded_once(season)
    assert folder_files(worker_data / "bots" / version.sha256) == archive_files(
        playable_zip("uploaded")
    )


def wait_for(predicate: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def test_a_worker_killed_mid_match_has_its_match_played_again_and_counted_once(
    live: Any,
) -> None:
    from webui.league.models import Game, Match

    season = new_season("killed", ["ismcts", "greedy"], games_per_pairing=4)
    from webui.league import seasons

    seasons.start_season(season)
    first = live.workers(1)
    match = Match.objects.get(season=season)
    wait_for(lambda: Match.objects.get(pk=match.pk).status == "running", 60, "a claim")
    time.sleep(1.0)  # in the middle of the first games
    first.kill(first.processes[0], signal.SIGKILL)
    victim = Match.objects.get(pk=match.pk)
    assert victim.status == "running" and victim.attempts == 1
    assert not Game.objects.filter(match=match).exists()
    live.workers(1)
    run(season, live)
    match.refresh_from_db()
    assert match.status == "done"
    assert match.attempts == 2
    assert match.claimed_by != victim.claimed_by
    assert_recorded_once(season)


def test_a_season_finishes_across_a_redis_restart(live_private: Any) -> None:
    from webui.league import seasons
    from webui.league.models import Match

    live = live_private
    season = new_season("restart", ["random", "greedy", "ismcts", "js-random"])
    seasons.start_season(season)
    live.workers(2)
    wait_for(lambda: Match.objects.filter(season=season, status="done").exists(), 90, "a result")
    live.redis.restart()  # its queues are lost: the sweep must find what they held
    run(season, live)
    season.refresh_from_db()
    assert season.status == "finished"
    assert_recorded_once(season)
