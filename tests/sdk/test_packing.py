"""Packing a bot folder for ``arena bot submit``: what goes in and what stays out, the same bytes
for the same folder, the site's own checks passed, links and limits refused in one line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.archives import check_archive, read_archive
from arena.manifest import ManifestError
from arena.sdk.packing import PackError, is_skipped, pack_folder

MANIFEST = 'name = "packed"\nversion = "1.0"\ncommand = ["python", "bot.py"]\n'


def write(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def archive_files(data: bytes) -> dict[str, bytes]:
    return {f.path: f.data for f in read_archive(data)[1]}


def test_caches_version_control_and_npm_links_stay_out_node_modules_goes_in(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "bot.toml": MANIFEST.encode(),
            "bot.py": b"print('hi')\n",
            "lib/policy.py": b"X = 1\n",
            "lib/__pycache__/policy.cpython-311.pyc": b"\0",
            "old.pyc": b"\0",
            ".git/config": b"[core]\n",
            ".venv/bin/python": b"",
            ".pytest_cache/v": b"",
            "notes.txt.swp": b"",
            "node_modules/pkg/index.js": b"1;\n",
            "node_modules/pkg/node_modules/.bin/x": b"",
        },
    )
    (tmp_path / "node_modules" / ".bin").mkdir()
    (tmp_path / "node_modules" / ".bin" / "tool").symlink_to("../pkg/index.js")
    packed = pack_folder(tmp_path)
    files = archive_files(packed.data)
    assert sorted(files) == ["bot.py", "bot.toml", "lib/policy.py", "node_modules/pkg/index.js"]
    assert files["lib/policy.py"] == b"X = 1\n"
    assert set(packed.skipped) == {
        ".git/",
        ".pytest_cache/",
        ".venv/",
        "lib/__pycache__/",
        "node_modules/.bin/",
        "node_modules/pkg/node_modules/.bin/",
        "notes.txt.swp",
        "old.pyc",
    }
    assert packed.files[0][0] == "bot.toml"  # the manifest comes first
    assert packed.manifest.label == "packed (1.0)"
    assert check_archive(packed.data).manifest["name"] == "packed"  # the site's own checks


def test_an_unchanged_folder_packs_to_the_same_bytes_and_keeps_executable_bits(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"bot.toml": MANIFEST.encode(), "bot.py": b"1\n", "run.sh": b"#!/bin/sh\n"})
    (tmp_path / "run.sh").chmod(0o755)
    first = pack_folder(tmp_path).data
    os.utime(tmp_path / "bot.py", (1, 1))  # dates do not go in
    assert pack_folder(tmp_path).data == first
    modes = {f.path: f.executable for f in read_archive(first)[1]}
    assert modes == {"bot.toml": False, "bot.py": False, "run.sh": True}
    (tmp_path / "bot.py").write_bytes(b"2\n")
    assert pack_folder(tmp_path).data != first


def test_links_and_limits_are_refused_in_one_line(tmp_path: Path) -> None:
    write(tmp_path, {"bot.toml": MANIFEST.encode(), "a.py": b"12345", "b.py": b"12345"})
    with pytest.raises(PackError, match=r"holds more than 2 files, the most an upload may hold"):
        pack_folder(tmp_path, max_files=2)
    with pytest.raises(PackError, match=r"holds more than 60 bytes"):
        pack_folder(tmp_path, max_bytes=60)
    (tmp_path / "lib").symlink_to("/etc")
    with pytest.raises(PackError, match=r"lib is a link; the site takes no links") as error:
        pack_folder(tmp_path)
    assert "\n" not in str(error.value)
    (tmp_path / "lib").unlink()
    (tmp_path / "c.py").symlink_to(tmp_path / "a.py")
    with pytest.raises(PackError, match=r"c.py is a link"):
        pack_folder(tmp_path)


def test_a_folder_without_a_manifest_is_named_in_the_error(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"no bot\.toml"):
        pack_folder(tmp_path)
    with pytest.raises(PackError, match="not a folder"):
        pack_folder(tmp_path / "missing")


segment = st.text(alphabet="abcdefgh_-.0123", min_size=1, max_size=8).filter(
    lambda s: s not in {".", ".."}
)
paths = st.lists(segment, min_size=1, max_size=3).map("/".join)
trees = st.dictionaries(paths, st.binary(max_size=200), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(tree=trees)
def test_what_is_packed_is_every_file_not_skipped_with_its_bytes(
    tmp_path_factory: pytest.TempPathFactory, tree: dict[str, bytes]
) -> None:
    folder = tmp_path_factory.mktemp("tree")
    written: dict[str, bytes] = {"bot.toml": MANIFEST.encode()}
    write(folder, written)
    for path, data in tree.items():
        parts = path.split("/")
        # a name both a file and a folder cannot exist: keep the first one written
        if any("/".join(parts[:k]) in written for k in range(1, len(parts) + 1)) or any(
            w.startswith(path + "/") for w in written
        ):
            continue
        write(folder, {path: data})
        written[path] = data
    expected = {
        path: data
        for path, data in written.items()
        if not is_skipped(path, False)
        and not any(
            is_skipped("/".join(path.split("/")[:k]), True) for k in range(1, path.count("/") + 1)
        )
    }
    packed = pack_folder(folder)
    assert archive_files(packed.data) == expected
    assert packed.unpacked_bytes == sum(len(d) for d in expected.values())
    assert pack_folder(folder).data == packed.data
