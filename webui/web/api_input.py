"""What the API accepts: its error, the JSON body's fields and the query parameters, checked.

Every refusal is an :class:`ApiError`: a 4xx status and one line naming the field or parameter,
what is allowed, and what was sent. Numbers are checked against :mod:`webui.league.ranges`, the
ranges the forms and the league use too; texts by :mod:`webui.league.inputs` (every string of
a body, keys included, as it is parsed: no NUL, no lone surrogate, no number that is not
finite). Query strings and form fields are checked by
:class:`webui.web.middleware.InputCheckMiddleware`, for every route. Nothing here reads or
writes the database.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from django.http import HttpRequest, QueryDict

from webui.league import inputs, ranges

MAX_JSON_BYTES = 2 * 1024 * 1024
MISSING: Any = object()


class ApiError(Exception):
    """An answer other than success: a status and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_body(request: HttpRequest, allowed: Collection[str]) -> dict[str, Any]:
    """The body as a JSON object whose fields are all among ``allowed``."""
    if len(request.body) > MAX_JSON_BYTES:
        raise ApiError(413, f"the body is larger than {MAX_JSON_BYTES:,} bytes")
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, RecursionError) as exc:  # ValueError: also a number past int's digits
        raise ApiError(400, f"the body is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ApiError(
            400, f"unknown field {unknown[0]!r} (this takes: {', '.join(sorted(allowed))})"
        )
    for name, value in data.items():
        try:
            inputs.check_json(name, value)
        except inputs.InputError as exc:
            raise ApiError(400, f"field {exc.field!r} {exc.reason}") from None
    return data


def field(data: Mapping[str, Any], name: str, kind: type, default: Any = MISSING) -> Any:
    """Field ``name`` of type ``kind`` (``int`` excludes booleans), or ``default`` if absent."""
    if name not in data:
        if default is MISSING:
            raise ApiError(400, f"missing field {name!r}")
        return default
    value = data[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ApiError(400, f"field {name!r} must be an integer, not {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise ApiError(400, f"field {name!r} must be a {kind.__name__}, not {value!r}")
    return value


def number(data: Mapping[str, Any], name: str, default: Any = MISSING) -> Any:
    """A season number (:data:`webui.league.ranges.SEASON_NUMBERS`) in its range."""
    value = field(data, name, int, default)
    if value is None or (value is default and default is not MISSING):
        return value
    try:
        return ranges.check_number(name, value, label=f"field {name!r}")
    except ranges.RangeError as exc:
        raise ApiError(400, str(exc)) from None


def text(
    data: Mapping[str, Any],
    name: str,
    most: int,
    default: Any = MISSING,
    *,
    blank: bool = True,
    is_name: bool = False,
) -> Any:
    """A string field of at most ``most`` characters (not blank unless ``blank``; a name,
    ``is_name``, holds no control character)."""
    value = field(data, name, str, default)
    if value is default and default is not MISSING:
        return value
    try:
        return inputs.check_text(
            name, value, most, blank=blank, name=is_name, label=f"field {name!r}"
        )
    except inputs.InputError as exc:
        raise ApiError(400, exc.message) from None


def check_query(query: QueryDict, allowed: Collection[str]) -> None:
    """Each query parameter is one the route takes, given once."""
    for name in query:
        if name not in allowed:
            takes = ", ".join(sorted(allowed)) if allowed else "none"
            raise ApiError(400, f"unknown query parameter {name!r} (this takes: {takes})")
        if len(query.getlist(name)) > 1:
            raise ApiError(400, f"query parameter {name!r} is given more than once")


def query_int(query: QueryDict, name: str, lo: int, hi: int, default: int) -> int:
    """A whole-number query parameter from ``lo`` to ``hi``."""
    raw = query.get(name)
    if raw is None:
        return default
    if not raw.isascii() or not raw.isdigit() or not lo <= int(raw) <= hi:
        raise ApiError(
            400, f"query parameter {name!r} must be a whole number from {lo} to {hi}, not {raw!r}"
        )
    return int(raw)


def query_choice(query: QueryDict, name: str, choices: Collection[str]) -> str | None:
    """A query parameter that must be one of ``choices`` (None when absent or empty)."""
    raw = query.get(name) or None
    if raw is not None and raw not in choices:
        shown = ", ".join(sorted(choices)) if choices else "none yet"
        raise ApiError(400, f"query parameter {name!r}: {raw!r} is not one of: {shown}")
    return raw
