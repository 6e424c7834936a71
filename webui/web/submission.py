"""Stores a checked bot archive and adds it to its bot as a new version (validated by a worker).

The archive is checked first (:func:`arena.archives.check_upload`: every bound is checked
before anything is inflated, and of a zip only ``bot.toml`` is, so the check costs a request
thread a fraction of a second at most); then, in one
transaction, its bytes are kept in the database (:func:`~webui.league.versions.store_archive`,
where workers on any host find them) and the league's
:func:`~webui.league.versions.register_version` adds the version, which enqueues the
``arena.validate_version`` task once the transaction commits. The request writes no file:
the version's folder (content-addressed by its sha256) is unpacked by the worker that first
plays it (:func:`webui.league.bot_files.local_folder`), off the site's request threads, and
reads every byte: what only the bytes show (damaged data) fails the version's validation, once.
A refused archive leaves no row behind. Access rules (who may upload to which bot) are the
callers' job.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from arena.archives import ArchiveError, CheckedArchive, check_upload
from arena.engine import VARIANTS
from webui.league import errors, versions
from webui.league.models import Bot, BotVersion


class SubmissionError(ValueError):
    """An upload that is refused; the message says why in one line."""


def check(data: bytes) -> CheckedArchive:
    """Checks an uploaded archive against the limits and the manifest rules, as far as a request
    can afford (:func:`arena.archives.check_upload`: a zip's directory and its ``bot.toml``)."""
    try:
        return check_upload(data, frozenset(VARIANTS))
    except ArchiveError as exc:
        raise SubmissionError(str(exc)) from None


def add_version(bot: Bot, data: bytes, *, promote_on_pass: bool = False) -> tuple[BotVersion, bool]:
    """Checks, stores and registers an archive as a new version of ``bot``.

    Returns the version and whether it is new (the same archive uploaded twice is the same
    version; the same files in another archive are a new version, which
    :func:`identical_code_warning` names: :func:`arena.archives.code_digest`).
    ``promote_on_pass``: the version becomes the ladder version when a version test of it
    accepts H1. Raises :class:`SubmissionError` and stores
    nothing when the archive is refused.
    """
    checked = check(data)
    name = checked.manifest["name"]
    if name != bot.name:
        raise SubmissionError(f"bot.toml names bot {name!r}, but this is bot {bot.name!r}")
    existing = BotVersion.objects.filter(bot=bot, sha256=checked.sha256).first()
    if existing is not None:
        # The same version; its archive row is stored again if it went missing or was damaged.
        versions.store_archive(checked.sha256, checked.kind, data)
        return existing, False
    folder = Path(settings.ARENA_BOTS_DIR) / checked.sha256  # a worker unpacks it there
    try:
        with transaction.atomic():
            versions.store_archive(checked.sha256, checked.kind, data)
            version, created = versions.register_version(
                bot,
                sha256=checked.sha256,
                code_sha256=checked.code,
                promote_on_pass=promote_on_pass,
                manifest=checked.manifest,  # JSON-ready: parse_manifest made it so
                source_dir=str(folder.relative_to(settings.ARENA_DATA_DIR))
                if folder.is_relative_to(settings.ARENA_DATA_DIR)
                else str(folder),
            )
    except errors.LeagueError as exc:
        raise SubmissionError(str(exc)) from None
    return version, created


def identical_code_warning(version: BotVersion, created: bool) -> str:
    """One line when an upload's code is that of an existing version of the bot, else ""."""
    if not created:
        return f"this archive is {version.label} already: nothing new was stored"
    same = versions.same_code(version)
    if same is None:
        return ""
    return (
        f"the code of {version.label} is identical to {same.label} (the same files, "
        "packed again): a version test of the two would measure nothing"
    )


def create_bot_with_version(
    owner: Any, name: str, description: str, data: bytes | None
) -> tuple[Bot, BotVersion | None]:
    """Creates a bot and, when an archive is given, its first version: both or nothing."""
    checked = check(data) if data else None
    if checked is not None and checked.manifest["name"] != name:
        raise SubmissionError(
            f"bot.toml names bot {checked.manifest['name']!r}, but the form names {name!r}"
        )
    with transaction.atomic():
        try:
            bot = versions.create_bot(owner, name, description)
        except errors.LeagueError as exc:
            raise SubmissionError(str(exc)) from None
        version = add_version(bot, data)[0] if data else None
    return bot, version
