"""``arena login`` and ``arena bot submit`` against a live site, with a real worker validating.

The site is pytest-django's live server on this test's database; the worker is a real ``arena
worker`` process (:class:`webui.local_workers.LocalWorkers`) on the machine's Redis, in a
queue of its own, which plays each upload's validation game against the random bot in the
sandbox. The commands run as a user runs them (``arena.cli.main``), with the credentials file in
a folder of the test's own.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import stat
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from webui.serving import free_port

pytestmark = [pytest.mark.services, pytest.mark.slow]

FAILING_BOT = """import sys

sys.stderr.write("this bot gives up before it listens\\n")
sys.exit(3)
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A config folder of this test's own, and no credentials in the environment.

    The test server runs in this process and logs each refused request to the same stderr
    as the command under test: its warnings are held back, so what the test reads of stderr
    is the command's alone.
    """
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("ARENA_TOKEN", raising=False)
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    monkeypatch.chdir(tmp_path)
    server_log = logging.getLogger("django.request")
    level = server_log.level
    server_log.setLevel(logging.ERROR)
    try:
        yield tmp_path
    finally:
        server_log.setLevel(level)


@pytest.fixture
def ada(transactional_db: Any, postgres_available: bool) -> dict[str, Any]:
    """A member, her API token, and another member who owns bot ``taken``."""
    from django.contrib.auth.models import User

    from webui.league import versions
    from webui.web.models import ApiToken

    user = User.objects.create_user("ada", password="ada-pass-123")
    other = User.objects.create_user("bea", password="bea-pass-123")
    versions.create_bot(other, "taken", "")
    return {"user": user, "token": ApiToken.issue(user, "laptop")[1]}


@pytest.fixture
def worker(
    transactional_db: Any,
    redis_url: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[None]:
    """One real worker process on this test's database and a private Redis queue."""
    from django.db import connection

    from webui.league import queue as league_queue
    from webui.local_workers import LocalWorkers

    if connection.vendor != "postgresql":
        pytest.skip("the worker tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")
    queue = f"arena-test-{uuid.uuid4().hex[:10]}"
    env = {
        "ARENA_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": redis_url,
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(tmp_path / "worker-data"),
        "ARENA_SANDBOX": "auto",
    }
    settings.ARENA_BROKER_URL = redis_url
    settings.ARENA_EMBEDDED_BROKER = False
    settings.ARENA_QUEUE = queue
    app = league_queue.make_app()
    monkeypatch.setattr(league_queue, "app", app)
    pool = LocalWorkers(1, env=env, log_dir=tmp_path / "worker-logs").start()
    try:
        yield
    finally:
        pool.stop()
        app.close()
        import redis

        with contextlib.suppress(redis.RedisError):
            redis.Redis.from_url(redis_url).delete(queue)


