"""Packs a bot folder into the ``.tar.gz`` that ``arena bot submit`` uploads.

What goes in: every regular file under the folder, ``bot.toml`` at the top, except what a bot
never needs at run time and an upload should not carry: version control (``.git``, ``.hg``,
``.svn``), caches (``__pycache__``, ``*.pyc``, ``.pytest_cache``, ``.mypy_cache``,
``.ruff_cache``, ``.cache``, ``.tox``), virtualenvs (``.venv``, ``venv``: a Python bot runs
on the arena's own interpreter), editor files (``.idea``, ``.vscode``, ``*.swp``, ``*~``,
``.DS_Store``) and npm's command links (``node_modules/.bin``). ``node_modules`` itself goes in:
the sandbox provides Node.js but no packages, so a JavaScript bot brings its own. Any other link
or special file is refused (the site refuses links), as is a folder over the given limits.

The archive is reproducible: files in name order, no dates, owners or user names, so packing an
unchanged folder again gives the same bytes, hence the same sha256 and the same version on the
site. This module reads files and writes bytes in memory; it knows nothing of HTTP or the site.
"""

from __future__ import annotations

import fnmatch
import gzip
import io
import os
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.manifest import MANIFEST_FILE, Manifest, read_manifest

SKIPPED_FOLDERS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".cache",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        ".idea",
        ".vscode",
    }
)
"""Folders left out wherever they are."""
SKIPPED_PATHS = ("node_modules/.bin", "*/node_modules/.bin")
"""Folders left out by their path in the bot folder (npm's command links)."""
SKIPPED_FILES = ("*.pyc", "*.pyo", "*.swp", "*~", ".DS_Store", "Thumbs.db")
"""File names left out."""


class PackError(ValueError):
    """A folder that cannot be packed; the message says why in one line."""


@dataclass(frozen=True)
class Packed:
    """A packed bot folder: the archive, its manifest, and what went in and what did not."""

    data: bytes
    manifest: Manifest
    files: tuple[tuple[str, int], ...]
    """Every file packed, as (path, size in bytes), in the archive's order."""
    skipped: tuple[str, ...]
    """What was left out (folders end with ``/``)."""

    @property
    def unpacked_bytes(self) -> int:
        """The total size of the files packed."""
        return sum(size for _, size in self.files)

    def largest_folders(self, count: int = 3) -> list[tuple[str, int, int]]:
        """The top-level folders holding most files: (name, files, bytes), most files first."""
        totals: dict[str, list[int]] = {}
        for path, size in self.files:
            if "/" in path:
                entry = totals.setdefault(path.split("/", 1)[0], [0, 0])
                entry[0] += 1
                entry[1] += size
        ranked = sorted(totals.items(), key=lambda item: (-item[1][0], item[0]))
        return [(name, n, size) for name, (n, size) in ranked[:count]]


def is_skipped(path: str, is_dir: bool) -> bool:
    """Whether ``path`` (relative, with ``/``) is left out of the archive.

    >>> is_skipped("lib/__pycache__", True), is_skipped("node_modules/.bin", True)
    (True, True)
    >>> is_skipped("bot.py", False), is_skipped("policy.pyc", False)
    (False, True)
    """
    name = PurePosixPath(path).name
    if is_dir:
        return name in SKIPPED_FOLDERS or any(fnmatch.fnmatchcase(path, p) for p in SKIPPED_PATHS)
    return any(fnmatch.fnmatchcase(name, p) for p in SKIPPED_FILES)


def pack_folder(
    folder: str | Path, *, max_files: int | None = None, max_bytes: int | None = None
) -> Packed:
    """Packs ``folder`` (which holds a ``bot.toml``) into a reproducible ``.tar.gz``.

    ``max_files`` and ``max_bytes`` stop early, with a :class:`PackError` naming the limit,
    when the folder holds more files or more bytes than an upload may. Raises
    :class:`~arena.manifest.ManifestError` for a missing or bad ``bot.toml`` and
    :class:`PackError` for a link, a special file, an unreadable file or a limit passed.
    """
    root = Path(folder)
    if not root.is_dir():
        raise PackError(f"{folder}: not a folder")
    manifest = read_manifest(root)
    files: list[tuple[str, Path, int, bool]] = []
    skipped: list[str] = []
    total = 0
    for current, dirnames, filenames in os.walk(root):
        here = Path(current)
        rel_dir = here.relative_to(root).as_posix()
        kept_dirs = []
        for name in sorted(dirnames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if is_skipped(rel, True):
                skipped.append(rel + "/")
            elif (here / name).is_symlink():
                raise PackError(
                    f"{folder}: {rel} is a link; the site takes no links (copy the "
                    "folder in instead)"
                )
            else:
                kept_dirs.append(name)
        dirnames[:] = kept_dirs
        for name in sorted(filenames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            path = here / name
            if is_skipped(rel, False):
                skipped.append(rel)
                continue
            try:
                info = path.lstat()
            except OSError as exc:
                raise PackError(f"{folder}: cannot read {rel}: {exc.strerror or exc}") from None
            if stat.S_ISLNK(info.st_mode):
                raise PackError(
                    f"{folder}: {rel} is a link; the site takes no links (copy the file in instead)"
                )
            if not stat.S_ISREG(info.st_mode):
                raise PackError(f"{folder}: {rel} is not a regular file")
            files.append((rel, path, info.st_size, bool(info.st_mode & 0o111)))
            total += info.st_size
            if max_files is not None and len(files) > max_files:
                raise PackError(
                    f"{folder} holds more than {max_files:,} files, the most an upload may hold"
                )
            if max_bytes is not None and total > max_bytes:
                raise PackError(
                    f"{folder} holds more than {max_bytes:,} bytes, the most an "
                    "upload may unpack to"
                )
    files.sort(key=lambda f: (f[0] != MANIFEST_FILE, f[0]))  # bot.toml first, then by name
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as archive,
    ):
        for rel, path, _, executable in files:
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise PackError(f"{folder}: cannot read {rel}: {exc.strerror or exc}") from None
            entry = tarfile.TarInfo(rel)
            entry.size = len(data)
            entry.mode = 0o755 if executable else 0o644
            entry.mtime = 0
            archive.addfile(entry, io.BytesIO(data))
    return Packed(
        data=buffer.getvalue(),
        manifest=manifest,
        files=tuple((rel, size) for rel, _, size, _ in files),
        skipped=tuple(skipped),
    )
