"""A bot's ``bot.toml`` manifest: the one parser the runner, the SDK launcher and uploads share.

:func:`parse_manifest` checks manifest text (an upload's ``bot.toml``); :func:`read_manifest`
reads a bot folder's. Both return a :class:`Manifest` or raise :class:`ManifestError` with one
line naming the file and the field. The rules are the contract in docs/ARCHITECTURE.md, so a
bot the site accepts is a bot the runner can start. This module only reads and checks: it
starts no process, and it knows nothing of archives, sandboxes or the league.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine import VARIANTS
from arena.text import unsafe_characters

MANIFEST_FILE = "bot.toml"
"""The manifest's file name inside a bot folder or at the top of an archive."""
NAME_PATTERN = re.compile(r"[a-z0-9-]{1,40}")
"""What a bot's name may be: 1 to 40 lowercase letters, digits or dashes."""
MAX_VERSION_CHARS = 40
MAX_AUTHOR_CHARS = 100
ANY_VARIANT = "*"


class ManifestError(ValueError):
    """A ``bot.toml`` that is missing or refused; the message names the file and the field."""


@dataclass(frozen=True)
class Manifest:
    """A checked ``bot.toml``."""

    name: str
    version: str
    author: str
    command: tuple[str, ...]
    variants: tuple[str, ...] = (ANY_VARIANT,)
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    """Extra environment variables for the bot's process (the SDK launcher sets them)."""

    @property
    def label(self) -> str:
        """How replays name this bot: ``name@version``."""
        return f"{self.name}@{self.version}"

    @property
    def is_python(self) -> bool:
        """Whether the command runs the arena's Python (so the sandbox binds it and arena)."""
        return self.command[0] in {"python", "python3"}

    def supports(self, variant: str) -> bool:
        """Whether the bot says it plays ``variant``."""
        return ANY_VARIANT in self.variants or variant in self.variants


def parse_manifest(
    text: str | bytes,
    source: str = MANIFEST_FILE,
    variants: Collection[str] | None = None,
) -> Manifest:
    """Parses and checks manifest ``text``; ``source`` names it in errors.

    ``variants`` are the names a manifest may list besides ``"*"`` (default: every variant of
    the engine). Raises :class:`ManifestError`.

    >>> parse_manifest('name = "me"\\nversion = "1"\\ncommand = ["python", "bot.py"]').label
    'me@1'
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError(f"{source}: cannot read it: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        detail = " ".join(str(error).split())
        raise ManifestError(
            f"{source}: cannot read it: it does not parse as TOML ({detail})"
        ) from None
    return _check(data, source, VARIANTS if variants is None else variants)


def read_manifest(folder: str | Path, variants: Collection[str] | None = None) -> Manifest:
    """Reads and checks ``folder/bot.toml``. Raises :class:`ManifestError`."""
    path = Path(folder) / MANIFEST_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ManifestError(f"{folder}: no {MANIFEST_FILE} (a bot folder needs one)") from None
    except OSError as error:
        raise ManifestError(f"{path}: cannot read it: {error.strerror or error}") from None
    return parse_manifest(raw, str(path), variants)


def _check(data: dict[str, Any], source: str, known: Collection[str]) -> Manifest:
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ManifestError(f"{source}: 'name' must be a non-empty string")
    if not NAME_PATTERN.fullmatch(name):
        raise ManifestError(
            f"{source}: 'name' {name!r} must match [a-z0-9-]{{1,40}} "
            "(lowercase letters, digits, dashes)"
        )
    version = data.get("version")
    if not isinstance(version, str) or not version.strip() or len(version) > MAX_VERSION_CHARS:
        raise ManifestError(
            f"{source}: 'version' must be a non-empty string of at most {MAX_VERSION_CHARS} "
            'characters, such as "1.0.0"'
        )
    author = data.get("author", "")
    if not isinstance(author, str) or len(author) > MAX_AUTHOR_CHARS:
        raise ManifestError(
            f"{source}: 'author' must be a string of at most {MAX_AUTHOR_CHARS} characters"
        )
    for field_name, value in (("version", version), ("author", author)):
        unsafe = unsafe_characters(value)
        if unsafe:  # shown on terminals and pages: no control, format or separator character
            raise ManifestError(
                f"{source}: '{field_name}' must be plain text, without control or format "
                f"characters (it has {', '.join(dict.fromkeys(unsafe))})"
            )
    command = data.get("command")
    if (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
    ):
        raise ManifestError(
            f"{source}: 'command' must be a non-empty list of strings, "
            'such as ["python", "bot.py"]'
        )
    chosen = data.get("variants", [ANY_VARIANT])
    if not isinstance(chosen, list) or not chosen or not all(isinstance(v, str) for v in chosen):
        raise ManifestError(f"{source}: 'variants' must be a list of variant names, or [\"*\"]")
    unknown = [v for v in chosen if v != ANY_VARIANT and v not in known]
    if unknown:
        raise ManifestError(
            f"{source}: 'variants' names unknown variant {unknown[0]!r} "
            f'(known: {", ".join(sorted(known))}, or "*")'
        )
    env = data.get("env", {})
    if not isinstance(env, dict) or not all(
        key and "=" not in key and "\0" not in key and isinstance(value, str) and "\0" not in value
        for key, value in env.items()
    ):
        raise ManifestError(
            f"{source}: 'env' must be a table of variable names (no '=') to strings"
        )
    return Manifest(
        name=name,
        version=version,
        author=author,
        command=tuple(command),
        variants=tuple(chosen),
        env=dict(env),
    )


__all__ = [
    "MANIFEST_FILE",
    "NAME_PATTERN",
    "Manifest",
    "ManifestError",
    "parse_manifest",
    "read_manifest",
]
