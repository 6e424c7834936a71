"""A real ``arena worker --audit`` process serves the audit queue: an audit queued by staff is
run there and recorded, while the matches' queue is left to the match workers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from live_workers import live_workers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.services, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[3]


def test_an_audit_worker_runs_a_queued_audit(
    league: dict[str, Any],
    redis_url: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webui.fairplay import audits
    from webui.fairplay.models import FairPlayAudit
    from webui.league.queue import audit_queue, queue_depth

    with live_workers(redis_url, tmp_path, settings, monkeypatch) as live:
        audit = audits.request_audit(league["peeker"])
        log = (tmp_path / "audit-worker.log").open("w")
        worker = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--audit", "-n", "audit-test@%h"],
            env={**os.environ, **live.env},
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 240
            status = "queued"
            while time.monotonic() < deadline and status in ("queued", "running"):
                time.sleep(1)
                status = FairPlayAudit.objects.get(pk=audit.pk).status
        finally:
            worker.terminate()
            worker.wait(60)
            log.close()
        text = (tmp_path / "audit-worker.log").read_text(errors="replace")
        assert status == "done", text[-3000:]
        assert audit_queue() in text  # it listened on the audit queue
        assert queue_depth(audit_queue()) in (0, None)
    done = FairPlayAudit.objects.get(pk=audit.pk)
    assert done.flagged and done.decisions > 0
