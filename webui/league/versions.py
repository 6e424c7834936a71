"""Bots and their versions: create a bot, register a version (an uploaded archive's, a folder's,
an address), keep an archive's bytes, and record a validation's outcome.

Each function is safe to run twice: the same archive is the same version, a validation outcome
is recorded once. A new version is validated by a worker (``arena.validate_version``, enqueued
after the transaction commits); one that passes enters the continuous ladder
(:mod:`webui.league.ladder`) if it is its bot's first, else it is a candidate its owner
promotes. Uploads are checked and unpacked before they get here
(:mod:`webui.web.submission`, :mod:`arena.archives`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from arena.archives import ArchiveError, parse_manifest

from . import inputs, read_models
from .errors import LeagueError
from .ladder import enter_validated
from .models import Bot, BotArchive, BotVersion
from .queue import enqueue

log = logging.getLogger("arena.league")


def create_bot(owner: Any, name: str, description: str = "") -> Bot:
    """A new bot; the name must be unique and URL-safe (``[a-z0-9-]{1,40}``)."""
    if not name or slugify(name) != name or len(name) > 40:
        raise LeagueError(f"bot name {name!r}: use 1 to 40 of a-z, 0-9 and -")
    if Bot.objects.filter(name=name).exists():
        raise LeagueError(f"bot name {name!r} is taken")
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:
        raise LeagueError(f"bot name {name!r} is taken") from None


def register_version(
    bot: Bot,
    *,
    sha256: str,
    manifest: dict[str, Any],
    source_dir: str = "",
    archive_path: str = "",
    address: str = "",
    validate: bool = True,
    code_sha256: str = "",
    promote_on_pass: bool = False,
) -> tuple[BotVersion, bool]:
    """Adds a version to ``bot``, or returns the one with the same ``sha256``.

    The caller has stored the archive and unpacked it (``source_dir``, relative to
    ``ARENA_DATA_DIR`` or absolute), or gives the ``address`` of a bot run elsewhere. A new
    version starts ``validating`` and a validation game is enqueued (unless ``validate`` is
    false, when it is ready at once: only for trusted bots such as the samples). Returns the
    version and whether it is new. ``code_sha256`` identifies its code whatever its packing
    (:func:`arena.archives.code_digest`); ``promote_on_pass`` makes the version the ladder
    version when a version test of it accepts H1.
    """
    if not source_dir and not address:
        raise LeagueError("a bot version needs an unpacked folder or an address")
    for _attempt in range(3):
        existing = BotVersion.objects.filter(bot=bot, sha256=sha256).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                Bot.objects.select_for_update().filter(pk=bot.pk).first()
                number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
                version = BotVersion.objects.create(
                    bot=bot,
                    number=number,
                    sha256=sha256,
                    code_sha256=code_sha256,
                    promote_on_pass=promote_on_pass,
                    manifest=manifest,
                    source_dir=source_dir,
                    archive_path=archive_path,
                    address=address,
                    status=BotVersion.Status.VALIDATING if validate else BotVersion.Status.READY,
                    validated=None if validate else timezone.now(),
                )
                if validate:
                    enqueue("arena.validate_version", version.pk)
                return version, True
        except IntegrityError:
            continue  # a concurrent upload of the same archive or number: look again
    raise LeagueError(f"could not add a version to {bot.name}: try again")


def store_archive(sha256: str, kind: str, data: bytes) -> bool:
    """Keeps an uploaded archive's bytes in the database; False if they are there already.

    A row whose bytes no longer hash to its name (damaged) is written again with ``data``.
    Call it in the transaction that registers the version, so both are stored or neither.
    """
    if hashlib.sha256(data).hexdigest() != sha256:
        raise LeagueError(f"archive {sha256[:12]}: its bytes do not hash to its name")
    archive, created = BotArchive.objects.get_or_create(
        sha256=sha256, defaults={"kind": kind, "data": data, "size": len(data)}
    )
    if created or hashlib.sha256(bytes(archive.data)).hexdigest() == sha256:
        return created
    BotArchive.objects.filter(sha256=sha256).update(kind=kind, data=data, size=len(data))
    log.warning("archive %s was damaged in the database: stored again from an upload", sha256[:12])
    return True


def same_code(version: BotVersion) -> BotVersion | None:
    """The bot's first other version with the same code (same archive, or same unpacked
    files), or None."""
    others = BotVersion.objects.filter(bot_id=version.bot_id).exclude(pk=version.pk)
    if version.code_sha256:
        others = others.filter(code_sha256=version.code_sha256)
    else:
        others = others.filter(sha256=version.sha256)
    return others.order_by("number").first()


def folder_sha256(folder: Path) -> str:
    """A content address for a bot folder: its files' paths and bytes, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if any(
            part in {"__pycache__", "node_modules"} or part.startswith(".")
            for part in relative.parts
        ):
            continue
        digest.update(str(relative).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def register_folder_bot(owner: Any, folder: Path, *, validate: bool = False) -> BotVersion:
    """Registers a bot folder with a ``bot.toml`` (the sample bots) as a bot and a version.

    Idempotent: the same folder content gives the same version.
    """
    folder = folder.resolve()
    try:
        raw = (folder / "bot.toml").read_bytes()
    except OSError as error:
        raise LeagueError(f"{folder / 'bot.toml'}: {error.strerror or error}") from None
    try:  # the one bot.toml parser, bounded before it parses, as for uploads
        manifest = parse_manifest(raw)
    except ArchiveError as error:
        raise LeagueError(f"{folder}: {error}") from None
    name = str(manifest.get("name", ""))
    bot = Bot.objects.filter(name=name).first() or create_bot(owner, name)
    version, _ = register_version(
        bot,
        sha256=folder_sha256(folder),
        manifest=manifest,
        source_dir=str(folder),
        validate=validate,
    )
    return version


def finish_validation(
    version_id: int,
    ok: bool,
    reason: str = "",
    log_text: str = "",
    replay: Mapping[str, Any] | None = None,
    games: list[dict[str, Any]] | None = None,
) -> bool:
    """Records a validation outcome once: ``validating`` to ``ready`` or ``failed``; a bot's
    first ready version enters the continuous ladder (:mod:`webui.league.ladder`), a later
    one is a candidate.

    ``games`` summarizes each validation game (:func:`webui.league.validation.judge`).
    """
    # One transaction: no reader sees a version ready and not yet on the ladder.
    with transaction.atomic():
        # A bot's own output and messages are in all of these: kept, made storable.
        changed = BotVersion.objects.filter(
            pk=version_id, status=BotVersion.Status.VALIDATING
        ).update(
            status=BotVersion.Status.READY if ok else BotVersion.Status.FAILED,
            status_reason="" if ok else inputs.storable(reason[:500]),
            validation_log=inputs.storable(log_text[-100_000:]),
            validation_replay=inputs.storable_json(replay),
            validation_games=inputs.storable_json(games or []),
            validated=timezone.now(),
        )
        if changed and ok:
            enter_validated(version_id)  # a bot's first version to pass enters the ladder
    if changed:
        read_models.bot_changed(
            BotVersion.objects.filter(pk=version_id).values_list("bot_id", flat=True)
        )
    return changed == 1
