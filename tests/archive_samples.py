"""Bot archives, good and hostile, for the tests of the upload checks (:mod:`arena.archives`)
and of the site's submissions."""

from __future__ import annotations

import io
import tarfile
import zipfile

GOOD_MANIFEST = """name = "{name}"
version = "1.0.0"
author = "Tester"
command = ["python", "bot.py"]
variants = ["*"]
"""


def manifest(name: str = "my-bot") -> str:
    """A valid bot.toml for bot ``name``."""
    return GOOD_MANIFEST.format(name=name)


def make_zip(
    files: dict[str, bytes | str], links: dict[str, str] | None = None, folder: str = ""
) -> bytes:
    """A zip of ``files`` (path -> content), with symbolic ``links`` (path -> target)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = zipfile.ZipInfo(folder + path)
            info.external_attr = 0o100644 << 16
            archive.writestr(info, data, zipfile.ZIP_DEFLATED)
        for path, target in (links or {}).items():
            info = zipfile.ZipInfo(folder + path)
            info.external_attr = 0o120777 << 16
            archive.writestr(info, target)
    return buffer.getvalue()


def make_tar(
    files: dict[str, bytes | str],
    links: dict[str, str] | None = None,
    hardlinks: dict[str, str] | None = None,
    fifo: str | None = None,
) -> bytes:
    """A tar.gz of ``files``, symbolic ``links``, ``hardlinks`` and an optional FIFO."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, content in files.items():
            data = content.encode() if isinstance(content, str) else content
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = 0o755 if path.endswith(".sh") else 0o644
            archive.addfile(info, io.BytesIO(data))
        for path, target in (links or {}).items():
            info = tarfile.TarInfo(path)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            archive.addfile(info)
        for path, target in (hardlinks or {}).items():
            info = tarfile.TarInfo(path)
            info.type = tarfile.LNKTYPE
            info.linkname = target
            archive.addfile(info)
        if fifo:
            info = tarfile.TarInfo(fifo)
            info.type = tarfile.FIFOTYPE
            archive.addfile(info)
    return buffer.getvalue()


def good_zip(name: str = "my-bot") -> bytes:
    """A bot archive that passes every check."""
    return make_zip({"bot.toml": manifest(name), "bot.py": "print('hello')\n"})


def bomb_zip(size: int) -> bytes:
    """A small zip that unpacks to ``size`` bytes of zeros."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.toml", manifest())
        with archive.open("zeros.bin", "w", force_zip64=True) as handle:
            chunk = b"\0" * (1 << 20)
            for _ in range(size // len(chunk)):
                handle.write(chunk)
    return buffer.getvalue()


# Each hostile or broken archive, with the words its refusal must contain.
BAD_ARCHIVES: dict[str, tuple[bytes, str]] = {
    "not-an-archive": (b"just some text, not an archive", "not a zip or tar.gz"),
    "empty": (b"", "empty"),
    "path-escape": (make_zip({"bot.toml": manifest(), "../evil.py": "x"}), "escapes"),
    "absolute-path": (make_tar({"bot.toml": manifest(), "/etc/evil": "x"}), "absolute"),
    "zip-symlink": (make_zip({"bot.toml": manifest()}, links={"link": "/etc/passwd"}), "link"),
    "tar-symlink": (make_tar({"bot.toml": manifest()}, links={"link": "/etc/passwd"}), "link"),
    "tar-hardlink": (make_tar({"bot.toml": manifest()}, hardlinks={"h": "bot.toml"}), "link"),
    "special-file": (make_tar({"bot.toml": manifest()}, fifo="pipe"), "not a regular file"),
    "too-many-files": (
        make_zip({"bot.toml": manifest(), **{f"f{i}.txt": "" for i in range(2001)}}),
        "more than 2,000 files",
    ),
    "bomb": (bomb_zip(51 * 1024 * 1024), "unpacks to more than"),
    "no-manifest": (make_zip({"bot.py": "print(1)"}), "no bot.toml"),
    "manifest-not-toml": (make_zip({"bot.toml": "name = = ="}), "does not parse"),
    "manifest-bad-name": (make_zip({"bot.toml": manifest("Bad Name!")}), "name"),
    "manifest-no-command": (make_zip({"bot.toml": 'name = "my-bot"\nversion = "1"\n'}), "command"),
    "manifest-unknown-variant": (
        make_zip({"bot.toml": manifest().replace('["*"]', '["poker"]')}),
        "unknown variant",
    ),
    "too-big": (b"PK\x03\x04" + bytes(5 * 1024 * 1024), "the limit is 5,242,880 bytes"),
    "damaged-zip": (good_zip()[:60], "damaged"),
}
