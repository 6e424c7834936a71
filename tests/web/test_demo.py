"""``arena demo`` from a fresh environment (no database, no broker, an empty data folder):
it plays its season, prints the standings and serves pages that answer."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fresh_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env["ARENA_DATA_DIR"] = str(data_dir)
    env["ARENA_SANDBOX"] = "auto"
    return env


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.status, response.read().decode()


def test_the_demo_plays_a_season_and_serves_its_pages(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "demo", "--bots", "random", "greedy",
         "--port", str(port), "--workers", "0"],
        cwd=ROOT, env=fresh_env(tmp_path / "data"), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    output: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if "Serving the site at" in line:
                break
        else:
            pytest.fail("the demo ended without serving:\n" + "".join(output))
        text = "".join(output)
        assert "champion: " in text and "greedy@1" in text and "random@1" in text
        assert (tmp_path / "data" / "arena.sqlite3").is_file()  # SQLite, no server

        base = f"http://127.0.0.1:{port}"
        status, home = get(base + "/")
        assert status == 200 and "Demo season 1" in home
        status, season = get(base + "/seasons/1/")
        assert status == 200 and "Standings" in season and "greedy@1" in season
        status, board = get(base + "/variants/scopa/")
        assert status == 200 and "random@1" in board
        status, body = get(base + "/api/games")
        game = json.loads(body)["games"][0]["id"]
        status, page = get(f"{base}/games/{game}/")
        assert status == 200 and "data-frames-url" in page
        status, frames = get(f"{base}/api/games/{game}/frames")
        assert json.loads(frames)["frames"][-1]["score"] is not None
        status, css = get(base + "/static/web/site.css")
        assert status == 200 and ".v-board" in css
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
