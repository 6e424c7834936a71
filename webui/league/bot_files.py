"""A version's bot folder on this host, from the database when this host has not got it yet.

The database is the source of truth of uploaded bots: each archive's bytes are a
:class:`~webui.league.models.BotArchive` row, stored with its version. A worker asks
:func:`bot_ref_text` for what the runner should play: the version's folder at its
``source_dir`` when this host has it (a relative one under this host's ``ARENA_DATA_DIR``);
else this host's ``ARENA_BOTS_DIR/<sha256>``, unpacked there from the database on first use,
after checking the bytes against the sha256, with the site's own safe unpacking
(:mod:`arena.archives`), atomically, so processes racing on the same version all end up
with one good folder. A sample bot registered from a checkout elsewhere (an absolute folder this
host lacks) is this checkout's sample bot of the same name when its content hash is the same.
:func:`load_archive_files` (``manage.py load_archives``) stores the archive files of versions
uploaded before archives lived in the database.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from arena.archives import ArchiveError, archive_kind, read_archive, unpack
from arena.runner.bots import SAMPLE_BOTS

from .models import BotArchive, BotVersion

log = logging.getLogger("arena.league")


class BotFilesError(ValueError):
    """A version whose folder this host cannot have: its archive is missing or damaged."""


def bot_ref_text(version: BotVersion) -> str:
    """What :meth:`arena.runner.BotRef.parse` takes for ``version`` on this host.

    The bot's address, or its local folder (:func:`local_folder`). Raises
    :class:`BotFilesError` with a one-line reason when the folder cannot be had.
    """
    if version.address:
        return version.address
    return str(local_folder(version))


def local_folder(version: BotVersion) -> Path:
    """The version's folder on this host, unpacked from the database if need be."""
    configured = Path(version.bot_ref_text())
    if configured.is_dir():
        return configured
    unpacked = Path(settings.ARENA_BOTS_DIR) / version.sha256
    if unpacked.is_dir():
        return unpacked
    twin = sample_twin(version)
    if twin is not None:
        return twin
    archive = BotArchive.objects.filter(sha256=version.sha256).first()
    if archive is None:
        raise BotFilesError(
            f"{version.label}: no folder {configured} on this host and no archive "
            f"{version.sha256[:12]} in the database"
        )
    data = bytes(archive.data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != version.sha256:
        raise BotFilesError(
            f"{version.label}: archive {version.sha256[:12]} in the database is damaged "
            f"(its bytes hash to {digest[:12]})"
        )
    try:
        _, files = read_archive(data)
        if unpack(files, unpacked):
            log.info(
                "%s: unpacked archive %s into %s", version.label, version.sha256[:12], unpacked
            )
    except ArchiveError as error:
        raise BotFilesError(
            f"{version.label}: archive {version.sha256[:12]} cannot be unpacked: {error}"
        ) from None
    return unpacked


def sample_twin(version: BotVersion) -> Path | None:
    """This checkout's sample bot with the content of ``version``'s absolute folder, if any."""
    if not version.source_dir or not Path(version.source_dir).is_absolute():
        return None
    candidate = SAMPLE_BOTS / Path(version.source_dir).name
    if not candidate.is_dir():
        return None
    from .versions import folder_sha256

    return candidate if folder_sha256(candidate) == version.sha256 else None


@dataclass
class LoadReport:
    """What :func:`load_archive_files` did: versions loaded, already stored, and not found."""

    loaded: list[str] = field(default_factory=list)
    present: int = 0
    missing: list[str] = field(default_factory=list)


def load_archive_files() -> LoadReport:
    """Stores the archive files of versions uploaded before archives lived in the database.

    Each uploaded version without a :class:`BotArchive` row gets one from its ``archive_path``
    (or ``ARENA_ARCHIVES_DIR/<sha256>.zip`` or ``.tar.gz``) when the file's bytes hash to its
    ``sha256``. Safe to run again: stored archives are skipped. Versions with an address, and
    folder bots registered by an absolute path (the samples), have no archive and are left out.
    """
    from .versions import store_archive

    report = LoadReport()
    stored = set(BotArchive.objects.values_list("sha256", flat=True))
    archives = Path(settings.ARENA_ARCHIVES_DIR)
    versions = BotVersion.objects.select_related("bot").filter(address="").order_by("pk")
    for version in versions:
        if version.sha256 in stored:
            report.present += 1
            continue
        uploaded = bool(version.archive_path) or not Path(version.source_dir).is_absolute()
        if not uploaded:
            continue
        candidates = [Path(version.archive_path)] if version.archive_path else []
        candidates += [archives / f"{version.sha256}.{kind}" for kind in BotArchive.Kind.values]
        found = next((path for path in candidates if path.is_file()), None)
        if found is None:
            report.missing.append(f"{version.label}: no file {candidates[0]}")
            continue
        data = found.read_bytes()
        kind = archive_kind(data)
        if kind is None or hashlib.sha256(data).hexdigest() != version.sha256:
            report.missing.append(f"{version.label}: {found} is not its archive (sha256 differs)")
            continue
        store_archive(version.sha256, kind, data)
        stored.add(version.sha256)
        report.loaded.append(version.label)
    return report
