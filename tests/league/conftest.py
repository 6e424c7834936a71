"""Fixtures of the league tests: users, the sample bots as registered versions, a variant."""

from __future__ import annotations

from typing import Any

import pytest
from league_helpers import SAMPLES


@pytest.fixture
def staff(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("staff", is_staff=True)


@pytest.fixture
def sample_versions(staff: Any) -> list[Any]:
    """random and greedy registered as ready versions (trusted sample bots)."""
    from webui.league import services

    return [
        services.register_folder_bot(staff, SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]
