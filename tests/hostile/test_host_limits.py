"""Bots that try to harm the host: flood the runner, hog memory across processes, fill disks,
break the cleanup, redirect the runner's connection, reach the kernel's attack surface.

Each test plays the bot through the real runner in the real sandbox and checks both that the
attack failed and what the replay says of it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_helpers import (
    BANK_MS,
    BOTS,
    HOSTILE_LIMITS,
    PlayMatch,
    assert_forfeited_by_hostile_side,
    faults_of,
    peak_rss_kib,
    reset_peak_rss,
    rss_kib,
    seat_folders,
    verify_replays,
)

from arena.runner import BotRef, Limits, MatchReport, MatchSpec, cgroups, run_match

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

MIB = 1024**2


def test_a_flood_of_output_keeps_the_runner_and_the_log_bounded(play_hostile: PlayMatch) -> None:
    before = rss_kib()
    reset_peak_rss()
    report = play_hostile("output-flood", move_ms=10_000)
    growth_mib = (peak_rss_kib() - before) / 1024
    assert growth_mib < 100, f"the runner grew by {growth_mib:.0f} MiB reading 440 MiB"
    log = report.logs["0/0"]
    assert len(log.encode()) < 1.2 * MIB
    assert "output-flood: flooding now" in log and "output-flood: done" in log
    cut = re.search(r"\[\.\.\. (\d[\d,]*) bytes cut", log)
    assert cut is not None and int(cut.group(1).replace(",", "")) > 300 * MIB
    for index, game in enumerate(report.games):  # each game's fresh process floods again
        assert faults_of(report, index) == ["output"]
        assert "bytes of output more than its log keeps" in game.faults[0]["detail"]
        assert game.forfeit is None and game.void is None


@pytest.fixture(params=["cgroup", "watchdog"])
def limiter(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each seat limited by a control group (as the host allows) or by the runner's watchdog."""
    if request.param == "watchdog":
        monkeypatch.setenv(cgroups.CGROUP_ENV, "off")
    cgroups.backend.cache_clear()
    if request.param == "cgroup" and cgroups.backend() is None:
        pytest.skip("this host gives the runner no control group (the watchdog is tested)")
    yield request.param
    cgroups.backend.cache_clear()


def test_a_process_tree_is_held_to_one_memory_limit(play_hostile: PlayMatch, limiter: str) -> None:
    report = play_hostile("tree-hog", move_ms=20_000)
    assert_forfeited_by_hostile_side(report, "memory")
    log = report.logs["0/0"]
    for game in report.games:
        assert "memory limit of 768 MiB" in game.forfeit["reason"]  # type: ignore[index]
    held = [int(mib) for mib in re.findall(r"child \d holds (\d+) MiB", log)]
    assert held, log
    # In lockstep, the children's last reports of a game are what they held at once, give or
    # take the step in which one was killed (25 MiB each): three children of 600 MiB would be
    # 1800 MiB; the seat was stopped near its 768 (at the limit with a control group; within
    # the watchdog's 100 ms of growth without one).
    slack = 3 * 25 + (0 if limiter == "cgroup" else 300)
    for chunk in log.split("[arena] starting")[1:]:
        last: dict[str, int] = {}
        for child, mib in re.findall(r"child (\d) holds (\d+) MiB", chunk):
            last[child] = int(mib)
        assert sum(last.values()) <= 768 + slack, (last, chunk[-2000:])


def test_tmpfs_folders_are_small_and_the_host_takes_nothing(play_hostile: PlayMatch) -> None:
    report = play_hostile("disk-filler", move_ms=20_000)
    log = report.logs["0/0"]
    took = {
        place: (int(n), stop)
        for place, n, stop in re.findall(r"disk-filler: (\S+) took (\d+) bytes \(([\w-]+)\)", log)
    }
    tmp = HOSTILE_LIMITS.tmp_bytes
    assert tmp - 2 * MIB <= took["/tmp"][0] <= tmp and took["/tmp"][1] == "ENOSPC", took
    assert tmp - 2 * MIB <= took["/dev/shm"][0] <= tmp and took["/dev/shm"][1] == "ENOSPC"
    assert took["/sock"][0] <= 256 * 1024 and took["/sock"][1] == "ENOSPC"
    for place in ("/bot", "/opt/scopa", "/usr", "/", "/etc", "/proc"):
        assert took[place][0] == 0, (place, took[place])
    for game in report.games:
        assert game.faults == []


