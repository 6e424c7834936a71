"""What text and JSON the arena stores: the checks every edge applies, in one place.

Every text a person sends (a JSON field, a form field, a query parameter) and every value of an
uploaded ``bot.toml`` passes here before the database sees it, and is refused with
:class:`InputError`, one line naming the field, when it holds

- a NUL character (PostgreSQL's text and ``jsonb`` cannot store one; SQLite would, so a site
  tested on SQLite alone never notices);
- a lone surrogate (``"\\ud800"`` in JSON: not a character, so not encodable as UTF-8);
- where a name is expected (a bot, a season, a variant, a token), any other control character;
- more characters than allowed (the site reads the bound from the model's field,
  :func:`webui.league.inputs.column_max`, so the check and the column cannot drift apart);
- in JSON bound for a ``jsonb`` column: a number that is not finite (TOML's ``nan`` and
  ``inf``, which PostgreSQL's JSON does not have).

What bots write (logs, faults, fallback messages in replays) is not refused but made storable
(:func:`storable`, :func:`storable_json`) where the league records it.

Pure Python (standard library only): :mod:`arena.archives` checks uploaded manifests with it,
in ``arena bot submit`` as on the site. Not the ranges of numbers (:mod:`webui.league.ranges`).
"""

from __future__ import annotations

import datetime
import math
import unicodedata
from collections.abc import Mapping
from typing import Any


class InputError(ValueError):
    """A value refused at the edge, in one line: ``field`` is where it came from (``options``,
    ``env.HOME``, ``variants[2]``) and ``reason`` what is wrong with it; the message says both,
    the field as ``label`` when given."""

    def __init__(self, field: str, reason: str, label: str | None = None) -> None:
        self.field = field
        self.reason = reason
        self.message = f"{label or field} {reason}"
        super().__init__(self.message)


def bad_character(value: str, *, name: bool = False) -> str | None:
    """Why ``value`` cannot be stored as text (its first bad character), or None.

    NUL and lone surrogates are never storable; with ``name``, no control character either.

    >>> bad_character("greedy")
    >>> bad_character("a\\x00b")
    'a NUL character at position 2'
    >>> bad_character("\\ud800")
    'a lone surrogate (U+D800) at position 1'
    >>> bad_character("two\\nlines", name=True)
    'a control character (U+000A) at position 4'
    """
    for index, char in enumerate(value, start=1):
        code = ord(char)
        if code == 0:
            return f"a NUL character at position {index}"
        if 0xD800 <= code <= 0xDFFF:
            return f"a lone surrogate (U+{code:04X}) at position {index}"
        if name and unicodedata.category(char) == "Cc":
            return f"a control character (U+{code:04X}) at position {index}"
    return None


def check_text(
    field: str,
    value: Any,
    most: int | None = None,
    *,
    blank: bool = True,
    name: bool = False,
    label: str | None = None,
) -> str:
    """``value`` if it is storable text of at most ``most`` characters (non-blank unless
    ``blank``; with ``name``, free of control characters), else :class:`InputError`.

    The message names ``label`` (by default ``field``).

    >>> check_text("name", "Spring", 100)
    'Spring'
    >>> check_text("name", "x" * 101, 100)
    Traceback (most recent call last):
    ...
    arena.inputs.InputError: name must be at most 100 characters, not 101
    """
    if not isinstance(value, str):
        raise InputError(field, f"must be a string, not {value!r}", label)
    if most is not None and len(value) > most:
        raise InputError(field, f"must be at most {most} characters, not {len(value)}", label)
    problem = bad_character(value, name=name)
    if problem:
        raise InputError(field, f"holds {problem}", label)
    if not blank and not value.strip():
        raise InputError(field, "must not be empty", label)
    return value


MAX_DEPTH = 32


def check_json(field: str, value: Any, *, depth: int = 0) -> Any:
    """``value`` if every string in it is storable, every key a name (no control character)
    and every number finite, else :class:`InputError` naming the field and where in it.

    >>> check_json("options", {"target": 21, "names": ["a", "b"]})
    {'target': 21, 'names': ['a', 'b']}
    >>> check_json("manifest", {"x": [1.0, float("nan")]})
    Traceback (most recent call last):
    ...
    arena.inputs.InputError: manifest.x[1] must be a finite number, not nan
    """
    if depth > MAX_DEPTH:
        raise InputError(field, f"is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        check_text(field, value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(field, f"must be a finite number, not {value!r}")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            text = str(key)
            problem = bad_character(text, name=True)  # keys are names
            if problem:
                raise InputError(field, f"has a key that holds {problem}")
            check_json(f"{field}.{text}", item, depth=depth + 1)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_json(f"{field}[{index}]", item, depth=depth + 1)
    return value


def json_ready(value: Any, field: str = "value", *, depth: int = 0) -> Any:
    """A parsed TOML (or JSON) document as JSON a ``jsonb`` column takes: dates and times
    become ISO 8601 text at any depth; bad text and numbers raise :class:`InputError`.

    >>> json_ready({"when": datetime.date(2026, 5, 1), "n": [1, 2.5]})
    {'when': '2026-05-01', 'n': [1, 2.5]}
    """
    if depth > MAX_DEPTH:
        raise InputError(field, f"is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            text = str(key)
            problem = bad_character(text)
            if problem:
                raise InputError(field, f"has a key that holds {problem}")
            out[text] = json_ready(item, f"{field}.{text}", depth=depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [json_ready(item, f"{field}[{i}]", depth=depth + 1) for i, item in enumerate(value)]
    return check_json(field, value, depth=depth)


def storable(text: str) -> str:
    """``text`` with what no text column can hold replaced by U+FFFD: for what the arena
    writes from bots' output (logs, fault details), which it keeps rather than refuses.

    >>> storable("ok\\x00\\ud800")
    'ok\\ufffd\\ufffd'
    """
    if bad_character(text) is None:
        return text
    return "".join("\ufffd" if ord(c) == 0 or 0xD800 <= ord(c) <= 0xDFFF else c for c in text)


def storable_json(value: Any) -> Any:
    """``value`` with :func:`storable` applied to every string (keys too) and every number
    that is not finite made null: for what bots write into replays and logs (a fault's
    detail, a fallback's message), which the arena records rather than refuses. A bot cannot
    make its match unrecordable (and so void) by answering with a NUL.

    >>> storable_json({"faults": [{"detail": "boom\\x00"}], "ms": float("nan")})
    {'faults': [{'detail': 'boom\ufffd'}], 'ms': None}
    """
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {
            storable(str(k)) if isinstance(k, str) else k: storable_json(v)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [storable_json(item) for item in value]
    return value
