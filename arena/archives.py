"""Bot archives (zip or tar.gz): the checks an upload passes, and the one safe way to unpack.

An archive is refused, with one line saying why, when it is too big, is not a zip or a tar.gz,
holds a path that escapes its folder, is too deep or too long, a link or a special file,
unpacks to too many files or too many bytes (an archive bomb: past 50 MiB, or past
``MAX_RATIO`` times its own size), or lacks a ``bot.toml`` that passes :mod:`arena.manifest`
(the runner's own rules). Every bound is checked before the bytes it bounds are read: a zip's
entries from its directory, a tar.gz's inflated size as it inflates. Checking reads the archive
in memory and writes nothing; :func:`unpack` writes checked files into a new folder,
atomically. Standard library and the arena's own checks only: ``arena bot submit`` checks an
upload with it before sending it; the site checks uploads with it (:func:`check_upload`,
:mod:`webui.web.submission`); workers, which never import the site, unpack archives from the
database with it (:mod:`webui.league.bot_files`) and check bot folders (:func:`check_folder`).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import stat
import tarfile
import tempfile
import tomllib
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from arena import inputs
from arena import manifest as manifests
from arena.manifest import MANIFEST_FILE as MANIFEST

MAX_ARCHIVE_BYTES = 5 * 1024 * 1024
"""The largest archive accepted, as uploaded."""
MAX_UNPACKED_BYTES = 50 * 1024 * 1024
"""The most bytes an archive may unpack to, all files together."""
MAX_FILES = 2000
"""The most files (and folders) an archive may hold."""
MAX_MANIFEST_BYTES = manifests.MAX_MANIFEST_BYTES
"""``bot.toml`` is kept in the database with the version (a few hundred bytes, normally)."""
MAX_PATH_DEPTH = 32
"""The most parts a path may have (``src/a/b.py`` has 3): the sandbox copies and walks a bot's
folder, recursively, so a deep one must not get that far."""
MAX_PATH_CHARS = 1024
"""The longest path in an archive, in characters."""
MAX_NAME_BYTES = 255
"""The longest name of one file or folder, in UTF-8 bytes (what Linux file systems take)."""
MAX_RATIO = 100
"""How many times its own size an archive may unpack to (beyond :data:`RATIO_FREE_BYTES`)."""
RATIO_FREE_BYTES = 8 * 1024 * 1024
"""What any archive may unpack to, whatever its ratio."""
_TAR_OVERHEAD = 4096
"""Room per member for a tar's headers (its own, a long name's, a pax header) and padding."""


class ArchiveError(ValueError):
    """An archive that is refused; the message says why, in one line."""


@dataclass(frozen=True)
class BotFile:
    """One regular file of a checked archive."""

    path: str
    data: bytes
    executable: bool = False


@dataclass(frozen=True)
class CheckedArchive:
    """An archive that passed every check: its hash, kind, files and parsed manifest."""

    sha256: str
    kind: str  # "zip" or "tar.gz"
    size: int
    files: tuple[BotFile, ...]
    manifest: dict[str, Any] = field(default_factory=dict)
    code: str = ""  # code_digest of its files: the same for the same files in any archive

    @property
    def unpacked_bytes(self) -> int:
        """The total size of the files once unpacked."""
        return sum(len(f.data) for f in self.files)


def check_archive(data: bytes, variants: frozenset[str] | None = None) -> CheckedArchive:
    """Checks ``data`` and returns its files and manifest, or raises :class:`ArchiveError`.

    ``variants`` are the variant names a manifest may list (besides ``"*"``); None means every
    variant the engine knows.
    """
    kind, files = read_archive(data)
    by_path = {f.path: f for f in files}
    if MANIFEST not in by_path:
        raise ArchiveError(f"no {MANIFEST} at the top of the archive")
    manifest = parse_manifest(by_path[MANIFEST].data, variants)
    return CheckedArchive(
        sha256=hashlib.sha256(data).hexdigest(),
        kind=kind,
        size=len(data),
        files=tuple(sorted(files, key=lambda f: f.path)),
        manifest=manifest,
        code=code_digest((f.path, len(f.data), zlib.crc32(f.data)) for f in files),
    )


def code_digest(entries: Iterable[tuple[str, int, int]]) -> str:
    """What identifies an archive's code whatever its packing: a digest of each file's path
    (below the archive's one top folder, if any), size and CRC-32, in path order. A zip's
    directory holds all three, so a request computes it without inflating a byte
    (:func:`check_upload`); a tar.gz's files are read to compute it. The same files packed
    again give the same digest. (A CRC-32 is not a cryptographic hash: two different files of
    one size and CRC would be taken for the same code. Only the same owner's versions are
    compared, for a warning and to refuse a version test that would measure nothing.)"""
    digest = hashlib.sha256()
    for path, size, crc in sorted(entries):
        digest.update(f"{path}\0{size}\0{crc & 0xFFFFFFFF:08x}\n".encode())
    return digest.hexdigest()


def check_upload(data: bytes, variants: frozenset[str] | None = None) -> CheckedArchive:
    """The checks an upload's request can afford; raises :class:`ArchiveError`.

    A zip is checked by what its directory says of every entry (count, paths, links and types,
    sizes and ratio) and by its ``bot.toml``, the one member inflated: its ``files`` are empty.
    A tar.gz has no directory: it is read whole, as :func:`check_archive` does, under the
    same bounds. Whoever unpacks the archive later reads every byte with :func:`read_archive`,
    which refuses what a directory can hide (a size that lied, damaged data).
    """
    if archive_kind(data) != "zip" or len(data) > MAX_ARCHIVE_BYTES:
        return check_archive(data, variants)
    files = _strip_common_folder(_read_zip(data, manifest_only=True))
    if not files:
        raise ArchiveError(f"no {MANIFEST} at the top of the archive")
    return CheckedArchive(
        sha256=hashlib.sha256(data).hexdigest(),
        kind="zip",
        size=len(data),
        files=(),
        manifest=parse_manifest(files[0].data, variants),
        code=code_digest(_zip_directory(data)),
    )


def _zip_directory(data: bytes) -> list[tuple[str, int, int]]:
    """(path below the one top folder, size, CRC-32) of each file a checked zip's directory
    lists."""
    infos = [i for i in zipfile.ZipFile(io.BytesIO(data)).infolist() if not i.is_dir()]
    prefix = _common_folder([i.filename for i in infos])
    return [(i.filename[len(prefix) :], i.file_size, i.CRC) for i in infos]


def archive_kind(data: bytes) -> str | None:
    """``"zip"`` or ``"tar.gz"`` by the archive's first bytes, or None for anything else."""
    if data[:4] in {b"PK\x03\x04", b"PK\x05\x06"}:
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "tar.gz"
    return None


def read_archive(data: bytes) -> tuple[str, list[BotFile]]:
    """The kind and the files of an archive within the limits, or raises :class:`ArchiveError`.

    A single top folder holding everything is taken off (the bot is inside it). The manifest is
    not looked at: that is :func:`check_archive`'s job.
    """
    if not data:
        raise ArchiveError("the archive is empty")
    if len(data) > MAX_ARCHIVE_BYTES:
        raise ArchiveError(
            f"the archive is {len(data):,} bytes; the limit is {MAX_ARCHIVE_BYTES:,} bytes"
        )
    kind = archive_kind(data)
    if kind == "zip":
        raw = _read_zip(data)
    elif kind == "tar.gz":
        raw = _read_tar(data)
    else:
        raise ArchiveError("not a zip or tar.gz archive")
    return kind, _strip_common_folder(raw)


def unpack(files: Iterable[BotFile], target: Path) -> bool:
    """Writes ``files`` into the new folder ``target``, atomically: a scratch folder, renamed.

    Everything is readable by all (the sandbox runs a bot as an unprivileged user of its own).
    Returns False when ``target`` appeared meanwhile (another process unpacked the same archive:
    content-addressed folders are equal), leaving it as it is. Raises :class:`ArchiveError` for
    a path that would land outside the folder, ``OSError`` when the disk refuses; either way
    nothing is left behind.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        os.chmod(scratch, 0o755)
        root = scratch.resolve()
        for f in files:
            path = scratch / f.path
            # The paths were checked, but a file must never land outside its folder.
            if root not in path.resolve().parents:
                raise ArchiveError(f"path {f.path!r} escapes the archive's folder")
            for parent in reversed(path.relative_to(scratch).parents[:-1]):
                (scratch / parent).mkdir(mode=0o755, exist_ok=True)
                os.chmod(scratch / parent, 0o755)
            path.write_bytes(f.data)
            os.chmod(path, 0o755 if f.executable else 0o644)
        try:
            scratch.rename(target)
        except OSError:
            if not target.is_dir():
                raise
            shutil.rmtree(scratch, ignore_errors=True)  # the same archive, unpacked already
            return False
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return True


def check_folder(folder: Path) -> None:
    """Refuses a bot folder deeper than :data:`MAX_PATH_DEPTH`, holding more than
    :data:`MAX_FILES` entries, or holding anything but files, folders and links (a named pipe,
    a device), with :class:`ArchiveError` naming the bound.

    For folders that were not checked as an archive (unpacked before the bounds, or given by
    path): the sandbox copies and walks a bot's folder recursively, and a folder it cannot copy
    is the bot's fault, not the host's. The walk is iterative, enters no link, and stops at the
    first bound it passes.
    """
    pending = [(folder, 0)]
    entries = 0
    while pending:
        where, depth = pending.pop()
        with os.scandir(where) as listing:
            for entry in listing:
                entries += 1
                if entries > MAX_FILES:
                    raise ArchiveError(f"the bot's folder holds more than {MAX_FILES:,} files")
                if depth + 1 > MAX_PATH_DEPTH:
                    raise ArchiveError(
                        f"the bot's folder is more than {MAX_PATH_DEPTH} folders deep "
                        f"(MAX_PATH_DEPTH), at {entry.name!r}"
                    )
                if entry.is_dir(follow_symlinks=False):
                    pending.append((Path(entry.path), depth + 1))
                elif not (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
                    raise ArchiveError(
                        f"the bot's folder holds {entry.name!r}, which is not a regular file"
                    )


def parse_manifest(text: bytes, variants: frozenset[str] | None = None) -> dict[str, Any]:
    """Checks ``bot.toml`` with :func:`arena.manifest.parse_manifest`, or raises ArchiveError.

    Returns the document as JSON (kept as the version's manifest in a ``jsonb`` column): the
    checked fields, plus any other keys the author wrote, dates as ISO 8601 text. Refused: a
    file over :data:`MAX_MANIFEST_BYTES`, and any text (keys too) with a NUL or a lone
    surrogate, or a number that is not finite (TOML's ``nan``, ``inf``), which the column
    cannot hold (:mod:`webui.league.inputs`). ``variants`` default to the engine's.
    """
    if len(text) > MAX_MANIFEST_BYTES:
        raise ArchiveError(
            f"{MANIFEST} is {len(text):,} bytes; the limit is {MAX_MANIFEST_BYTES:,} "
            "(MAX_MANIFEST_BYTES)"
        )
    try:
        checked = manifests.parse_manifest(text, MANIFEST, variants)
    except manifests.ManifestError as exc:
        raise ArchiveError(str(exc)) from None
    out = tomllib.loads(text.decode("utf-8"))
    out.update(
        name=checked.name,
        version=checked.version,
        author=checked.author,
        command=list(checked.command),
        variants=list(checked.variants),
    )
    try:
        ready: dict[str, Any] = inputs.json_ready(out, MANIFEST)
    except inputs.InputError as exc:
        where = exc.field.removeprefix(MANIFEST + ".")
        shown = MANIFEST if where == MANIFEST else f"{MANIFEST}: {where!r}"
        raise ArchiveError(f"{shown} {exc.reason}") from None
    return ready


def _check_path(name: str) -> str:
    if "\\" in name or "\x00" in name:
        raise ArchiveError(f"path {name!r} holds a backslash or a NUL byte")
    path = PurePosixPath(name)
    if path.is_absolute() or name.startswith("/"):
        raise ArchiveError(f"path {name!r} is absolute")
    if any(part == ".." for part in path.parts):
        raise ArchiveError(f"path {name!r} escapes the archive's folder")
    if re.match(r"^[A-Za-z]:", name):
        raise ArchiveError(f"path {name!r} names a drive")
    clean = str(path)
    if clean in {"", "."}:
        raise ArchiveError(f"path {name!r} is empty")
    if len(path.parts) > MAX_PATH_DEPTH:
        raise ArchiveError(
            f"path {clean[:60]!r}... is {len(path.parts):,} folders deep; the limit is "
            f"{MAX_PATH_DEPTH} (MAX_PATH_DEPTH)"
        )
    if len(clean) > MAX_PATH_CHARS:
        raise ArchiveError(
            f"path {clean[:60]!r}... is {len(clean):,} characters long; the limit is "
            f"{MAX_PATH_CHARS:,} (MAX_PATH_CHARS)"
        )
    long_part = next((p for p in path.parts if len(p.encode("utf-8", "replace")) > 255), None)
    if long_part is not None:
        raise ArchiveError(
            f"path {clean[:60]!r}... has a name longer than {MAX_NAME_BYTES} bytes (MAX_NAME_BYTES)"
        )
    return clean


def unpacked_limit(size: int) -> int:
    """The most bytes an archive of ``size`` bytes may unpack to: :data:`MAX_RATIO` times its
    size, at least :data:`RATIO_FREE_BYTES`, at most :data:`MAX_UNPACKED_BYTES`.

    >>> unpacked_limit(10_000), unpacked_limit(100_000)
    (8388608, 10000000)
    """
    return min(MAX_UNPACKED_BYTES, max(RATIO_FREE_BYTES, MAX_RATIO * size))


def _too_big(limit: int) -> ArchiveError:
    if limit >= MAX_UNPACKED_BYTES:
        return ArchiveError(f"the archive unpacks to more than {MAX_UNPACKED_BYTES:,} bytes")
    return ArchiveError(
        f"the archive unpacks to more than {limit:,} bytes, {MAX_RATIO} times its size "
        "(MAX_RATIO: a compression bomb?)"
    )


class _Budget:
    """Counts files and unpacked bytes against the limits while reading."""

    def __init__(self, size: int) -> None:
        self.files = 0
        self.bytes = 0
        self.limit = unpacked_limit(size)

    def declare(self, size: int) -> None:
        """Counts a member's declared size before it is read (a zip says it in advance)."""
        if size > self.limit:
            raise _too_big(self.limit)

    def add_file(self) -> None:
        self.files += 1
        if self.files > MAX_FILES:
            raise ArchiveError(f"the archive holds more than {MAX_FILES:,} files")

    def read(self, stream: Any, name: str) -> bytes:
        chunks: list[bytes] = []
        while True:
            chunk = stream.read(64 * 1024)
            if not chunk:
                break
            self.bytes += len(chunk)
            if self.bytes > self.limit:
                raise _too_big(self.limit)
            chunks.append(chunk)
        return b"".join(chunks)


def _zip_entries(data: bytes) -> int | None:
    """How many entries a zip's end record says it holds (None when it does not say)."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))
    if at < 0 or at + 22 > len(data):
        return None
    count = int.from_bytes(data[at + 10 : at + 12], "little")
    return None if count == 0xFFFF else count


def _read_zip(data: bytes, manifest_only: bool = False) -> list[BotFile]:
    # Counted before zipfile reads the directory: each entry it reads costs memory.
    entries = _zip_entries(data)
    if entries is not None and entries > MAX_FILES:
        raise ArchiveError(f"the archive holds more than {MAX_FILES:,} files")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ArchiveError(f"the zip archive is damaged: {exc}") from exc
    if len(infos) > MAX_FILES:
        raise ArchiveError(f"the archive holds more than {MAX_FILES:,} files")
    budget = _Budget(len(data))
    for info in infos:  # every path and the declared sizes, before a byte is unpacked
        _check_path(info.filename.rstrip("/") if info.is_dir() else info.filename)
    budget.declare(sum(info.file_size for info in infos))
    members: list[tuple[zipfile.ZipInfo, str, int]] = []
    seen: set[str] = set()
    for info in infos:  # what the directory says of each entry, still before any byte
        budget.add_file()
        path = _check_path(info.filename.rstrip("/") if info.is_dir() else info.filename)
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise ArchiveError(f"{path!r} is a link; links are not allowed")
        if info.is_dir():
            continue
        kind = stat.S_IFMT(mode)
        if kind and kind != stat.S_IFREG:  # zips from some tools carry no file type: regular
            raise ArchiveError(f"{path!r} is not a regular file")
        if path in seen:
            raise ArchiveError(f"{path!r} appears twice")
        seen.add(path)
        members.append((info, path, mode))
    if manifest_only:
        wanted = _common_folder([path for _, path, _ in members]) + MANIFEST
        members = [member for member in members if member[1] == wanted]
    files: list[BotFile] = []
    for info, path, mode in members:
        try:
            with archive.open(info) as stream:
                content = budget.read(stream, path)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as exc:
            raise ArchiveError(f"the zip archive is damaged at {path!r}: {exc}") from exc
        except NotImplementedError as exc:
            raise ArchiveError(f"{path!r} uses an unsupported zip compression") from exc
        files.append(BotFile(path, content, bool(mode & 0o111)))
    return files


def _gunzip(data: bytes, limit: int) -> bytes:
    """``data`` decompressed, refused as soon as it grows past ``limit`` bytes.

    tarfile reads a long name's or a pax header's whole declared size into memory: inflated by
    the decompressor alone, a few kilobytes of zeros would ask for gigabytes.
    """
    out: list[bytes] = []
    total = 0
    rest = data
    while rest.strip(b"\0"):  # gzip allows zeros after the last member
        inflater = zlib.decompressobj(wbits=31)
        pending = rest
        while not inflater.eof:
            chunk = inflater.decompress(pending, 64 * 1024)
            pending = inflater.unconsumed_tail
            if not chunk and not pending:
                break
            total += len(chunk)
            if total > limit:
                raise _too_big(limit)
            out.append(chunk)
        if not inflater.eof:
            raise ArchiveError("the tar.gz archive is damaged: it ends before its data does")
        rest = inflater.unused_data  # a gzip file may hold more than one member
    return b"".join(out)


def _read_tar(data: bytes) -> list[BotFile]:
    budget = _Budget(len(data))
    files: list[BotFile] = []
    seen: set[str] = set()
    try:
        plain = _gunzip(data, budget.limit + (MAX_FILES + 1) * _TAR_OVERHEAD)
    except zlib.error as exc:
        raise ArchiveError(f"the tar.gz archive is damaged: {exc}") from exc
    try:
        with tarfile.open(fileobj=io.BytesIO(plain), mode="r:") as archive:
            while True:
                member = archive.next()
                if member is None:
                    break
                budget.add_file()
                path = _check_path(member.name.rstrip("/") if member.isdir() else member.name)
                if member.issym() or member.islnk():
                    raise ArchiveError(f"{path!r} is a link; links are not allowed")
                if member.isdir():
                    continue
                if not member.isfile():
                    raise ArchiveError(f"{path!r} is not a regular file")
                budget.declare(budget.bytes + member.size)
                if path in seen:
                    raise ArchiveError(f"{path!r} appears twice")
                seen.add(path)
                stream = archive.extractfile(member)
                content = budget.read(stream, path) if stream is not None else b""
                files.append(BotFile(path, content, bool(member.mode & 0o111)))
    except ArchiveError:
        raise
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        raise ArchiveError(f"the tar.gz archive is damaged: {exc}") from exc
    return files


def _common_folder(paths: list[str]) -> str:
    """The one top folder holding every file (``"top/"``), or ``""`` when there is none."""
    if not paths or MANIFEST in paths:
        return ""
    tops = {path.split("/", 1)[0] for path in paths}
    if len(tops) != 1 or all("/" not in path for path in paths):
        return ""
    return tops.pop() + "/"


def _strip_common_folder(files: list[BotFile]) -> list[BotFile]:
    """Archives made by zipping a folder hold one top folder: the bot is inside it."""
    prefix = _common_folder([f.path for f in files])
    if not prefix:
        return files
    return [BotFile(f.path[len(prefix) :], f.data, f.executable) for f in files]
