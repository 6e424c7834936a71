"""Fixtures of the tests that run real Celery worker processes: ``live`` on the machine's Redis
(under this run's key prefix and a queue of the test's own), ``live_private`` on a private
``redis-server`` the test may stop and start again."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from worker_helpers import Live


@contextlib.contextmanager
def live_workers(broker_url: str, tmp_path: Path, settings: Any,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """Workers' environment: this test's database, the broker, a private queue, short leases."""
    from django.conf import settings as django_settings
    from django.db import connection

    from workers import celery_app

    if connection.vendor != "postgresql":  # ARENA_DATABASE_URL chose another database
        pytest.skip("the worker tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")
    queue = f"{django_settings.ARENA_QUEUE}-{uuid.uuid4().hex[:10]}"
    env = {
        "ARENA_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": broker_url,
        "ARENA_BROKER_PREFIX": django_settings.ARENA_BROKER_PREFIX,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_MATCH_LEASE_S": "3",
        "ARENA_TASK_TIME_LIMIT_S": "300",
        "ARENA_SANDBOX": "auto",
        "ARENA_LOG_LEVEL": "INFO",
    }
    settings.ARENA_BROKER_URL = broker_url
    settings.ARENA_EMBEDDED_BROKER = False
    settings.ARENA_QUEUE = queue
    settings.ARENA_MATCH_LEASE_S = 3.0
    settings.ARENA_TASK_TIME_LIMIT_S = 300
    app = celery_app.make_app()
    monkeypatch.setattr(celery_app, "app", app)
    state = Live(env=env, log_dir=tmp_path / "logs")
    try:
        yield state
    finally:
        for pool in state.started:
            pool.stop()
        app.close()


@pytest.fixture
def live(transactional_db: Any, postgres_available: bool, redis_url: str, tmp_path: Path,
         settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """Workers on the machine's Redis (keys under this run's prefix, a queue of their own)."""
    with live_workers(redis_url, tmp_path, settings, monkeypatch) as state:
        yield state


@pytest.fixture
def live_private(transactional_db: Any, postgres_available: bool, private_redis: Any,
                 tmp_path: Path, settings: Any,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """Workers on a private redis-server (``live_private.redis``), which the test may restart."""
    with live_workers(private_redis.url, tmp_path, settings, monkeypatch) as state:
        state.redis = private_redis
        yield state
