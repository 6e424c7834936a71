"""Helpers for the runner's tests: test bot folders, replay checks, a loop of their own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from replay_checks import verify_replays
from service_checks import require

BOTS = Path(__file__).resolve().parents[1] / "hostile" / "bots"
"""The test bots (hostile ones, mostly) of the hostile suite."""

__all__ = ["BOTS", "require", "run_coroutine", "verify_replays"]


T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """Runs ``coroutine`` to its end on a fresh event loop in a thread of its own.

    Another test package may leave an event loop running in the tests' thread (Playwright's
    sync API does while its browser lives), where ``asyncio.run`` refuses to start.
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = asyncio.run(coroutine)
        except BaseException as error:  # re-raised in the test's thread
            box["error"] = error

    thread = threading.Thread(target=target, name="test-coroutine")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    result: T = box["result"]
    return result
