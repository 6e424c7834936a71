"""Real Celery worker processes for a test: :class:`Live` (their environment, the pools
started) and :func:`live_workers`, which points them and this process at the test's database,
a broker and a queue of the test's own."""

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
    redis: Any = None  # the private redis-server, when the test has one

    def workers(self, count: int = 1, concurrency: int | None = None, play: bool = False) -> Any:
        """Starts ``count`` worker processes (stopped at the end of the test) of
        ``concurrency`` (default 1); ``play``: Play workers (``arena worker --play``, whose
        default is ``ARENA_PLAY_SLOTS``)."""
        from webui.local_workers import LocalWorkers

        if concurrency is None and not play:
            concurrency = 1
        pool = LocalWorkers(
            count,
            concurrency=concurrency,
            env=self.env,
            log_dir=self.log_dir,
            loglevel="INFO",
            play=play,
        )
        self.started.append(pool)
        return pool.start()

    def logs(self) -> str:
        """Everything the workers logged, for a failing assertion's message."""
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in self.log_dir.glob("*"))


@contextlib.contextmanager
def live_workers(
    broker_url: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    lease_s: float | None = None,
) -> Iterator[Live]:
    """Workers' environment: this test's PostgreSQL database, the broker, a private queue, and
    (``lease_s``) a match lease of its own; every worker started is stopped at the end."""
    from django.conf import settings as django_settings
    from django.db import connection

    from webui.league import queue as league_queue

    queue = f"{django_settings.ARENA_QUEUE}-{uuid.uuid4().hex[:10]}"
    env = {
        "ARENA_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": broker_url,
        "ARENA_BROKER_PREFIX": django_settings.ARENA_BROKER_PREFIX,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_TASK_TIME_LIMIT_S": "300",
        "ARENA_SANDBOX": "auto",
        "ARENA_LOG_LEVEL": "INFO",
    }
    settings.ARENA_BROKER_URL = broker_url
    settings.ARENA_EMBEDDED_BROKER = False
    settings.ARENA_QUEUE = queue
    settings.ARENA_TASK_TIME_LIMIT_S = 300
    if lease_s is not None:
        env["ARENA_MATCH_LEASE_S"] = f"{lease_s:g}"
        settings.ARENA_MATCH_LEASE_S = lease_s
    app = league_queue.make_app()
    monkeypatch.setattr(league_queue, "app", app)
    state = Live(env=env, log_dir=tmp_path / "logs")
    try:
        yield state
    finally:
        for pool in state.started:
            pool.stop()
        app.close()
