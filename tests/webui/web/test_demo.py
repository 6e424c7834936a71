"""``arena demo`` from a fresh environment (no database, no broker, an empty data folder):
it plays its season, prints the standings and serves pages that answer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from web_helpers import descendants, still_running, until_serving

from webui.serving import free_port

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.slow


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
    try:
        output = until_serving(process, "the demo")
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


def demo_login(base: str, output: str) -> urllib.request.OpenerDirector:
    """A browser-like session logged in as the demo's account, with the printed password."""
    import http.cookiejar
    import re

    found = re.search(r"Log in as demo / (\S+) \(staff", " ".join(output.split()))
    assert found, output
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(base + "/admin/login/", timeout=30) as response:
        form = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, form
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token.group(1), "username": "demo",
                                   "password": found.group(1), "next": "/admin/"}).encode()
    with opener.open(base + "/admin/login/", data=data, timeout=30) as response:
        assert response.url == base + "/admin/", response.url
    return opener


def test_the_demo_admin_uses_the_admin_and_sigterm_stops_everything_it_started(
    tmp_path: Path,
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "demo", "--games", "2", "--bots", "random",
         "greedy", "--port", str(port), "--data-dir", str(tmp_path / "data")],
        cwd=ROOT, env=fresh_env(tmp_path / "unused"), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    try:
        output = until_serving(process, "the demo")
        base = f"http://127.0.0.1:{port}"
        admin = demo_login(base, "".join(output))
        for page in ("/admin/", "/admin/league/season/", "/admin/league/bot/",
                     "/admin/auth/user/"):
            with admin.open(base + page, timeout=30) as response:
                assert response.status == 200, page
                text = response.read().decode()
                assert "have permission to view or edit anything" not in text
        with admin.open(base + "/admin/league/season/", timeout=30) as response:
            assert "Demo season 1" in response.read().decode()
        children = descendants(process.pid)
        assert any("arena.cli worker" in command for _, command in children.values()), children
        process.send_signal(signal.SIGTERM)  # the process alone, as a service manager does
        rest, _ = process.communicate(timeout=60)
        output.append(rest)
        assert process.returncode == 0, "".join(output)
        assert still_running(children) == []
        assert still_running(descendants(process.pid)) == []
        log = "".join(output)
        assert "Traceback" not in log and " 403 " not in log, log
        assert log.rstrip().endswith("stopped")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
