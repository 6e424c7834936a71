"""Writes a new bot folder from a template: ``arena bot new NAME [--lang python|javascript]``.

A Python bot gets ``bot.toml``, ``bot.py`` (an SDK bot with a commented ``choose``),
``test_bot.py`` (``choose`` on many positions, and a match against ``random`` through the
runner), a README and a ``.gitignore``. A JavaScript bot gets the same in Node.js
(``bot.js``, ``test/bot.test.js`` for ``node --test``, ``package.json`` declaring the gRPC
packages) plus a copy of the protocol's ``.proto`` files, so it also runs outside the arena.
Every generated bot passes ``arena bot check`` and plays ``arena match NEW random`` as written.

This module writes files only; installing a JavaScript bot's packages (npm) is the command's
job (:mod:`arena.commands.bot`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from arena.manifest import NAME_PATTERN
from arena.protocol.build import PROTO_ROOT
from arena.text import unsafe_characters

TEMPLATES = Path(__file__).resolve().parent / "templates"
LANGUAGES = ("python", "javascript")


class ScaffoldError(ValueError):
    """A bot folder that cannot be written; the message says why in one line."""


def check_name(name: str) -> str:
    """``name`` if it is a valid bot name, else :class:`ScaffoldError`.

    >>> check_name("my-bot")
    'my-bot'
    """
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"bot name {name!r}: 1 to 40 lowercase letters, digits or dashes, such as 'my-bot'"
        )
    return name


LOCAL_INSTALL = (
    "The `arena` command that wrote this folder is the SDK: there is nothing to install."
)


def site_install(wheel_url: str) -> str:
    """The README's install step for a kit downloaded from a site: its SDK wheel's address.

    >>> print(site_install("https://arena.example.org/sdk/scopa_arena_sdk-0.1.0-py3-none-any.whl"))
    The SDK comes from the site that gave you this kit (no checkout of the arena needed):
    <BLANKLINE>
    ```sh
    python3 -m venv .venv && . .venv/bin/activate
    pip install https://arena.example.org/sdk/scopa_arena_sdk-0.1.0-py3-none-any.whl
    ```
    """
    return (
        "The SDK comes from the site that gave you this kit (no checkout of the arena needed):"
        f"\n\n```sh\npython3 -m venv .venv && . .venv/bin/activate\npip install {wheel_url}\n```"
    )


def new_bot(
    folder: str | Path,
    name: str,
    language: str = "python",
    author: str = "",
    install: str = LOCAL_INSTALL,
) -> list[Path]:
    """Writes a bot called ``name`` in ``language`` into ``folder`` (new, or empty).

    ``install`` is the README's step that installs the SDK (Markdown): by default, none (the
    ``arena`` that runs this has it); a site's starter kit names the site's wheel
    (:func:`site_install`).

    Returns the files written. Raises :class:`ScaffoldError`, writing nothing, for a bad name,
    an unknown language or a folder that already holds something.
    """
    check_name(name)
    if language not in LANGUAGES:
        raise ScaffoldError(f"language {language!r}: one of {', '.join(LANGUAGES)}")
    if len(author) > 100:
        raise ScaffoldError("author: at most 100 characters")
    unsafe = unsafe_characters(author)
    if unsafe:  # bot.toml refuses them (they would reach terminals and pages)
        raise ScaffoldError(
            f"author: plain text, without control or format characters (it "
            f"has {', '.join(dict.fromkeys(unsafe))})"
        )
    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ScaffoldError(
            f"{target} already exists and is not an empty folder; choose another with --dir"
        )
    source = TEMPLATES / language
    protos = sorted(PROTO_ROOT.rglob("*.proto")) if language == "javascript" else []
    if language == "javascript" and not protos:
        raise ScaffoldError(
            f"the protocol's .proto files are not in {PROTO_ROOT}: a JavaScript "
            "bot needs a copy of them"
        )
    values = {
        "{{name}}": name,
        "{{author}}": json.dumps(author, ensure_ascii=False),
        "{{install}}": install,
    }
    written: list[Path] = []
    target.mkdir(parents=True, exist_ok=True)
    templates = [p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    for template in sorted(templates):
        relative = template.relative_to(source)
        out = target / _output_name(relative)
        out.parent.mkdir(parents=True, exist_ok=True)
        if template.suffix == ".tmpl":
            text = template.read_text(encoding="utf-8")
            for key, value in values.items():
                text = text.replace(key, value)
            out.write_text(text, encoding="utf-8")
        else:
            shutil.copyfile(template, out)
        written.append(out)
    for proto in protos:
        out = target / "protos" / proto.relative_to(PROTO_ROOT)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(proto, out)
        written.append(out)
    return written


def _output_name(relative: Path) -> Path:
    """A template's path in the new folder: ``.tmpl`` dropped, ``gitignore`` as a dotfile
    (dotfiles do not survive packaging as templates)."""
    if relative.suffix == ".tmpl":
        relative = relative.with_suffix("")
    if relative.name == "gitignore":
        relative = relative.with_name(".gitignore")
    return relative
