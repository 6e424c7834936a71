"""A bot's ``bot.toml`` manifest: the one parser the runner, the SDK launcher and uploads share.

:func:`parse_manifest` checks manifest text (an upload's ``bot.toml``); :func:`read_manifest`
reads a bot folder's. Both return a :class:`Manifest` or raise :class:`ManifestError` with one
line naming the file and the field. The rules are the contract in docs/ARCHITECTURE.md, so a
bot the site accepts is a bot the runner can start. Every text is bounded before the TOML
parser sees it (:func:`scan_manifest`, the ``MAX_*`` constants) and every field after, so no
manifest costs its reader more than a few milliseconds or its runner more than a pipe holds.
This module only reads and checks: it starts no process, and it knows nothing of archives,
sandboxes or the league.
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

# What the scan bounds before the TOML parser sees a byte (see :func:`scan_manifest`). Python's
# tomllib is quadratic in a dotted key's segments and recursive in the nesting of arrays and
# inline tables: unbounded, a 250-byte zipped manifest holds a CPU for minutes, and a deep one
# overflows the stack. A real manifest is a few hundred bytes, ten lines, two levels deep.
MAX_MANIFEST_BYTES = 64 * 1024
"""The largest ``bot.toml``, in bytes (it is kept in the database with the version)."""
MAX_LINES = 1000
"""The most lines a ``bot.toml`` may have."""
MAX_KEY_CHARS = 100
"""The longest key (one segment of a dotted key, or a table header's), in characters."""
MAX_KEY_SEGMENTS = 8
"""The most segments of one dotted key (``a.b.c`` has 3) or table header."""
MAX_NESTING = 8
"""The deepest nesting of arrays (``[``) and inline tables (``{``) in a value."""
MAX_ENTRIES = 1000
"""The most keys and array items a ``bot.toml`` may hold, all tables together."""
MAX_STRING_CHARS = 4096
"""The longest string value, in characters."""
MAX_BARE_CHARS = 100
"""The longest bare value (a number, a date, ``true``), in characters."""

# What the checks bound after parsing: the fields the runner passes to a bot's process (the
# fork server's spec carries them, so their total stays well under a pipe's 64 KiB).
MAX_COMMAND_PARTS = 64
"""The most parts of ``command`` (the program and its arguments)."""
MAX_COMMAND_CHARS = 4096
"""The most characters of ``command``, all parts together."""
MAX_ENV_VARS = 32
"""The most variables of ``env``."""
MAX_ENV_NAME_CHARS = 64
"""The longest name of an ``env`` variable."""
MAX_ENV_VALUE_CHARS = 1024
"""The longest value of an ``env`` variable."""
MAX_VARIANTS = 32
"""The most names ``variants`` may list."""


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
        """How ``arena match``, ``arena bot`` and their replays name this bot: ``name
        (version)``, its bot.toml version in brackets. Not ``name@version``: the site names a
        version ``name@N`` by its number there, and ``my-bot@0.1.0`` beside ``my-bot@1`` reads
        as two numbering schemes of one thing."""
        return f"{self.name} ({self.version})"

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
    'me (1)'
    """
    if len(text) > MAX_MANIFEST_BYTES:  # before decoding: bytes or characters, both bounded
        raise ManifestError(
            f"{source}: it is {len(text):,} bytes; the limit is {MAX_MANIFEST_BYTES:,} "
            "(MAX_MANIFEST_BYTES)"
        )
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise ManifestError(f"{source}: cannot read it: not UTF-8 text") from None
    scan_manifest(text, source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        detail = " ".join(str(error).split())
        raise ManifestError(
            f"{source}: cannot read it: it does not parse as TOML ({detail})"
        ) from None
    return _check(data, source, VARIANTS if variants is None else variants)


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]*")
_BARE_VALUE = re.compile(r"[^\s,\[\]{}#\"'=]*")
_BASIC_STOP = re.compile(r'["\\\n]')
_LITERAL_STOP = re.compile(r"['\n]")


def scan_manifest(text: str, source: str = MANIFEST_FILE) -> None:
    """Refuses ``text`` that is too big for the TOML parser, in one pass, before it parses.

    Linear in the text, and reads no more of TOML than where strings, keys and values are: the
    lines, each key's segments and their length, the nesting of arrays and inline tables, the
    keys and items all together, and each string's and bare value's length, against the
    ``MAX_*`` bounds of this module. Raises :class:`ManifestError` naming the line and the bound
    (a text that is not TOML may pass: the parser says what is wrong with it).

    >>> scan_manifest("x" + ".x" * 8 + " = 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    arena.manifest.ManifestError: bot.toml: line 1: a key has more than 8 dotted segments ...
    """
    _Scan(text, source).run()


class _Scan:
    """The state of :func:`scan_manifest`: a position, the open brackets, what comes next."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.stack: list[str] = []
        self.entries = 0

    def refuse(self, at: int, what: str) -> ManifestError:
        line = self.text.count("\n", 0, at) + 1
        return ManifestError(f"{self.source}: line {line}: {what}")

    def run(self) -> None:
        text, n = self.text, len(self.text)
        lines = text.count("\n") + 1
        if lines > MAX_LINES:
            raise ManifestError(
                f"{self.source}: it has {lines:,} lines; the limit is {MAX_LINES:,} (MAX_LINES)"
            )
        i = 0
        expect_key = True
        while i < n:
            c = text[i]
            if c == "\n":
                expect_key = expect_key or not self.stack
                i += 1
            elif c in " \t\r":
                i += 1
            elif c == "#":
                end = text.find("\n", i)
                i = n if end < 0 else end
            elif expect_key and c in "}":
                i = self.close(i)
                expect_key = False
            elif expect_key:
                if not self.stack and c == "[":  # a table header: [a.b] or [[a.b]]
                    i += 2 if text.startswith("[[", i) else 1
                    i = self.key(i)
                    while i < n and text[i] in " \t]":
                        i += 1
                else:
                    start = i
                    i = self.key(i)
                    expect_key = False
                    if i == start:
                        i += 1  # not a key: the parser will say so; the scan moves on
            elif c in "\"'":
                i = self.string(i, MAX_STRING_CHARS, "a string", "MAX_STRING_CHARS")
            elif c in "[{":
                self.stack.append(c)
                if len(self.stack) > MAX_NESTING:
                    raise self.refuse(
                        i, f"arrays and tables nest more than {MAX_NESTING} deep (MAX_NESTING)"
                    )
                expect_key = c == "{"
                i += 1
            elif c in "]}":
                i = self.close(i)
            elif c == ",":
                if self.stack and self.stack[-1] == "{":
                    expect_key = True
                else:
                    self.count(i)
                i += 1
            elif c == "=":
                i += 1
            else:
                end = _BARE_VALUE.match(text, i).end()  # type: ignore[union-attr]
                if end - i > MAX_BARE_CHARS:
                    raise self.refuse(
                        i, f"a value is longer than {MAX_BARE_CHARS} characters (MAX_BARE_CHARS)"
                    )
                i = max(end, i + 1)

    def close(self, i: int) -> int:
        if self.stack:
            self.stack.pop()
        return i + 1

    def count(self, i: int) -> None:
        self.entries += 1
        if self.entries > MAX_ENTRIES:
            raise self.refuse(i, f"it holds more than {MAX_ENTRIES:,} keys and items (MAX_ENTRIES)")

    def key(self, i: int) -> int:
        """Reads a (dotted) key from ``i``; returns where it ends."""
        text, n = self.text, len(self.text)
        segments = 0
        start = i
        while True:
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] in "\"'":
                i = self.string(i, MAX_KEY_CHARS, "a key", "MAX_KEY_CHARS")
            else:
                end = _BARE_KEY.match(text, i).end()  # type: ignore[union-attr]
                if end - i > MAX_KEY_CHARS:
                    raise self.refuse(
                        i, f"a key is longer than {MAX_KEY_CHARS} characters (MAX_KEY_CHARS)"
                    )
                if end == i:
                    break
                i = end
            segments += 1
            if segments > MAX_KEY_SEGMENTS:
                raise self.refuse(
                    i,
                    f"a key has more than {MAX_KEY_SEGMENTS} dotted segments (MAX_KEY_SEGMENTS)",
                )
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] == ".":
                i += 1
            else:
                break
        if segments:
            self.count(start)
        return i

    def string(self, i: int, most: int, what: str, bound: str) -> int:
        """Skips the string that opens at ``i`` (any of TOML's four kinds); returns its end."""
        text, n = self.text, len(self.text)
        quote = text[i]
        if text.startswith(quote * 3, i):  # multi-line: ends at three quotes (plus up to two)
            j = i + 3
            if quote == "'":
                close = text.find("'''", j)
                end = n if close < 0 else close
            else:
                end = n
                while j < n:
                    stop = _BASIC_STOP.search(text, j)
                    if stop is None:
                        break
                    j = stop.start()
                    if text[j] == "\\":
                        j += 2
                    elif text.startswith('"""', j):
                        end = j
                        break
                    else:
                        j += 1
            length = end - i - 3
            after = min(n, end + 3)
            while after < n and text[after] == quote and after < end + 5:
                after += 1
        else:
            j = i + 1
            end = n
            stops = _LITERAL_STOP if quote == "'" else _BASIC_STOP
            while j < n:
                stop = stops.search(text, j)
                if stop is None:
                    break
                j = stop.start()
                if text[j] == "\\":  # an escape, in a basic string only
                    j += 2
                    continue
                end = j  # the closing quote, or the end of the line (the parser refuses it)
                break
            length = end - i - 1
            after = end + 1 if end < n and text[end] == quote else end
        if length > most:
            raise self.refuse(i, f"{what} is longer than {most:,} characters ({bound})")
        return after


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
    total = sum(len(part) for part in command)
    if len(command) > MAX_COMMAND_PARTS or total > MAX_COMMAND_CHARS:
        raise ManifestError(
            f"{source}: 'command' has {len(command):,} parts of {total:,} characters; the "
            f"limit is {MAX_COMMAND_PARTS} parts (MAX_COMMAND_PARTS) of {MAX_COMMAND_CHARS:,} "
            "characters in all (MAX_COMMAND_CHARS)"
        )
    chosen = data.get("variants", [ANY_VARIANT])
    if not isinstance(chosen, list) or not chosen or not all(isinstance(v, str) for v in chosen):
        raise ManifestError(f"{source}: 'variants' must be a list of variant names, or [\"*\"]")
    if len(chosen) > MAX_VARIANTS:
        raise ManifestError(
            f"{source}: 'variants' lists {len(chosen):,} names; the limit is {MAX_VARIANTS} "
            "(MAX_VARIANTS)"
        )
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
    if len(env) > MAX_ENV_VARS:
        raise ManifestError(
            f"{source}: 'env' has {len(env):,} variables; the limit is {MAX_ENV_VARS} "
            "(MAX_ENV_VARS)"
        )
    for key, value in env.items():
        if len(key) > MAX_ENV_NAME_CHARS or len(value) > MAX_ENV_VALUE_CHARS:
            raise ManifestError(
                f"{source}: 'env' variable {key[:MAX_ENV_NAME_CHARS]!r} is too long: names may "
                f"have {MAX_ENV_NAME_CHARS} characters (MAX_ENV_NAME_CHARS), values "
                f"{MAX_ENV_VALUE_CHARS:,} (MAX_ENV_VALUE_CHARS)"
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
    "scan_manifest",
]
