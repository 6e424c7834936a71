"""Fixtures of the Play page's tests: real Celery workers on this run's Redis (a queue of the
test's own), headless chromium, a person and the random sample bot, and a look at the bot
processes a worker runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_workers import Live, live_workers

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def play_workers(
    transactional_db: Any,
    postgres_available: bool,
    redis_url: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Live]:
    """Workers on the machine's Redis (this run's key prefix, a queue of the test's own) and
    this test's database; the bots in the sandbox when the host has it."""
    from django.db import connection

    assert connection.vendor == "postgresql", "the Play tests run on PostgreSQL"
    with live_workers(redis_url, tmp_path, settings, monkeypatch) as state:
        yield state


@pytest.fixture
def person(transactional_db: Any) -> Any:
    """A signed-up person, and the random sample bot registered (validated) by its owner."""
    from django.contrib.auth.models import User

    from webui.league import versions

    owner = User.objects.create_user("owner", password="owner-pass-123")
    versions.register_folder_bot(owner, ROOT / "sample_bots" / "random", validate=False)
    return User.objects.create_user("ada", password="ada-pass-123")
