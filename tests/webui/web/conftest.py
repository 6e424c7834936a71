"""Fixtures of the site tests: three actors (a bot's owner, another user, staff), their API
tokens, and a season played through the league's services with engine-played games.

The played season is built once and shared (``tests/shared_rows.py``): the tests that read it
run one after another in savepoints of the transaction that holds it, so each finds it as it
was built, whatever the one before wrote. A test that commits (``live_server``) plays its own.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from shared_rows import SharedRows, uses_shared_rows

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"


FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """Password hashing made cheap: the tests create users, not attack them."""
    settings.PASSWORD_HASHERS = FAST_HASHERS
    from django.core.cache import cache

    cache.clear()  # cached pages of one test's rows must not answer for another's
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


def make_users() -> dict[str, Any]:
    """``owner`` (owns bot ``my-bot``), ``other`` (a user) and ``staff``, created now."""
    from django.contrib.auth.models import User

    from webui.league import versions

    owner = User.objects.create_user("owner", password="owner-pass-123")
    other = User.objects.create_user("other", password="other-pass-123")
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    versions.create_bot(owner, "my-bot", "the owner's bot")
    return {"owner": owner, "other": other, "staff": staff}


@pytest.fixture
def users(request: pytest.FixtureRequest, db: Any) -> dict[str, Any]:
    """``owner`` (owns bot ``my-bot``), ``other`` (a user) and ``staff``: the shared season's
    own when the test reads it, else new ones."""
    from django.contrib.auth.models import User

    if uses_shared_rows(request.node, "played_season"):
        world = request.getfixturevalue("season_world").open()
        return {name: User.objects.get(pk=pk) for name, pk in world.users.items()}
    return make_users()


@pytest.fixture
def tokens(users: dict[str, Any]) -> dict[str, str]:
    """An API token per actor: ``Authorization`` header values."""
    from webui.web.models import ApiToken

    return {name: "Bearer " + ApiToken.issue(user, "test")[1] for name, user in users.items()}


@pytest.fixture
def ready_versions(users: dict[str, Any]) -> list[Any]:
    """The random and greedy sample bots, registered as ready versions."""
    from webui.league import versions

    return [
        versions.register_folder_bot(users["staff"], SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]


def play_test_season(users: dict[str, Any]) -> Any:
    """A finished season of three bots with a final, every game played by the engine."""
    from webui.league import seasons, variants
    from webui.league.models import BotVersion
    from webui.league.versions import create_bot, register_folder_bot, register_version
    from webui.web.sampledata import play_season

    versions = [
        register_folder_bot(users["staff"], SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]
    bot = create_bot(users["owner"], "third", "")
    third, _ = register_version(
        bot,
        sha256="3" * 64,
        manifest={"name": "third", "version": "1", "command": ["x"]},
        source_dir=str(SAMPLES / "random"),
        validate=False,
    )
    versions.append(BotVersion.objects.get(pk=third.pk))
    season = seasons.create_season(
        name="Test season",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        knockout_size=2,
        games_per_pairing=2,
        seed=7,
    )
    seasons.start_season(season)
    play_season(season)
    season.refresh_from_db()
    return season


@dataclass(frozen=True)
class SeasonWorld:
    """The ids of the shared season's rows: its actors and the season."""

    users: dict[str, int]
    season: int


def build_season_world() -> SeasonWorld:
    """The actors and their played season, with the cheap password hasher the tests use."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        users = make_users()
        season = play_test_season(users)
    return SeasonWorld({name: user.pk for name, user in users.items()}, season.pk)


@pytest.fixture(scope="session")
def season_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[SharedRows[SeasonWorld]]:
    """The shared played season: built now if the test being set up reads it (pytest sets up
    a session fixture before a test's own transaction), else by the next reader's set-up."""
    rows = SharedRows("played_season", build_season_world, django_db_blocker)
    rows.open_if_used()
    yield rows
    rows.close()


@pytest.fixture
def played_season(
    request: pytest.FixtureRequest, season_world: SharedRows[SeasonWorld], users: dict[str, Any]
) -> Any:
    """A finished season of three bots with a final, every game played by the engine: the
    shared one (under read versions of this test's own, so that no read an earlier test
    cached of rows it then rolled back can answer this one), or, for a test that commits,
    one played for it."""
    from django.db.models import F

    from webui.league.models import ReadVersion, Season

    if not uses_shared_rows(request.node, "played_season"):
        return play_test_season(users)
    world = season_world.open()
    ReadVersion.objects.update(number=F("number") + secrets.randbelow(2**40) + 1)
    return Season.objects.get(pk=world.season)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of this test's own with no saved login, and no token or server in the
    environment: what a command line sees of the site is public."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    return tmp_path
