"""Limits for a bot seat as a whole (memory, processes, CPU) and its freezer: control groups,
or a watchdog.

``RLIMIT_AS`` and ``RLIMIT_NPROC`` are per process (or per uid): a bot that forks children
gets the limit once per child. A seat is limited as a whole here, in the first of these ways
the host allows:

- **cgroup v2**: a child group of a delegated group (``ARENA_CGROUP``, or the parent of the
  runner's own group when it has the ``memory`` and ``pids`` controllers enabled for its
  children and is writable), with ``memory.max``, ``memory.swap.max = 0`` and ``pids.max``;
- **cgroup v1**: a child of the runner's own group in the ``memory`` and ``pids`` hierarchies,
  with ``memory.limit_in_bytes`` (and ``memory.memsw.limit_in_bytes``) and ``pids.max``;
- **watchdog**: none of these: a thread of the runner sums the resident memory of the seat's
  process tree and its private tmpfs folders from ``/proc`` every 100 ms and kills the seat
  over the limit (the per-process limits still apply).

With a control group, everything the seat's processes allocate is counted together, including
what they write into their tmpfs folders (``/tmp``, ``/sock``, ``/dev/shm``: tmpfs pages are
charged to the group of the process that writes them), and the kernel kills the seat's
processes at the limit. The runner then records a ``memory`` fault.

CPU. Each seat's group also gets an equal share of the CPU where the host has the controller
(v2 ``cpu.weight``, v1 ``cpu.shares``): a seat of 64 spinning processes weighs what a seat of
one does against every other seat of the host. And each seat can be frozen and thawed as a
whole (v2 ``cgroup.freeze``, v1 ``freezer.state``): the runner lets only the seat on move run
(:class:`SeatFreezer`). Without a freezer, the fallback stops and continues the seat's process
tree with ``SIGSTOP`` and ``SIGCONT`` (:class:`TreeFreezer`): weaker, since a process forked
between the walk of the tree and its stop is stopped only by a second walk, and a process of
the seat that escaped both could continue the others.

This module starts no process and speaks no gRPC.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import re
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger("arena.runner")

CGROUP_ENV = "ARENA_CGROUP"
"""A delegated cgroup v2 folder for seat groups; ``off`` disables control groups."""

WATCH_INTERVAL_S = 0.1
"""How often the watchdog sums a seat's memory when no control group limits it."""

GROUP_WATCH_INTERVAL_S = 0.5
"""How often it looks at a control group's OOM count (the kernel enforces the limit itself;
the watchdog only ends the rest of a seat the kernel cut into). Seldom, so as not to take the
runner's interpreter lock from the games in play."""


@dataclass(frozen=True)
class Backend:
    """Where seat groups are made: ``v2`` (one folder) or ``v1`` (a folder per controller).

    ``cpu_parent`` and ``freezer_parent`` are None where the host has no such controller the
    runner may use (then no CPU share, and the freezer falls back to signals).
    """

    kind: str  # "v2" or "v1"
    memory_parent: Path
    pids_parent: Path
    cpu_parent: Path | None = None
    freezer_parent: Path | None = None

    def describe(self) -> str:
        """One line for ``arena doctor``."""
        if self.kind == "v2":
            return f"cgroup v2 under {self.memory_parent}"
        return f"cgroup v1 under {self.memory_parent} and {self.pids_parent}"

    def parents(self) -> list[Path]:
        """Every distinct folder seat groups are made in."""
        found = [self.memory_parent, self.pids_parent, self.cpu_parent, self.freezer_parent]
        return list(dict.fromkeys(p for p in found if p is not None))


def _own_groups() -> dict[str, str]:
    """The runner's own group per hierarchy: controller name (or ``""`` for v2) -> path."""
    groups: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                groups[name] = path
    return groups


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, filesystem type, super options) of every cgroup mount."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            fstype, _, options = [*right.split(" "), "", "", ""][:3]
            if fstype in {"cgroup", "cgroup2"}:
                found.append((left.split(" ")[4], fstype, set(options.split(","))))
    return found


