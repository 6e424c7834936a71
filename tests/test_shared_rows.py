"""Shared rows (``tests/shared_rows.py``): built once for the tests that follow one another and
use them, each test's writes rolled back, and never seen by a test that does not ask."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from shared_rows import SharedRows

# The tests below follow one another: under xdist they stay together on one worker, in order.
pytestmark = pytest.mark.xdist_group("shared-rows-probe")

BUILDS: list[int] = []
BUILT_BEFORE_A_TEST_WITHOUT_THEM = [0]


def build() -> int:
    from django.contrib.auth.models import User

    BUILDS.append(1)
    return User.objects.create_user("shared-probe").pk


@pytest.fixture(scope="session")
def probe_rows(django_db_setup: Any, django_db_blocker: Any) -> Iterator[SharedRows[int]]:
    rows = SharedRows("probe", build, django_db_blocker)
    rows.open_if_used()
    yield rows
    rows.close()


@pytest.fixture
def probe(probe_rows: SharedRows[int], db: Any) -> int:
    return probe_rows.open()


def names() -> list[str]:
    from django.contrib.auth.models import User

    return sorted(User.objects.values_list("username", flat=True))


def test_a_reader_finds_the_rows(probe: int) -> None:
    assert names() == ["shared-probe"]
    assert len(BUILDS) == 1


def test_a_writer_changes_and_adds_rows(probe: int) -> None:
    from django.contrib.auth.models import User

    User.objects.filter(pk=probe).update(username="renamed")
    User.objects.create_user("added")
    assert names() == ["added", "renamed"]


def test_the_next_reader_finds_them_as_built_without_a_new_build(probe: int) -> None:
    assert names() == ["shared-probe"]
    assert len(BUILDS) == 1


def test_a_test_that_does_not_ask_never_sees_them(db: Any) -> None:
    BUILT_BEFORE_A_TEST_WITHOUT_THEM[0] = len(BUILDS)
    assert names() == []


def test_a_later_reader_gets_them_built_again(probe: int) -> None:
    assert names() == ["shared-probe"]
    assert len(BUILDS) == BUILT_BEFORE_A_TEST_WITHOUT_THEM[0] + 1
