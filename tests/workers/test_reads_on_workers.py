"""The site's cached reads while real Celery workers record ladder results (Redis, PostgreSQL):
every answer read after a result was recorded and rated shows it, though the answers before
were cached in the shared ``reads`` cache."""

from __future__ import annotations

from typing import Any

import pytest
from test_ladder_on_workers import on_ladder, sweep, wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]


def test_every_read_after_a_worker_recorded_a_result_shows_it(
    live: Any, settings: Any, client: Any, reads_on_redis: None
) -> None:
    from webui.league import ladder, queue
    from webui.league.models import Game, HeadToHead, Match, Rating

    on_ladder(live, settings, ["random", "greedy"])
    variant = ladder.ladder_variants()[0]
    live.workers(1, concurrency=2)

    def beat() -> None:  # what celery beat sends every ARENA_LADDER_INTERVAL_S
        queue.current_app().send_task("arena.schedule_ladder")
        sweep()

    def rated_games() -> int:
        return Game.objects.filter(variant=variant, rating_seq__isnull=False).count()

    seen = 0
    for _ in range(3):
        # Wait for one more result recorded and rated by the workers...
        wait_for(lambda seen=seen: rated_games() > seen, 120, "a rated ladder result", live, beat)
        seen = rated_games()
        stored = {r.key: r.games for r in Rating.objects.filter(variant=variant)}
        recorded = sum(h.games for h in HeadToHead.objects.filter(bot__name="greedy"))
        done = set(Match.objects.filter(kind="ladder", status="done").values_list("pk", flat=True))
        # ...then every answer shows at least what was in the database before it was asked.
        board = client.get(f"/api/ladder/{variant.slug}").json()["ratings"]
        assert all(r["games"] >= stored.get(r["key"], 0) for r in board)
        assert {r["key"] for r in board} >= set(stored)
        bot = client.get("/api/bots/greedy").json()
        assert sum(h["games"] for h in bot["head_to_head"]) >= recorded > 0
        newest = sorted(done)[-5:]
        assert set(newest) <= {m["id"] for m in bot["recent_matches"]}
        assert all(m["status"] == "done" for m in bot["recent_matches"] if m["id"] in done)
