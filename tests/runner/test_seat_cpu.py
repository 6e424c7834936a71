"""A seat's share of the CPU and its freezer: equal weights per seat group, frozen seats that do
not run, and in a match only the seat on move thawed, as the kernel says.

CPU use is compared between processes measured over the same window on the same machine (the
same run's baseline), never against an absolute time.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from runner_helpers import require

from arena.runner import BotRef, LiveMove, MatchSpec, cgroups, run_match
from arena.runner.bots import SAMPLE_BOTS

pytestmark = [pytest.mark.slow]

SPIN = ["/bin/sh", "-c", "while :; do :; done"]
TICKS = os.sysconf("SC_CLK_TCK")


def stat_fields(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command's name (state first). Raises
    OSError."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of ``pids`` so far (from /proc/<pid>/stat)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat_fields(pid)
            total += int(fields[11]) + int(fields[12])
    return total / TICKS


def used_over(window_s: float, *groups: list[int]) -> list[float]:
    """The CPU time each list of pids uses in the same ``window_s``."""
    before = [cpu_seconds(pids) for pids in groups]
    time.sleep(window_s)
    return [cpu_seconds(pids) - start for pids, start in zip(groups, before, strict=True)]


@pytest.fixture
def backend() -> cgroups.Backend:
    found = cgroups.backend()
    require(found is not None, "a writable control group")
    assert found is not None
    return found


def members(procs_file: str) -> list[int]:
    """The pids a group's ``cgroup.procs`` lists now."""
    with contextlib.suppress(OSError, ValueError):
        return [int(pid) for pid in Path(procs_file).read_text().split()]
    return []


def how_each_runs(pids: list[int]) -> dict[int, str]:
    """Each process's state and kernel wait channel, as /proc has them (for a failure)."""
    found = {}
    for pid in pids:
        try:
            state = stat_fields(pid)[0]
            wchan = Path(f"/proc/{pid}/wchan").read_text()
            found[pid] = f"{state} in {wchan or '-'}"
        except OSError as error:
            found[pid] = str(error)
    return found


@contextlib.contextmanager
def seat(backend: cgroups.Backend, spinners: int) -> Iterator[tuple[cgroups.SeatGroup, list[int]]]:
    """A seat group holding ``spinners`` processes spinning on the CPU."""
    group = cgroups.SeatGroup(backend, f"cputest-{os.getpid()}", 256 * 1024**2, 128)
    processes = [subprocess.Popen([*group.join_command(), *SPIN]) for _ in range(spinners)]
    pids = [p.pid for p in processes]
    try:
        # Each process joins the seat's groups one after the other, then runs the spinner:
        # the seat is whole once every process is in every group.
        for _ in range(500):
            if all(set(pids) <= set(members(folder)) for folder in group.procs_files()):
                break
            time.sleep(0.01)
        yield group, pids
    finally:
        group.kill()
        for process in processes:
            process.wait()
        group.remove()


def test_a_seat_of_64_spinning_processes_weighs_what_a_seat_of_one_does(
    backend: cgroups.Backend,
) -> None:
    require(backend.cpu_parent is not None, "the cpu controller for seat groups")
    with seat(backend, 1) as (_, one), seat(backend, 64) as (_, many):
        alone, crowd = used_over(1.0, one, many)
    # Equal shares: the lone process gets a whole core while the 64 share the other (each
    # group is held to its share whatever the number of its processes).
    assert alone >= 0.5 * crowd, (alone, crowd)


def test_without_seat_groups_16_processes_crowd_one_out() -> None:
    # The control: such processes, in no group of their own, weigh by their number.
    one = subprocess.Popen(SPIN)
    many = [subprocess.Popen(SPIN) for _ in range(16)]
    try:
        alone, crowd = used_over(1.0, [one.pid], [p.pid for p in many])
    finally:
        for process in [one, *many]:
            process.kill()
        for process in [one, *many]:
            process.wait()
    assert alone < 0.25 * crowd, (alone, crowd)


def test_a_frozen_seat_uses_no_cpu_until_thawed(backend: cgroups.Backend) -> None:
    require(backend.freezer_parent is not None, "a freezer for seat groups")
    with seat(backend, 2) as (group, pids):
        assert group.can_freeze and group.freezer_state() == "thawed"
        group.freeze()
        # A task freezes when it next passes through the kernel; on a loaded host a spinning
        # task may wait long for the CPU, and the v1 freezer can stay "freezing" until asked
        # again (writing FROZEN once more retries the tasks not yet frozen).
        for attempt in range(1000):
            if group.freezer_state() == "frozen":
                break
            if attempt % 20 == 19:
                group.freeze()
            time.sleep(0.01)
        assert group.freezer_state() == "frozen", how_each_runs(group.pids())
        (frozen,) = used_over(0.3, pids)
        group.thaw()
        assert group.freezer_state() == "thawed"
        (running,) = used_over(0.3, pids)
    assert frozen == 0.0 and running > 0.0


def cgroup2_folder() -> Path | None:
    """A writable cgroup v2 hierarchy of this host (its freezer needs no controller)."""
    for point, fstype, _ in cgroups._mounts():
        if fstype == "cgroup2" and os.access(point, os.W_OK):
            return Path(point)
    return None


