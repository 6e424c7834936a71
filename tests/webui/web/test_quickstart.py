"""The README's quick start and "write a bot in five minutes", run as a newcomer pastes them.

A copy of this checkout's tracked files stands for a fresh clone (its ``.venv`` and the
JavaScript sample bot's packages are this checkout's, linked, so that ``scripts/setup`` finds
them installed: the test measures the newcomer's path, not pip). In the first terminal
``scripts/demo`` runs as the quick start writes it (on a free port instead of 8000, with its
data in the copy's ``var/``); the site must answer while the demo's season still plays. In a
second terminal (one bash, so ``source`` and ``cd`` carry over, starting in the copy's root,
with a fresh ``HOME``) every line of the recipe's block runs as written, in order, each of them
succeeding: ``arena login`` is given a token made on the site's account page as the README
says, logged in with the login the demo printed. Then SIGTERM to the demo's process group
leaves no process behind.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from web_helpers import Streamed, descendants, still_running

from webui.serving import free_port

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]


def code_block(after: str) -> list[str]:
    """The command lines of the README's first ``sh`` block after the heading ``after``,
    comments stripped."""
    text = (ROOT / "README.md").read_text()
    start = text.index(after)
    block = text[text.index("```sh\n", start) + len("```sh\n") :]
    block = block[: block.index("```")]
    lines = [line.split("  #")[0].split(" # ")[0].rstrip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def fresh_clone(target: Path) -> None:
    """The checkout's tracked files (as they are now), with their times, and its .venv.

    The clone shares the checkout's .venv: the checkout's own set-up runs first, so that the
    clone's finds nothing to install (a reinstall from the clone would point the shared
    .venv's editable install and its scripts at the clone, which is gone after the test)."""
    subprocess.run(
        [str(ROOT / "scripts" / "setup"), "--dev"], cwd=ROOT, check=True, capture_output=True
    )
    listed = (
        subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if not source.is_file():
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name, follow_symlinks=False)
    (target / ".venv").symlink_to(ROOT / ".venv")
    modules = ROOT / "sample_bots" / "js-random" / "node_modules"
    if modules.is_dir():
        (target / "sample_bots" / "js-random" / "node_modules").symlink_to(modules)


class Terminal(Streamed):
    """The first terminal: a command in a session of its own, its output read as it comes."""

    name = "the terminal"

    def __init__(self, line: str, cwd: Path, env: dict[str, str]) -> None:
        super().__init__(["bash", "-c", line], cwd, env)

    @property
    def text(self) -> str:
        return self.words

    def wait_for(self, words: str, timeout: float = 600.0) -> str:
        return super().wait_for(words, timeout)


def make_token(base: str, password: str) -> str:
    """What the README asks of a person: log in, account page, "Create a token", copy it."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )

    def form(path: str, fields: dict[str, str]) -> str:
        with opener.open(base + path, timeout=30) as response:
            page = response.read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        assert token, page
        data = urllib.parse.urlencode({"csrfmiddlewaretoken": token.group(1), **fields})
        with opener.open(base + path, data=data.encode(), timeout=30) as response:
            return str(response.read().decode())

    form("/accounts/login/", {"username": "demo", "password": password, "next": "/accounts/"})
    page = form("/accounts/", {"action": "create", "name": "laptop"})
    found = re.search(r'<code id="new-token">([^<]+)</code>', page)
    assert found, page
    return found.group(1)


def test_the_readme_quick_start_and_bot_recipe_work_as_pasted(tmp_path: Path) -> None:
    clone = tmp_path / "scopa-arena"
    fresh_clone(clone)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARENA_", "DJANGO_", "VIRTUAL_ENV"))
    }
    env.update(
        HOME=str(tmp_path / "home"),
        ARENA_DATA_DIR=str(clone / "var"),
        XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
    )
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    )  # a newcomer's shell: no arena on it
    (tmp_path / "home").mkdir()

    quick = code_block("## Quick start")
    assert quick[0] == "scripts/demo", quick
    demo = Terminal(f"{quick[0]} --port {port}", clone, env)
    try:
        said = demo.wait_for("Serving the site at")
        found = re.search(r"Log in as demo / (\S+) at", said)
        assert found, said
        # The site answers while the demo's season still plays.
        with urllib.request.urlopen(f"{base}/api/seasons/1/live", timeout=30) as response:
            live = json.loads(response.read())
        assert live["status"] == "running" and live["matches_done"] < live["matches_planned"]
        token = make_token(base, found.group(1))

        recipe = code_block("## Write a bot in five minutes")
        assert recipe[0] == "source .venv/bin/activate" and "arena bot submit ." in recipe
        script = ["set -e"]
        for line in recipe:
            script.append(f"echo '$ {line}'")
            # The one line that asks a person for input gets the token as they paste it.
            script.append(line + (' <<< "$TOKEN"' if line == "arena login" else ""))
        second = dict(env, TOKEN=token, ARENA_SERVER=base)  # the README's other-port line
        done = subprocess.run(
            ["bash", "-c", "\n".join(script)],
            cwd=clone,
            env=second,
            capture_output=True,
            text=True,
            timeout=900,
        )
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        for expected in (
            "Wrote python bot 'my-bot'",
            "checks passed",
            "\nOK",
            "Logged in to " + base + " as demo",
            "my-bot by demo",
            "my-bot@1: ready",
        ):
            assert expected in out, (expected, out)
        assert "arena: command not found" not in out

        children = descendants(demo.process.pid)
        assert any("arena.cli worker" in command for _, command in children.values())
        os.killpg(demo.process.pid, signal.SIGTERM)  # a service manager's stop, or `kill`
        demo.process.wait(timeout=120)  # a bound on a hang, not a measure
        assert still_running(children) == []
    finally:
        if demo.process.poll() is None:
            os.killpg(demo.process.pid, signal.SIGKILL)
            demo.process.wait()
