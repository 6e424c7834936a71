"""A bot author with no checkout: the starter kit and the SDK's wheel downloaded from a running
site into a fresh virtualenv, then the kit's bot checked, played against ``random`` (in the
bubblewrap sandbox) and its own tests run.

The virtualenv is made by ``python -m venv`` outside the checkout; ``pip install`` takes the
wheel from the site (the address the kit's README gives) and its dependencies from the
machine's package index, as an author's pip would. Nothing of the checkout is on the path: the
test asserts that ``arena`` is imported from the new virtualenv.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.sandbox, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[3]


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def test_the_starter_kit_and_the_sdk_from_the_site_play_without_a_checkout(
    live_server: Any, tmp_path: Path, bwrap: str
) -> None:
    with urllib.request.urlopen(f"{live_server.url}/write-a-bot/starter-kit-python.zip") as got:
        zipfile.ZipFile(io.BytesIO(got.read())).extractall(tmp_path)
    kit = tmp_path / "my-bot"
    readme = (kit / "README.md").read_text()
    found = re.search(r"^pip install (\S+)$", readme, re.MULTILINE)
    assert found, readme
    wheel_url = found.group(1)
    assert wheel_url.startswith(f"{live_server.url}/sdk/scopa_arena_sdk-")

    venv = tmp_path / "venv"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "DJANGO_SETTINGS_MODULE")
    }
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(tmp_path)  # no credentials or settings of this machine's user
    run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    run([str(venv / "bin" / "pip"), "install", "--quiet", wheel_url], tmp_path, env)

    where = run(
        [str(venv / "bin" / "python"), "-c", "import arena; print(arena.__file__)"], kit, env
    )
    assert where.strip().startswith(str(venv)) and not where.strip().startswith(str(ROOT))
    checked = run([str(venv / "bin" / "arena"), "bot", "check", "."], kit, env)
    assert re.search(r"\b(\d+)/\1 checks passed", checked), checked
    out = run([str(venv / "bin" / "arena"), "match", ".", "random", "--games", "2"], kit, env)
    assert "my-bot (0.1.0)" in out and "random (1.0.0)" in out and "bubblewrap" in out
    tests = run([str(venv / "bin" / "python"), "-m", "unittest"], kit, env)
    assert re.search(r"Ran [1-9]\d* tests?", tests) and "OK" in tests, tests
