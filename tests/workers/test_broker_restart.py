"""A busy multi-process worker rides out a broker restart.

Redis (a private ``redis-server``) goes down and comes back empty while a worker of two
processes plays: one match with its second process free (its channel waiting in BRPOP with an
unacknowledged message: what used to kill the worker, see ``webui.league.queue.RedisChannel``),
or two matches at once. The same worker process records each match once and then serves new
tasks.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_season_on_workers import (
    SAMPLES,
    SHORT,
    assert_recorded_once,
    new_season,
    register,
    run,
    wait_for,
)

pytestmark = [pytest.mark.services, pytest.mark.slow]


def slow_season(matches_at_once: int) -> Any:
    """A season whose first round has ``matches_at_once`` matches, each with the search bot in
    it (so each lasts seconds): ismcts v greedy, or ismcts v random and a copy of ismcts v
    greedy."""
    from django.contrib.auth.models import User

    from webui.league import seasons, variants, versions

    entrants = register(["ismcts", "greedy"])
    if matches_at_once == 2:
        owner = User.objects.get(username="arena")
        copy, _ = versions.register_version(
            versions.create_bot(owner, "ismcts-copy"),
            sha256="c" * 64,
            manifest={"name": "ismcts-copy", "version": "1", "command": ["python", "bot.py"]},
            source_dir=str(SAMPLES / "ismcts"),
            validate=False,
        )
        entrants += [copy, *register(["random"])]
    return seasons.create_season(
        name="under way",
        variant=variants.get_variant("scopa", SHORT),
        entrants=entrants,
        games_per_pairing=4,
        move_time_ms=1000,
        bank_ms=10_000,
        seed=11,
    )


@pytest.mark.parametrize(
    "busy", [1, 2], ids=["one-match-and-a-free-process", "two-matches-at-once"]
)
def test_a_busy_worker_survives_a_redis_restart_and_serves_on(live_private: Any, busy: int) -> None:
    from webui.league import seasons
    from webui.league.models import Match

    live = live_private
    season = slow_season(busy)
    seasons.start_season(season)
    pool = live.workers(1, concurrency=2)
    worker = pool.processes[0]
    wait_for(
        lambda: Match.objects.filter(season=season, status="running").count() == busy,
        90,
        f"{busy} match(es) under way",
    )
    running = list(
        Match.objects.filter(season=season, status="running").values_list("pk", flat=True)
    )

    live.redis.restart()

    wait_for(
        lambda: Match.objects.filter(pk__in=running, status="done").count() == busy,
        180,
        "the matches under way to be recorded",
    )
    assert worker.poll() is None, live.logs()
    # Recorded once, by the claim that was playing when Redis went away.
    assert [m.attempts for m in Match.objects.filter(pk__in=running)] == [1] * busy
    run(season, live)
    assert_recorded_once(season)
    # New tasks, enqueued after the restart, are served by the same worker process.
    after = new_season("after the restart", ["random", "greedy"])
    run(after, live)
    after.refresh_from_db()
    assert after.status == "finished"
    assert_recorded_once(after)
    assert worker.poll() is None, live.logs()
    assert "Unrecoverable error" not in live.logs()


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://broker.example:6380/1"])
def test_a_redis_broker_gets_the_mended_channel(settings: Any, url: str) -> None:
    from webui.league import queue

    settings.ARENA_BROKER_URL = url
    app = queue.make_app()
    try:
        connection = app.connection_for_read()
        assert connection.get_transport_cls() is queue.RedisTransport
        assert connection.get_transport_cls().Channel is queue.RedisChannel
        assert connection.hostname == url.split("//")[1].split(":")[0]
    finally:
        app.close()


def test_the_embedded_broker_keeps_its_own_transport(settings: Any) -> None:
    from webui.league import queue

    settings.ARENA_BROKER_URL = ""
    app = queue.make_app()
    try:
        assert app.connection_for_read().transport.driver_type == "filesystem"
    finally:
        app.close()
