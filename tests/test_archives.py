"""The archive checks: every kind of bad upload is refused with its own one-line reason."""

from __future__ import annotations

import pytest
from archive_samples import BAD_ARCHIVES, good_zip, make_tar, make_zip, manifest

from arena.archives import MAX_FILES, ArchiveError, check_archive

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
