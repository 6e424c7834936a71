"""How a bot seat's process is started: bubblewrap sandbox, limits, private folders.

Each seat runs as its own process in its own sandbox (:func:`launch_command`):

- bubblewrap (``bwrap``) gives it fresh network, pid, ipc, uts and cgroup namespaces (no
  network at all: only loopback inside, no abstract unix socket shared with anyone) and a
  filesystem of its own: read-only binds of what it needs to run, from the runtime tree pinned
  in memory (:mod:`arena.runner.runtime_tree`: what the runtime needs of ``/usr``, the Python
  interpreter and virtualenv, the ``arena`` package), copies of a few files of ``/etc``, its
  *private copy* of the bot folder at ``/bot`` (read-only, in memory: no two seats share an
  inode of it, no process can drop, set or time a page of it), and three
  size-limited tmpfs folders that are all it may write to: ``/tmp`` (also ``HOME``),
  ``/dev/shm`` and ``/sock``, where it binds its gRPC socket. Nothing else of the host exists
  inside: no ``/var/run`` (so no host unix sockets), no ``/home``, no ``/sys``, no other bot's
  folder; host-wide counters of ``/proc`` (load, memory, CPU times, open files...) read empty.
- A system-call filter (:mod:`arena.runner.seccomp`) kills the bot on namespace, mount,
  ``ptrace``, ``bpf``... calls and refuses file locks, inotify and ``sysinfo``.
- When the runner is root, the bot runs as a fresh unprivileged uid with every capability
  dropped (``setpriv``), so that the limit on processes counts for this seat alone.
- ``prlimit`` sets CPU time, address space, processes, file size and open files; the seat as a
  whole is held to its memory and process limits by a control group or the runner's watchdog
  (:mod:`arena.runner.cgroups`). The process leads its own session; :func:`kill_group` ends it
  (and, through ``--die-with-parent`` and the pid namespace, everything inside the sandbox).

The runner reaches the bot's socket only through the sandbox's own root
(``/proc/<pid>/root/sock/bot.sock``), opened without following links and checked to be a
socket, and connects through that open file (:func:`open_socket`): a bot cannot point it
anywhere else.

Without bubblewrap a bot can still run with the limits alone (:func:`launch_command` with
``sandbox=False``): the runner allows that for the arena's own sample bots, or for any bot when
told ``--unsafe-no-sandbox``. This module builds commands and manages folders; it does not talk
gRPC and does not decide what a fault is (see :mod:`arena.runner.process`).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import arena
import arena.runner.runtime_tree as runtime_tree

PACKAGE_DIR = Path(arena.__file__).resolve().parent
"""The ``arena`` package folder, bound read-only into Python bots' sandboxes."""

PROJECT_ROOT = PACKAGE_DIR.parent
PROTOS_DIR = PROJECT_ROOT / "protos"

# Where things appear inside the sandbox.
BOT_MOUNT = "/bot"
SOCKET_MOUNT = "/sock"
PYTHON_FLAGS = ("-X", "frozen_modules=on")
"""What the runner passes to the arena's interpreter when a bot's command is ``python``."""
LIB_MOUNT = "/opt/scopa"  # holds arena/ and protos/, and is the bot's PYTHONPATH
SOCKET_NAME = "bot.sock"

SOCKET_DIR_BYTES = 256 * 1024
"""Size of the tmpfs ``/sock``: room for the socket, not for data."""

# Files of /etc a program may read at start-up (dynamic linker, time zone, names of users).
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/alternatives",
)

PROC_KEPT = frozenset({"self", "thread-self", "mounts", "net", "sysvipc", "filesystems"})
"""The top-level entries of ``/proc`` a bot sees as they are, besides the folders of its own
processes: links into its own process's files (``mounts``, and ``net``, its own network
namespace), its own IPC namespace's objects, and the static list of filesystems. Every other
entry of the host's ``/proc`` reads empty in the sandbox (an empty file or folder is bound over
it): load, memory, CPU and interrupt counts, pressure, locks, slabs, the kernel's own tables
(:func:`proc_masks`); ``/proc/sys`` and ``/proc/cpuinfo`` are static copies
(:data:`PROC_SYS_COPIED`, :func:`proc_snapshot`)."""

PROC_SYS_COPIED = (
    "kernel/cap_last_cap",
    "kernel/ngroups_max",
    "kernel/osrelease",
    "kernel/ostype",
    "kernel/overflowgid",
    "kernel/overflowuid",
    "kernel/pid_max",
    "kernel/threads-max",
    "vm/overcommit_memory",
    "vm/max_map_count",
    "fs/nr_open",
    "fs/pipe-max-size",
    "net/core/somaxconn",
)
"""Settings of ``/proc/sys`` that runtimes read (``setpriv``, glibc's allocator, gRPC's listen
backlog...), copied once from the host: the sandbox's ``/proc/sys`` holds these copies and
nothing else, so no host-wide counter of it (``fs/file-nr``, ``fs/aio-nr``, ``fs/inode-nr``,
``fs/dentry-state``, ``kernel/pty/nr``, ``kernel/random/entropy_avail``...) is in reach."""

# Unprivileged uids for sandboxed bots are drawn from this range, one per seat process, so that
# the limit on processes (counted per uid) is per seat.
UID_RANGE = (1_000_000, 1_900_000)

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