def test_the_cgroup_v2_freezer_stops_a_group_and_lets_it_go() -> None:
    # The v2 path of the seat freezer, on this host's cgroup v2 hierarchy (where the runner's
    # limits use v1, the v2 freezer still works: it needs no controller).
    mount = cgroup2_folder()
    require(mount is not None, "a writable cgroup v2 hierarchy")
    assert mount is not None
    folder = mount / f"scopa-v2test-{secrets.token_hex(4)}"
    folder.mkdir()
    join = f'echo $$ > "{folder}/cgroup.procs" && exec sh -c "while :; do :; done"'
    spinner = subprocess.Popen(["/bin/sh", "-c", join])
    freezer = cgroups.GroupFreezer("v2", folder)
    try:
        for _ in range(200):
            if (folder / "cgroup.procs").read_text().split():
                break
            time.sleep(0.01)
        assert freezer.state() == "thawed"
        freezer.freeze()
        for _ in range(200):
            if freezer.state() == "frozen":
                break
            time.sleep(0.005)
        assert freezer.state() == "frozen"
        (frozen,) = used_over(0.3, [spinner.pid])
        freezer.thaw()
        assert freezer.state() == "thawed"
        (running,) = used_over(0.3, [spinner.pid])
    finally:
        freezer.close()
        (folder / "cgroup.kill").write_text("1")
        spinner.wait()
        for _ in range(100):
            with contextlib.suppress(OSError):
                folder.rmdir()
                break
            time.sleep(0.01)
    assert frozen == 0.0 and running > 0.0


def test_a_seat_without_a_freezer_is_stopped_with_its_whole_tree() -> None:
    # Each child forks a grandchild that spins: the tree, not the process, is what stops.
    shell = "for i in 1 2 3; do sh -c 'while :; do :; done' & done; wait"
    root = subprocess.Popen(["/bin/sh", "-c", shell], start_new_session=True)
    try:
        for _ in range(200):
            if len(cgroups.tree_pids(root.pid)) >= 4:
                break
            time.sleep(0.01)
        tree = cgroups.tree_pids(root.pid)
        freezer = cgroups.TreeFreezer(root.pid)
        freezer.freeze()
        for _ in range(200):  # a signal is delivered at the process's next entry to the kernel
            states = {
                pid: Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
                for pid in tree
            }
            if set(states.values()) == {"T"}:
                break
            time.sleep(0.005)
        assert set(states.values()) == {"T"}, states
        (frozen,) = used_over(0.3, tree)
        freezer.thaw()
        (running,) = used_over(0.3, tree)
    finally:
        os.killpg(root.pid, 9)
        root.wait()
    assert frozen == 0.0 and running > 0.0


def runs_python(group: Path) -> bool:
    """Whether a process of the control group ``group`` is a Python interpreter (a bot)."""
    for pid in (group / "cgroup.procs").read_text().split():
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/comm").read_text().startswith("python"):
                return True
    return False


def test_in_a_match_only_the_seat_on_move_is_thawed(
    bwrap: str, backend: cgroups.Backend, tmp_path: Path
) -> None:
    require(backend.freezer_parent is not None, "a freezer for seat groups")
    assert backend.freezer_parent is not None
    name = f"frz-{secrets.token_hex(4)}"  # this run's groups, whatever else runs on the host
    folder = tmp_path / name
    shutil.copytree(SAMPLE_BOTS / "random", folder)
    manifest = (folder / "bot.toml").read_text().replace('name = "random"', f'name = "{name}"')
    (folder / "bot.toml").write_text(manifest)
    seen: list[tuple[int, dict[int, str]]] = []

    def states(live: LiveMove) -> None:
        by_seat: dict[int, str] = {}
        taken: dict[int, int] = {}
        for seat, entrant in enumerate(live.seats):
            k = taken.get(entrant, 0)
            taken[entrant] = k + 1
            # The seat's group, or its spare's ("...-0-0s-"), whichever holds the bot now (a
            # spare's group may be a sandbox built ahead for the next game, with no bot yet).
            parent = backend.freezer_parent
            assert parent is not None
            found = [
                group
                for pattern in (f"scopa-{name}-{entrant}-{k}-*", f"scopa-{name}-{entrant}-{k}s-*")
                for group in parent.glob(pattern)
                if runs_python(group)
            ]
            assert len(found) == 1, found
            by_seat[seat] = (
                (found[0] / "freezer.state").read_text().strip()
                if backend.kind == "v1"
                else (found[0] / "cgroup.freeze").read_text().strip()
            )
        seen.append((live.record["seat"], by_seat))

    bot = BotRef.parse(str(folder))
    # No seats made ready ahead: a waiting seat of the next game runs Python in a group of
    # the same name pattern (it runs none of the bot's code, and is not the game's). Nor any
    # resting: the first game's processes would rest, frozen, in groups of the same pattern
    # (test_prestart.py holds resting processes frozen).
    run_match(
        MatchSpec(
            [bot, bot],
            "scopone",
            options={"target": 1},
            games=2,
            move_time_ms=3000,
            on_move=states,
            prepare_ahead=False,
            rest_seats=False,
        )
    )
    assert len(seen) >= 2 * 36
    thawed = {"v1": {"THAWED"}, "v2": {"0"}}[backend.kind]
    frozen = {"v1": {"FROZEN", "FREEZING"}, "v2": {"1"}}[backend.kind]
    for mover, by_seat in seen:
        assert by_seat[mover] in thawed, (mover, by_seat)
        assert all(state in frozen for seat, state in by_seat.items() if seat != mover), by_seat
