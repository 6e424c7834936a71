"""``arena bench site --concurrency``: concurrent clients against the production server, end
to end on a small SQLite database (a smoke test: the figures are printed for people, never
asserted)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from service_checks import require

from webui.bench.site_load import LIVE_PAGES
from webui.serving import find_nginx

ROOT = Path(__file__).resolve().parents[3]


def bench(*args: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_"))}
    env["ARENA_WEB_WORKERS"] = "2"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "bench",
            "site",
            "--database-url",
            f"sqlite:///{tmp_path / 'bench.sqlite3'}",
            *args,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_concurrent_clients_get_every_page_with_healthz_as_the_baseline(tmp_path: Path) -> None:
    require(find_nginx() is not None, "nginx")
    result = bench(
        "--games",
        "60",
        "--bots",
        "4",
        "--requests",
        "12",
        "--concurrency",
        "3",
        "--runs",
        "2",
        "--crowd",
        "--json",
        tmp_path=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["concurrency"] == 3 and report["runs"] == 2
    assert report["server"].startswith("gunicorn behind nginx, 2 workers")
    pages = report["pages"]
    assert pages[0]["page"] == "baseline: /healthz" and pages[0]["url"] == "/healthz"
    assert {p["url"].split("/")[1] for p in pages} >= {
        "healthz",
        "variants",
        "bots",
        "games",
        "seasons",
        "api",
        "ladder",
    }
    urls = " ".join(p["url"] for p in pages)
    for read in (
        "/api/bots/bot-000/games?after=",
        "/api/games?after=",
        "?matches_after=",
        "/frames",
        "/replay",
        "/api/seasons/1/matches?after=",
    ):
        assert read in urls, read
    for page in pages:
        assert page["requests"] == 24, page  # 12 a run, two runs
        assert page["statuses"] == {"200": 24}, page
        assert page["errors"] == page["server_errors"] == 0
        assert page["p50"] <= page["p95"] <= page["max"]
        assert len(page["p95_runs"]) == len(page["requests_per_s_runs"]) == 2
        assert min(page["p95_runs"]) <= page["p95"] <= max(page["p95_runs"])
    assert pages[0]["p95_vs_baseline"] == 1.0
    crowd = report["crowd"]
    every = 2 * (12 * len(pages) // 2)
    assert crowd["all"]["requests"] == every and crowd["all"]["statuses"] == {"200": every}
    # A third of the clients (one of three) watch /tv/ and the board it features.
    assert crowd["watchers"] == 1
    watched = [name for name, _ in LIVE_PAGES]
    assert [p["page"] for p in crowd["pages"]] == [p["page"] for p in pages] + watched
    assert {"/tv/", "/api/tv"} <= {p["url"] for p in pages}
    assert sum(p["requests"] for p in crowd["pages"]) == every
    for page in crowd["pages"][len(pages) :]:
        assert page["requests"] > 0 and set(page["statuses"]) == {"200"}, page
    assert crowd["ladder_games"] >= 0


@pytest.mark.slow
def test_the_crowd_runs_again_beside_hostile_uploads(tmp_path: Path) -> None:
    """``--hostile``: the crowd again while two clients upload hostile archives (small ones
    here), ``/healthz``'s p95 beside the quiet crowd's."""
    require(find_nginx() is not None, "nginx")
    result = bench(
        "--games",
        "40",
        "--bots",
        "3",
        "--requests",
        "6",
        "--concurrency",
        "2",
        "--hostile",
        "2",
        "--hostile-scale",
        "0.02",
        "--json",
        tmp_path=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    hostile = report["hostile"]
    assert hostile["uploaders"] == 2 and hostile["scale"] == 0.02
    uploads = hostile["uploads"]
    assert uploads["uploads"] == sum(uploads["statuses"].values()) >= 2
    assert not any(status.startswith("5") for status in uploads["statuses"]), uploads
    assert [p["page"] for p in hostile["pages"]] == [p["page"] for p in report["pages"]]
    assert hostile["pages"][0]["page"] == "baseline: /healthz"
    assert hostile["healthz_p95"] == hostile["pages"][0]["p95"]
    assert hostile["healthz_quiet_p95"] == report["crowd"]["pages"][0]["p95"]
    assert hostile["healthz_p95_ratio"] == round(
        hostile["healthz_p95"] / hostile["healthz_quiet_p95"], 2
    )
    assert hostile["all"]["requests"] == 6 * len(report["pages"]) // 2


@pytest.mark.parametrize(
    "args,message",
    [
        (["--concurrency", "0"], "--concurrency 0: between 1 and 1000"),
        (["--no-nginx"], "--no-nginx, --crowd, --hostile and --runs go with --concurrency"),
        (["--crowd"], "--no-nginx, --crowd, --hostile and --runs go with --concurrency"),
        (["--hostile", "2"], "--no-nginx, --crowd, --hostile and --runs go with --concurrency"),
        (["--concurrency", "2", "--hostile", "-1"], "--hostile -1: between 0 and 100"),
        (
            ["--concurrency", "2", "--hostile", "1", "--hostile-scale", "2"],
            "--hostile-scale 2: above 0, at most 1",
        ),
        (["--concurrency", "2", "--runs", "0"], "--runs 0: between 1 and 20"),
    ],
)
def test_it_rejects_bad_options_in_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    result = bench(*args, tmp_path=tmp_path)
    assert result.returncode == 2
    assert result.stdout.strip() == f"error: {message}"
    assert not (tmp_path / "bench.sqlite3").exists()
