"""Production settings pass Django's deployment checks, and plain HTTP is redirected."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def production_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env.update(
        ARENA_DATA_DIR=str(tmp_path),
        ARENA_SECRET_KEY=secrets.token_urlsafe(50),
        ARENA_ALLOWED_HOSTS="arena.example.org",
        ARENA_DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DJANGO_SETTINGS_MODULE="webui.settings",
    )
    return env


def test_production_settings_pass_check_deploy(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=production_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_it_rejects_check_deploy_with_debug_on(tmp_path: Path) -> None:
    env = production_env(tmp_path) | {"ARENA_DEBUG": "1"}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "DEBUG" in result.stdout + result.stderr
