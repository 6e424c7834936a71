"""The version tests' task: ``arena.sprt_pair(test_id, yields)`` plays one duplicate pair of an
owner's SPRT (:mod:`webui.training.sprt_tests`) with the runner, counts it once, and sends the
next; it gives way to the league's waiting matches first (the lowest priority of the workers'
work). Unrated: nothing of it reaches the league's matches, games or ratings.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from webui.league.bot_files import bot_ref_text
from webui.league.matches import BANK_MS, MOVE_TIME_MS
from webui.league.seat_limits import runner_limits
from webui.training import sprt_tests
from webui.training.models import SprtTest
from workers.sandbox_policy import refusal, sandbox_wanted
from workers.tasks import arena_task

log = logging.getLogger("workers.training")

YIELD_S = 2.0
"""Seconds a pair waits before it looks again for the league's waiting work."""
RETRY_S = 30.0
"""Seconds before the next pair when this host could not play one."""


def pair_spec(test: SprtTest, index: int) -> Any:
    """The runner's match of pair ``index``: the new version as entrant 0, two games on the
    same deals with the seats swapped, a seed of the test's own."""
    from arena.runner import BotRef, MatchSpec

    versions = [test.new_version, test.old_version]
    bots = [BotRef.parse(bot_ref_text(v)) for v in versions]
    refused = refusal(
        {v.label: bot for v, bot in zip(versions, bots, strict=True)}, sandbox_wanted()
    )
    if refused:
        raise ValueError(refused)
    return MatchSpec(
        entrants=bots,
        variant=test.variant.name,
        options=dict(test.variant.options),
        games=2,
        seed=(test.seed + index * 0x9E3779B97F4A7C15) % 2**62,
        move_time_ms=MOVE_TIME_MS,
        bank_ms=BANK_MS,
        sandbox=sandbox_wanted(),
        match_id=f"sprt-{test.pk}-{index}",
        limits=runner_limits({}, 2, BANK_MS),
    )


@arena_task("arena.sprt_pair")
def sprt_pair(test_id: int, yields: int = 0) -> str:
    """Plays and counts the next pair of a running test, then sends the one after."""
    from arena.runner import MatchError, run_match

    if not SprtTest.objects.filter(pk=test_id, status=SprtTest.Status.RUNNING).exists():
        return f"sprt {test_id}: not running"
    if yields < settings.ARENA_SPRT_MAX_YIELDS and sprt_tests.league_work_waiting():
        sprt_tests.next_pair(test_id, yields + 1, countdown=YIELD_S)
        return f"sprt {test_id}: behind the league's work"
    index = sprt_tests.claim_pair(test_id)
    if index is None:
        return f"sprt {test_id}: no pair left"
    test = SprtTest.objects.select_related("new_version__bot", "old_version__bot", "variant").get(
        pk=test_id
    )
    try:
        report = run_match(pair_spec(test, index))
    except (MatchError, ValueError) as error:  # a bot folder or manifest that cannot play
        close_old_connections()
        SprtTest.objects.filter(pk=test_id, status=SprtTest.Status.RUNNING).update(
            status=SprtTest.Status.STOPPED, error=f"cannot be played: {error}"[:2000]
        )
        return f"sprt {test_id}: stopped ({error})"
    except Exception as error:  # this host's trouble (disk, database): the next pair, later
        log.warning("sprt %s pair %s failed on this worker: %s", test_id, index, error)
        close_old_connections()
        sprt_tests.next_pair(test_id, countdown=RETRY_S)
        return f"sprt {test_id}: pair {index} failed here"
    close_old_connections()
    scores = [sprt_tests.new_score(game) for game in report.games]
    sprt_tests.record_pair(test_id, index, scores, [game.replay for game in report.games])
    sprt_tests.next_pair(test_id)
    return f"sprt {test_id}: pair {index} counted"
