"""``arena doctor`` and the runner's fallbacks: each protection said active or replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from runner_helpers import require

from arena.runner import cgroups, seccomp
from arena.runner.sandbox import bwrap_features, remove_tree, sweep_stale_seat_dirs

EVERY = {
    "sandbox",
    "system-call filter",
    "no nested namespaces",
    "unprivileged bot",
    "tmpfs sizes",
    "seat memory and processes",
    "one seat runs at a time",
    "seat CPU share",
    "socket the runner checked",
    "sealed seats",
}


def doctor(env: dict[str, str] | None = None) -> tuple[int, dict[str, dict[str, object]]]:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "doctor", "--json"],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    report = json.loads(done.stdout)
    return done.returncode, {item["name"]: item for item in report["protections"]}


def test_the_doctor_names_every_protection_as_this_host_gives_it(bwrap: str) -> None:
    status, found = doctor()
    assert set(found) == EVERY
    features = bwrap_features()
    require(features is not None, "a working bubblewrap")
    assert features is not None
    always = ("sandbox", "no nested namespaces", "unprivileged bot", "socket the runner checked")
    for name in always:
        assert found[name]["active"] is True, found[name]
    assert found["system-call filter"]["active"] is (seccomp.filter_problem() is None)
    assert found["tmpfs sizes"]["active"] is features.size
    group = cgroups.backend()
    assert found["seat memory and processes"]["active"] is (group is not None)
    assert found["one seat runs at a time"]["active"] is (
        group is not None and group.freezer_parent is not None
    )
    assert found["seat CPU share"]["active"] is (group is not None and group.cpu_parent is not None)
    assert found["sealed seats"]["active"] is (
        os.geteuid() == 0
        and group is not None
        and group.freezer_parent is not None
        and found["system-call filter"]["active"] is True
    )
    assert status == (0 if all(item["active"] for item in found.values()) else 1)


def test_without_control_groups_the_doctor_names_the_watchdog(bwrap: str) -> None:
    status, found = doctor({cgroups.CGROUP_ENV: "off"})
    assert status == 1
    line = found["seat memory and processes"]
    assert line["active"] is False and "watchdog" in str(line["detail"])
    line = found["one seat runs at a time"]
    assert line["active"] is False and "SIGSTOP" in str(line["detail"])


def test_the_runner_says_once_that_it_fell_back_to_the_watchdog(bwrap: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "random", "greedy", "--games", "4", "--json"],
        env={**os.environ, cgroups.CGROUP_ENV: "off"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("no control group for the bots") == 1, done.stderr
    assert all(not game["faults"] for game in json.loads(done.stdout)["games"])


def test_empty_seat_groups_left_behind_are_swept_and_busy_ones_kept() -> None:
    found = cgroups.backend()
    require(found is not None, "a writable control group")
    assert found is not None
    label = f"sweeptest-{os.getpid()}"
    idle = cgroups.SeatGroup(found, label, 64 * 1024**2, 16)
    busy = cgroups.SeatGroup(found, label, 64 * 1024**2, 16)
    sleeper = subprocess.Popen([*busy.join_command(), "sleep", "30"])
    try:
        for _ in range(100):
            if busy.pids():
                break
            time.sleep(0.01)
        assert busy.pids() == [sleeper.pid]
        removed = cgroups.sweep_stale_groups(found, older_than_s=-1, prefix=f"scopa-{label}")
        assert not idle.memory_dir.exists() and busy.memory_dir.exists()
        assert removed >= 1
    finally:
        busy.kill()
        sleeper.wait()
        busy.remove()
    assert not busy.memory_dir.exists()


def dead(pid: int) -> bool:
    """Whether process ``pid`` is gone, or a zombie its new parent has yet to reap."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state in {"Z", "X"}:
            return True
        time.sleep(0.01)
    return False


