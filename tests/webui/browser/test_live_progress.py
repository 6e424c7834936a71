"""Live progress in Chromium: the season and match pages follow a season a real worker plays.

The worker is a real ``arena worker`` process on the machine's Redis (a queue of the test's
own, keys under this run's prefix); it publishes each move to the ``live`` cache, which the
site of this test (pytest-django's live server) reads from the same Redis. Two of the three
entrants think a little before each move, so each match lasts long enough to be watched.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[3]

SLOW_BOT = """import time

from arena.sdk import Bot, serve


class Slow(Bot):
    def choose(self, observation, legal_moves):
        time.sleep(0.12)
        return legal_moves[-1]


serve(Slow())
"""


def slow_bot(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(
        f'name = "{folder.name}"\nversion = "1.0.0"\n'
        'author = "Tester"\ncommand = ["python", "bot.py"]\n'
        'variants = ["*"]\n'
    )
    (folder / "bot.py").write_text(SLOW_BOT)
    return folder


@pytest.fixture
def live_worker(
    transactional_db: Any,
    postgres_available: bool,
    redis_url: str,
    bwrap: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[None]:
    """One real worker process; the site and the worker share the Redis ``live`` cache."""
    from django.db import connection

    from webui.league import queue as league_queue
    from webui.local_workers import LocalWorkers
    from webui.settings import live_cache

    if connection.vendor != "postgresql":
        pytest.skip("the worker tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")
    queue = f"arena-test-{uuid.uuid4().hex[:10]}"
    prefix = settings.ARENA_BROKER_PREFIX
    env = {
        "ARENA_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": redis_url,
        "ARENA_BROKER_PREFIX": prefix,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "worker-data"),
        "ARENA_SANDBOX": "auto",
    }
    settings.ARENA_BROKER_URL = redis_url
    settings.ARENA_EMBEDDED_BROKER = False
    settings.ARENA_QUEUE = queue
    settings.CACHES = {
        **settings.CACHES,
        "live": live_cache("", redis_url, prefix, tmp_path / "site-data"),
    }
    app = league_queue.make_app()
    monkeypatch.setattr(league_queue, "app", app)
    monkeypatch.setattr("webui.web.live_progress.POLL_MS", 400)
    pool = LocalWorkers(1, env=env, log_dir=tmp_path / "worker-logs").start()
    try:
        yield
    finally:
        pool.stop()
        app.close()
        import redis

        with contextlib.suppress(redis.RedisError):
            redis.Redis.from_url(redis_url).delete(queue)


def test_the_season_and_match_pages_follow_the_games_without_reloading(
    live_worker: None,
    live_server: Any,
    page: Any,
    tmp_path: Path,
    artifacts: Path,
    request: pytest.FixtureRequest,
) -> None:
    from django.contrib.auth.models import User

    from webui.league import seasons, variants
    from webui.league.models import Match
    from webui.league.versions import register_folder_bot

    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    # Two of the three think a little before each move: every match has one of them.
    versions = [
        register_folder_bot(staff, slow_bot(tmp_path / name)) for name in ("ponderer", "thinker")
    ]
    versions.append(register_folder_bot(staff, ROOT / "sample_bots" / "random"))
    season = seasons.create_season(
        name="Live season",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=versions,
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=20_000,
    )
    seasons.start_season(season)
    # Three entrants: three rounds of one match each, of which only the first is scheduled.
    assert Match.objects.filter(season=season).count() == 1

    page.goto(f"{live_server.url}/seasons/{season.pk}/")
    planned = page.locator('[data-live="matches-planned"]')
    assert planned.inner_text() == "3"
    page.evaluate("window.stillTheSamePage = true")
    # Moves of the match being played appear on the season page by themselves.
    page.wait_for_selector('[data-live="playing"] .live-moves li', timeout=60_000)
    assert page.evaluate("window.stillTheSamePage") is True
    playing = page.locator('[data-live="playing"]').inner_text()
    assert " plays " in playing and "@1.0.0" not in playing  # the site's names: ponderer@1
    assert "ponderer@1" in playing or "thinker@1" in playing
    # On a phone the moves wrap: nothing scrolls the page sideways.
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator("#live").screenshot(path=str(artifacts / "live-season-phone.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    first = Match.objects.filter(season=season).order_by("id").first()
    assert first is not None

    tab = page.context.new_page()
    tab.goto(f"{live_server.url}/matches/{first.pk}/")
    if tab.locator("#live[data-live-url]").count():  # still being played: watch it move
        tab.evaluate("window.stillTheSamePage = true")
        # The game is drawn as the replay viewer draws it: the table, the seats, the moves.
        tab.wait_for_selector('[data-live="current"] .live-viewer .v-log li', timeout=60_000)
        viewer = tab.locator(".live-viewer")
        assert viewer.locator(".v-seat").count() == 2
        assert viewer.locator(".v-live-badge").inner_text() == "live"
        # Only what every seat sees: each hand is backs, never a face.
        assert viewer.locator(".v-hand .card:not(.card-back)").count() == 0
        assert viewer.locator(".v-table .card-back").count() == 0
        assert viewer.locator(".v-controls").count() == 0  # nothing to step through
        tab.screenshot(path=str(artifacts / "live-match-laptop.png"))
        for size, scheme in (("phone", "dark"), ("laptop", "dark"), ("phone", "light")):
            tab.emulate_media(color_scheme=scheme)
            tab.set_viewport_size({"width": 390 if size == "phone" else 1280, "height": 900})
            assert tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            tab.screenshot(path=str(artifacts / f"live-match-{size}-{scheme}.png"))
            if request.config.getoption("--docs-screenshots") and scheme == "dark":
                tab.screenshot(
                    path=str(ROOT / "docs" / "screenshots" / f"live-match-{size}-dark.png")
                )
        tab.emulate_media(color_scheme="light")
        tab.set_viewport_size({"width": 1280, "height": 900})
        seen = tab.locator(".live-viewer .v-log").inner_text()
        tab.wait_for_function(  # the next move comes in place (or the match ends: a reload)
            "seen => window.stillTheSamePage !== true"
            " || document.querySelector('.live-viewer .v-log').innerText !== seen",
            arg=seen,
            timeout=60_000,
        )
    # When the match is over the page shows its recorded games: 2 of 2.
    tab.wait_for_function(
        "() => document.querySelector('[data-live=\"games-done\"]').innerText === '2'",
        timeout=90_000,
    )
    assert tab.locator('[data-live="games-planned"]').inner_text() == "2"
    # Both games are played; the page then reloads and lists them as recorded.
    tab.wait_for_function(
        "() => document.querySelectorAll(\"table a[href^='/games/']\").length >= 2",
        timeout=90_000,
    )
    # The season page counted the finished match without being reloaded.
    page.wait_for_function(
        "() => Number(document.querySelector('[data-live=\"matches-done\"]').innerText) >= 1",
        timeout=90_000,
    )
    assert page.evaluate("window.stillTheSamePage") is True
    assert planned.inner_text() == "3"
    tab.close()
