"""Helpers for the runner's tests: hostile bot folders, short clocks, replay checks."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from service_checks import require

from arena.cli import main as arena_main
from arena.runner import BotRef, Limits, MatchReport

BOTS = Path(__file__).resolve().parent / "bots"

# Short clocks and small limits keep the hostile matches quick.
HOSTILE_LIMITS = Limits(
    cpu_seconds=30, memory_bytes=768 * 1024**2, processes=64, file_bytes=1024**2
)
MOVE_MS = 300
BANK_MS = 20_000


def hostile(name: str) -> BotRef:
    """One of the test bots of ``tests/runner/bots``."""
    return BotRef.parse(str(BOTS / name))


def verify_replays(folder: Path) -> list[dict[str, object]]:
    """Runs ``arena replay verify`` on every replay in ``folder``; returns the replays."""
    replays = []
    files = sorted(folder.glob("game-*.json"))
    assert files, f"no replays in {folder}"
    for path in files:
        assert arena_main(["replay", "verify", str(path)]) == 0, path.read_text()
        replays.append(json.loads(path.read_text()))
    return replays


PlayMatch = Callable[..., MatchReport]


__all__ = [
    "BANK_MS", "BOTS", "HOSTILE_LIMITS", "MOVE_MS", "PlayMatch", "hostile", "require",
    "verify_replays",
]


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
