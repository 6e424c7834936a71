"""The machine's cores, taken in turns by the xdist workers of one run.

Every test of a run under ``pytest -n`` holds a shared turn while it runs; a test marked
``alone`` (one that measures CPU shares or fills every core on purpose, so that a neighbour
would skew it or be starved by it) holds the only one. A waiting ``alone`` test goes first:
it keeps the gate closed while it waits, so the other workers take no new shared turn and the
ones running finish. Locks on two files named after the run (``flock``, released by the
kernel when a worker dies); a run without ``-n`` takes no lock. Part of the tests.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path


def lock_files(test_id: str) -> tuple[Path, Path]:
    """The gate and the cores of run ``test_id``."""
    base = Path(tempfile.gettempdir()) / f"arena-test-{test_id}"
    return base.with_suffix(".gate"), base.with_suffix(".cores")


@contextlib.contextmanager
def turn(test_id: str, alone: bool, wait: bool = True) -> Iterator[None]:
    """A turn on the cores: shared, or the only one (``alone``). Without ``wait``, raises
    ``BlockingIOError`` when the turn cannot be taken at once."""
    gate_path, cores_path = lock_files(test_id)
    nowait = 0 if wait else fcntl.LOCK_NB
    with open(gate_path, "a") as gate, open(cores_path, "a") as cores:
        fcntl.flock(gate, fcntl.LOCK_EX | nowait)
        try:
            fcntl.flock(cores, (fcntl.LOCK_EX if alone else fcntl.LOCK_SH) | nowait)
        finally:
            fcntl.flock(gate, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(cores, fcntl.LOCK_UN)


def remove_lock_files(test_id: str) -> None:
    """The run's lock files go at its end."""
    for path in lock_files(test_id):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


class KeptTurn:
    """The only turn on the cores, kept from one test marked ``alone`` to the next, so that the
    other workers make way once for a run of them (``tests/conftest.py``)."""

    def __init__(self) -> None:
        self._held: contextlib.ExitStack | None = None
        self.next_alone = False
        """Whether the test after the one running is marked ``alone`` too."""

    @property
    def held(self) -> bool:
        return self._held is not None

    def take(self, test_id: str) -> None:
        """The only turn, unless it is held already (waits for the shared ones to end)."""
        if self._held is None:
            held = contextlib.ExitStack()
            held.enter_context(turn(test_id, alone=True))
            self._held = held

    def give_back(self) -> None:
        """Lets the others take their turns again (nothing if it is not held)."""
        if self._held is not None:
            held, self._held = self._held, None
            held.close()