def _writable_dir(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def _v2_backend(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> Backend | None:
    explicit = os.environ.get(CGROUP_ENV, "").strip()
    candidates: list[Path] = []
    if explicit:
        candidates.append(Path(explicit))
    else:
        for point, fstype, _ in mounts:
            if fstype != "cgroup2" or "" not in own:
                continue
            group = Path(point) / own[""].lstrip("/")
            candidates += [group, group.parent]
    for folder in candidates:
        try:
            enabled = set((folder / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if {"memory", "pids"} <= enabled and _writable_dir(folder):
            if "cpu" not in enabled:  # the weight needs the controller for the children
                with contextlib.suppress(OSError):
                    _write(folder / "cgroup.subtree_control", "+cpu")
                with contextlib.suppress(OSError):
                    enabled = set((folder / "cgroup.subtree_control").read_text().split())
            cpu = folder if "cpu" in enabled else None
            # cgroup.freeze is in every non-root group of a v2 hierarchy (Linux 5.2+).
            return Backend("v2", folder, folder, cpu, folder)
    return None


def _v1_backend(mounts: list[tuple[str, str, set[str]]], own: dict[str, str]) -> Backend | None:
    parents: dict[str, Path] = {}
    for point, fstype, options in mounts:
        for controller in ("memory", "pids", "cpu", "freezer"):
            if fstype == "cgroup" and controller in options and controller in own:
                parents[controller] = Path(point) / own[controller].lstrip("/")
    if not {"memory", "pids"} <= set(parents):
        return None
    if not all(_writable_dir(parents[name]) for name in ("memory", "pids")):
        return None
    if not (parents["memory"] / "memory.limit_in_bytes").exists():
        return None
    cpu = parents.get("cpu")
    if cpu is not None and not (_writable_dir(cpu) and (cpu / "cpu.shares").exists()):
        cpu = None
    freezer = parents.get("freezer")
    if freezer is not None and not _writable_dir(freezer):
        freezer = None
    return Backend("v1", parents["memory"], parents["pids"], cpu, freezer)


@functools.cache
def backend() -> Backend | None:
    """How this host limits a seat as a whole, or None (the watchdog), found once."""
    if os.environ.get(CGROUP_ENV, "").strip().lower() in {"off", "0", "no"}:
        return None
    mounts, own = _mounts(), _own_groups()
    return _v2_backend(mounts, own) or _v1_backend(mounts, own)


def _write(path: Path, value: str) -> None:
    path.write_text(value)


CPU_SHARES = 1024
"""cgroup v1 ``cpu.shares`` of every seat group (the kernel's default: equal for all)."""
CPU_WEIGHT = 100
"""cgroup v2 ``cpu.weight`` of every seat group (the kernel's default: equal for all)."""


class GroupFreezer:
    """The freezer of one control group: v2 ``cgroup.freeze`` (and ``cgroup.events``), or v1
    ``freezer.state``, held open so that a freeze or a thaw is one ``write``.

    Raises OSError when the group has no freezer (a v2 kernel before 5.2, no v1 ``freezer``).
    """

    def __init__(self, kind: str, folder: Path) -> None:
        self.kind = kind
        self.folder = folder
        name = "cgroup.freeze" if kind == "v2" else "freezer.state"
        self._fd: int | None = os.open(folder / name, os.O_WRONLY | os.O_CLOEXEC)

    def freeze(self) -> None:
        """Asks the kernel to freeze every process of the group; returns at once (the kernel
        stops each running task at its next entry to the kernel, a sleeping one where it
        sleeps). Raises OSError."""
        if self._fd is None:
            raise OSError("the freezer is closed")
        os.write(self._fd, b"1" if self.kind == "v2" else b"FROZEN")

    def thaw(self) -> None:
        """Lets the group's processes run again. Raises OSError."""
        if self._fd is None:
            raise OSError("the freezer is closed")
        os.write(self._fd, b"0" if self.kind == "v2" else b"THAWED")

    def state(self) -> str:
        """``frozen``, ``freezing`` or ``thawed``, as the kernel says now (``none`` when it
        cannot be read)."""
        try:
            if self.kind == "v2":
                events = (self.folder / "cgroup.events").read_text().split()
                frozen = events[events.index("frozen") + 1] == "1"
                wanted = (self.folder / "cgroup.freeze").read_text().strip() == "1"
                return "frozen" if frozen else "freezing" if wanted else "thawed"
            return (self.folder / "freezer.state").read_text().strip().lower()
        except (OSError, ValueError, IndexError):
            return "none"

    def close(self) -> None:
        """Closes the freezer's file (the group can then be removed)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


class SeatGroup:
    """The control group(s) of one seat process tree."""

    def __init__(self, backend: Backend, label: str, memory_bytes: int, pids: int) -> None:
        self.backend = backend
        self.memory_bytes = memory_bytes
        # The runner's pid in the name: a group whose processes outlived their runner is found
        # by the next runner's sweep (orphaned_groups).
        name = f"scopa-{label[:40]}-r{os.getpid()}-{secrets.token_hex(4)}"
        self.name = name
        self.memory_dir = backend.memory_parent / name
        self.pids_dir = backend.pids_parent / name
        self.cpu_dir = None if backend.cpu_parent is None else backend.cpu_parent / name
        self.freezer_dir = None if backend.freezer_parent is None else backend.freezer_parent / name
        self._made: list[Path] = []
        self.freezer: GroupFreezer | None = None
        try:
            wanted = [self.memory_dir, self.pids_dir, self.cpu_dir, self.freezer_dir]
            for folder in dict.fromkeys(f for f in wanted if f is not None):
                folder.mkdir()
                self._made.append(folder)
            if backend.kind == "v2":
                _write(self.memory_dir / "memory.max", str(memory_bytes))
                with contextlib.suppress(OSError):  # no swap accounting: nothing to limit
                    _write(self.memory_dir / "memory.swap.max", "0")
                with contextlib.suppress(OSError):  # a seat's OOM kills all of it (5.19+)
                    _write(self.memory_dir / "memory.oom.group", "1")
                if self.cpu_dir is not None:
                    _write(self.cpu_dir / "cpu.weight", str(CPU_WEIGHT))
            else:
                _write(self.memory_dir / "memory.limit_in_bytes", str(memory_bytes))
                with contextlib.suppress(OSError):  # only with swap accounting
                    _write(self.memory_dir / "memory.memsw.limit_in_bytes", str(memory_bytes))
                with contextlib.suppress(OSError):
                    _write(self.memory_dir / "memory.swappiness", "0")
                if self.cpu_dir is not None:
                    _write(self.cpu_dir / "cpu.shares", str(CPU_SHARES))
            _write(self.pids_dir / "pids.max", str(pids))
            if self.freezer_dir is not None:
                with contextlib.suppress(OSError):  # a v2 kernel before 5.2: signals instead
                    self.freezer = GroupFreezer(backend.kind, self.freezer_dir)
        except OSError:
            self.remove()
            raise

    def set_idle(self, idle: bool) -> None:
        """Gives the seat the lowest CPU weight (a spare starting while a game plays) or the
        seats' equal one back. Without a CPU controller it does nothing."""
        if self.cpu_dir is None:
            return
        with contextlib.suppress(OSError):
            if self.backend.kind == "v2":
                _write(self.cpu_dir / "cpu.weight", "1" if idle else str(CPU_WEIGHT))
            else:
                _write(self.cpu_dir / "cpu.shares", "2" if idle else str(CPU_SHARES))

    @property
    def can_freeze(self) -> bool:
        """Whether the group has a freezer (else the runner stops the seat with signals)."""
        return self.freezer is not None

    def freeze(self) -> None:
        """Freezes every process of the seat (:meth:`GroupFreezer.freeze`). Raises OSError."""
        if self.freezer is None:
            raise OSError("the seat's group has no freezer")
        self.freezer.freeze()

    def thaw(self) -> None:
        """Lets the seat's processes run again. Raises OSError."""
        if self.freezer is None:
            raise OSError("the seat's group has no freezer")
        self.freezer.thaw()

    def freezer_state(self) -> str:
        """``frozen``, ``freezing`` or ``thawed``, as the kernel says now (``none`` without a
        freezer)."""
        return "none" if self.freezer is None else self.freezer.state()

    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes its pid into to join the seat."""
        return [str(folder / "cgroup.procs") for folder in dict.fromkeys(self._made)]

    def join_command(self) -> list[str]:
        """An argv prefix that moves the process into the seat's group(s), then runs the rest.

        A shell, not a ``preexec_fn``: the runner has threads, and forking with them is only
        safe up to ``exec``.
        """
        files = self.procs_files()
        script = "".join(
            f'echo $$ > "${i}" || {{ echo "cgroup: cannot join ${i}" >&2; exit 125; }}; '
            for i in range(1, len(files) + 1)
        )
        return ["/bin/sh", "-c", f'{script}shift {len(files)}; exec "$@"', "sh", *files]

    def oom_kills(self) -> int:
        """How many of the seat's processes the kernel killed at the memory limit."""
        name = "memory.events" if self.backend.kind == "v2" else "memory.oom_control"
        try:
            text = (self.memory_dir / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
        if self.backend.kind == "v1":  # kernels before 4.13: the limit was hit, at least
            with contextlib.suppress(OSError, ValueError):
                return int((self.memory_dir / "memory.failcnt").read_text()) and 1
        return 0

    def pids(self) -> list[int]:
        """The processes still in the seat's group."""
        found: set[int] = set()
        for folder in dict.fromkeys(self._made):
            with contextlib.suppress(OSError, ValueError):
                found |= {int(p) for p in (folder / "cgroup.procs").read_text().split()}
        return sorted(found)

    def kill(self) -> None:
        """Kills every process of the seat (``cgroup.kill`` where there is one).

        The seat is thawed first: a task frozen by the v1 freezer dies only once thawed.
        """
        if self.freezer is not None:
            with contextlib.suppress(OSError):
                self.freezer.thaw()
        if self.backend.kind == "v2":
            with contextlib.suppress(OSError):
                _write(self.memory_dir / "cgroup.kill", "1")
        for _ in range(50):  # a process may fork while it is killed: until the group is empty
            if not self.signal_kill():
                return
            time.sleep(0.01)

    def signal_kill(self) -> bool:
        """Sends SIGKILL to every process of the seat, once, without waiting: none of them runs
        its own code again (a frozen one dies once thawed). :meth:`kill` makes sure. False
        when the group had no process left."""
        pids = self.pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        return bool(pids)

    def remove(self) -> None:
        """Removes the group(s) once empty; a group that stays busy is left (and logged)."""
        if self.freezer is not None:
            self.freezer.close()
            self.freezer = None
        for folder in reversed(self._made):
            if not remove_group_folder(folder, tries=100):
                log.warning("could not remove the seat group %s", folder)
        self._made = []


STALE_GROUP_S = 3600.0
"""A seat group this old and empty was left by a runner that died: it is removed."""

SWEEP_EVERY_S = 1.0
"""How often, at most, a runner looks for seat groups left by runners that died (at a seat's
start: a few reads of /proc, about a millisecond)."""

_RUNNER_OF = re.compile(r"-r(\d+)-[0-9a-f]{8}$")
_last_sweep = 0.0
_sweep_lock = threading.Lock()


def _procs(folder: Path) -> list[int]:
    with contextlib.suppress(OSError, ValueError):
        return [int(p) for p in (folder / "cgroup.procs").read_text().split() if p != "0"]
    return []


def _parent_pid(pid: int) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("PPid:"):
                return int(line.split()[1])
    return None


def orphaned_groups(found: Backend, prefix: str = "scopa-") -> list[str]:
    """Names of seat groups whose processes outlived the runner that made them.

    A seat's first process is the runner's child (a forked seat's: the child of a child of the
    runner's fork server); when the runner dies, that process is handed to another parent. A
    frozen seat (v1) cannot even die of the runner's death (its ``SIGKILL`` waits for a
    thaw), so its processes would stay for ever. Groups whose processes this runner cannot
    see (another pid namespace) are left alone.
    """
    orphans: list[str] = []
    with contextlib.suppress(OSError):
        for entry in found.memory_parent.iterdir():
            named = _RUNNER_OF.search(entry.name)
            if not entry.name.startswith(prefix) or named is None:
                continue
            pids = _procs(found.pids_parent / entry.name) or _procs(entry)
            if not pids:
                continue
            members = set(pids)
            parents = {_parent_pid(pid) for pid in pids} - members - {None}
            runner = int(named.group(1))
            if parents and not all(_descends_from(pid, runner) for pid in parents if pid):
                orphans.append(entry.name)
    return orphans


def _descends_from(pid: int, ancestor: int, depth: int = 3) -> bool:
    """Whether ``pid`` is ``ancestor`` or its child, grandchild... up to ``depth`` levels (a
    forked seat's parent is a child of the runner's fork server)."""
    for _ in range(depth):
        if pid == ancestor:
            return True
        parent = _parent_pid(pid)
        if parent is None or parent <= 1:
            return False
        pid = parent
    return pid == ancestor


def remove_group_folder(folder: Path, tries: int = 50, pause_s: float = 0.01) -> bool:
    """Removes an emptied control group's folder, trying again while the kernel still counts
    its last processes; whether it is gone (already gone counts)."""
    for _ in range(tries):
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(pause_s)
    return False


def _end_group(found: Backend, name: str) -> bool:
    """Thaws, kills and removes a seat group left by a dead runner; whether it is gone."""
    if found.freezer_parent is not None:
        with contextlib.suppress(OSError):
            GroupFreezer(found.kind, found.freezer_parent / name).thaw()
    folders = [parent / name for parent in found.parents()]
    if found.kind == "v2":
        with contextlib.suppress(OSError):
            _write(folders[0] / "cgroup.kill", "1")
    for _ in range(50):
        pids = sorted({pid for folder in folders for pid in _procs(folder)})
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    gone = True
    for folder in reversed(folders):
        gone = remove_group_folder(folder) and gone
    return gone


def sweep_stale_groups(
    found: Backend,
    older_than_s: float = STALE_GROUP_S,
    prefix: str = "scopa-",
    *,
    expected: bool = False,
) -> int:
    """Removes seat groups left by runners that died: those whose processes outlived their
    runner (thawed, killed, removed: :func:`orphaned_groups`), and empty ones older than
    ``older_than_s`` (a runner killed before it could remove them); returns how many. A group
    in use by a live runner is never touched. Each group ended is a warning, unless
    ``expected`` (the caller killed the runners itself: an info line then)."""
    removed = 0
    for name in orphaned_groups(found, prefix):
        if _end_group(found, name):
            log.log(
                logging.INFO if expected else logging.WARNING,
                "ended the seat group %s: its runner had died",
                name,
            )
            removed += 1
    now = time.time()
    for parent in found.parents():
        with contextlib.suppress(OSError):
            for entry in parent.iterdir():
                if not entry.name.startswith(prefix) or not entry.is_dir():
                    continue
                with contextlib.suppress(OSError):
                    if now - entry.stat().st_mtime > older_than_s:
                        entry.rmdir()  # fails (and is left) unless the group is empty
                        removed += 1
    return removed


def end_orphaned_seats() -> int:
    """Ends, at once, the seat groups on this host whose runner died (see
    :func:`sweep_stale_groups`); returns how many. For whoever kills runners (``arena web``
    and ``arena demo`` stopping their workers): a seat frozen when its runner was killed takes
    its ``SIGKILL`` only once thawed, which this does. The runners were killed on purpose, so
    each group ended is an info line, not a warning."""
    found = backend()
    return 0 if found is None else sweep_stale_groups(found, expected=True)


def end_seats_of(runners: set[int], prefix: str = "scopa-") -> int:
    """Ends, at once, the seat groups made by the runner processes ``runners`` (thawed,
    killed, removed), whether or not those runners still live; returns how many. For a
    worker that must go with everything it started (its parent died: a frozen seat would
    otherwise wait for a thaw for ever)."""
    found = backend()
    if found is None:
        return 0
    ended = 0
    with contextlib.suppress(OSError):
        for entry in found.memory_parent.iterdir():
            named = _RUNNER_OF.search(entry.name)
            if entry.name.startswith(prefix) and named and int(named.group(1)) in runners:
                ended += _end_group(found, entry.name)
    return ended


def make_group(label: str, memory_bytes: int, pids: int) -> SeatGroup | None:
    """A seat group on this host, or None when control groups are not available."""
    global _last_sweep
    found = backend()
    if found is None:
        return None
    with _sweep_lock:
        due = time.monotonic() - _last_sweep > SWEEP_EVERY_S or _last_sweep == 0.0
        if due:
            _last_sweep = time.monotonic()
    if due:
        sweep_stale_groups(found)
    try:
        return SeatGroup(found, label, memory_bytes, pids)
    except OSError as error:
        log.warning("cannot make a control group for %s (%s): using the watchdog", label, error)
        return None


# ---- freezing a seat ----------------------------------------------------------------------


class TreeFreezer:
    """Freezes a seat without a freezer group: ``SIGSTOP`` to each process of its tree, then
    ``SIGCONT`` to the same processes.

    Weaker than a freezer group: the tree is found by walking ``/proc`` (a process forked
    during the walk is caught by the next walk; walks repeat until one finds nothing new, at
    most ``PASSES`` times), a walk costs a read per thread of the seat, and a process of the
    seat that escaped the stop (or a ``SIGCONT`` handler of its own) could continue the
    others, since they share its uid.
    """

    PASSES = 4

    def __init__(self, root_pid: int) -> None:
        self.root_pid = root_pid
        self._stopped: list[int] = []

    @property
    def can_freeze(self) -> bool:
        return True

    def freeze(self) -> None:
        """Stops the tree; returns once every process found is sent ``SIGSTOP``."""
        stopped = set(self._stopped)
        for _ in range(self.PASSES):
            fresh = [pid for pid in tree_pids(self.root_pid) if pid not in stopped]
            if not fresh:
                break
            for pid in fresh:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
                stopped.add(pid)
        self._stopped = sorted(stopped)

    def thaw(self) -> None:
        """Continues every process :meth:`freeze` stopped (a stopped tree cannot fork)."""
        stopped, self._stopped = self._stopped, []
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)


# ---- the watchdog ------------------------------------------------------------------------


def tree_pids(root: int) -> list[int]:
    """``root`` and all its descendants, from ``/proc/<pid>/task/<tid>/children``."""
    found: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            with (
                contextlib.suppress(OSError, ValueError),
                open(f"/proc/{pid}/task/{tid}/children") as handle,
            ):
                todo.extend(int(child) for child in handle.read().split())
    return found


def rss_bytes(pid: int) -> int:
    """The resident memory of one process (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


INODE_BYTES = 1024
"""What the kernel keeps for one file of a tmpfs (inode and name), about."""


def tmpfs_used(folders: Iterator[str] | list[str]) -> int:
    """Bytes used in the given tmpfs folders (as the runner reaches them through /proc): their
    blocks, and about a KiB of kernel memory per file."""
    total = 0
    for folder in folders:
        with contextlib.suppress(OSError):
            stat = os.statvfs(folder)
            total += (stat.f_blocks - stat.f_bfree) * stat.f_frsize
            total += (stat.f_files - stat.f_ffree) * INODE_BYTES
    return total


class MemoryWatchdog:
    """Watches a seat's memory and kills the whole seat on its first excess.

    With a control group the kernel enforces the limit and may kill only the largest process
    of the seat (cgroup v1 has no ``memory.oom.group``): the watchdog sees the group's OOM
    count rise and kills the rest, so a seat over its limit always ends as a ``memory``
    fault. Without one, it sums the tree's resident memory and its tmpfs folders itself.
    """

    def __init__(
        self,
        root_pid: int,
        limit_bytes: int,
        kill: Callable[[], None],
        tmpfs_folders: Callable[[], list[str]] = list,
        group: SeatGroup | None = None,
    ) -> None:
        self.root_pid = root_pid
        self.limit_bytes = limit_bytes
        self.group = group
        self._kill = kill
        self._tmpfs_folders = tmpfs_folders
        self.tripped = False
        self.peak_bytes = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="arena-memory", daemon=True)
        self._thread.start()

    def usage(self) -> int:
        """The tree's resident memory plus what its tmpfs folders hold, now."""
        pids = tree_pids(self.root_pid)
        return sum(rss_bytes(pid) for pid in pids) + tmpfs_used(self._tmpfs_folders())

    def over(self) -> bool:
        """Whether the seat has gone over its limit."""
        if self.group is not None:
            return self.group.oom_kills() > 0
        used = self.usage()
        self.peak_bytes = max(self.peak_bytes, used)
        return used > self.limit_bytes

    def _watch(self) -> None:
        interval = GROUP_WATCH_INTERVAL_S if self.group is not None else WATCH_INTERVAL_S
        while not self._stop.wait(interval):
            if self.over():
                self.tripped = True
                self._kill()
                return

    def stop(self) -> None:
        """Stops watching (the process is gone or being stopped)."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=1.0)


__all__ = [
    "CGROUP_ENV",
    "Backend",
    "GroupFreezer",
    "MemoryWatchdog",
    "SeatGroup",
    "TreeFreezer",
    "backend",
    "end_orphaned_seats",
    "end_seats_of",
    "make_group",
    "orphaned_groups",
    "sweep_stale_groups",
    "tree_pids",
]
