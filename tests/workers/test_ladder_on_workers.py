"""The continuous ladder on real Celery worker processes (Redis, PostgreSQL): an uploaded bot
is validated, enters the ladder and gets rated games from the ``arena.schedule_ladder`` task;
a worker killed during a ladder match has the match played again, counted and rated once."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
LADDER = "scopa:target=1"  # about one deal a game: seconds per match


def wait_for(predicate: Any, timeout_s: float, what: str, live: Any, every: Any = None) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}\n{live.logs()}")
        if every is not None:
            every()
        time.sleep(0.5)


def on_ladder(live: Any, settings: Any, names: list[str]) -> list[Any]:
    """The sample bots ``names`` on the ladder of :data:`LADDER`, here and in the workers, each
    owned by a user of its name."""
    from django.contrib.auth.models import User

    from webui.league import ladder
    from webui.league.versions import register_folder_bot

    settings.ARENA_LADDER_VARIANTS = [LADDER]
    live.env["ARENA_LADDER_VARIANTS"] = LADDER
    # Each its own owner: the ladder never pairs two bots of one owner.
    versions = [
        register_folder_bot(User.objects.get_or_create(username=name)[0], SAMPLES / name)
        for name in names
    ]
    for version in versions:
        ladder.enter_version(version)
    return versions


def sweep() -> None:
    from webui.league import sweep

    sweep.requeue_stale(grace_s=5.0)


def test_an_uploaded_bot_is_validated_enters_the_ladder_and_is_rated_by_the_scheduler_task(
    live: Any,
    settings: Any,
) -> None:
    from django.contrib.auth.models import User
    from worker_helpers import playable_zip

    from webui.league import ladder, queue, versions
    from webui.league.models import BotVersion, Game, LadderEntry, Match, Rating
    from webui.league.ratings import update_ratings
    from webui.web.submission import add_version

    samples = on_ladder(live, settings, ["random", "greedy"])
    author = User.objects.create_user("author")
    version, _ = add_version(versions.create_bot(author, "newcomer"), playable_zip("newcomer"))
    live.workers(1, concurrency=2)
    wait_for(
        lambda: BotVersion.objects.get(pk=version.pk).status != "validating",
        90,
        "the validation",
        live,
    )
    version.refresh_from_db()
    assert version.status == "ready", version.status_reason
    assert LadderEntry.objects.get(bot=version.bot).version_id == version.pk
    variant = ladder.ladder_variants()[0]

    def beat() -> None:  # what celery beat sends every ARENA_LADDER_INTERVAL_S
        queue.current_app().send_task("arena.schedule_ladder")
        sweep()

    def newcomer_rated() -> bool:
        rating = Rating.objects.filter(variant=variant, key=f"l:{version.pk}").first()
        return rating is not None and rating.games >= 2

    wait_for(newcomer_rated, 120, "the newcomer's first rated ladder games", live, beat)
    matches = list(Match.objects.filter(kind="ladder"))
    assert matches and all(m.season_id is None and m.games_planned == 2 for m in matches)
    for match in matches:
        if match.status == "done":
            games = list(Game.objects.filter(match=match).order_by("index"))
            assert [g.index for g in games] == [0, 1]
            assert games[0].seats == [0, 1] and games[1].seats == [1, 0]  # seats swapped
    ratings = Rating.objects.filter(variant=variant)
    assert {r.pool for r in ratings} == {"ladder"}  # no season rating moved
    assert {r.version_id for r in ratings} <= {version.pk, *(s.pk for s in samples)}
    # Every rated game is rated once: its ladder ratings' games add up to two per game.
    update_ratings(variant.pk)
    rated_games = Game.objects.filter(variant=variant, rating_seq__isnull=False).count()
    assert sum(r.games for r in Rating.objects.filter(variant=variant)) == 2 * rated_games


def test_a_worker_killed_during_a_ladder_match_has_it_played_again_and_rated_once(
    live: Any,
    settings: Any,
) -> None:
    from webui.league import ladder
    from webui.league.models import Game, Match, Rating, RatingHistory
    from webui.league.ratings import update_ratings

    on_ladder(live, settings, ["ismcts", "greedy"])
    [match_id] = ladder.schedule()
    first = live.workers(1)
    wait_for(lambda: Match.objects.get(pk=match_id).status == "running", 60, "a claim", live)
    time.sleep(1.0)  # in the middle of the first game: ismcts thinks for a while each move
    first.kill(first.processes[0], signal.SIGKILL)
    victim = Match.objects.get(pk=match_id)
    assert victim.status == "running" and victim.attempts == 1
    assert not Game.objects.filter(match_id=match_id).exists()
    live.workers(1)
    wait_for(
        lambda: Match.objects.get(pk=match_id).status == "done",
        150,
        "the match played again",
        live,
        sweep,
    )
    match = Match.objects.get(pk=match_id)
    assert match.attempts == 2 and match.claimed_by != victim.claimed_by
    assert sorted(Game.objects.filter(match=match).values_list("index", flat=True)) == [0, 1]
    variant = match.play_variant()
    update_ratings(variant.pk)
    update_ratings(variant.pk)
    ratings = list(Rating.objects.filter(variant=variant))
    assert len(ratings) == 2 and all(r.games == 2 for r in ratings)
    assert RatingHistory.objects.filter(rating__in=ratings).count() == 4


def test_the_demo_loop_keeps_the_ladder_playing(live: Any, settings: Any) -> None:
    """:class:`LadderLoop` (what ``arena demo`` runs beside the site) schedules ladder matches
    that a worker plays, and stops when asked."""
    from webui.league import ladder
    from webui.league.models import Game, Match

    on_ladder(live, settings, ["random", "greedy"])
    live.workers(1)
    loop = ladder.LadderLoop(interval_s=1.0).start()
    try:
        wait_for(
            lambda: Match.objects.filter(kind="ladder", status="done").count() >= 2,
            120,
            "two ladder matches played",
            live,
        )
    finally:
        loop.stop()
    assert not loop.thread.is_alive()
    done = Match.objects.filter(kind="ladder", status="done")
    assert all(Game.objects.filter(match=m).count() == 2 for m in done)
    # Never two open ladder matches for the same pair at once: one bot, one match.
    assert Match.objects.filter(kind="ladder").exclude(status__in=["done", "void"]).count() <= 1
