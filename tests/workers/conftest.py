"""Fixtures of the worker tests: real Celery worker processes on Redis and PostgreSQL.

The workers are subprocesses (:class:`workers.local.LocalWorkers`) that see the same database
as the test (pytest-django's test database, in ``transaction=True`` tests so their writes are
visible) and a queue of their own on the machine's Redis.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class Live:
    """The environment of one test's workers, and the workers it started."""

    env: dict[str, str]
    log_dir: Path
    started: list[Any] = field(default_factory=list)

    def workers(self, count: int = 1) -> Any:
        """Starts ``count`` worker processes (stopped at the end of the test)."""
        from workers.local import LocalWorkers

        pool = LocalWorkers(count, env=self.env, log_dir=self.log_dir, loglevel="INFO")
        self.started.append(pool)
        return pool.start()

    def logs(self) -> str:
        """Everything the workers logged, for a failing assertion's message."""
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in self.log_dir.glob("*"))


@pytest.fixture
def live(transactional_db: Any, postgres_available: bool, redis_url: str, tmp_path: Path,
         settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """Workers' environment: this test's database, Redis, a private queue, short leases."""
    from django.db import connection

    from workers import celery_app

    if connection.vendor != "postgresql":  # ARENA_DATABASE_URL chose another database
        pytest.skip("the worker tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")
    queue = f"arena-test-{uuid.uuid4().hex[:10]}"
    env = {
        "ARENA_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": redis_url,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_MATCH_LEASE_S": "3",
        "ARENA_TASK_TIME_LIMIT_S": "300",
        "ARENA_SANDBOX": "auto",
        "ARENA_LOG_LEVEL": "INFO",
    }
    settings.ARENA_BROKER_URL = redis_url
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
        import redis

        client = redis.Redis.from_url(redis_url)
        with contextlib.suppress(redis.RedisError):
            client.delete(queue)