def arena(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    stdin: str | None = None,
    monkeypatch: pytest.MonkeyPatch | None = None,
) -> tuple[int, str, str]:
    """Runs ``arena ARGV`` in this process: (exit status, stdout, stderr)."""
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_a_new_bot_is_logged_in_submitted_validated_and_never_stored_twice(
    home: Path,
    ada: dict[str, Any],
    worker: None,
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bwrap: str,
) -> None:
    from webui.league.models import Bot, BotVersion

    server = live_server.url
    status, out, _ = arena(["login", "--server", server], capsys, ada["token"] + "\n", monkeypatch)
    assert status == 0 and f"Logged in to {server} as ada" in out
    saved = home / "config" / "scopa-arena" / "credentials.json"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert json.loads(saved.read_text()) == {"server": server, "token": ada["token"]}
    status, out, _ = arena(["login", "--show"], capsys)
    assert status == 0 and out.startswith(f"{server} as ada")

    assert arena(["bot", "new", "ada-bot"], capsys)[0] == 0
    (home / "ada-bot" / "__pycache__").mkdir()
    (home / "ada-bot" / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    status, out, err = arena(["bot", "submit", "ada-bot", "--description", "Ada's"], capsys)
    assert status == 0, out + err
    assert "Packed ada-bot (0.1.0): 5 files" in out and "__pycache__/" in out
    assert f"Created bot ada-bot for ada on {server}" in out
    assert "Uploaded ada-bot@1 (bot.toml's version 0.1.0)" in out
    assert "✓ ada-bot@1 is ready: it played its validation game without a fault." in out
    assert "Validation game (scopa): " in out and "random (sample bot)" in out
    assert f"{server}/bots/ada-bot/v1/" in out
    bot = Bot.objects.get(name="ada-bot")
    assert (bot.owner.username, bot.description) == ("ada", "Ada's")
    version = BotVersion.objects.get(bot=bot)
    assert version.status == "ready" and version.validation_replay is not None

    # The same folder again is the same archive: the same version, nothing stored twice.
    status, out, _ = arena(["bot", "submit", "ada-bot"], capsys)
    assert status == 0 and "This archive is already ada-bot@1: nothing new was stored" in out
    assert BotVersion.objects.filter(bot=bot).count() == 1

    # A new version, for machines, without waiting.
    toml = home / "ada-bot" / "bot.toml"
    toml.write_text(toml.read_text().replace('version = "0.1.0"', 'version = "0.2.0"'))
    status, out, err = arena(["bot", "submit", "ada-bot", "--json", "--no-wait"], capsys)
    assert status == 0, err
    result = json.loads(out)
    assert (result["label"], result["version"], result["new_version"]) == ("ada-bot@2", 2, True)
    assert result["status"] in {"validating", "ready"} and not result["created_bot"]
    assert result["url"] == f"{server}/bots/ada-bot/v2/"
    assert result["archive"]["files"] == 5 and "__pycache__/" in result["archive"]["skipped"]
    assert BotVersion.objects.filter(bot=bot).count() == 2


def test_a_bot_that_fails_its_validation_game_is_reported_refused_with_its_fault(
    home: Path,
    ada: dict[str, Any],
    worker: None,
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bwrap: str,
) -> None:
    from webui.league.models import BotVersion

    monkeypatch.setenv("ARENA_TOKEN", ada["token"])
    monkeypatch.setenv("ARENA_SERVER", live_server.url)
    assert arena(["bot", "new", "quitter"], capsys)[0] == 0
    (home / "quitter" / "bot.py").write_text(FAILING_BOT)
    status, out, err = arena(["bot", "submit", "quitter", "--json"], capsys)
    assert status == 1, err
    result = json.loads(out)
    assert result["status"] == "failed" and result["reason"].startswith("start")
    game = result["validation"]
    assert game["players"] == ["quitter@1", "random (sample bot)"]
    assert game["totals"] == [0, 0]
    assert game["winner"] == "random (sample bot)" and game["forfeit"]["side"] == 0
    assert [f["kind"] for f in game["faults"]] == ["start"]
    assert BotVersion.objects.get(bot__name="quitter").status == "failed"

    status, out, _ = arena(["bot", "submit", "quitter"], capsys)  # the same, for people
    assert status == 1
    assert "✗ quitter@1 was refused: start" in out
    assert "Fault: deal 1, move 1, seat 0: start" in out
    assert "random (sample bot) won by forfeit" in out and "/bots/quitter/v1/" in out


@pytest.mark.parametrize(
    "case",
    [
        "no manifest",
        "too many files",
        "no token",
        "wrong token",
        "unreachable",
        "someone else's bot",
        "bad server",
        "past the upload limit",
    ],
)
def test_bad_input_gets_one_clear_line_a_failing_status_and_changes_nothing(
    case: str,
    home: Path,
    ada: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    settings: Any,
) -> None:
    from webui.league.models import Bot, BotVersion

    folder = home / "case-bot"
    assert arena(["bot", "new", "case-bot"], capsys)[0] == 0
    monkeypatch.setenv("ARENA_SERVER", live_server.url)
    monkeypatch.setenv("ARENA_TOKEN", ada["token"])
    expected = {
        "no manifest": "no bot.toml",
        "too many files": "holds more than 2,000 files, the most an upload may hold",
        "no token": f"no API token for {live_server.url}: run `arena login",
        "wrong token": f"{live_server.url} refused the token of ARENA_TOKEN (the API token "
        "is not valid)",
        "unreachable": "cannot reach http://127.0.0.1:",
        "someone else's bot": "bot 'taken' belongs to bea",
        "bad server": "server 'ftp://example.org': give the site's address",
        "past the upload limit": "refused case-bot (0.1.0): at most 0 uploads per hour for one "
        "user (ARENA_UPLOADS_PER_HOUR)",
    }[case]
    argv = ["bot", "submit", str(folder)]
    if case == "no manifest":
        (folder / "bot.toml").unlink()
    elif case == "too many files":
        for k in range(2001):
            (folder / f"data-{k}.txt").write_text("x")
    elif case == "no token":
        monkeypatch.delenv("ARENA_TOKEN")
    elif case == "wrong token":
        monkeypatch.setenv("ARENA_TOKEN", "sa_not-a-real-token")
    elif case == "unreachable":
        argv += ["--server", f"http://127.0.0.1:{free_port()}"]
    elif case == "someone else's bot":
        toml = folder / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "case-bot"', 'name = "taken"'))
    elif case == "bad server":
        argv += ["--server", "ftp://example.org"]
    elif case == "past the upload limit":
        from webui.league import versions

        versions.create_bot(ada["user"], "case-bot", "")
        settings.ARENA_UPLOADS_PER_HOUR = 0
    bots, versions = Bot.objects.count(), BotVersion.objects.count()
    status, _, err = arena(argv, capsys)
    assert status == (1 if case == "past the upload limit" else 2)  # 1: the site refused it
    assert expected in one_line(err)
    assert (Bot.objects.count(), BotVersion.objects.count()) == (bots, versions)


@pytest.mark.parametrize("case", ["wrong token", "empty", "unreachable", "not a token"])
def test_login_refuses_a_bad_token_or_site_and_saves_nothing(
    case: str,
    home: Path,
    ada: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = live_server.url if case != "unreachable" else f"http://127.0.0.1:{free_port()}"
    token = {
        "wrong token": "sa_wrong",
        "empty": "",
        "unreachable": ada["token"],
        "not a token": "my password is ada-pass-123",
    }[case]
    expected = {
        "wrong token": "refused this token (the API token is not valid); nothing was saved",
        "empty": "no token given",
        "unreachable": "cannot reach",
        "not a token": "that is not a token",
    }[case]
    status, _, err = arena(["login", "--server", server], capsys, token + "\n", monkeypatch)
    assert status == 2 and expected in one_line(err)
    assert not (home / "config" / "scopa-arena" / "credentials.json").exists()


def test_without_a_worker_the_wait_ends_at_the_timeout_with_its_own_status(
    home: Path,
    ada: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webui.league.models import BotVersion

    monkeypatch.setenv("ARENA_TOKEN", ada["token"])
    monkeypatch.setenv("ARENA_SERVER", live_server.url)
    assert arena(["bot", "new", "patient"], capsys)[0] == 0
    status, out, _ = arena(["bot", "submit", "patient", "--timeout", "1.5"], capsys)
    assert status == 3  # no worker runs in this test: the version is still validating
    assert "patient@1 is being validated" in out and "Still validating after 1.5 s" in out
    assert BotVersion.objects.get(bot__name="patient").status == "validating"
    status, _, err = arena(["bot", "submit", "patient", "--timeout", "0"], capsys)
    assert status == 2 and "--timeout 0: must be more than 0 seconds" in one_line(err)


def test_submit_warns_of_identical_code_keeps_test_then_promote_and_promote_changes_the_ladder(
    home: Path,
    ada: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from archive_samples import make_zip

    from arena.archives import check_archive
    from arena.sdk.client import ArenaClient
    from arena.sdk.packing import pack_folder
    from webui.league import versions
    from webui.league.models import BotVersion, LadderEntry

    monkeypatch.setenv("ARENA_TOKEN", ada["token"])
    monkeypatch.setenv("ARENA_SERVER", live_server.url)
    assert arena(["bot", "new", "cli-bot"], capsys)[0] == 0
    # Version 1: the folder's files in a zip (another archive than the one submit packs).
    files = check_archive(pack_folder(str(home / "cli-bot")).data).files
    client = ArenaClient(live_server.url, ada["token"])
    client.create_bot("cli-bot")
    client.request(
        "POST",
        "/api/bots/cli-bot/versions",
        make_zip({f.path: f.data for f in files}),
        "application/zip",
    )
    first = BotVersion.objects.get(bot__name="cli-bot", number=1)
    assert versions.finish_validation(first.pk, True)

    status, out, err = arena(["bot", "submit", "cli-bot", "--no-wait"], capsys)
    assert status == 0 and "Uploaded cli-bot@2" in out
    assert "Warning: the code of cli-bot@2 is identical to cli-bot@1" in err

    bot_py = home / "cli-bot" / "bot.py"
    bot_py.write_text(bot_py.read_text() + "\n# a change\n")
    status, out, _ = arena(
        ["bot", "submit", "cli-bot", "--no-wait", "--test-then-promote", "--json"], capsys
    )
    result = json.loads(out)
    assert status == 0 and result["label"] == "cli-bot@3" and result["warning"] == ""
    assert BotVersion.objects.get(bot__name="cli-bot", number=3).promote_on_pass is True
    assert BotVersion.objects.get(bot__name="cli-bot", number=2).promote_on_pass is False

    status, _, err = arena(["bot", "promote", "cli-bot", "2"], capsys)
    assert status == 1 and "version cli-bot@2 is validating, not ready" in one_line(err)
    status, _, err = arena(["bot", "promote", "cli-bot", "two"], capsys)
    assert status == 2 and "version 'two': give its number" in one_line(err)
    status, _, err = arena(["bot", "promote", "taken", "1"], capsys)
    assert status == 1 and "only the owner of bot 'taken'" in one_line(err)
    assert LadderEntry.objects.get(bot__name="cli-bot").version_id == first.pk

    versions.finish_validation(BotVersion.objects.get(bot__name="cli-bot", number=2).pk, True)
    status, out, _ = arena(["bot", "status", "cli-bot"], capsys)
    assert "candidate: cli-bot@2, not on the ladder (arena bot promote cli-bot 2)" in out
    status, out, err = arena(["bot", "promote", "cli-bot", "cli-bot@2"], capsys)
    assert status == 0, err
    assert "cli-bot@2 is the ladder version of cli-bot (active)" in out
    assert LadderEntry.objects.get(bot__name="cli-bot").version.number == 2
