"""``arena bot new``: a new bot, in Python or JavaScript, passes ``arena bot check``, plays
``arena match NEW random`` without a fault, passes its own tests, and packs within the site's
upload limits; bad names and taken folders get one line and write nothing."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_checks import require

from arena.cli import main
from arena.manifest import read_manifest
from arena.sdk.packing import pack_folder
from arena.sdk.scaffold import LOCAL_INSTALL, ScaffoldError, new_bot, site_install

VENV_BIN = str(Path(sys.executable).parent)


def plays_random(folder: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    """``arena bot check`` then ``arena match FOLDER random``; returns the match report."""
    assert main(["bot", "check", str(folder), "--variants", "scopa,scopone", "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)
    assert checks["ok"] and len(checks["checks"]) >= 5
    assert main(["match", str(folder), "random", "--games", "2", "--seed", "4", "--json"]) == 0
    report: dict[str, object] = json.loads(capsys.readouterr().out)
    return report


def assert_clean(report: dict[str, object], name: str) -> None:
    games = report["games"]
    assert isinstance(games, list) and len(games) == 2
    assert all(g["faults"] == [] and not g["void"] and not g["forfeit"] for g in games)
    assert report["entrants"] == [f"{name} (0.1.0)", "random (1.0.0)"]
    assert report["sandboxed"] == [True, True]  # the new bot ran in bubblewrap, as on the site


def test_a_new_python_bot_checks_plays_random_and_passes_its_tests(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bwrap: str
) -> None:
    folder = tmp_path / "first-bot"
    assert main(["bot", "new", "first-bot", "--dir", str(folder), "--author", "Ada"]) == 0
    out = capsys.readouterr().out
    assert "arena match . random" in out and "arena bot submit ." in out
    assert sorted(p.name for p in folder.iterdir()) == [
        ".gitignore",
        "README.md",
        "bot.py",
        "bot.toml",
        "test_bot.py",
    ]
    manifest = read_manifest(folder)
    assert (manifest.name, manifest.author, manifest.command) == (
        "first-bot",
        "Ada",
        ("python", "bot.py"),
    )
    assert "def choose(self, observation" in (folder / "bot.py").read_text()

    assert_clean(plays_random(folder, capsys), "first-bot")
    tests = subprocess.run(
        [sys.executable, "-m", "unittest", "-v"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert tests.returncode == 0, tests.stderr
    assert "Ran 2 tests" in tests.stderr and "OK" in tests.stderr


def test_a_new_javascript_bot_installs_checks_plays_random_and_fits_the_upload_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bwrap: str
) -> None:
    from arena.archives import (
        MAX_ARCHIVE_BYTES,
        MAX_FILES,
        MAX_UNPACKED_BYTES,
        check_archive,
    )

    require(shutil.which("npm") is not None and shutil.which("node") is not None, "Node.js and npm")
    folder = tmp_path / "js-first"
    assert main(["bot", "new", "js-first", "--lang", "javascript", "--dir", str(folder)]) == 0
    assert "Installed the packages" in capsys.readouterr().out
    assert (folder / "node_modules" / "@grpc" / "grpc-js").is_dir()
    assert (folder / "protos" / "scopa" / "arena" / "v1" / "bot.proto").is_file()
    declared = json.loads((folder / "package.json").read_text())["dependencies"]
    assert set(declared) == {"@grpc/grpc-js", "@grpc/proto-loader", "grpc-health-check"}

    assert_clean(plays_random(folder, capsys), "js-first")
    env = {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ.get("PATH", "")}
    tests = subprocess.run(
        ["npm", "test"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "# pass 4" in tests.stdout and "# fail 0" in tests.stdout

    # node_modules travels with the bot (the sandbox has Node.js, no packages), within limits.
    packed = pack_folder(folder)
    checked = check_archive(packed.data)
    assert checked.manifest["name"] == "js-first"
    assert any(f.path.startswith("node_modules/@grpc/grpc-js/") for f in checked.files)
    assert "node_modules/.bin/" in packed.skipped
    assert len(packed.data) < MAX_ARCHIVE_BYTES / 2
    assert len(packed.files) < MAX_FILES and packed.unpacked_bytes < MAX_UNPACKED_BYTES


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bot", "new", "My Bot"], "bot name 'My Bot': 1 to 40 lowercase letters"),
        (["bot", "new", "x" * 41], "1 to 40 lowercase letters"),
        (["bot", "new", "taken", "--dir", "{taken}"], "already exists and is not an empty"),
    ],
)
def test_bad_names_and_taken_folders_get_one_line_and_write_nothing(
    argv: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine\n")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main([a.replace("{taken}", str(taken)) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_an_unknown_language_is_refused_by_the_parser(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["bot", "new", "a-bot", "--lang", "cobol"])
    assert stop.value.code == 2
    assert "invalid choice: 'cobol'" in capsys.readouterr().err


names = st.from_regex(r"[a-z0-9-]{1,40}", fullmatch=True)
authors = st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp")), max_size=100)


@settings(max_examples=40, deadline=None)
@given(name=names, author=authors, language=st.sampled_from(["python", "javascript"]))
def test_any_valid_name_and_author_make_a_manifest_the_arena_reads_back(
    tmp_path_factory: pytest.TempPathFactory, name: str, author: str, language: str
) -> None:
    folder = tmp_path_factory.mktemp("bot") / name
    new_bot(folder, name, language, author)
    manifest = read_manifest(folder)
    assert (manifest.name, manifest.author, manifest.version) == (name, author, "0.1.0")
    if language == "javascript":
        assert json.loads((folder / "package.json").read_text())["name"] == name
    assert tomllib.loads((folder / "bot.toml").read_text())["variants"] == ["*"]


def test_the_scaffold_refuses_what_it_cannot_write(tmp_path: Path) -> None:
    with pytest.raises(ScaffoldError, match="language 'rust'"):
        new_bot(tmp_path / "a", "a", "rust")
    with pytest.raises(ScaffoldError, match="author: at most 100"):
        new_bot(tmp_path / "b", "b", "python", "x" * 101)
    with pytest.raises(ScaffoldError, match=r"author: plain text.*\\x1b, \\u202e"):
        new_bot(tmp_path / "c", "c", "python", "me\x1b[2J\u202e")
    assert not any((tmp_path / d).exists() for d in ("a", "b", "c"))


@pytest.mark.parametrize("language", ["python", "javascript"])
def test_the_readme_says_how_the_sdk_is_installed(tmp_path: Path, language: str) -> None:
    new_bot(tmp_path / "here", "here", language)
    local = (tmp_path / "here" / "README.md").read_text()
    assert LOCAL_INSTALL in local and "{{" not in local
    url = "https://arena.example.org/sdk/scopa_arena_sdk-0.1.0+abc-py3-none-any.whl"
    new_bot(tmp_path / "kit", "kit", language, install=site_install(url))
    kit = (tmp_path / "kit" / "README.md").read_text()
    assert f"\npip install {url}\n" in kit and LOCAL_INSTALL not in kit and "{{" not in kit
