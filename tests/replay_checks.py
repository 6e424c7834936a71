"""Replay checks shared by the test folders: every written replay verifies with the CLI.

Imported by the helper modules of the test folders (``tests/`` is on the path through the
top-level conftest), not a fixture module itself.
"""

from __future__ import annotations

import json
from pathlib import Path

from arena.cli import main as arena_main


def verify_replays(folder: Path) -> list[dict[str, object]]:
    """Runs ``arena replay verify`` on every replay in ``folder``; returns the replays."""
    replays = []
    files = sorted(folder.glob("game-*.json"))
    assert files, f"no replays in {folder}"
    for path in files:
        assert arena_main(["replay", "verify", str(path)]) == 0, path.read_text()
        replays.append(json.loads(path.read_text()))
    return replays
