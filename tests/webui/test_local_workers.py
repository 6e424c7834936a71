"""Local worker processes stop with their whole process group, and never signal a group that is
no longer theirs (a reaped leader's pid, hence its group id, can go to another process)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.process_groups import exited_unreaped
from webui.local_workers import KEEP_INTERVAL_S, LocalWorkers, WorkerExit, keep_running


def group_members(pgid: int) -> list[int]:
    """The pids whose process group is ``pgid`` (zombies included)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # it ended while we looked
            continue
        if int(fields[2]) == pgid:
            members.append(int(stat.parent.name))
    return members


def test_an_exited_process_is_seen_but_left_unreaped_so_its_pid_stays_taken() -> None:
    process = subprocess.Popen(["true"], start_new_session=True)
    assert exited_unreaped(process, timeout=30)
    state = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    assert state == "Z" and process.returncode is None
    assert process.wait() == 0


def test_waiting_for_a_running_process_gives_up_without_reaping() -> None:
    process = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        assert not exited_unreaped(process, timeout=0.2)
        assert process.poll() is None
    finally:
        process.kill()
        process.wait()


@pytest.mark.slow
def test_stopping_a_worker_ends_its_pool_children_too(tmp_path: Path) -> None:
    env = {
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_BROKER_URL": "",
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    logs = tmp_path / "logs"
    pool = LocalWorkers(1, concurrency=2, env=env, log_dir=logs).start()
    leader = pool.processes[0].pid
    try:
        deadline = time.monotonic() + 60
        while len(group_members(leader)) < 3:  # the worker and its two pool processes
            assert (
                pool.processes[0].returncode is None
                and exited_unreaped(pool.processes[0], 0) is False
            ), [p.read_text() for p in logs.glob("*")]
            assert time.monotonic() < deadline, "the worker's pool never started"
            time.sleep(0.1)
    finally:
        pool.stop()
    # The pool processes were killed with their group; each is gone once the kernel has
    # finished it and init has reaped it, a moment later on a busy machine.
    deadline = time.monotonic() + 10
    while group_members(leader) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert group_members(leader) == []
    assert pool.processes == []


ADOPTER = """
import subprocess, sys
from arena.process_groups import become_subreaper, children, kill_orphans
assert become_subreaper()
# A child that starts a process in a session of its own and dies: an orphan, as a killed
# worker leaves its bots' sandboxes.
subprocess.run(["sh", "-c", "setsid sleep 600 & exit 0"], check=True)
orphans = children()
assert len(orphans) == 1, orphans
print(kill_orphans(keep=set()), len(children()))
"""


def test_a_subreaper_adopts_and_ends_what_its_children_orphan() -> None:
    """What ``arena web`` and ``arena demo`` do for their workers' bots (stop_all)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", ADOPTER], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1", "0"]  # the orphan was adopted, killed and reaped


REAPER = """
import os, subprocess, sys, time
from arena.process_groups import become_subreaper, children, reap_exited
assert become_subreaper()
kept = subprocess.Popen(["sleep", "600"])  # a worker: its own Popen waits for it
# An orphan that ends on its own a moment later (a sandbox whose bot is done).
subprocess.run(["sh", "-c", "setsid sleep 0.2 & exit 0"], check=True)
deadline = time.monotonic() + 30  # a bound on a hang, not a measure
reaped = 0
while time.monotonic() < deadline and not reaped:
    reaped += reap_exited(keep={kept.pid})
    time.sleep(0.05)
kept.terminate()
still = kept.wait()
print(reaped, children(), still)
"""


def test_an_adopting_process_reaps_orphans_that_end_and_leaves_its_own_children() -> None:
    """Without reaping, every sandbox that ends under ``arena web`` would stay a zombie."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", REAPER], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # One orphan reaped; the kept child's exit status was still its own Popen's (SIGTERM).
    assert done.stdout.split() == ["1", "[]", "-15"], done.stdout


