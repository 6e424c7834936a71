"""Lists paged by key (a cursor), not by offset: page 200 costs what page 1 does.

A list has an order on a few integer columns (its key: a game's ``(match_id, index)``, a
game's ``id``). A page is the ``limit`` rows that follow a row's key (``after``) or precede it
(``before``) in that order, found through the key's index from there: the database never
counts or skips the rows before it, as ``OFFSET`` does. Each page names the key of its last
row (``next``: the cursor of the page after it) and of its first (``prev``: the cursor of the
page before it), or null when there is none.

A cursor is the key's numbers joined by dots (``4312.1``): opaque to clients, which only pass
back what a page gave them. A malformed one, or one with the wrong number of parts, is a 400
naming the query parameter (:class:`~webui.web.api_input.ApiError`). This module is the
paging only; what a list holds and how it is filtered its own module says
(:mod:`webui.web.game_lists`, :mod:`webui.web.match_lists`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar
from urllib.parse import urlencode

from django.db.models import Model, Q, QuerySet
from django.http import QueryDict

from .api_input import ApiError

T = TypeVar("T", bound=Model)
Key = tuple[int, ...]

MAX_PART_DIGITS = 18
"""Digits of one part of a cursor at most: a key column is a 64-bit integer."""


def cursor_text(key: Key) -> str:
    """A key as a cursor.

    >>> cursor_text((4312, 1))
    '4312.1'
    """
    return ".".join(str(part) for part in key)


def parse_cursor(text: str, parts: int, name: str) -> Key:
    """The key a cursor names; :class:`ApiError` (400) naming the parameter ``name`` when it
    is not a cursor of a list keyed by ``parts`` numbers.

    >>> parse_cursor("4312.1", 2, "after")
    (4312, 1)
    """
    pieces = text.split(".")
    if len(pieces) != parts or not all(
        p.isascii() and p.isdigit() and len(p) <= MAX_PART_DIGITS for p in pieces
    ):
        example = cursor_text((4312,) + (1,) * (parts - 1))
        raise ApiError(
            400,
            f"query parameter {name!r}: {text[:40]!r} is not a cursor of this "
            f"list ({parts} whole number{'s' if parts > 1 else ''} joined by "
            f"dots, such as {example!r}: pass back a page's next or prev)",
        )
    return tuple(int(p) for p in pieces)


@dataclass(frozen=True)
class Position:
    """Where a page starts: after a key, before a key, or at the top (neither)."""

    after: Key | None = None
    before: Key | None = None


def parse_position(
    query: QueryDict, parts: int, after: str = "after", before: str = "before"
) -> Position:
    """The ``after``/``before`` cursors of a request (at most one of them), checked."""
    after_text = query.get(after) or None
    before_text = query.get(before) or None
    if after_text is not None and before_text is not None:
        raise ApiError(
            400, f"query parameters {after!r} and {before!r}: give one of them, not both"
        )
    return Position(
        after=parse_cursor(after_text, parts, after) if after_text is not None else None,
        before=parse_cursor(before_text, parts, before) if before_text is not None else None,
    )


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of rows in the list's order, and the cursors of its neighbours."""

    rows: list[T]
    next: str | None
    prev: str | None


def _beyond(fields: Sequence[str], key: Key, forwards: bool) -> Q:
    """Rows strictly after ``key`` in the order of ``fields`` (``-`` for descending), or
    strictly before it when not ``forwards``.

    The first column also gets a bound of its own (``<=``/``>=``) so that the database walks
    the key's index from the cursor on instead of testing every row.
    """
    columns = [(f.lstrip("-"), f.startswith("-")) for f in fields]

    def step(column: str, descending: bool, value: int, strict: bool) -> Q:
        downwards = descending == forwards
        op = ("lt" if strict else "lte") if downwards else ("gt" if strict else "gte")
        return Q(**{f"{column}__{op}": value})

    ties = Q()
    alternatives = Q()
    for (column, descending), value in zip(columns, key, strict=True):
        alternatives |= ties & step(column, descending, value, strict=True)
        ties &= Q(**{column: value})
    first, descending = columns[0]
    return step(first, descending, key[0], strict=False) & alternatives


def keyset_page(
    rows: QuerySet[T],
    fields: Sequence[str],
    key: Callable[[T], Key],
    position: Position,
    limit: int,
) -> Page[T]:
    """The page of ``rows`` ordered by ``fields`` at ``position``: one query of at most
    ``limit + 1`` rows, whatever the page."""
    if position.before is not None:
        # The rows before the cursor, nearest first, then put back in the list's order.
        backwards = [f[1:] if f.startswith("-") else f"-{f}" for f in fields]
        found = list(
            rows.filter(_beyond(fields, position.before, forwards=False)).order_by(*backwards)[
                : limit + 1
            ]
        )
        more = len(found) > limit
        shown = found[:limit][::-1]
        return Page(
            shown,
            cursor_text(key(shown[-1])) if shown else None,
            cursor_text(key(shown[0])) if shown and more else None,
        )
    ordered = rows.order_by(*fields)
    if position.after is not None:
        ordered = ordered.filter(_beyond(fields, position.after, forwards=True))
    found = list(ordered[: limit + 1])
    shown = found[:limit]
    more = len(found) > limit
    return Page(
        shown,
        cursor_text(key(shown[-1])) if shown and more else None,
        cursor_text(key(shown[0])) if shown and position.after is not None else None,
    )


def page_links(
    next_cursor: str | None, prev_cursor: str | None, after: str = "after", before: str = "before"
) -> dict[str, str | None]:
    """The query strings of a page's neighbours (``next_query``, ``prev_query``; None at
    either end) for a page whose only parameter is its cursor."""

    def link(name: str, cursor: str | None) -> str | None:
        return None if cursor is None else urlencode({name: cursor})

    return {"next_query": link(after, next_cursor), "prev_query": link(before, prev_cursor)}
