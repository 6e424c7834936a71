"""Path converters for numbers that must fit their database columns.

Django's ``int`` converter takes any number of digits, and a game id of 2**64 reached
PostgreSQL as a query it cannot run (an error page, not a "not found"). ``id`` matches a
primary key (at most 18 digits, within a signed 64-bit column) and ``num`` a version number (at
most 9 digits, within a 32-bit column); anything longer matches no route and is a 404.
"""

from __future__ import annotations


class IdConverter:
    """A primary key: 1 to 18 digits."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


class NumberConverter(IdConverter):
    """A version number: 1 to 9 digits."""

    regex = "[0-9]{1,9}"


def register() -> None:
    """Registers ``id`` and ``num`` once, whichever URL module asks first."""
    from django.urls import register_converter
    from django.urls.converters import get_converters

    known = get_converters()
    for name, converter in (("id", IdConverter), ("num", NumberConverter)):
        if name not in known:
            register_converter(converter, name)
