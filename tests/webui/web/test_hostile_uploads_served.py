"""Hostile uploads against the site as deployed, on PostgreSQL: each is refused by a scan before
any parser runs, none holds a web worker, and no web worker's memory grows past a bound.

The site runs as :class:`webui.serving.ProductionServer` runs it (gunicorn with its production
configuration: two worker processes of four threads) on this test's PostgreSQL database. The
CPU each refusal costs the workers (from ``/proc``) is printed for the record, not asserted: a
refusal made before the parse is asserted by the error naming the scan's bound instead.
"""

from __future__ import annotations

import json
import os
import tarfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from archive_samples import BAD_ARCHIVES, HOSTILE_ARCHIVES, tar_header_bomb
from web_helpers import descendants

from webui.serving import ProductionServer, free_port

pytestmark = pytest.mark.slow

WORKER_MEMORY_BOUND_MB = 400
"""The peak resident memory a web worker may reach while every hostile upload is sent (160 MB
in trials; unbounded, a 375-byte manifest took 3.4 GB, and a 4 MB tar.gz 4 GB)."""
CPU_CASES = ["manifest-dotted-key", "manifest-deep-array", "deep-folders"]


@pytest.fixture
def served(
    transactional_db: Any,
    postgres_available: bool,
    tokens: dict[str, str],
    tmp_path: Path,
) -> Iterator[tuple[ProductionServer, str]]:
    """The production server on this test's database, and the owner's API token."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("these tests run on PostgreSQL; ARENA_DATABASE_URL points elsewhere")
    env = {
        "ARENA_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/"
        + connection.settings_dict["NAME"],
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_BROKER_URL": "",
        "ARENA_HTTPS": "0",
        "ARENA_WEB_WORKERS": "2",
        "ARENA_WEB_THREADS": "4",
        # Every upload here is to be checked, not refused unread as one over the owner's
        # hourly count (a 429 answered before a large body is read breaks the client's pipe).
        "ARENA_UPLOADS_PER_HOUR": "1000",
        "ARENA_UPLOADS_PER_DAY": "1000",
    }
    server = ProductionServer(port=free_port(), nginx=False, env=env, log_dir=tmp_path / "logs")
    with server:
        yield server, tokens["owner"]


def upload(url: str, token: str, data: bytes) -> tuple[int, str]:
    """POSTs ``data`` as a new version of ``my-bot``; the status and the error, if any."""
    request = urllib.request.Request(
        url + "/api/bots/my-bot/versions",
        data=data,
        headers={"Content-Type": "application/zip", "Authorization": token},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, ""
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}").get("error", "")


def healthz(url: str) -> int:
    with urllib.request.urlopen(url + "/healthz", timeout=120) as answer:
        return int(answer.status)


def web_workers(server: ProductionServer) -> list[int]:
    """The gunicorn worker processes (the master's children)."""
    return sorted(descendants(server.processes["gunicorn"].pid))


def cpu_seconds(pids: list[int]) -> float:
    """The CPU (user and system) the processes ``pids`` used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / ticks


def peak_rss_mb(pid: int) -> float:
    """The most resident memory process ``pid`` has held (``VmHWM``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmHWM for process {pid}")


@pytest.mark.parametrize("kind", CPU_CASES)
def test_a_costly_upload_is_refused_by_the_scan_with_a_400(
    kind: str, served: tuple[ProductionServer, str]
) -> None:
    server, token = served
    data, bound = HOSTILE_ARCHIVES[kind]
    for _ in range(4):  # each worker's first requests load the site's code: not the refusal's
        assert upload(server.url, token, BAD_ARCHIVES["no-manifest"][0])[0] == 400
    workers = web_workers(server)
    before = cpu_seconds(workers)
    status, error = upload(server.url, token, data)
    spent = cpu_seconds(workers) - before
    print(f"\n{kind}: {status} in {spent:.2f} s of the web workers' CPU: {error}")
    assert status == 400
    assert f"({bound})" in error  # the scan's bound: refused before tomllib or the unpacking


def test_twelve_costly_uploads_at_once_leave_healthz_answering(
    served: tuple[ProductionServer, str],
) -> None:
    server, token = served
    uploads = [HOSTILE_ARCHIVES[CPU_CASES[i % len(CPU_CASES)]][0] for i in range(12)]
    with ThreadPoolExecutor(max_workers=13) as pool:
        sent = [pool.submit(upload, server.url, token, data) for data in uploads]
        health = pool.submit(healthz, server.url)
        assert health.result() == 200
        assert [future.result()[0] for future in sent] == [400] * 12


def test_no_web_worker_grows_past_its_bound_while_every_hostile_upload_is_sent(
    served: tuple[ProductionServer, str],
) -> None:
    server, token = served
    samples = {**BAD_ARCHIVES, **HOSTILE_ARCHIVES}
    samples["tar-long-name-bomb-1GB"] = (tar_header_bomb(tarfile.GNUTYPE_LONGNAME, 1 << 30), "")
    answers = {}
    for kind, (data, _) in sorted(samples.items()):
        answers[kind] = upload(server.url, token, data)[0]
    assert healthz(server.url) == 200
    assert set(answers.values()) <= {400, 413}, answers
    peaks = {pid: peak_rss_mb(pid) for pid in web_workers(server)}
    print(f"\npeak resident memory of each web worker, MB: {peaks}")
    assert max(peaks.values()) < WORKER_MEMORY_BOUND_MB, peaks
