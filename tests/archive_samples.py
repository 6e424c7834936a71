"""Bot archives, good and hostile, for the tests of the upload checks (:mod:`arena.archives`)
and of the site's submissions."""

from __future__ import annotations

import io
import tarfile
import zipfile
import zlib

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


def deep_zip(depth: int = 2000) -> bytes:
    """A bot whose one file sits ``depth`` folders down (the sandbox copies folders recursively)."""
    return make_zip({"bot.toml": manifest(), "bot.py": "x", "/".join(["d"] * depth) + "/f": "x"})


def _gzip_stream(head: bytes, zeros: int, tail: bytes = b"") -> bytes:
    """A gzip of ``head``, ``zeros`` zero bytes and ``tail``, made without holding the zeros."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    out = [packer.compress(head)]
    chunk = bytes(1 << 20)
    for _ in range(zeros // len(chunk)):
        out.append(packer.compress(chunk))
    out.append(packer.compress(bytes(zeros % len(chunk)) + tail))
    out.append(packer.flush())
    return b"".join(out)


def _tar_header(name: str, size: int, kind: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size = size
    info.type = kind
    return info.tobuf(tarfile.GNU_FORMAT)


def tar_header_bomb(kind: bytes = tarfile.GNUTYPE_LONGNAME, size: int = 16 << 20) -> bytes:
    """A tar.gz whose first member is a long name (or a pax header) of ``size`` zero bytes:
    tarfile reads such a header's whole size into memory before it looks at it."""
    return _gzip_stream(_tar_header("././@LongLink", size, kind), size)


def dotted_manifest(segments: int = 30_000) -> str:
    """A bot.toml whose one key has ``segments`` dotted parts (tomllib is quadratic in them)."""
    return manifest() + "x" + ".x" * segments + ".y = 1\n"


def deep_array_manifest(depth: int = 600) -> str:
    """A bot.toml with arrays nested ``depth`` deep (tomllib recurses per level)."""
    return manifest() + "deep = " + "[" * depth + "]" * depth + "\n"


def deep_table_manifest(depth: int = 600) -> str:
    """A bot.toml with inline tables nested ``depth`` deep."""
    return manifest() + "deep = " + "{a = " * depth + "1" + "}" * depth + "\n"


# Each hostile manifest (tomllib's worst cases, and fields the runner passes on), with the bound
# its refusal names.
HOSTILE_MANIFESTS: dict[str, tuple[str, str]] = {
    "dotted-key": (dotted_manifest(), "MAX_KEY_SEGMENTS"),
    "deep-array": (deep_array_manifest(), "MAX_NESTING"),
    "deep-inline-table": (deep_table_manifest(), "MAX_NESTING"),
    "many-lines": (manifest() + "\n" * 2000, "MAX_LINES"),
    "many-keys": (
        manifest() + "t = {" + ", ".join(f"k{i} = 1" for i in range(1000)) + "}\n",
        "MAX_ENTRIES",
    ),
    "many-items": (manifest() + "a = [" + "1," * 2000 + "]\n", "MAX_ENTRIES"),
    "long-key": (manifest() + "k" * 200 + " = 1\n", "MAX_KEY_CHARS"),
    "long-string": (manifest() + 'a = "' + "x" * 5000 + '"\n', "MAX_STRING_CHARS"),
    "long-multiline-string": (manifest() + "a = '''" + "x" * 5000 + "'''\n", "MAX_STRING_CHARS"),
    "huge-integer": (manifest() + "a = " + "9" * 5000 + "\n", "MAX_BARE_CHARS"),
    "long-argument": (
        manifest().replace('"bot.py"]', '"bot.py", "' + "a" * 4090 + '"]'),
        "MAX_COMMAND_CHARS",
    ),
    "many-arguments": (
        manifest().replace('"bot.py"]', '"bot.py"' + ', "a"' * 70 + "]"),
        "MAX_COMMAND_PARTS",
    ),
    "many-variables": (
        manifest() + "[env]\n" + "".join(f'V{i} = "1"\n' for i in range(40)),
        "MAX_ENV_VARS",
    ),
    "long-variable": (manifest() + '[env]\nV = "' + "v" * 2000 + '"\n', "MAX_ENV_VALUE_CHARS"),
    "too-big": (manifest() + "# " + "x" * 70_000 + "\n", "MAX_MANIFEST_BYTES"),
}

# Hostile archives that cost the server CPU or memory when unbounded, with their refusal's words.
HOSTILE_ARCHIVES: dict[str, tuple[bytes, str]] = {
    "deep-folders": (deep_zip(), "MAX_PATH_DEPTH"),
    "long-path": (
        make_zip({"bot.toml": manifest(), "/".join(["p" * 200] * 8) + "/f": "x"}),
        "MAX_PATH_CHARS",
    ),
    "long-name": (make_zip({"bot.toml": manifest(), "n" * 300: "x"}), "MAX_NAME_BYTES"),
    "ratio-bomb": (bomb_zip(20 * 1024 * 1024), "MAX_RATIO"),
    "tar-long-name-bomb": (tar_header_bomb(tarfile.GNUTYPE_LONGNAME), "unpacks to more than"),
    "tar-pax-bomb": (tar_header_bomb(tarfile.XHDTYPE), "unpacks to more than"),
    **{
        f"manifest-{name}": (make_zip({"bot.toml": text, "bot.py": "x"}), words)
        for name, (text, words) in HOSTILE_MANIFESTS.items()
    },
}


def bad_crc_zip() -> bytes:
    """A good bot's zip whose ``bot.py`` fails its CRC: only reading that file's bytes shows it."""
    data = bytearray(good_zip())
    central = data.rfind(b"PK\x01\x02", 0, data.rfind(b"PK\x05\x06"))  # the last entry: bot.py
    data[central + 16 : central + 20] = b"\0\0\0\0"
    local = data.find(b"PK\x03\x04", 4)
    data[local + 14 : local + 18] = b"\0\0\0\0"
    return bytes(data)
