"""The one bot.toml parser, and that the runner, the SDK launcher and uploads agree with it."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest
from archive_samples import HOSTILE_MANIFESTS

from arena import manifest as manifest_module
from arena.archives import ArchiveError, check_archive
from arena.engine import VARIANTS
from arena.manifest import (
    MAX_COMMAND_PARTS,
    MAX_ENV_VARS,
    MAX_KEY_CHARS,
    MAX_KEY_SEGMENTS,
    MAX_NESTING,
    MAX_STRING_CHARS,
    Manifest,
    ManifestError,
    parse_manifest,
    read_manifest,
)
from arena.runner.bots import BotError, BotRef
from arena.sdk.launch import LocalBot

GOOD = 'name = "my-bot"\nversion = "1.0.0"\nauthor = "Tester"\ncommand = ["python", "bot.py"]\n'


def test_a_good_manifest_parses_with_its_defaults() -> None:
    manifest = parse_manifest('name = "b"\nversion = "2"\ncommand = ["./run"]\n')
    assert manifest == Manifest(name="b", version="2", author="", command=("./run",))
    assert manifest.variants == ("*",) and manifest.env == {}
    assert manifest.label == "b (2)" and manifest.supports("scopone") and not manifest.is_python


def test_variants_and_env_are_kept() -> None:
    manifest = parse_manifest(GOOD + 'variants = ["scopa"]\n[env]\nLEVEL = "3"\n')
    assert manifest.variants == ("scopa",) and manifest.env == {"LEVEL": "3"}
    assert manifest.supports("scopa") and not manifest.supports("scopone")
    assert manifest.is_python


def test_bytes_parse_like_text() -> None:
    assert parse_manifest(GOOD.encode()) == parse_manifest(GOOD)


REFUSED: dict[str, tuple[str, str]] = {
    "not-toml": ("name = = =", "does not parse as TOML"),
    "no-name": ('version = "1"\ncommand = ["x"]\n', "'name' must be a non-empty string"),
    "name-not-text": ('name = 3\nversion = "1"\ncommand = ["x"]\n', "'name' must be"),
    "bad-name": ('name = "Bad Name"\nversion = "1"\ncommand = ["x"]\n', "'name' 'Bad Name' must"),
    "long-name": (f'name = "{"a" * 41}"\nversion = "1"\ncommand = ["x"]\n', "must match"),
    "no-version": ('name = "ok"\ncommand = ["x"]\n', "'version' must be"),
    "version-number": ('name = "ok"\nversion = 1\ncommand = ["x"]\n', "'version' must be"),
    "blank-version": ('name = "ok"\nversion = " "\ncommand = ["x"]\n', "'version' must be"),
    "long-version": (f'name = "ok"\nversion = "{"1" * 41}"\ncommand = ["x"]\n', "at most 40"),
    "author-number": ('name = "ok"\nversion = "1"\nauthor = 5\ncommand = ["x"]\n', "'author'"),
    "long-author": (
        f'name = "ok"\nversion = "1"\nauthor = "{"a" * 101}"\ncommand = ["x"]\n',
        "at most 100",
    ),
    "version-escape": (
        'name = "ok"\nversion = "1\\u001b[2J"\ncommand = ["x"]\n',
        r"'version' must be plain text, without control or format characters \(it has \\x1b\)",
    ),
    "author-bidi": (
        'name = "ok"\nversion = "1"\nauthor = "evil\\u202egnp"\ncommand = ["x"]\n',
        r"'author' must be plain text.*\\u202e",
    ),
    "no-command": ('name = "ok"\nversion = "1"\n', "'command' must be"),
    "empty-command": ('name = "ok"\nversion = "1"\ncommand = []\n', "'command' must be"),
    "command-text": ('name = "ok"\nversion = "1"\ncommand = "python bot.py"\n', "'command'"),
    "command-blank-part": ('name = "ok"\nversion = "1"\ncommand = ["python", ""]\n', "'command'"),
    "variants-text": (GOOD + 'variants = "scopa"\n', "'variants' must be a list"),
    "variants-empty": (GOOD + "variants = []\n", "'variants' must be a list"),
    "variants-unknown": (GOOD + 'variants = ["poker"]\n', "unknown variant 'poker'"),
    "env-not-table": (GOOD + 'env = "A=1"\n', "'env' must be a table"),
    "env-number": (GOOD + "[env]\nA = 1\n", "'env' must be a table"),
    "env-bad-key": (GOOD + '[env]\n"A=B" = "1"\n', "'env' must be a table"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_it_rejects_bad_manifests_in_one_line_naming_the_field(case: str) -> None:
    text, words = REFUSED[case]
    with pytest.raises(ManifestError, match=words) as caught:
        parse_manifest(text, "up/bot.toml")
    message = str(caught.value)
    assert message.startswith("up/bot.toml: ") and "\n" not in message


def test_it_rejects_text_that_is_not_utf8() -> None:
    with pytest.raises(ManifestError, match="not UTF-8"):
        parse_manifest(b'name = "\xff"')


def test_the_known_variants_can_be_narrowed() -> None:
    with pytest.raises(ManifestError, match="unknown variant 'scopone'"):
        parse_manifest(GOOD + 'variants = ["scopone"]\n', variants={"scopa"})


def test_a_folder_without_a_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match=r"no bot\.toml"):
        read_manifest(tmp_path)


def test_a_folder_manifest_names_its_path_in_errors(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text('name = "ok"\n')
    with pytest.raises(ManifestError, match=f"^{tmp_path / 'bot.toml'}: 'version'"):
        read_manifest(tmp_path)


def _outcome_of_each_caller(folder: Path, text: str) -> list[object]:
    """What the runner, the SDK launcher and the upload check make of one bot.toml."""
    (folder / "bot.toml").write_text(text)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", text)
        archive.writestr("bot.py", "print(1)\n")
    outcomes: list[object] = []
    callers = [
        lambda: BotRef.parse(str(folder)).manifest,
        lambda: LocalBot(folder).manifest,
        lambda: _from_upload(check_archive(buffer.getvalue(), frozenset(VARIANTS)).manifest),
    ]
    for call in callers:
        try:
            outcomes.append(call())
        except (BotError, ManifestError, ArchiveError) as error:
            outcomes.append(str(error).split(": ", 1)[1])  # the part after the file name
    return outcomes


def _from_upload(stored: dict[str, Any]) -> Manifest:
    """The manifest an upload stores (a plain dict) as a :class:`Manifest`."""
    return Manifest(
        name=stored["name"],
        version=stored["version"],
        author=stored["author"],
        command=tuple(stored["command"]),
        variants=tuple(stored["variants"]),
        env=stored.get("env", {}),
    )


@pytest.mark.parametrize("case", ["good", "env", *sorted(REFUSED)])
def test_the_runner_the_launcher_and_uploads_agree(tmp_path: Path, case: str) -> None:
    texts = {"good": GOOD, "env": GOOD + 'variants = ["scopa"]\n[env]\nLEVEL = "3"\n'}
    text = texts[case] if case in texts else REFUSED[case][0]
    outcomes = _outcome_of_each_caller(tmp_path, text)
    assert outcomes[0] == outcomes[1] == outcomes[2], outcomes
    assert isinstance(outcomes[0], Manifest) == (case in texts)
    if case == "env":
        assert outcomes[2] == Manifest(
            "my-bot", "1.0.0", "Tester", ("python", "bot.py"), ("scopa",), {"LEVEL": "3"}
        )


@pytest.mark.parametrize("case", sorted(HOSTILE_MANIFESTS))
def test_it_refuses_each_hostile_manifest_naming_the_bound(case: str) -> None:
    text, bound = HOSTILE_MANIFESTS[case]
    with pytest.raises(ManifestError, match=f"\\({bound}[):]") as caught:
        parse_manifest(text, "up/bot.toml")
    message = str(caught.value)
    assert message.startswith("up/bot.toml: ") and "\n" not in message


@pytest.mark.parametrize(
    "case", ["dotted-key", "deep-array", "deep-inline-table", "huge-integer", "long-key"]
)
def test_the_scan_refuses_before_the_toml_parser_runs(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def parser_called(text: str) -> None:
        raise AssertionError("the TOML parser saw a manifest the scan should have refused")

    monkeypatch.setattr(manifest_module.tomllib, "loads", parser_called)
    with pytest.raises(ManifestError, match=r"\(MAX_"):
        parse_manifest(HOSTILE_MANIFESTS[case][0])


def test_a_manifest_at_every_bound_passes() -> None:
    key = ".".join(["k"] * MAX_KEY_SEGMENTS)
    nested = "[" * MAX_NESTING + "]" * MAX_NESTING
    parts = ", ".join(['"a"'] * (MAX_COMMAND_PARTS - 1))
    text = (
        f'name = "ok"\nversion = "1"\ncommand = ["{"p" * 100}", {parts}]\n'
        f'{key} = 1\nnested = {nested}\nlong = "{"s" * MAX_STRING_CHARS}"\n'
        f"{'q' * MAX_KEY_CHARS} = {'9' * 20}\n"
        "[env]\n" + "".join(f'V{i} = "{"v" * 10}"\n' for i in range(MAX_ENV_VARS))
    )
    parsed = parse_manifest(text)
    assert len(parsed.command) == MAX_COMMAND_PARTS and len(parsed.env) == MAX_ENV_VARS


SCAN_LOOKALIKES = {
    "brackets in strings": "a = \"[[[[[[[[[[[[{{{{{{{{{\"\nb = '[[[[[[[[[[['\n",
    "dots in strings and values": (
        'a = "x.x.x.x.x.x.x.x.x.x.x"\nb = 1.5\nc = 1979-05-27T07:32:00Z\n'
    ),
    "escaped quotes": 'a = "say \\"[[[[[[[[[[\\" again"\n',
    "comments": "# [[[[[[[[[[[ x.x.x.x.x.x.x.x.x.x\na = 1 # {{{{{{{{{{\n",
    "multi-line strings": (
        'a = """\n[[[[[[[[[[[ "quoted" x.x.x.x.x.x.x.x.x\n"""\nb = \'\'\'\n{{{{{{{{{{\'\'\'\n'
    ),
    "quoted dotted keys": '"a.b.c.d.e.f.g.h.i.j" = 1\nsite."google.com" = true\n',
    "headers and arrays of tables": (
        "[t]\nx = 1\n[[a.b]]\ny = [1, 2, [3, 4]]\n[[a.b]]\nz = {p = 1, q = {r = 2}}\n"
    ),
}


@pytest.mark.parametrize("case", sorted(SCAN_LOOKALIKES))
def test_the_scan_passes_toml_that_only_looks_deep(case: str) -> None:
    text = GOOD + SCAN_LOOKALIKES[case]
    assert parse_manifest(text).name == "my-bot"


@pytest.mark.parametrize("command", [["bot", "check"], ["match"]])
@pytest.mark.parametrize("case", ["dotted-key", "deep-array", "long-argument"])
def test_the_command_line_refuses_a_hostile_folder_in_one_line_naming_the_bound(
    command: list[str], case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import main

    text, bound = HOSTILE_MANIFESTS[case]
    (tmp_path / "bot.toml").write_text(text)
    (tmp_path / "bot.py").write_text("print(1)\n")
    opponent = ["random"] if command == ["match"] else []
    assert main([*command, str(tmp_path), *opponent]) == 2
    err = capsys.readouterr().err.strip()
    assert f"({bound}" in err and len(err.splitlines()) == 1
