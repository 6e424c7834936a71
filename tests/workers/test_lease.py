"""A worker stops the match it plays, and every seat of it, as soon as its lease is lost: when a
renewal finds the match taken over, and when it could not renew for a whole lease (the
database out of reach). The task body runs in this process's main thread, as in a worker's
pool process, with the real runner and sandboxed sample bots; the database is PostgreSQL."""

from __future__ import annotations

import contextlib
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from leftovers import live_children

pytestmark = [pytest.mark.services, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
LEASE_S = 2.0


@pytest.fixture
def long_match(
    transactional_db: Any,
    postgres_available: bool,
    settings: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Any:
    """A long match (ISMCTS against greedy, games to 11), its seats' folders in a folder of
    the test's own."""
    from django.contrib.auth.models import User
    from django.db import connection

    from webui.league import seasons, variants, versions
    from webui.league.models import Match

    if connection.vendor != "postgresql":
        pytest.skip("the lease tests run on PostgreSQL")
    settings.ARENA_MATCH_LEASE_S = LEASE_S
    owner = User.objects.create_user("owner")
    season = seasons.create_season(
        name="long",
        variant=variants.get_variant("scopa", {"target": 11}),
        entrants=[versions.register_folder_bot(owner, SAMPLES / n) for n in ("ismcts", "greedy")],
        games_per_pairing=2,
        move_time_ms=2000,
        bank_ms=60_000,
        seed=3,
    )
    seasons.start_season(season)
    seats = tmp_path / "seats"
    seats.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(seats))
    return Match.objects.get(season=season), seats


def seat_folders(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("scopa-seat-"))


def wait_for(predicate: Any, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


@contextlib.contextmanager
def beside(action: Any) -> Iterator[threading.Thread]:
    """Runs ``action`` in a thread while the block runs; re-raises what it raised."""
    errors: list[BaseException] = []

    def run() -> None:
        from django.db import connection

        try:
            action()
        except BaseException as error:
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    yield thread
    thread.join(timeout=60)
    if errors:
        raise errors[0]


def test_a_worker_whose_match_is_taken_over_stops_it_and_its_seats_at_once(
    long_match: Any,
) -> None:
    from django.utils import timezone

    from webui.league import matches
    from webui.league.models import Game, Match
    from workers import tasks

    match, seats = long_match
    before = live_children()

    def take_over() -> None:
        wait_for(lambda: seat_folders(seats), 60, "the bots to be seated")
        # The lease ran out (this worker paused, say) and another host claimed the match.
        Match.objects.filter(pk=match.pk).update(
            lease_until=timezone.now() - timezone.timedelta(seconds=1)
        )
        assert matches.claim_match(match.pk, "other-host:1") is not None

    with beside(take_over):
        result = tasks.play_match.run(match.pk)
    assert result.startswith(f"match {match.pk}: lease lost (another worker took the match")
    assert result.endswith("its seats are stopped")
    assert seat_folders(seats) == []
    assert live_children() == before
    match.refresh_from_db()
    assert (match.status, match.claimed_by, match.attempts) == ("running", "other-host:1", 2)
    assert not Game.objects.filter(match=match).exists()


def test_a_worker_cut_off_from_its_database_stops_its_match_once_its_lease_has_run_out(
    long_match: Any,
) -> None:
    import psycopg
    from django.db import connection

    from webui.league.models import Game
    from workers import tasks

    match, seats = long_match
    before = live_children()
    params = connection.get_connection_params()
    holding = threading.Event()
    release = threading.Event()

    def block_renewals() -> None:
        """Locks the match's row: every renewal waits, as on a host whose database went
        silent."""
        wait_for(lambda: seat_folders(seats), 60, "the bots to be seated")
        with psycopg.connect(
            **{k: v for k, v in params.items() if k != "cursor_factory"}, autocommit=False
        ) as locker:
            locker.execute("SELECT id FROM league_match WHERE id = %s FOR UPDATE", [match.pk])
            holding.set()
            release.wait(60)
            locker.rollback()

    with beside(block_renewals):
        result = tasks.play_match.run(match.pk)
        assert holding.is_set()
        assert seat_folders(seats) == []  # stopped while the database was still silent
        release.set()
    assert result.startswith(f"match {match.pk}: lease lost (no renewal for {LEASE_S:g} s")
    assert live_children() == before
    match.refresh_from_db()
    assert match.status == "running" and match.attempts == 1  # the sweep hands it on later
    assert not Game.objects.filter(match=match).exists()