def test_what_a_bot_writes_to_its_tmpfs_counts_in_its_memory(play_hostile: PlayMatch) -> None:
    # A /tmp larger than the memory limit: the bytes written there are memory of the seat.
    limits = Limits(cpu_seconds=30, memory_bytes=256 * MIB, processes=64, tmp_bytes=1024 * MIB)
    report = play_hostile("disk-filler", move_ms=20_000, limits=limits)
    assert_forfeited_by_hostile_side(report, "memory")
    for game in report.games:
        assert "memory limit of 256 MiB" in game.forfeit["reason"]  # type: ignore[index]


def deep_dirs_match(tmp_path: Path, *, sandbox: bool) -> tuple[MatchReport, Path]:
    target = tmp_path / "host-folder"
    target.mkdir()
    (target / "precious.txt").write_text("must survive the cleanup")
    folder = tmp_path / "deep-dirs"
    shutil.copytree(BOTS / "deep-dirs", folder)
    with open(folder / "bot.toml", "a") as manifest:
        manifest.write(f'\n[env]\nESCAPE = "{target}"\n')
    spec = MatchSpec(
        entrants=[BotRef.parse(str(folder)), BotRef.parse("random")],
        variant="scopa",
        games=2,
        move_time_ms=20_000,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        sandbox=sandbox,
        replays_dir=tmp_path / "replays",
    )
    return run_match(spec), target


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "unsandboxed"])
def test_a_deep_folder_chain_is_removed_without_following_links(
    bwrap: str, tmp_path: Path, sandbox: bool
) -> None:
    before = seat_folders("deep-dirs")
    report, target = deep_dirs_match(tmp_path, sandbox=sandbox)
    verify_replays(tmp_path / "replays")
    assert report.logs["0/0"].count("deep-dirs: made 3000 levels") == 2
    assert len(report.games) == 2 and all(g.faults == [] for g in report.games)
    assert seat_folders("deep-dirs") - before == set(), "a seat folder was left on the host"
    assert (target / "precious.txt").read_text() == "must survive the cleanup"


class CountingSocket:
    """A unix socket of the 'host' that counts the connections it gets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.connections = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(str(path))
        os.chmod(path, 0o777)
        self.server.listen(64)
        self.server.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.server.close()


@pytest.mark.parametrize("when", ["before", "after"])
def test_the_runner_connects_only_to_the_socket_the_bot_bound(
    bwrap: str, tmp_path: Path, when: str
) -> None:
    host = CountingSocket(tmp_path / "host.sock")
    folder = tmp_path / "socket-swapper"
    shutil.copytree(BOTS / "socket-swapper", folder)
    with open(folder / "bot.toml", "a") as manifest:
        manifest.write(f'\n[env]\nTARGET = "{host.path}"\nSWAP = "{when}"\n')
    spec = MatchSpec(
        entrants=[BotRef.parse(str(folder)), BotRef.parse("random")],
        variant="scopa",
        games=2,
        move_time_ms=2000,
        bank_ms=BANK_MS,
        limits=HOSTILE_LIMITS,
        replays_dir=tmp_path / "replays",
    )
    try:
        report = run_match(spec)
    finally:
        host.close()
    verify_replays(tmp_path / "replays")
    assert host.connections == 0
    assert "now points at" in report.logs["0/0"]
    if when == "before":
        assert_forfeited_by_hostile_side(report, "start")
        for game in report.games:
            assert "/sock/bot.sock is a link" in game.forfeit["reason"]  # type: ignore[index]
    else:  # the runner holds the socket it checked: the swap changes nothing
        for game in report.games:
            assert game.faults == [] and game.forfeit is None


def test_a_bot_cannot_make_namespaces_or_reach_the_kernels_attack_surface(
    play_hostile: PlayMatch,
) -> None:
    report = play_hostile("ns-escaper")
    assert_forfeited_by_hostile_side(report, "forbidden")
    log = report.logs["0/0"]
    assert "SUCCEEDED" not in log, log
    for call in (
        "unshare(CLONE_NEWUSER)",
        "unshare(CLONE_NEWNS)",
        "clone(CLONE_NEWUSER)",
        "mount(tmpfs)",
        "ptrace(TRACEME)",
        "keyctl(GET_KEYRING_ID)",
        "bpf(MAP_CREATE)",
        "perf_event_open",
        "userfaultfd",
        "setns",
    ):
        assert log.count(f"{call} blocked by signal 31") == 2, (call, log)
    assert log.count("clone3 returned -1 (ENOSYS)") == 2
    assert log.count("io_uring_setup returned -1 (ENOSYS)") == 2
    for game in report.games:
        assert "SIGSYS" in game.forfeit["reason"]  # type: ignore[index]
