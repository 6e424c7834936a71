"""Rows built once and shared by the tests that follow one another, each in its own rollback.

A set-up that costs seconds (a played season) is built inside a transaction of its own that
stays open; every test that uses it runs in a savepoint inside that transaction (pytest-django's
``db``), so what a test writes is rolled back at its end and the next test finds the rows as
they were built. The transaction is rolled back, and the rows gone, as soon as a test that does
not use them is about to start (``prepare``, called before each test's fixtures), and at the
end of the session; a later user builds them again, before its own transaction begins. So a
test that does not ask for the rows never sees them, and a writer cannot change what the next
test reads.

A test that commits (``transactional_db``, ``live_server``: other connections must see its
rows) cannot run inside the open transaction: its fixture builds its own copy instead
(``uses_shared_rows`` says which tests share). Part of the tests, not of the product.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

import pytest

T = TypeVar("T")

_KNOWN: dict[str, SharedRows[Any]] = {}
"""Every set of shared rows made in this process, by the name of the fixture that uses them."""
_SETTING_UP: list[pytest.Item] = []
"""The test whose fixtures are being set up now (``prepare``)."""


def commits(item: pytest.Item) -> bool:
    """Whether the test runs on committed transactions (its rows seen by other connections)."""
    names = getattr(item, "fixturenames", ())
    if "transactional_db" in names or "live_server" in names:
        return True
    marker = item.get_closest_marker("django_db")
    if marker is None:
        return False
    return bool(marker.kwargs.get("transaction", marker.args[0] if marker.args else False))


def uses_shared_rows(item: pytest.Item, fixture: str) -> bool:
    """Whether the test reads ``fixture``'s shared rows (it asks for it and does not commit)."""
    return fixture in getattr(item, "fixturenames", ()) and not commits(item)


class SharedRows(Generic[T]):
    """``build()``'s rows in a transaction kept open while consecutive tests use them."""

    def __init__(self, fixture: str, build: Callable[[], T], blocker: Any) -> None:
        self.fixture = fixture
        self.build = build
        self.blocker = (
            blocker  # pytest-django's django_db_blocker: the rows are made outside a test
        )
        self.value: T | None = None
        self._atomic: Any = None
        _KNOWN[fixture] = self

    def open(self) -> T:
        """The rows, built now in a new open transaction unless they are there already."""
        from django.db import connection, transaction

        if self.value is not None:
            return self.value
        with self.blocker.unblock():
            if connection.in_atomic_block:
                raise RuntimeError(
                    f"{self.fixture}: a transaction is already open; the shared rows must be "
                    "built before the test's own (see tests/shared_rows.py)"
                )
            self._atomic = transaction.atomic()
            self._atomic.__enter__()
            try:
                self.value = self.build()
            except BaseException:
                self._roll_back()
                raise
        return self.value

    def open_if_used(self) -> None:
        """Builds the rows now if the test being set up uses them (from the session fixture
        that makes this object, which pytest sets up before the test's own)."""
        if _SETTING_UP and uses_shared_rows(_SETTING_UP[-1], self.fixture):
            self.open()

    def close(self) -> None:
        """Rolls the rows back (nothing of them is left in the database)."""
        if self._atomic is None:
            return
        with self.blocker.unblock():
            self._roll_back()

    def _roll_back(self) -> None:
        from django.db import transaction

        transaction.set_rollback(True)
        atomic, self._atomic, self.value = self._atomic, None, None
        atomic.__exit__(None, None, None)


def prepare(item: pytest.Item) -> None:
    """Before a test's fixtures: rolls back every set of shared rows this test does not use,
    and builds again those it uses that an earlier test rolled back (the first user's are
    built by their session fixture, which pytest sets up before the test's own)."""
    _SETTING_UP[:] = [item]
    used = [rows for rows in _KNOWN.values() if uses_shared_rows(item, rows.fixture)]
    for rows in _KNOWN.values():
        if rows not in used:
            rows.close()
    for rows in used:
        rows.open()


def close_all() -> None:
    """Rolls back every set of shared rows (the end of the session)."""
    for rows in list(_KNOWN.values()):
        rows.close()