def test_a_frozen_seat_whose_runner_died_is_thawed_killed_and_removed() -> None:
    # A runner killed while a seat was frozen leaves the seat's processes behind: with the v1
    # freezer, even the SIGKILL its death sends them waits for a thaw. The next runner's sweep
    # ends such groups, and leaves alone those of a live runner (here, this process).
    found = cgroups.backend()
    require(found is not None, "a writable control group")
    assert found is not None
    label = f"orphantest-{os.getpid()}"
    orphan = cgroups.SeatGroup(found, label, 64 * 1024**2, 16)
    live = cgroups.SeatGroup(found, label, 64 * 1024**2, 16)
    # The orphan's process is started by a shell that exits at once: its parent is gone.
    subprocess.run(
        ["/bin/sh", "-c", '"$@" & exit 0', "sh", *orphan.join_command(), "sleep", "60"], check=True
    )
    sleeper = subprocess.Popen([*live.join_command(), "sleep", "60"])
    try:
        for _ in range(200):
            if orphan.pids() and live.pids():
                break
            time.sleep(0.01)
        (stray,) = orphan.pids()
        for group in (orphan, live):
            if group.can_freeze:
                group.freeze()
        assert cgroups.orphaned_groups(found, prefix=f"scopa-{label}") == [orphan.name]
        removed = cgroups.sweep_stale_groups(found, prefix=f"scopa-{label}")
        assert removed == 1
        assert not orphan.memory_dir.exists() and not orphan.pids_dir.exists()
        assert dead(stray)
        assert live.pids() == [sleeper.pid] and live.memory_dir.exists()
    finally:
        live.kill()
        sleeper.wait()
        live.remove()
        orphan.kill()
        orphan.remove()


def test_a_worker_whose_parent_died_ends_the_seats_of_its_runners_frozen_or_not() -> None:
    # `arena worker` whose starting command died ends the seat groups of its runners (itself
    # and its pool processes) whether or not they still live: here this process is the runner.
    found = cgroups.backend()
    require(found is not None, "a writable control group")
    assert found is not None
    label = f"endtest-{os.getpid()}"
    groups = [cgroups.SeatGroup(found, label, 64 * 1024**2, 16) for _ in range(2)]
    sleepers = [subprocess.Popen([*group.join_command(), "sleep", "60"]) for group in groups]
    try:
        for _ in range(200):
            if all(group.pids() for group in groups):
                break
            time.sleep(0.01)
        assert [group.pids() for group in groups] == [[s.pid] for s in sleepers]
        if groups[0].can_freeze:  # a frozen seat takes its SIGKILL only once thawed
            groups[0].freeze()
        # Another runner's seats are not these.
        assert cgroups.end_seats_of({os.getpid() + 10**7}, prefix=f"scopa-{label}") == 0
        assert all(group.memory_dir.exists() for group in groups)
        assert cgroups.end_seats_of({os.getpid()}, prefix=f"scopa-{label}") == 2
        for group, sleeper in zip(groups, sleepers, strict=True):
            assert sleeper.wait(timeout=30) == -signal.SIGKILL  # a bound on a hang
            assert not group.memory_dir.exists() and not group.pids_dir.exists()
    finally:
        for group, sleeper in zip(groups, sleepers, strict=True):
            group.kill()
            sleeper.kill()
            sleeper.wait()
            group.remove()


def test_old_seat_folders_left_behind_are_swept(tmp_path: Path) -> None:
    import tempfile

    old = Path(tempfile.mkdtemp(prefix="scopa-seat-sweeptest-"))
    (old / "a" / "b").mkdir(parents=True)
    (old / "a" / "b" / "f").write_text("x")
    fresh = Path(tempfile.mkdtemp(prefix="scopa-seat-sweeptest-"))
    two_days_ago = time.time() - 2 * 86400
    os.utime(old, (two_days_ago, two_days_ago))
    try:
        sweep_stale_seat_dirs()
        assert not old.exists() and fresh.exists()
    finally:
        remove_tree(fresh)
