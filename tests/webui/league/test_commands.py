"""``arena season`` and the management commands, on the embedded default (SQLite, no broker
server, local worker processes started by the command itself)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def embedded(tmp_path: Path) -> dict[str, str]:
    """An environment with nothing configured but a fresh data dir."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_DATA_DIR"] = str(tmp_path / "data")
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def arena(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_a_season_runs_from_the_shell_with_no_server_at_all(embedded: dict[str, str]) -> None:
    created = arena(
        embedded,
        "season",
        "create",
        "shell",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--bot",
        "js-random",
        "--option",
        "target=1",
        "--knockout",
        "2",
    )
    assert created.returncode == 0, created.stderr
    assert "3 entrants, 4 matches" in created.stdout
    ran = arena(embedded, "season", "run", "shell", "--json", "--timeout", "100")
    assert ran.returncode == 0, ran.stderr
    season = json.loads(ran.stdout)
    assert season["status"] == "finished"
    assert season["matches"] == {"done": 4, "scheduled": 4, "planned": 4}
    assert sorted(row["bot"] for row in season["standings"]) == [
        "greedy@1",
        "js-random@1",
        "random@1",
    ]
    assert sum(row["score"] for row in season["standings"]) == 6  # 3 pairings x 2 games
    assert season["champion"] in {row["bot"] for row in season["standings"][:2]}
    assert season["champion_by"] == "knockout"  # the final of the top 2, after the table
    printed = arena(embedded, "season", "standings", "shell")
    assert printed.returncode == 0, printed.stderr
    assert (
        f"champion: {season['champion']} (the winner of the knockout of the top 2, played "
        "after the table)"
    ) in " ".join(printed.stdout.split())
    recomputed = arena(embedded, "season", "recompute-ratings", "--json")
    assert recomputed.returncode == 0, recomputed.stderr
    assert json.loads(recomputed.stdout) == {"games": {"scopa--target-1": 8}, "changed": 0}
    managed = subprocess.run(
        [sys.executable, "manage.py", "standings", "shell", "--json"],
        cwd=ROOT,
        env=embedded,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert managed.returncode == 0, managed.stderr
    assert json.loads(managed.stdout)["standings"] == season["standings"]


@pytest.mark.slow
def test_a_three_player_season_runs_from_the_shell_and_prints_its_places(
    embedded: dict[str, str],
) -> None:
    created = arena(
        embedded,
        "season",
        "create",
        "three",
        "--variant",
        "scopa-3",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--bot",
        "js-random",
        "--option",
        "target=1",
    )
    assert created.returncode == 0, created.stderr
    assert "every pair at the same tables, 3 entrants, 1 matches" in created.stdout
    ran = arena(embedded, "season", "run", "three", "--json", "--timeout", "100")
    assert ran.returncode == 0, ran.stderr
    season = json.loads(ran.stdout)
    assert season["format"]["name"] == "tables" and season["status"] == "finished"
    assert [sum(row["places"]) for row in season["standings"]] == [3, 3, 3]
    assert sum(row["score"] for row in season["standings"]) == 9  # 3 games, 2 + 1 + 0 each
    printed = arena(embedded, "season", "standings", "three")
    assert printed.returncode == 0, printed.stderr
    for heading in ("1st", "2nd", "3rd", "points", "placement points: 2 for first"):
        assert heading in printed.stdout
    assert season["champion_by"] == "table"
    assert f"champion: {season['champion']} (the top of the table)" in printed.stdout


BAD_INPUT = [
    (["season", "create", "x", "--bot", "random", "--bot", "nope"], "unknown bot 'nope'"),
    (["season", "create", "x", "--bot", "random"], "at least 2 entrants"),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--variant", "poker"],
        "poker",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--option", "target"],
        "expected NAME=VALUE",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--knockout", "3"],
        "knockout size 3",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--seed", str(2**63)],
        "--seed must be between 0 and 9223372036854775807, not 9223372036854775808",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--bank", "500"],
        "--bank must be at least --move-time (1000), not 500",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--move-time", "0"],
        "--move-time must be between 1 and 600000, not 0",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--format", "swiss"],
        "a Swiss of 3 rounds needs at least 4 entrants, not 2",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--rounds", "2"],
        "rounds 2: only a Swiss season takes a number of rounds",
    ),
    (
        [
            "season",
            "create",
            "x",
            "--bot",
            "random",
            "--bot",
            "greedy",
            "--variant",
            "scopone",
            "--format",
            "partnerships",
        ],
        "rotating partnerships need 4, 5, 8, 9, 12, 13",
    ),
    (
        ["season", "create", "x", "--bot", "random", "--bot", "greedy", "--variant", "scopa-3"],
        "3-seat tables need at least 3 entrants, not 2",
    ),
    (["season", "run", "missing"], "no season named 'missing'"),
    (["season", "standings", "missing"], "no season named 'missing'"),
]


def test_it_rejects_bad_input_with_one_line_and_changes_nothing(
    embedded: dict[str, str],
) -> None:
    for args, message in BAD_INPUT:
        result = arena(embedded, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    listed = arena(embedded, "season", "list", "--json")
    assert json.loads(listed.stdout) == []


def worker_pids(parent: int) -> list[int]:
    """The pids of the ``arena worker`` processes whose parent is ``parent``."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"worker" in command and b"arena.cli" in command:
            pids.append(int(stat.parent.name))
    return pids


@pytest.mark.slow
def test_season_run_replaces_a_local_worker_that_dies(embedded: dict[str, str]) -> None:
    created = arena(
        embedded,
        "season",
        "create",
        "hard",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--bot",
        "js-random",
        "--option",
        "target=1",
    )
    assert created.returncode == 0, created.stderr
    embedded["ARENA_MATCH_LEASE_S"] = "5"  # the killed worker's match is soon played again
    running = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "season", "run", "hard", "--json", "--timeout", "150"],
        cwd=ROOT,
        env=embedded,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (pids := worker_pids(running.pid)):
            assert running.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(pids[0], signal.SIGKILL)  # the worker alone, as the kernel's OOM killer would
        stdout, stderr = running.communicate(timeout=170)
    finally:
        running.kill()
    assert running.returncode == 0, stderr
    assert "a local worker exited (code -9); started another" in stderr
    season = json.loads(stdout)
    assert season["matches"] == {"done": 3, "scheduled": 3, "planned": 3}
    assert sum(row["score"] for row in season["standings"]) == 6
