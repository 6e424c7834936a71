"""Fixtures of the browser tests: Debian's chromium driven by Playwright, and a played game.

The browser is never downloaded: Playwright launches the machine's ``/usr/bin/chromium``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """Password hashing made cheap: the tests create users, not attack them."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()  # cached pages of one test's rows must not answer for another's
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (its own cookies) that fails the test on any JavaScript error."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


@pytest.fixture
def played_game(transactional_db: Any) -> Any:
    """The first game of a small season played through the league's services (it has a
    timeout fault at its third move)."""
    from django.contrib.auth.models import User

    from webui.league import seasons, variants
    from webui.league.models import Game
    from webui.league.versions import register_folder_bot
    from webui.web.sampledata import play_season

    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    versions = [
        register_folder_bot(staff, ROOT / "sample_bots" / name, validate=False)
        for name in ("random", "greedy")
    ]
    season = seasons.create_season(
        name="Browser season",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        games_per_pairing=2,
        seed=3,
    )
    seasons.start_season(season)
    play_season(season)
    return Game.objects.filter(match__season=season).order_by("match_id", "index").first()
