"""Helpers of the Play page's tests: the bot processes under the test's workers, and waiting
on a game's JSON state."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # embedded_game.py, run as a script, imports this module alone
    from live_workers import Live

WAIT_S = 90.0


def wait_state(
    client: Any,
    game_id: int,
    until: Callable[[dict[str, Any]], bool],
    why: str,
    logs: Callable[[], str] = lambda: "",
) -> dict[str, Any]:
    """Polls ``/play/<id>/state`` until ``until(state)`` holds (fails after a long while)."""
    deadline = time.monotonic() + WAIT_S
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        response = client.get(f"/play/{game_id}/state")
        assert response.status_code == 200, response.content
        state = response.json()
        if until(state):
            return state
        time.sleep(0.1)
    raise AssertionError(f"never {why}; last state {state}\n{logs()}")


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (children, their children...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def bot_processes(workers: Live, marker: str = "bot.py") -> list[str]:
    """The command lines of the processes under the test's workers that contain ``marker``
    (``bot.py``: the bots; ``bwrap``: their sandboxes)."""
    found = []
    for pool in workers.started:
        for process in pool.processes:
            for pid in descendants(process.pid):
                try:
                    raw = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                command = raw.replace(b"\0", b" ").decode(errors="replace")
                if marker in command:
                    found.append(f"{pid}: {command}")
    return found
