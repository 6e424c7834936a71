"""Fixtures of the site tests: three actors (a bot's owner, another user, staff), their API
tokens, and a season played through the league's services with engine-played games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"


@pytest.fixture(autouse=True)
def fast_passwords(settings: Any) -> None:
    """Password hashing made cheap: the tests create users, not attack them."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()  # cached pages of one test's rows must not answer for another's
    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


@pytest.fixture
def users(db: Any) -> dict[str, Any]:
    """``owner`` (owns bot ``my-bot``), ``other`` (a user) and ``staff``."""
    from django.contrib.auth.models import User

    from webui.league import versions

    owner = User.objects.create_user("owner", password="owner-pass-123")
    other = User.objects.create_user("other", password="other-pass-123")
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    versions.create_bot(owner, "my-bot", "the owner's bot")
    return {"owner": owner, "other": other, "staff": staff}


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


@pytest.fixture
def played_season(users: dict[str, Any]) -> Any:
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


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home of this test's own with no saved login, and no token or server in the
    environment: what a command line sees of the site is public."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    return tmp_path
