"""The archive checks: every kind of bad upload is refused with its own one-line reason."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from archive_samples import (
    BAD_ARCHIVES,
    HOSTILE_ARCHIVES,
    bad_crc_zip,
    good_zip,
    make_tar,
    make_zip,
    manifest,
)

from arena.archives import (
    MAX_FILES,
    MAX_PATH_DEPTH,
    MAX_RATIO,
    ArchiveError,
    check_archive,
    check_folder,
    check_upload,
    unpacked_limit,
)

VARIANTS = frozenset({"scopa", "scopone"})


@pytest.mark.parametrize("kind", sorted(BAD_ARCHIVES))
def test_it_rejects_each_kind_of_bad_archive_with_its_reason(kind: str) -> None:
    data, words = BAD_ARCHIVES[kind]
    with pytest.raises(ArchiveError) as caught:
        check_archive(data, VARIANTS)
    message = str(caught.value)
    assert words in message
    assert "\n" not in message


def test_a_good_zip_passes_with_its_manifest_and_files() -> None:
    checked = check_archive(good_zip("my-bot"), VARIANTS)
    assert checked.kind == "zip"
    assert checked.manifest["name"] == "my-bot"
    assert checked.manifest["command"] == ["python", "bot.py"]
    assert [f.path for f in checked.files] == ["bot.py", "bot.toml"]
    assert len(checked.sha256) == 64


def test_a_tar_gz_keeps_the_executable_bit() -> None:
    checked = check_archive(make_tar({"bot.toml": manifest(), "run.sh": "#!/bin/sh\n"}), VARIANTS)
    assert checked.kind == "tar.gz"
    assert {f.path: f.executable for f in checked.files} == {"bot.toml": False, "run.sh": True}


def test_a_single_top_folder_is_the_bot_folder() -> None:
    data = make_zip({"bot.toml": manifest(), "src/main.py": "x"}, folder="my-bot/")
    checked = check_archive(data, VARIANTS)
    assert [f.path for f in checked.files] == ["bot.toml", "src/main.py"]


def test_the_file_limit_is_inclusive() -> None:
    files: dict[str, bytes | str] = {f"f{i}": "" for i in range(MAX_FILES - 1)}
    files["bot.toml"] = manifest()
    assert len(check_archive(make_zip(files), VARIANTS).files) == MAX_FILES


@pytest.mark.parametrize("kind", sorted(HOSTILE_ARCHIVES))
def test_it_refuses_each_costly_archive_naming_the_bound(kind: str) -> None:
    data, words = HOSTILE_ARCHIVES[kind]
    with pytest.raises(ArchiveError) as caught:
        check_archive(data, VARIANTS)
    message = str(caught.value)
    assert words in message and "\n" not in message


def test_the_depth_limit_is_inclusive() -> None:
    deep = "/".join(["d"] * (MAX_PATH_DEPTH - 1)) + "/f.py"
    checked = check_archive(make_zip({"bot.toml": manifest(), deep: "x"}), VARIANTS)
    assert deep in [f.path for f in checked.files]
    with pytest.raises(ArchiveError, match="MAX_PATH_DEPTH"):
        check_archive(make_zip({"bot.toml": manifest(), "d/" + deep: "x"}), VARIANTS)


def test_a_compressible_archive_passes_within_its_ratio() -> None:
    size = unpacked_limit(0) - 4096  # what any archive may unpack to, whatever its ratio
    data = make_tar({"bot.toml": manifest(), "zeros.bin": bytes(size)})
    assert len(data) * MAX_RATIO < size  # a ratio no limit but the free allowance lets through
    assert check_archive(data, VARIANTS).unpacked_bytes > size


def test_a_tar_gz_of_several_gzip_members_passes() -> None:
    one = make_tar({"bot.toml": manifest(), "bot.py": "x"})
    # tar readers stop at the first end-of-archive block; the second member is padding.
    assert [f.path for f in check_archive(one + gzip.compress(bytes(1024)), VARIANTS).files] == [
        "bot.py",
        "bot.toml",
    ]


def test_a_folder_is_checked_for_its_depth_and_its_count_of_files(tmp_path: Path) -> None:
    (tmp_path / "ok" / "/".join(["d"] * (MAX_PATH_DEPTH - 1))).mkdir(parents=True)
    check_folder(tmp_path / "ok")
    (tmp_path / "deep" / "/".join(["d"] * 100)).mkdir(parents=True)
    with pytest.raises(ArchiveError, match=r"more than 32 folders deep \(MAX_PATH_DEPTH\)"):
        check_folder(tmp_path / "deep")
    (tmp_path / "many").mkdir()
    for i in range(MAX_FILES + 1):
        (tmp_path / "many" / f"f{i}").touch()
    with pytest.raises(ArchiveError, match="more than 2,000 files"):
        check_folder(tmp_path / "many")
    (tmp_path / "pipe").mkdir()
    os.mkfifo(tmp_path / "pipe" / "fifo")  # copying it would block, or fail as the host's
    with pytest.raises(ArchiveError, match="'fifo', which is not a regular file"):
        check_folder(tmp_path / "pipe")


@pytest.mark.parametrize("kind", sorted({**BAD_ARCHIVES, **HOSTILE_ARCHIVES}))
def test_the_upload_check_refuses_what_the_full_check_refuses(kind: str) -> None:
    data, _ = {**BAD_ARCHIVES, **HOSTILE_ARCHIVES}[kind]
    with pytest.raises(ArchiveError) as full:
        check_archive(data, VARIANTS)
    with pytest.raises(ArchiveError) as upload:
        check_upload(data, VARIANTS)
    assert str(upload.value) == str(full.value)


def test_the_upload_check_of_a_zip_reads_its_manifest_alone() -> None:
    data = make_zip({"bot.toml": manifest(), "src/main.py": "x"}, folder="my-bot/")
    checked = check_upload(data, VARIANTS)
    assert checked.files == () and checked.manifest == check_archive(data, VARIANTS).manifest
    assert checked.sha256 == check_archive(data, VARIANTS).sha256
    damaged = bad_crc_zip()  # what only its bytes show is left to whoever unpacks it
    assert check_upload(damaged, VARIANTS).manifest["name"] == "my-bot"
    with pytest.raises(ArchiveError, match=r"damaged at 'bot\.py'"):
        check_archive(damaged, VARIANTS)


def test_a_zip_whose_deflate_data_is_damaged_is_refused_as_damaged() -> None:
    data = bytearray(good_zip())
    local = data.find(b"PK\x03\x04", 4)  # bot.py's local header
    start = local + 30 + int.from_bytes(data[local + 26 : local + 28], "little")
    start += int.from_bytes(data[local + 28 : local + 30], "little")
    data[start : start + 5] = bytes(5)  # a stored block whose lengths disagree: a zlib.error
    with pytest.raises(ArchiveError, match=r"damaged at 'bot\.py'"):
        check_archive(bytes(data), VARIANTS)
