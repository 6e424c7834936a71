"""A round's matches finishing together, on PostgreSQL: every result, the schedulers of the
next round (the last result's and the sweep's), the rating writers and the sweep run at once
in threads of their own connections; no deadlock reaches them (the league's one lock order,
:mod:`webui.league.locks`), and each next round is scheduled once."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from league_helpers import fake_report

pytestmark = pytest.mark.django_db(transaction=True)

ENTRANTS = 6


def entrants() -> list[Any]:
    from django.contrib.auth.models import User

    from webui.league.versions import create_bot, register_version

    owner = User.objects.create_user("owner", password="owner-pass-123")
    made = []
    for k in range(ENTRANTS):
        version, _ = register_version(
            create_bot(owner, f"bot-{k}", ""),
            sha256=f"{k:064x}",
            manifest={"name": f"bot-{k}", "version": "1", "command": ["x"]},
            source_dir="sample_bots/random",
            validate=False,
        )
        made.append(version)
    return made


def all_at_once(work: list[Callable[[], Any]]) -> list[BaseException]:
    """Runs each callable in a thread of its own, started together; what they raised."""
    from django.db import connection

    start = threading.Barrier(len(work))
    failures: list[BaseException] = []

    def run(job: Callable[[], Any]) -> None:
        try:
            start.wait()
            job()
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in work]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_a_rounds_matches_finishing_together_schedule_the_next_round_once(
    settings: Any,
) -> None:
    from django.db import connection

    from webui.league import matches, ratings, seasons, sweep, variants
    from webui.league.models import Match, Round, Season

    if connection.vendor != "postgresql":
        pytest.skip("row locks of concurrent connections: PostgreSQL's")
    season = seasons.create_season(
        name="Together", variant=variants.get_variant("scopa"), entrants=entrants(), seed=3
    )
    assert seasons.start_season(season)
    rounds = ENTRANTS - 1
    for number in range(1, rounds + 1):
        open_matches = list(
            Match.objects.filter(season=season, round__number=number).order_by("board")
        )
        assert len(open_matches) == ENTRANTS // 2
        claims = [matches.claim_match(m.pk, f"worker-{m.board}") for m in open_matches]
        assert all(claims)
        report = fake_report([[0, 1], [1, 0]], [0, 1])
        work: list[Callable[[], Any]] = [
            *(partial(matches.record_result, claim, report) for claim in claims),
            *(partial(seasons.schedule_next_round, season.pk) for _ in range(3)),
            *(partial(ratings.update_ratings, season.variant_id) for _ in range(2)),
            partial(sweep.requeue_stale, grace_s=0.0),
        ]
        failures = all_at_once(work)
        assert not failures, failures
        # The schedulers that ran before the last result committed found the round open;
        # the last result's (its task, run here) schedules the next round if none did.
        seasons.schedule_next_round(season.pk)
        assert Match.objects.filter(season=season, round__number=number).count() == len(claims)
        assert Round.objects.filter(season=season).count() == min(number + 1, rounds)
        assert Round.objects.filter(season=season, number=number, status="done").exists()
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    assert Match.objects.filter(season=season, status=Match.Status.DONE).count() == (
        rounds * ENTRANTS // 2
    )
    ratings.update_ratings(season.variant_id)
    assert not Match.objects.filter(season=season).exclude(status=Match.Status.DONE).exists()


def test_a_transaction_picked_to_break_a_deadlock_runs_again() -> None:
    """Two transactions lock two rows in opposite orders (the first time): the database
    aborts one; :func:`retry_on_deadlock` runs it again, and both end."""
    from django.db import connection, transaction

    from webui.league import variants
    from webui.league.locks import retry_on_deadlock
    from webui.league.models import Variant

    if connection.vendor != "postgresql":
        pytest.skip("row locks of concurrent connections: PostgreSQL's")
    rows = [variants.get_variant("scopa").pk, variants.get_variant("scopone").pk]
    holding = threading.Barrier(2)
    attempts = {0: 0, 1: 0}

    def lock_both(first: int) -> None:
        attempts[first] += 1
        with transaction.atomic():
            Variant.objects.select_for_update().filter(pk=rows[first]).first()
            if attempts[first] == 1:
                holding.wait()  # each holds its first row: the second one closes the cycle
            Variant.objects.select_for_update().filter(pk=rows[1 - first]).first()

    failures = all_at_once(
        [partial(retry_on_deadlock(lock_both), 0), partial(retry_on_deadlock(lock_both), 1)]
    )
    assert not failures, failures
    assert sorted(attempts.values()) == [1, 2]


def test_a_season_created_while_a_rating_writer_holds_the_variant_waits_for_it() -> None:
    """The rating writer holds its variant's row and then bumps the home page's read version;
    a season created meanwhile takes the variant first (the lock order) and waits, where it
    used to bump the home page first and then meet the variant at its commit: a deadlock."""
    import time

    from django.db import connection, transaction

    from webui.league import read_models, seasons, variants
    from webui.league.models import Season, Variant

    if connection.vendor != "postgresql":
        pytest.skip("row locks of concurrent connections: PostgreSQL's")
    variant = variants.get_variant("scopa")
    versions = entrants()[:2]
    holding, go_on = threading.Event(), threading.Event()

    def rating_writer() -> None:
        with transaction.atomic():
            Variant.objects.select_for_update().get(pk=variant.pk)
            holding.set()
            go_on.wait(30)
            read_models.bump([read_models.HOME])

    def season_creator() -> None:
        holding.wait(30)
        seasons.create_season(name="meanwhile", variant=variant, entrants=versions)
        go_on.set()

    def releaser() -> None:
        holding.wait(30)
        time.sleep(1.0)  # the creation under way (an order, not a measure)
        go_on.set()

    failures = all_at_once([rating_writer, season_creator, releaser])
    assert not failures, failures
    assert Season.objects.filter(name="meanwhile").exists()
