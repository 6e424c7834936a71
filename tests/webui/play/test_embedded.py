"""The Play page's game as ``arena demo`` plays it: SQLite, the embedded broker and a local
worker process, in a fresh environment (no PostgreSQL, no Redis)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent


def test_a_game_plays_on_sqlite_with_the_embedded_broker(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env.update(ARENA_DATA_DIR=str(tmp_path / "data"), ARENA_SANDBOX="auto")
    done = subprocess.run(
        [sys.executable, str(HERE / "embedded_game.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["status"] == "over" and result["moves"] >= 18, result
    assert result["players"] == ["random@1", "ada (human)"]
    assert result["left"] == [], "the bot's process is reaped"
    assert (tmp_path / "data" / "arena.sqlite3").is_file()
