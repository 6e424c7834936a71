"""Turns on the cores (``tests/cores.py``): shared turns together, an ``alone`` turn by itself."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import cores
import pytest


@pytest.fixture
def run() -> Iterator[str]:
    test_id = f"cores-probe-{uuid.uuid4().hex[:8]}"
    yield test_id
    cores.remove_lock_files(test_id)


def test_shared_turns_are_taken_together(run: str) -> None:
    with cores.turn(run, alone=False), cores.turn(run, alone=False, wait=False):
        pass


def test_no_turn_is_taken_beside_an_alone_one(run: str) -> None:
    with cores.turn(run, alone=True):
        for alone in (False, True):
            with pytest.raises(BlockingIOError), cores.turn(run, alone=alone, wait=False):
                pass


def test_an_alone_turn_waits_for_the_shared_ones(run: str) -> None:
    with (
        cores.turn(run, alone=False),
        pytest.raises(BlockingIOError),
        cores.turn(run, alone=True, wait=False),
    ):
        pass
    with cores.turn(run, alone=True, wait=False):
        pass


def test_a_kept_alone_turn_keeps_the_others_out_until_it_is_given_back(run: str) -> None:
    kept = cores.KeptTurn()
    kept.take(run)
    kept.take(run)  # the next test alone: already held, nothing waits
    assert kept.held
    with pytest.raises(BlockingIOError), cores.turn(run, alone=False, wait=False):
        pass
    kept.give_back()
    assert not kept.held
    with cores.turn(run, alone=False, wait=False):
        pass
    kept.give_back()  # given back twice: nothing


def test_the_lock_files_go_at_the_end_of_the_run(run: str) -> None:
    with cores.turn(run, alone=False):
        pass
    assert all(path.exists() for path in cores.lock_files(run))
    cores.remove_lock_files(run)
    assert not any(path.exists() for path in cores.lock_files(run))