@pytest.mark.slow
def test_a_worker_that_exits_on_its_own_is_replaced_until_the_pool_stops(tmp_path: Path) -> None:
    env = {
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_BROKER_URL": "",
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    pool = LocalWorkers(1, concurrency=2, env=env, log_dir=tmp_path / "logs").start()
    reports: list[str] = []
    keep_running([pool], reports.append)
    first = pool.processes[0]
    try:
        deadline = time.monotonic() + 60
        while len(group_members(first.pid)) < 3:  # the worker and its two pool processes
            assert time.monotonic() < deadline, "the worker's pool never started"
            time.sleep(0.1)
        os.kill(first.pid, signal.SIGKILL)  # the leader alone, as the OOM killer would
        deadline = time.monotonic() + 30
        while not reports:
            assert time.monotonic() < deadline, "the exited worker was not replaced"
            time.sleep(0.05)
        assert reports == ["a local worker exited (code -9); started another"]
        assert first.returncode == -9 and pool.replaced == 1
        assert len(pool.processes) == 1 and pool.processes[0] is not first
        assert pool.processes[0].poll() is None
        # Its pool children were killed with its group (gone once init reaps them).
        deadline = time.monotonic() + 10
        while group_members(first.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert group_members(first.pid) == []
    finally:
        pool.stop()
    time.sleep(KEEP_INTERVAL_S * 1.5)
    assert pool.processes == [] and len(reports) == 1  # a stopped pool is left stopped


class SleepingWorkers(LocalWorkers):
    """Local workers whose processes are ``sleep`` (the pool's bookkeeping, without Celery)."""

    def _launch(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(["sleep", "600"], start_new_session=True)


def wait_exited(process: subprocess.Popen[bytes]) -> None:
    assert exited_unreaped(process, timeout=30)


def test_exited_workers_are_replaced_in_their_places_up_to_the_limit() -> None:
    pool = SleepingWorkers(3).start()
    try:
        first, second, third = pool.processes
        assert pool.replace_exited(limit=1) == []  # all running
        os.kill(second.pid, signal.SIGKILL)
        wait_exited(second)
        assert pool.replace_exited(limit=1) == [WorkerExit(-9, replaced=True)]
        # The new worker took the dead one's place; the others are the same processes.
        assert pool.processes[0] is first and pool.processes[2] is third
        replacement = pool.processes[1]
        assert replacement is not second and replacement.poll() is None
        assert pool.replaced == 1
        # One exit past the limit: reaped and reported, left exited, no new process.
        os.kill(third.pid, signal.SIGTERM)
        wait_exited(third)
        assert pool.replace_exited(limit=1) == [WorkerExit(-15, replaced=False)]
        assert pool.processes == [first, replacement, third] and third.returncode == -15
        assert pool.replaced == 1
        assert pool.replace_exited(limit=1) == []  # seen once only
    finally:
        pool.stop(timeout=5)


def test_a_lifeline_tells_its_holder_when_the_process_that_gave_it_dies() -> None:
    """The lifeline a worker is given reads end-of-file once its writer is gone, however it
    went; a missing or bad one is not watched."""
    import threading

    from arena.process_groups import LIFELINE_ENV, watch_lifeline

    assert not watch_lifeline(lambda: None, env={})
    assert not watch_lifeline(lambda: None, env={LIFELINE_ENV: "not a number"})
    read, write = os.pipe()
    lost = threading.Event()
    assert watch_lifeline(lost.set, env={LIFELINE_ENV: str(read)})
    assert not lost.wait(0.3)  # the writer lives: nothing happens
    os.close(write)
    assert lost.wait(30)  # a bound on a hang
    os.close(read)


def test_a_worker_goes_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    """A process that started local workers is SIGKILLed: each worker reads end-of-file on
    its lifeline and ends itself with its pool process (a group of its own, found here by its
    command line's name)."""
    script = f"""
import sys, time
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from webui.local_workers import LocalWorkers
pool = LocalWorkers(1, prefix="lifelinetest", log_dir=__import__("pathlib").Path({str(tmp_path)!r}))
worker = pool.start_one()
print(worker.pid, flush=True)
time.sleep(600)
"""
    starter = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert starter.stdout is not None
        worker = int(starter.stdout.readline())
        deadline = time.monotonic() + 120  # a bound on a hang, not a measure
        while len(group_of(worker)) < 2:  # the worker and its pool process
            assert time.monotonic() < deadline, sorted(p.name for p in tmp_path.iterdir())
            time.sleep(0.2)
        starter.kill()
        starter.wait()
        while group_of(worker):
            assert time.monotonic() < deadline + 60, group_of(worker)
            time.sleep(0.2)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(starter.pid, signal.SIGKILL)
        starter.wait()
        with contextlib.suppress(ProcessLookupError, NameError):
            os.killpg(worker, signal.SIGKILL)


def group_of(leader: int) -> list[int]:
    """The live processes of the process group ``leader`` leads (zombies left out)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == leader and fields[0] not in {"Z", "X"}:
            found.append(int(stat.parent.name))
    return found
