"""Fixtures of the tests that run real Celery worker processes: ``live`` on the machine's Redis
(under this run's key prefix and a queue of the test's own), ``live_private`` on a private
``redis-server`` the test may stop and start again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_workers import Live, live_workers

LEASE_S = 3.0
"""The workers' match lease: short, so that a killed worker's match is taken over soon."""


def require_postgres() -> None:
    """The worker tests run on PostgreSQL (workers in other processes share its database)."""
    from django.db import connection

    if connection.vendor != "postgresql":  # ARENA_DATABASE_URL chose another database
        pytest.skip("the worker tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")


@pytest.fixture
def live(
    transactional_db: Any,
    postgres_available: bool,
    redis_url: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Live]:
    """Workers on the machine's Redis (keys under this run's prefix, a queue of their own)."""
    require_postgres()
    with live_workers(redis_url, tmp_path, settings, monkeypatch, lease_s=LEASE_S) as state:
        yield state


@pytest.fixture
def live_private(
    transactional_db: Any,
    postgres_available: bool,
    private_redis: Any,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Live]:
    """Workers on a private redis-server (``live_private.redis``), which the test may restart."""
    require_postgres()
    with live_workers(private_redis.url, tmp_path, settings, monkeypatch, lease_s=LEASE_S) as state:
        state.redis = private_redis
        yield state
