"""``arena bench export``: the download of every stored game from the production server, end to
end on a small SQLite database (a smoke test: the figures are printed for people, never
asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from service_checks import require

from webui.serving import find_nginx

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_it_downloads_every_stored_game_and_times_a_page_beside_it(tmp_path: Path) -> None:
    require(find_nginx() is not None, "nginx")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env["ARENA_WEB_WORKERS"] = "2"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "bench",
            "export",
            "--database-url",
            f"sqlite:///{tmp_path / 'bench.sqlite3'}",
            "--games",
            "60",
            "--bots",
            "4",
            "--page-size",
            "25",
            "--baseline-requests",
            "5",
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["games"] == report["games_read"] == 60
    assert report["file_bytes"] > 0 and report["decisions_first_1000_games"] > 0
    assert report["page_idle"]["requests"] == 5 and report["page_idle"]["errors"] == 0
    assert report["page_during_download"]["errors"] == 0