class HostError(RuntimeError):
    """The host failed to start a bot (no bubblewrap, no folder): the game is void, not lost."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one seat: its whole process tree and each of its processes.

    ``memory_bytes`` and ``processes`` hold for the seat as a whole (a control group, or the
    runner's watchdog), with what it writes into its tmpfs folders counted as memory;
    ``tmp_bytes`` is the size of ``/tmp`` and of ``/dev/shm``; CPU time, file size and open
    files are per process (``prlimit``), and so is the address space, set at twice the memory
    limit as a backstop (the seat's limit is what a bot meets).
    """

    cpu_seconds: int = 600
    memory_bytes: int = 2 * 1024**3
    processes: int = 128
    file_bytes: int = 16 * 1024**2
    open_files: int = 256
    tmp_bytes: int = 64 * 1024**2

    def __post_init__(self) -> None:
        for name, low in (
            ("cpu_seconds", 1),
            ("memory_bytes", 64 * 1024**2),
            ("processes", 8),
            ("file_bytes", 1024**2),
            ("open_files", 32),
            ("tmp_bytes", 1024**2),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(
                    f"limit {name} must be an integer of at least {low}, not {value!r}"
                )

    def prlimit_args(self, *, with_processes: bool) -> list[str]:
        """The ``prlimit`` options that apply the per-process limits (soft = hard)."""
        args = [
            f"--cpu={self.cpu_seconds}",
            f"--as={2 * self.memory_bytes}",
            f"--fsize={self.file_bytes}",
            f"--nofile={self.open_files}",
            "--core=0",
        ]
        if with_processes:
            args.append(f"--nproc={self.processes}")
        return args

    def rlimits(self) -> dict[str, int]:
        """The same limits as :meth:`prlimit_args` (processes included), by ``resource`` name."""
        return {
            "RLIMIT_CPU": self.cpu_seconds,
            "RLIMIT_AS": 2 * self.memory_bytes,
            "RLIMIT_FSIZE": self.file_bytes,
            "RLIMIT_NOFILE": self.open_files,
            "RLIMIT_CORE": 0,
            "RLIMIT_NPROC": self.processes,
        }

    def to_json(self) -> dict[str, int]:
        """The limits as a JSON object (replays, reports)."""
        return {
            "cpu_seconds": self.cpu_seconds,
            "memory_bytes": self.memory_bytes,
            "processes": self.processes,
            "file_bytes": self.file_bytes,
            "open_files": self.open_files,
            "tmp_bytes": self.tmp_bytes,
        }


@dataclass(frozen=True)
class LaunchPlan:
    """Everything needed to start one seat's process."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    bind_address: str  # what the bot is told to bind (as seen inside its sandbox)
    socket_path: str  # the socket inside the sandbox's root, or on the host without one
    sandboxed: bool
    pass_fds: tuple[int, ...] = ()  # descriptors the process inherits (filter, info pipe)
    info_fd: int | None = None  # where bwrap writes the sandbox's pid (read end, runner side)
    started_fd: int | None = None  # a byte here: the bot's own command was started (read end)
    close_after_spawn: tuple[int, ...] = field(default=())  # ends the runner closes once started
    uid: int | None = None  # the fresh uid the bot runs as (a sandbox started as root)
    inside_env: dict[str, str] = field(default_factory=dict)  # the bot's environment inside


@dataclass(frozen=True)
class BwrapFeatures:
    """What the machine's bubblewrap can do (0.8 has all of it)."""

    path: str
    version: str
    size: bool  # --size for tmpfs
    disable_userns: bool  # --disable-userns
    seccomp: bool  # --seccomp FD
    info_fd: bool  # --info-fd FD


@functools.cache
def bwrap_features() -> BwrapFeatures | None:
    """bubblewrap and its features, or None when the machine has none that works.

    A quick probe (``bwrap ... true``) rules out a bwrap that is installed but cannot create
    namespaces here (an unprivileged container, say): such a machine has no sandbox.
    """
    path = shutil.which("bwrap")
    if path is None:
        return None
    probe = [
        path,
        "--unshare-net",
        "--unshare-pid",
        "--die-with-parent",
        "--ro-bind",
        "/usr",
        "/usr",
        *_usr_merged_links(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        *_user_args(),
        "true",
    ]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
        helped = subprocess.run([path, "--help"], capture_output=True, timeout=10, check=False)
        versioned = subprocess.run(
            [path, "--version"], capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    options = set(re.findall(r"--[a-z][a-z0-9-]*", helped.stdout.decode(errors="replace")))
    version = versioned.stdout.decode(errors="replace").strip().removeprefix("bubblewrap ")
    return BwrapFeatures(
        path=path,
        version=version or "unknown",
        size="--size" in options,
        disable_userns="--disable-userns" in options,
        seccomp="--seccomp" in options,
        info_fd="--info-fd" in options,
    )


def bwrap_path() -> str | None:
    """The bubblewrap binary, or None when the machine has none that works."""
    features = bwrap_features()
    return None if features is None else features.path


def sandbox_available() -> bool:
    """Whether bots can be sandboxed on this machine."""
    return bwrap_path() is not None


def _is_root() -> bool:
    return os.geteuid() == 0


def _user_args() -> list[str]:
    # As root, bwrap keeps every capability inside; setpriv drops them and the uid. As a normal
    # user, bwrap needs a user namespace, and the bot is already unprivileged.
    return [] if _is_root() else ["--unshare-user"]


MERGED_NAMES = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
"""The top folders of the host that a merged ``/usr`` makes links into it."""


@functools.cache
def _usr_merged_links(tree_root: Path | None = None) -> tuple[str, ...]:
    """``/bin``, ``/lib``... as the host has them: links into ``/usr``, or real folders
    (bound from the runtime tree at ``tree_root`` when it holds them, else from the host)."""
    args: list[str] = []
    for name in MERGED_NAMES:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif tree_root is not None and (tree_root / name).is_dir():
            args += ["--ro-bind", str(tree_root / name), str(host)]
        elif tree_root is None and host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    return tuple(args)


@functools.lru_cache(maxsize=64)
def _parent_dirs(destinations: tuple[str, ...]) -> tuple[str, ...]:
    """``--dir`` options making every missing parent of the mount points, world-traversable.

    bwrap would create them itself, but private (0700), which an unprivileged bot cannot cross.
    Kept per set of mount points (a bot's seats ask for the same ones at every start).
    """
    made = {"/", "/usr", "/tmp", "/proc", "/dev"}
    args: list[str] = []
    for dest in destinations:
        for parent in reversed(Path(dest).parents):
            name = str(parent)
            if name not in made:
                made.add(name)
                args += ["--perms", "0755", "--dir", name]
    return tuple(args)


@functools.cache
def python_paths() -> tuple[Path, ...]:
    """The folders a Python bot needs from the host: the interpreter and the virtualenv (the
    same for the whole process)."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    # The venv's python may be a symlink chain out of both prefixes (pyenv shims and the like).
    real = Path(os.path.realpath(sys.executable)).parent.parent
    paths.add(real)
    return tuple(sorted(p for p in paths if not str(p).startswith("/usr/")))


@functools.cache
def editable_finders() -> tuple[str, ...]:
    """The ``.pth`` files of an editable install of the arena in the bound virtualenv.

    Inside the sandbox the ``arena`` package is at :data:`LIB_MOUNT` (on ``PYTHONPATH``), and
    the finder such a file installs points at the host's checkout, which is not there: it
    would only cost each start its imports (``pathlib``, ``importlib.util``: about 12 ms).
    The sandbox masks these files with an empty one.
    """
    import site

    found: list[str] = []
    prefixes = {str(path) for path in python_paths()}
    for folder in site.getsitepackages():
        if not any(folder.startswith(prefix) for prefix in prefixes):
            continue
        with contextlib.suppress(OSError):
            found += sorted(
                os.path.join(folder, name)
                for name in os.listdir(folder)
                if name.startswith("__editable__") and name.endswith(".pth")
            )
    return tuple(found)


BOT_COMPILE_MAX_FILE = 1024 * 1024
"""A bot's module larger than this is left for it to compile at its start."""
BOT_COMPILE_TIMEOUT_S = 20.0

# Run in a child process under prlimit: the compiler reads the bot's (untrusted) sources, so a
# compile bomb costs that child, not the runner. Only regular files are read and only real
# __pycache__ folders written: a bot's link (to a host file, or a __pycache__ pointing out of
# its folder) is never followed, so nothing of the host ends up compiled into the bot's copy.
_COMPILE_BOT = r"""
import os, py_compile, stat, sys
root, limit, main = sys.argv[1], int(sys.argv[2]), sys.argv[3]
for folder, dirs, files in os.walk(root):
    dirs[:] = [name for name in dirs if name != "__pycache__"]
    try:
        if not stat.S_ISDIR(os.lstat(os.path.join(folder, "__pycache__")).st_mode):
            continue
    except FileNotFoundError:
        pass
    for name in files:
        path = os.path.join(folder, name)
        info = os.lstat(path)
        if folder == root and name == main:
            continue
        if name.endswith(".py") and stat.S_ISREG(info.st_mode) and info.st_size <= limit:
            try:
                py_compile.compile(path, doraise=True)
            except Exception:
                pass
"""


def compile_bot_folder(folder: Path, main: str | None = None) -> None:
    """Writes the bytecode of the modules of a seat's private copy of a Python bot's folder.

    Done on the host before the copy is bound read-only at ``/bot``: the bot's modules are
    then compiled once per seat and match, not at each of its starts. ``main`` (the script of
    its command, run as ``__main__``, which Python never caches) alone is no reason to start
    the compiler. A file that does not compile is left for the bot to fail on (its own fault,
    at its start). Never raises.
    """
    modules = [  # os.walk enters no linked folder (a bot's link may point anywhere)
        name
        for where, _, files in os.walk(folder)
        for name in files
        if name.endswith(".py") and (name != main or where != str(folder))
    ]
    if not modules:
        return
    argv = [
        "prlimit",
        "--cpu=10",
        f"--as={2 * 1024**3}",
        f"--fsize={16 * 1024**2}",
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        _COMPILE_BOT,
        str(folder),
        str(BOT_COMPILE_MAX_FILE),
        main or "",
    ]
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=BOT_COMPILE_TIMEOUT_S,
            check=False,
            env={"PATH": SANDBOX_PATH},
        )


@functools.cache
def proc_masks() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(files, folders) of the host's ``/proc`` that read empty in the sandbox: every
    top-level entry but a process's folder, :data:`PROC_KEPT`, ``sys`` and ``cpuinfo``.

    Found once by listing the host's ``/proc`` (the sandbox's is the same kernel's), so an
    entry a newer kernel adds is masked without being named here.
    """
    files: list[str] = []
    folders: list[str] = []
    with contextlib.suppress(OSError):
        for name in sorted(os.listdir("/proc")):
            if name.isdigit() or name in PROC_KEPT or name in {"sys", "cpuinfo"}:
                continue
            try:
                mode = os.lstat(f"/proc/{name}").st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                folders.append(f"/proc/{name}")
            elif stat.S_ISREG(mode):
                files.append(f"/proc/{name}")
            # a link (self, mounts, net...) not kept would be masked here; none is today
    return tuple(files), tuple(folders)


@functools.cache
def _proc_copies() -> tuple[tuple[str, bytes], ...]:
    """What the sandbox's static ``/proc/sys`` and ``/proc/cpuinfo`` hold, read once."""
    copies: list[tuple[str, bytes]] = []
    for name in PROC_SYS_COPIED:
        with contextlib.suppress(OSError):
            copies.append((f"sys/{name}", Path(f"/proc/sys/{name}").read_bytes()))
    with contextlib.suppress(OSError):
        copies.append(("cpuinfo", Path("/proc/cpuinfo").read_bytes()))
    return tuple(copies)


def proc_snapshot(seat_dir: Path) -> tuple[Path, Path]:
    """Writes the seat's static ``/proc/sys`` folder and ``/proc/cpuinfo`` file into
    ``seat_dir``: (the folder, the file).

    Copies taken once per runner process, so they say nothing of what happens on the host
    meanwhile (``cpuinfo``'s "cpu MHz" moves with the host's load; a settings file a bot cannot
    change moves for nobody). Raises OSError.
    """
    base = seat_dir / "proc"
    sys_dir = base / "sys"
    sys_dir.mkdir(parents=True, mode=0o755)
    base.chmod(0o755)
    cpuinfo = base / "cpuinfo"
    cpuinfo.write_bytes(b"")
    for name, data in _proc_copies():
        target = base / name
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        target.write_bytes(data)
        target.chmod(0o444)
    return sys_dir, cpuinfo


SHARED_PROC_PREFIX = "scopa-proc-"

_shared_copies: Path | None = None
_shared_copies_owner = 0  # the pid that wrote it (a forked worker writes its own)
_shared_copies_lock = threading.Lock()


def shared_host_copies() -> Path:
    """What the seats of this runner process see copied from the host, written once: a folder
    ``scopa-proc-<pid>-*`` in memory (:func:`arena.runner.runtime_tree.memory_base`: its
    pages are never dropped nor first read, as the runtime tree's) with ``proc/``
    (:func:`proc_snapshot`, a
    forked seat's whole ``/proc``) and ``etc/`` (:func:`etc_copies`, every seat's ``/etc``),
    removed when the process ends (or by :func:`sweep_stale_seat_dirs` once the process is
    gone). Seats see it bound read-only, as they see ``/usr``: nothing of it can change, and
    reading it moves no access time. One bind each instead of one a file: bubblewrap reads the
    whole mount table again at each bind. Raises OSError."""
    global _shared_copies, _shared_copies_owner
    with _shared_copies_lock:
        if (
            _shared_copies is not None
            and _shared_copies_owner == os.getpid()
            and (_shared_copies / "etc").is_dir()
        ):
            return _shared_copies
        owner = os.getpid()
        base, _ = runtime_tree.memory_base()
        folder = Path(tempfile.mkdtemp(prefix=f"{SHARED_PROC_PREFIX}{owner}-", dir=base))
        atexit.register(_remove_shared_copies, folder, owner)
        folder.chmod(0o755)
        proc_snapshot(folder)
        etc_copies(folder / "etc")
        _shared_copies = folder
        _shared_copies_owner = owner
        return folder


def etc_copies(target: Path) -> None:
    """Copies of the host's :data:`ETC_FILES` that exist into the new folder ``target`` (links
    as links: they point into ``/usr``, which every seat has). Raises OSError."""
    target.mkdir(mode=0o755)
    target.chmod(0o755)
    for name in ETC_FILES:
        source = Path(name)
        copy = target / source.name
        if source.is_symlink():
            os.symlink(os.readlink(source), copy)
        elif source.is_dir():
            shutil.copytree(source, copy, symlinks=True)
        elif source.is_file():
            shutil.copy2(source, copy)


def _remove_shared_copies(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # not in a forked child that inherited the handler
        remove_tree(folder)


STALE_SEAT_DIR_S = 86400.0
"""A seat folder this old was left by a runner that died: it is removed."""

_swept_seat_dirs = False


def sweep_stale_seat_dirs(older_than_s: float = STALE_SEAT_DIR_S) -> int:
    """Removes seat folders older than ``older_than_s`` from the temporary folder and from
    memory (left by a runner that was killed), and the shared ``/proc`` copies and runtime
    trees of runner processes that are gone; returns how many."""
    removed = 0
    now = time.time()
    bases = {Path(tempfile.gettempdir()), runtime_tree.memory_base()[0]}
    removed += runtime_tree.sweep_unheld(runtime_tree.memory_base()[0])
    for base in sorted(bases):
        with contextlib.suppress(OSError):
            for entry in base.iterdir():
                removed += _sweep_entry(entry, now - older_than_s)
    return removed


def _sweep_entry(entry: Path, made_before: float) -> int:
    """Removes ``entry`` if it is a stale seat folder, or the copies of a runner process that
    is gone: 1 if removed."""
    for prefix in (SHARED_PROC_PREFIX, runtime_tree.TREE_PREFIX):
        if entry.name.startswith(prefix):
            pid = entry.name[len(prefix) :].split("-", 1)[0]
            if pid.isdigit() and not Path(f"/proc/{pid}").exists():
                remove_tree(entry)
                return 1
            return 0
    if not entry.name.startswith("scopa-seat-"):
        return 0
    with contextlib.suppress(OSError):
        info = entry.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_mtime < made_before:
            remove_tree(entry)
            return 1
    return 0


def make_seat_dir(label: str, *, in_memory: bool = False) -> Path:
    """A private folder of the runner for one seat (its bot copy, or socket unsandboxed):
    in the temporary folder, or ``in_memory`` (:func:`arena.runner.runtime_tree.memory_base`,
    for the seat's copy of the bot's folder: pages no process can drop, set or time).

    Raises HostError.
    """
    global _swept_seat_dirs
    if not _swept_seat_dirs:
        _swept_seat_dirs = True
        sweep_stale_seat_dirs()
    try:
        base = runtime_tree.memory_base()[0] if in_memory else None
        return Path(tempfile.mkdtemp(prefix=f"scopa-seat-{label}-", dir=base))
    except OSError as error:
        raise HostError(f"cannot create a folder for the bot: {error}") from error


def copy_bot_folder(folder: Path, seat_dir: Path) -> Path:
    """A private, read-only copy of the bot's folder inside ``seat_dir``, for one seat.

    Two seats of one bot then share no inode of it: nothing to lock, watch or time between
    them. Links are copied as links (uploaded bots have none). Raises HostError.
    """
    copy = seat_dir / "bot"
    try:
        shutil.copytree(folder, copy, symlinks=True)
    except (OSError, shutil.Error) as error:
        raise HostError(f"cannot copy the bot's folder: {error}") from error
    return copy


def remove_tree(path: Path) -> None:
    """Removes a folder tree iteratively, holding one folder open at a time, following no link.

    A bot may leave a chain of folders deeper than any recursion limit or path length, or
    links to anything: this goes down with ``openat(O_NOFOLLOW)`` (a link is removed, never
    entered), up with ``..``, removes what it can and never raises. Nothing else may change
    the tree meanwhile (its bot is dead by then).
    """
    try:
        info = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISDIR(info.st_mode):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    names: list[str] = []  # the folders entered below ``path``, outermost first
    stuck: set[int] = set()  # inodes of folders that could not be emptied: not entered again
    try:
        while True:
            entered = False
            try:
                entries = list(os.scandir(fd))
            except OSError:
                entries = []
            for entry in entries:
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if not is_dir:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.name, dir_fd=fd)
                    continue
                if entry.inode() in stuck:
                    continue
                with contextlib.suppress(OSError):
                    os.chmod(entry.name, 0o700, dir_fd=fd)
                try:
                    child = os.open(entry.name, flags, dir_fd=fd)
                except OSError:
                    continue
                os.close(fd)
                fd = child
                names.append(entry.name)
                entered = True
                break
            if entered:
                continue
            if not names:
                break
            inode = os.fstat(fd).st_ino
            parent = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = parent
            try:
                os.rmdir(names.pop(), dir_fd=fd)
            except OSError:  # something in it cannot be removed: leave it, do the rest
                stuck.add(inode)
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        os.rmdir(path)


def remove_seat_dir(path: Path) -> None:
    """Removes a seat folder made by :func:`make_seat_dir`; never raises."""
    remove_tree(path)


def python_command() -> list[str]:
    """The arena's interpreter as the runner starts it for a bot's ``python`` (frozen
    standard modules: the default of release builds, said for every build)."""
    return [sys.executable, *PYTHON_FLAGS]


def server_command() -> list[str]:
    """How the runner starts its fork server (:mod:`arena.runner.forkserver`): the arena's
    interpreter, run (by a runner that is root) in a mount namespace where the runtime tree is
    bound over the host's folders (:func:`arena.runner.runtime_tree.server_prefix`), so the
    interpreter, libraries and modules every forked seat inherits are the tree's pinned pages.
    Raises HostError when the tree cannot be written."""
    if not _is_root():
        return python_command()
    return [*runtime_tree.server_prefix(_pinned_tree()), *python_command()]


def resolve_command(command: list[str], folder: Path, *, sandbox: bool) -> list[str]:
    """The manifest's command with ``python`` meaning the arena's own interpreter.

    A first word that names a file of the bot's folder (``./run.sh``, ``bin/bot``) becomes that
    file's path as the process will see it (``/bot/...`` in a sandbox).
    """
    first, *rest = command
    if first in {"python", "python3"}:
        return [*python_command(), *rest]
    elif "/" in first and not first.startswith("/"):
        base = BOT_MOUNT if sandbox else str(folder)
        first = str(Path(base) / first)
    return [first, *rest]


def _seccomp_fd() -> int | None:
    """A descriptor holding the compiled system-call filter, or None without libseccomp."""
    program = _seccomp_program()
    if program is None:
        return None
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)  # a few hundred bytes: fits in the pipe's buffer
    finally:
        os.close(write_end)
    return read_end


def launch_command(
    command: list[str],
    folder: Path,
    seat_dir: Path,
    limits: Limits,
    *,
    sandbox: bool,
    python: bool,
    extra_env: dict[str, str] | None = None,
    join: list[str] | None = None,
    fork_layout: bool = False,
) -> LaunchPlan:
    """The plan for starting ``command`` of the bot in ``folder`` (in a sandbox: the seat's
    private copy of it) with the runner's seat folder ``seat_dir``.

    ``python`` binds the interpreter, the virtualenv and the ``arena`` package into the
    sandbox; ``extra_env`` adds variables (``SCOPA_BOT_SEED``); ``join`` is an argv prefix that
    puts the process into its seat's control group first. ``fork_layout`` (a seat forked in,
    whatever its command) binds the interpreter, and the ``arena`` package and the protocol
    at their host paths, where the modules a fork server imported
    (:mod:`arena.runner.forkserver`) say they are, and mounts no procfs. Raises HostError
    when a sandbox is asked for and the machine cannot make one. The plan's ``pass_fds``,
    ``info_fd`` and ``started_fd`` are open descriptors: :func:`spawn` hands them over and
    closes the child's ends.

    A sandbox's command is built from named parts: its namespaces
    (:func:`_namespace_args`), the filesystem it sees (:func:`_filesystem_args`: the pinned
    runtime tree, ``/etc``, ``/proc``, ``/dev`` and its tmpfs folders; :func:`_library_args`:
    the interpreter, the package and the bot's folder), its environment
    (:func:`_environment_args`), the descriptors bwrap reads (:func:`_descriptor_args`: the
    system-call filter, the info pipe) and the bot's command (:func:`_bot_command`: the start
    mark, the fresh uid), under the per-process limits.
    """
    if python:
        runtime_tree.compile_package()
    env = {**base_env(), **(extra_env or {})}
    prefix = list(join or [])
    if not sandbox:
        return _unsandboxed_plan(command, folder, seat_dir, limits, env, prefix)

    features = bwrap_features()
    if features is None:
        raise HostError("bubblewrap (bwrap) is not available on this machine")
    _say_what_is_missing(features)
    inside = f"unix://{SOCKET_MOUNT}/{SOCKET_NAME}"
    env.update({"HOME": "/tmp", "TMPDIR": "/tmp", "SCOPA_BOT_ADDRESS": inside})
    args = [features.path, *_namespace_args(features)]
    args += _filesystem_args(features, limits, seat_dir, fork_layout=fork_layout)
    args += _library_args(folder, seat_dir, env, python=python, fork_layout=fork_layout)
    args += ["--chdir", BOT_MOUNT, *_environment_args(env)]
    fds = _descriptor_args(features)
    args += [*fds.args, "--"]
    bot = _bot_command(command, folder, fork_layout=fork_layout)
    # A forked seat's holder runs no code of the bot's and has nothing the bot can reach (the
    # bot takes its own uid, limits and groups as it is forked): it starts as bwrap leaves it.
    limit = [] if fork_layout else ["prlimit", *limits.prlimit_args(with_processes=True), "--"]
    # The host side runs in the seat folder: bwrap itself binds (and checks) the bot folder.
    return LaunchPlan(
        [*prefix, *limit, *args, *bot.argv],
        {"PATH": SANDBOX_PATH},
        str(seat_dir),
        inside,
        f"{SOCKET_MOUNT}/{SOCKET_NAME}",
        sandboxed=True,
        pass_fds=(*fds.pass_fds, *bot.pass_fds),
        info_fd=fds.info_read,
        started_fd=bot.started_read,
        close_after_spawn=(*fds.pass_fds, *bot.pass_fds),
        uid=bot.uid,
        inside_env=env,
    )


def _unsandboxed_plan(
    command: list[str],
    folder: Path,
    seat_dir: Path,
    limits: Limits,
    env: dict[str, str],
    prefix: list[str],
) -> LaunchPlan:
    """The plan of a bot run without a sandbox: limits only, in the host's filesystem."""
    address = f"unix://{seat_dir / SOCKET_NAME}"
    env.update(
        {
            "HOME": str(seat_dir),
            "TMPDIR": str(seat_dir),
            "PYTHONPATH": str(PROJECT_ROOT),
            "SCOPA_PROTO_PATH": str(PROTOS_DIR),
            "SCOPA_BOT_ADDRESS": address,
        }
    )
    argv = [
        *prefix,
        "prlimit",
        *limits.prlimit_args(with_processes=not _is_root()),
        "--",
        # The bot dies with the runner, however the runner ends.
        *(["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []),
        *resolve_command(command, folder, sandbox=False),
    ]
    socket_path = str(seat_dir / SOCKET_NAME)
    return LaunchPlan(argv, env, str(folder), address, socket_path, sandboxed=False)


def _namespace_args(features: BwrapFeatures) -> list[str]:
    """The namespaces of a sandbox: no network but loopback, its own pids, IPC, host name and
    control-group view, a session of its own, dying with the runner, an empty environment."""
    return [
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "bot",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        *_user_args(),
        *(["--disable-userns"] if features.disable_userns and not _is_root() else []),
    ]


def _pinned_tree() -> runtime_tree.RuntimeTree:
    """The runner process's runtime tree (:mod:`arena.runner.runtime_tree`). Raises
    HostError."""
    try:
        return runtime_tree.runtime_tree()
    except OSError as error:
        raise HostError(f"cannot write the seats' runtime tree: {error}") from error


def _filesystem_args(
    features: BwrapFeatures, limits: Limits, seat_dir: Path, *, fork_layout: bool
) -> list[str]:
    """What a sandbox sees of the host besides the libraries and the bot: the pinned runtime
    tree at ``/usr`` (and ``/bin``, ``/lib``... as the host links them), the shared copies of
    ``/etc`` and (a forked seat's) ``/proc``, a ``/dev`` of its own with no pseudo-terminals,
    its size-limited tmpfs folders, and the host-wide entries of its own procfs masked."""
    try:
        shared = shared_host_copies()
    except OSError as error:
        raise HostError(f"cannot write the seats' copies of /etc and /proc: {error}") from error
    tree = _pinned_tree()

    def sized(size: int) -> list[str]:
        return ["--size", str(size)] if features.size else []

    empty = seat_dir / "empty"
    empty.mkdir(mode=0o755, exist_ok=True)
    empty_file = seat_dir / "empty-file"
    empty_file.touch(mode=0o444, exist_ok=True)
    args = [
        "--ro-bind",
        tree.source("/usr"),
        "/usr",
        *_usr_merged_links(tree.root),
        # A forked seat has no procfs (the shared folder of static copies): each
        # entry of a procfs takes its inode number from a counter of the whole host when it is
        # first looked up, and the folders of a seat's new processes and descriptors are new
        # entries (see arena.runner.seccomp.SEALED).
        *(["--ro-bind", str(shared / "proc"), "/proc"] if fork_layout else ["--proc", "/proc"]),
        *["--ro-bind", str(shared / "etc"), "/etc", "--dev", "/dev"],
        *["--perms", "1777", *sized(limits.tmp_bytes), "--tmpfs", "/dev/shm"],
        *["--perms", "1777", *sized(limits.tmp_bytes), "--tmpfs", "/tmp"],
        *["--perms", "0777", *sized(SOCKET_DIR_BYTES), "--tmpfs", SOCKET_MOUNT],
    ]
    if not fork_layout:  # over the seat's own procfs
        masked_files, masked_dirs = proc_masks()
        for name in masked_files:
            args += ["--ro-bind-try", str(empty_file), name]
        for name in masked_dirs:
            args += ["--ro-bind-try", str(empty), name]
        try:
            sys_dir, cpuinfo = proc_snapshot(seat_dir)
        except OSError as error:
            raise HostError(f"cannot write the seat's /proc copies: {error}") from error
        args += ["--ro-bind", str(sys_dir), "/proc/sys", "--ro-bind", str(cpuinfo), "/proc/cpuinfo"]
    # No pseudo-terminals: their count (/proc/sys/kernel/pty/nr) is host-wide, and a bot has
    # no use for one. bwrap's /dev has a devpts of its own at /dev/pts (/dev/ptmx links into
    # it): an empty folder hides it.
    return [*args, "--ro-bind", str(empty), "/dev/pts"]


def _library_args(
    folder: Path, seat_dir: Path, env: dict[str, str], *, python: bool, fork_layout: bool
) -> list[str]:
    """The binds of the interpreter, the ``arena`` package, the protocol (each from the pinned
    runtime tree) and the seat's copy of the bot's folder at ``/bot``, with the editable
    install's finders masked by ``seat_dir``'s empty file (:func:`editable_finders`); sets
    ``PYTHONPATH`` and ``SCOPA_PROTO_PATH`` in ``env`` to match."""
    tree = _pinned_tree()
    binds: list[tuple[str, str]] = []
    # A forked seat has the package and the protocol bound at their host paths: at the
    # library's place it finds links to them (a link is no mount).
    links: list[tuple[str, str]] = []
    library = links if fork_layout else binds
    if PROTOS_DIR.is_dir():  # the protocol's .proto files, for bots that load them at run time
        protos = str(PROTOS_DIR) if fork_layout else tree.source(PROTOS_DIR)
        library.append((protos, f"{LIB_MOUNT}/protos"))
        env["SCOPA_PROTO_PATH"] = f"{LIB_MOUNT}/protos"
    if python or fork_layout:  # a forked seat is the arena's interpreter until it execs
        binds += [(tree.source(path), str(path)) for path in python_paths()]
    if python:
        package = str(PACKAGE_DIR) if fork_layout else tree.source(PACKAGE_DIR)
        library.append((package, f"{LIB_MOUNT}/arena"))
        env["PYTHONPATH"] = LIB_MOUNT
    if fork_layout:
        binds.append((tree.source(PACKAGE_DIR), str(PACKAGE_DIR)))
        if PROTOS_DIR.is_dir():
            binds.append((tree.source(PROTOS_DIR), str(PROTOS_DIR)))
    binds += [(tree.source(top), top) for top in _other_tops(tree)]
    binds.append((str(folder), BOT_MOUNT))
    args = list(_parent_dirs(tuple(dest for _, dest in binds + links)))
    for source, dest in binds:
        args += ["--ro-bind", source, dest]
    for source, dest in links:
        args += ["--symlink", source, dest]
    if python or fork_layout:
        for name in editable_finders():  # after the virtualenv's bind, which they cover
            args += ["--ro-bind", str(seat_dir / "empty-file"), name]
    return args


def _other_tops(tree: runtime_tree.RuntimeTree) -> list[str]:
    """The tree's folders outside ``/usr``, the interpreter's and the arena's (a host whose
    ``/lib`` is not merged into ``/usr``): bound for every seat."""
    known = {"/usr", str(PACKAGE_DIR), str(PROTOS_DIR), *(str(p) for p in python_paths())}
    merged = {str(Path("/") / name) for name in MERGED_NAMES}
    return [top for top in tree.tops if top not in known and top not in merged]


def _environment_args(env: dict[str, str]) -> list[str]:
    """The bot's whole environment (bwrap starts it from nothing: ``--clearenv``)."""
    args: list[str] = []
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


@dataclass(frozen=True)
class _Descriptors:
    args: list[str]
    pass_fds: tuple[int, ...]  # bwrap's ends: handed over, closed once started
    info_read: int | None


def _descriptor_args(features: BwrapFeatures) -> _Descriptors:
    """The system-call filter (``--seccomp``) and the pipe where bwrap says the sandbox's pid
    (``--info-fd``), as this bubblewrap allows."""
    args: list[str] = []
    pass_fds: list[int] = []
    info_read: int | None = None
    if features.seccomp:
        filter_fd = _seccomp_fd()
        if filter_fd is not None:
            args += ["--seccomp", str(filter_fd)]
            pass_fds.append(filter_fd)
    if features.info_fd:
        info_read, info_write = os.pipe()
        args += ["--info-fd", str(info_write)]
        pass_fds.append(info_write)
    return _Descriptors(args, tuple(pass_fds), info_read)


@dataclass(frozen=True)
class _BotCommand:
    argv: list[str]
    pass_fds: tuple[int, ...]  # the start mark's write end: handed over, closed once started
    started_read: int | None
    uid: int | None


def _bot_command(command: list[str], folder: Path, *, fork_layout: bool) -> _BotCommand:
    """The command bwrap runs: the bot's own, after the mark that says it was reached and
    ``setpriv`` to a fresh uid with no capability (a runner that is root); a forked seat's
    holder as it is."""
    target = resolve_command(command, folder, sandbox=True)
    uid = None
    if _is_root():
        uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0]
    if fork_layout:
        return _BotCommand(target, (), None, uid)
    # The last step before the bot's command says it was reached, on a pipe it closes
    # first (bash: dash takes no descriptor above 9). Until then every failure is the
    # host's (the group's join, prlimit, bwrap's mounts, setpriv), after it the bot's,
    # whatever its output claims.
    started_read, started_write = os.pipe()
    os.set_blocking(started_read, False)
    # bash exports SHLVL at exec, which env takes out: the bot gets the same environment.
    target = [
        "/bin/bash",
        "-c",
        f'printf . >&{started_write} && exec {started_write}>&- && exec /usr/bin/env -u SHLVL "$@"',
        "start",
        *target,
    ]
    if _is_root():
        target = [
            "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            *target,
        ]
    return _BotCommand(target, (started_write,), started_read, uid)


def _say_what_is_missing(features: BwrapFeatures) -> None:
    """Warns, once per process, of each protection this bubblewrap cannot give."""
    from arena.runner.fallbacks import warn_once

    if not features.size:
        warn_once(
            "size",
            f"bubblewrap {features.version} has no --size: the bots' tmpfs "
            "folders are bounded by their memory limit only",
        )
    if not features.seccomp:
        warn_once(
            "seccomp",
            f"bubblewrap {features.version} has no --seccomp: bots run "
            "without the system-call filter",
        )
    elif _seccomp_program() is None:
        warn_once(
            "libseccomp", "libseccomp is not installed: bots run without the system-call filter"
        )
    if not features.info_fd:
        warn_once(
            "info-fd",
            f"bubblewrap {features.version} has no --info-fd: sandboxed bots cannot be reached",
        )


def _seccomp_program(*, supervised: bool = False) -> bytes | None:
    from arena.runner.seccomp import sandbox_filter

    return sandbox_filter(supervised=supervised)


def seccomp_program(*, supervised: bool = False) -> bytes | None:
    """The compiled system-call filter of every sandbox, or None where bwrap applies none
    (no ``--seccomp``, or no libseccomp). ``supervised``: a forked seat's, whose sealed calls
    the runner answers until its seal (:mod:`arena.runner.seal`)."""
    features = bwrap_features()
    if features is None or not features.seccomp:
        return None
    return _seccomp_program(supervised=supervised)


def base_env() -> dict[str, str]:
    """What every bot's environment starts from; also the fork server's whole environment
    (its imports read some of it, and its forks keep what the C library read at start)."""
    return {
        "PATH": SANDBOX_PATH,
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MALLOC_ARENA_MAX": "2",  # glibc arenas count against the address-space limit
        "GRPC_ENABLE_FORK_SUPPORT": "0",
    }


def close_plan(plan: LaunchPlan) -> None:
    """Closes the descriptors of a plan that will not be (or was) started."""
    read_ends = [end for end in (plan.info_fd, plan.started_fd) if end is not None]
    for fd in (*plan.close_after_spawn, *read_ends):
        with contextlib.suppress(OSError):
            os.close(fd)


def spawn(
    plan: LaunchPlan, stderr: int = subprocess.PIPE, stdin: int = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """Starts the plan's process in a session of its own. Raises HostError if it cannot start.

    The child's ends of the plan's descriptors are closed here once it has them. ``stderr``:
    a descriptor for the process's stderr instead of a new pipe; ``stdin`` one for its input
    instead of ``/dev/null`` (the caller keeps and closes it).
    """
    try:
        return subprocess.Popen(
            plan.argv,
            env=plan.env,
            cwd=plan.cwd,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
            pass_fds=plan.pass_fds,
            umask=0o022,  # folders bwrap creates for mount points must be traversable
        )
    except OSError as error:
        if plan.info_fd is not None:
            with contextlib.suppress(OSError):
                os.close(plan.info_fd)
        raise HostError(f"cannot start {plan.argv[0]}: {error}") from error
    finally:
        for fd in plan.close_after_spawn:
            with contextlib.suppress(OSError):
                os.close(fd)


def sandbox_pid(info: bytes) -> int | None:
    """The pid of the sandbox's first process from what ``bwrap --info-fd`` wrote."""
    found = re.search(rb'"child-pid"\s*:\s*(\d+)', info)
    return int(found.group(1)) if found else None


class SocketError(RuntimeError):
    """The bot's socket is missing or is not a socket (a link, a file): a start fault."""


def open_socket(root: str | None, path: str) -> int:
    """An ``O_PATH`` descriptor of the unix socket at ``path``, found without following links.

    ``root`` is the sandbox's root as the runner reaches it (``/proc/<pid>/root``), or None
    for a path of the host. Every folder on the way and the socket itself are opened with
    ``O_NOFOLLOW`` and the last must be a socket: a bot that replaces its socket with a link
    to some other socket of the host gets nothing. Connect through ``/proc/self/fd/N``
    (:func:`socket_address`): the runner then connects to exactly the inode it checked.
    Raises SocketError.
    """
    parts = [part for part in path.split("/") if part]
    if not parts or any(part in {".", ".."} for part in parts):
        raise SocketError(f"bad socket path {path!r}")
    base = root if root is not None else "/"
    try:
        current = os.open(base, os.O_PATH | os.O_DIRECTORY)
    except OSError as error:
        raise SocketError(f"the sandbox is gone ({error.strerror})") from None
    try:
        for part in parts[:-1]:
            try:
                following = os.open(
                    part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=current
                )
            except OSError as error:
                raise SocketError(f"{path}: {error.strerror}") from None
            os.close(current)
            current = following
        try:
            fd = os.open(parts[-1], os.O_PATH | os.O_NOFOLLOW, dir_fd=current)
        except FileNotFoundError:
            raise SocketError(f"no socket at {path}") from None
        except OSError as error:
            raise SocketError(f"{path}: {error.strerror}") from None
    finally:
        os.close(current)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISSOCK(mode):
        os.close(fd)
        kind = "a link" if stat.S_ISLNK(mode) else "not a socket"
        raise SocketError(f"{path} is {kind}: the bot must bind a unix socket there")
    return fd


def socket_address(fd: int) -> str:
    """The gRPC target connecting to the socket held open as ``fd``."""
    return f"unix:/proc/self/fd/{fd}"


class Killable(Protocol):
    """What :func:`kill_group` needs of a process (a ``Popen``, or a forked seat's)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def kill_group(process: Killable) -> None:
    """Kills the process and its whole process group with SIGKILL, and reaps it."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def is_host_failure(stderr_text: str) -> bool:
    """Whether a sandboxed process that died before its bot's command was started
    (:attr:`LaunchPlan.started_fd` got nothing) failed because of the sandbox itself.

    bubblewrap, prlimit and the control-group join prefix their own errors; a bot's command
    that does not exist inside the sandbox fails after the start was said (the bot's fault,
    not the host's). Never asked once the bot's command has run: its output is its own.
    """
    return any(
        line.startswith(("bwrap: ", "prlimit: ", "cgroup: ")) for line in stderr_text.splitlines()
    )


def bot_was_started(plan: LaunchPlan) -> bool:
    """Whether the bot's own command of ``plan`` (the exec path, sandboxed) was started: the
    byte the step before it writes. Call once the process has exited."""
    if plan.started_fd is None:
        return False
    try:
        return os.read(plan.started_fd, 1) == b"."
    except OSError:
        return False
