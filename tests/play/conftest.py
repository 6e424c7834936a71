"""Fixtures of the Play page's tests: real Celery workers on this run's Redis (a queue of the
test's own), headless chromium, a person and the random sample bot, and a look at the bot
processes a worker runs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from play_helpers import Workers

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def play_workers(transactional_db: Any, postgres_available: bool, redis_url: str,
                 tmp_path: Path, settings: Any,
                 monkeypatch: pytest.MonkeyPatch) -> Iterator[Workers]:
    """Workers on the machine's Redis (this run's key prefix, a queue of the test's own) and
    this test's database; the bots in the sandbox when the host has it."""
    from django.conf import settings as django_settings
    from django.db import connection

    from workers import celery_app

    assert connection.vendor == "postgresql", "the Play tests run on PostgreSQL"
    queue = f"{django_settings.ARENA_QUEUE}-{uuid.uuid4().hex[:10]}"
    env = {
        "ARENA_DATABASE_URL": f"postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": redis_url,
        "ARENA_BROKER_PREFIX": django_settings.ARENA_BROKER_PREFIX,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_TASK_TIME_LIMIT_S": "300",
        "ARENA_SANDBOX": "auto",
        "ARENA_LOG_LEVEL": "INFO",
    }
    settings.ARENA_BROKER_URL = redis_url
    settings.ARENA_EMBEDDED_BROKER = False
    settings.ARENA_QUEUE = queue
    app = celery_app.make_app()
    monkeypatch.setattr(celery_app, "app", app)
    state = Workers(env=env, log_dir=tmp_path / "logs")
    try:
        yield state
    finally:
        for pool in state.started:
            pool.stop()
        app.close()


@pytest.fixture
def person(transactional_db: Any) -> Any:
    """A signed-up person, and the random sample bot registered (validated) by its owner."""
    from django.contrib.auth.models import User

    from webui.league import services

    owner = User.objects.create_user("owner", password="owner-pass-123")
    services.register_folder_bot(owner, ROOT / "sample_bots" / "random", validate=False)
    return User.objects.create_user("ada", password="ada-pass-123")


