"""Workers get an uploaded version's folder from the database when their host has not got it:
unpacked once, checked against its sha256, safely and atomically; a damaged or missing archive is
a one-line failure, never a crash. The task bodies run in this process with the real runner in
bubblewrap; "another host" is a fresh ``ARENA_DATA_DIR``."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from worker_helpers import archive_files, folder_files, playable_zip

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


@pytest.fixture
def owner(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("owner")


@pytest.fixture
def other_host(settings: Any, tmp_path: Path) -> Path:
    """This process as a host that never saw an upload: an empty data dir of its own."""
    data = tmp_path / "host"
    data.mkdir()
    settings.ARENA_DATA_DIR = data
    settings.ARENA_BOTS_DIR = data / "bots"
    settings.ARENA_ARCHIVES_DIR = data / "archives"
    return data


def stored_version(owner: Any, name: str, validate: bool = False) -> Any:
    """A version uploaded on some other host: its archive in the database, no folder here."""
    import hashlib

    from webui.league import versions

    data = playable_zip(name)
    sha256 = hashlib.sha256(data).hexdigest()
    bot = versions.create_bot(owner, name)
    versions.store_archive(sha256, "zip", data)
    version, _ = versions.register_version(
        bot,
        sha256=sha256,
        manifest={"name": name, "variants": ["*"]},
        source_dir=f"bots/{sha256}",
        validate=validate,
    )
    return version


def damage(version: Any) -> None:
    from webui.league.models import BotArchive

    data = bytearray(playable_zip(version.bot.name))
    data[-30] ^= 0xFF
    BotArchive.objects.filter(sha256=version.sha256).update(data=bytes(data))


def test_an_upload_is_unpacked_from_the_database_by_its_worker_and_validates(
    owner: Any, bwrap: str, settings: Any
) -> None:
    from webui.league import versions
    from webui.league.models import BotVersion
    from webui.web.submission import add_version
    from workers import tasks

    bot = versions.create_bot(owner, "uploaded")
    version, created = add_version(bot, playable_zip("uploaded"))
    assert created
    folder = Path(settings.ARENA_DATA_DIR) / version.source_dir
    assert not folder.exists()  # the upload's request wrote no file: the worker unpacks it
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: ready"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY, version.status_reason
    assert folder_files(folder) == archive_files(playable_zip("uploaded"))
    assert folder.stat().st_mode & 0o755 == 0o755  # readable by the sandbox's own user


def test_a_match_of_an_upload_plays_on_a_host_that_never_saw_it(
    owner: Any, other_host: Path, bwrap: str
) -> None:
    from webui.league import seasons, variants, versions
    from webui.league.models import Game, Match
    from workers import tasks

    version = stored_version(owner, "uploaded")
    season = seasons.create_season(
        name="elsewhere",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=[version, versions.register_folder_bot(owner, SAMPLES / "random")],
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=5000,
        seed=3,
    )
    seasons.start_season(season)
    match = Match.objects.get(season=season)
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: recorded"
    games = list(Game.objects.filter(match=match))
    assert len(games) == 2 and all(not g.void and not g.faults for g in games)
    assert folder_files(other_host / "bots" / version.sha256) == archive_files(
        playable_zip("uploaded")
    )
    assert [p.name for p in (other_host / "bots").iterdir()] == [version.sha256]


@pytest.mark.parametrize("trouble", ["damaged", "missing"])
def test_a_damaged_or_missing_archive_fails_validation_with_its_reason_and_nothing_else(
    trouble: str, owner: Any, other_host: Path
) -> None:
    from webui.league.models import BotArchive, BotVersion
    from workers import tasks

    version = stored_version(owner, "broken", validate=True)
    if trouble == "damaged":
        damage(version)
    else:
        BotArchive.objects.filter(sha256=version.sha256).delete()
    archives = {a.sha256: bytes(a.data) for a in BotArchive.objects.all()}
    assert tasks.validate_version.run(version.pk).startswith(f"version {version.pk}: failed")
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED
    expected = {
        "damaged": f"broken@1: archive {version.sha256[:12]} in the database is damaged "
        "(its bytes hash to ",
        "missing": f"broken@1: no folder {other_host / 'bots' / version.sha256} on this host "
        f"and no archive {version.sha256[:12]} in the database",
    }[trouble]
    assert version.status_reason.startswith(expected), version.status_reason
    assert "\n" not in version.status_reason
    assert {a.sha256: bytes(a.data) for a in BotArchive.objects.all()} == archives
    assert not (other_host / "bots").exists() or not any((other_host / "bots").iterdir())


def test_a_match_whose_archive_is_damaged_is_void_with_the_reason(
    owner: Any, other_host: Path
) -> None:
    from webui.league import seasons, variants, versions
    from webui.league.models import Game, Match
    from workers import tasks

    version = stored_version(owner, "broken")
    damage(version)
    season = seasons.create_season(
        name="damaged",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=[version, versions.register_folder_bot(owner, SAMPLES / "random")],
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=5000,
        seed=3,
    )
    seasons.start_season(season)
    match = Match.objects.get(season=season)
    assert tasks.play_match.run(match.pk).startswith(f"match {match.pk}: void")
    match.refresh_from_db()
    assert match.status == "void" and match.attempts == 1
    assert "in the database is damaged" in match.error
    assert not Game.objects.filter(match=match).exists()
    assert not (other_host / "bots").exists() or not any((other_host / "bots").iterdir())


@pytest.mark.django_db(transaction=True)
def test_processes_racing_to_unpack_one_version_all_get_one_intact_folder(
    other_host: Path, postgres_available: bool
) -> None:
    from django.contrib.auth.models import User
    from django.db import connection

    from webui.league.bot_files import local_folder

    version = stored_version(User.objects.create_user("racer"), "racer")
    racers = 6
    barrier = threading.Barrier(racers)
    results: list[Any] = []

    def race() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(local_folder(version))
        except Exception as error:  # reported by the assertion below
            results.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=race) for _ in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    folder = other_host / "bots" / version.sha256
    assert results == [folder] * racers
    assert folder_files(folder) == archive_files(playable_zip("racer"))
    assert [p.name for p in (other_host / "bots").iterdir()] == [version.sha256]  # no scratch


def test_a_sample_bot_registered_from_another_checkout_is_this_checkouts_sample(
    owner: Any, tmp_path: Path
) -> None:
    from arena.runner import BotRef
    from webui.league import versions
    from webui.league.bot_files import BotFilesError, bot_ref_text

    elsewhere = tmp_path / "other-checkout" / "sample_bots"
    shutil.copytree(
        SAMPLES / "random", elsewhere / "random", ignore=shutil.ignore_patterns("__pycache__")
    )
    version = versions.register_folder_bot(owner, elsewhere / "random")
    shutil.rmtree(elsewhere / "random")
    ref = BotRef.parse(bot_ref_text(version))
    assert ref.folder == (SAMPLES / "random").resolve() and ref.trusted

    # A folder of the same name with other content is not the sample.
    shutil.copytree(
        SAMPLES / "greedy", elsewhere / "greedy", ignore=shutil.ignore_patterns("__pycache__")
    )
    (elsewhere / "greedy" / "bot.toml").write_text(
        (elsewhere / "greedy" / "bot.toml")
        .read_text()
        .replace('name = "greedy"', 'name = "greedy-fork"')
    )
    fork = versions.register_folder_bot(owner, elsewhere / "greedy")
    shutil.rmtree(elsewhere / "greedy")
    with pytest.raises(BotFilesError, match="no archive"):
        bot_ref_text(fork)


def test_load_archives_stores_the_files_of_older_uploads_once(owner: Any, other_host: Path) -> None:
    import hashlib
    import io

    from django.core.management import CommandError, call_command

    from webui.league import versions
    from webui.league.models import BotArchive

    archives = other_host / "archives"
    archives.mkdir()
    legacy = []
    for name in ("old-one", "old-two"):
        data = playable_zip(name)
        sha256 = hashlib.sha256(data).hexdigest()
        (archives / f"{sha256}.zip").write_bytes(data)
        version, _ = versions.register_version(
            versions.create_bot(owner, name),
            sha256=sha256,
            manifest={"name": name},
            source_dir=f"bots/{sha256}",
            archive_path=str(archives / f"{sha256}.zip"),
        )
        legacy.append(version)
    lost, _ = versions.register_version(
        versions.create_bot(owner, "lost"),
        sha256="f" * 64,
        manifest={"name": "lost"},
        source_dir="bots/" + "f" * 64,
        archive_path=str(archives / ("f" * 64 + ".zip")),
    )
    versions.register_folder_bot(owner, SAMPLES / "random")  # a sample: no archive to load

    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 version"):
        call_command("load_archives", stdout=out, stderr=err)
    assert out.getvalue().splitlines() == [
        "loaded 2 archive(s) into the database; 0 version(s) had theirs there already",
        "  loaded old-one@1",
        "  loaded old-two@1",
    ]
    assert err.getvalue().strip() == f"missing lost@1: no file {archives / ('f' * 64 + '.zip')}"
    stored = {a.sha256: bytes(a.data) for a in BotArchive.objects.all()}
    assert stored == {v.sha256: (archives / f"{v.sha256}.zip").read_bytes() for v in legacy}

    lost.delete()
    call_command("load_archives", stdout=out)  # again: nothing new, nothing missing
    assert out.getvalue().splitlines()[-1] == (
        "loaded 0 archive(s) into the database; 2 version(s) had theirs there already"
    )
    assert {a.sha256: bytes(a.data) for a in BotArchive.objects.all()} == stored
