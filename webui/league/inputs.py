"""What text and JSON may come into the site: :mod:`arena.inputs`' checks, and the bounds of
the columns they go into.

Every text a person sends and every value of an uploaded ``bot.toml`` passes
:mod:`arena.inputs` before the database sees it; :func:`column_max` reads a column's bound from
its model's field, so the check and the column cannot drift apart. Not the ranges of numbers
(:mod:`webui.league.ranges`).
"""

from __future__ import annotations

from typing import Any

from arena.inputs import (
    InputError,
    bad_character,
    check_json,
    check_text,
    json_ready,
    storable,
    storable_json,
)

__all__ = [
    "InputError",
    "bad_character",
    "check_json",
    "check_text",
    "column_max",
    "json_ready",
    "storable",
    "storable_json",
]


def column_max(model: Any, field: str) -> int:
    """The ``max_length`` of ``model``'s ``field``: the most characters the column holds."""
    found = model._meta.get_field(field).max_length
    if not isinstance(found, int):
        raise TypeError(f"{model.__name__}.{field} has no max_length")
    return found
