"""How a bot seat's process is started: bubblewrap sandbox, resource limits, private folders.

Each seat runs as its own process in its own sandbox (:func:`launch_command`):

- bubblewrap (``bwrap``) gives it fresh network, pid, ipc and uts namespaces (so no network at
  all: only loopback inside, and its gRPC socket, a unix socket in a private per-seat folder
  bound at ``/sock``), a read-only view of its own folder at ``/bot``, a private tmpfs ``/tmp``
  and read-only binds of what it needs to run (``/usr``, a few files of ``/etc``, the Python
  interpreter and virtualenv, the ``arena`` package). Nothing else of the host exists inside:
  no ``/var/run`` (so no host unix sockets), no ``/home``, no other bot's folder.
- When the runner is root, the bot runs as a fresh unprivileged uid with every capability
  dropped (``setpriv``), so that the limit on processes counts for this seat alone.
- ``prlimit`` sets CPU time, address space, processes, file size and open files before any of
  it starts; the process leads its own session, and :func:`kill_group` ends the whole group
  (and, through ``--die-with-parent`` and the pid namespace, everything inside the sandbox).

Without bubblewrap a bot can still run with the limits alone (:func:`launch_command` with
``sandbox=False``): the runner allows that for the arena's own sample bots, or for any bot when
told ``--unsafe-no-sandbox``. This module builds commands and manages folders; it does not talk
gRPC and does not decide what a fault is (see :mod:`arena.runner.process`).
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import arena

PACKAGE_DIR = Path(arena.__file__).resolve().parent
"""The ``arena`` package folder, bound read-only into Python bots' sandboxes."""

PROJECT_ROOT = PACKAGE_DIR.parent
PROTOS_DIR = PROJECT_ROOT / "protos"

# Where things appear inside the sandbox.
BOT_MOUNT = "/bot"
SOCKET_MOUNT = "/sock"
LIB_MOUNT = "/opt/scopa"  # holds arena/ and protos/, and is the bot's PYTHONPATH
SOCKET_NAME = "bot.sock"

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

# Unprivileged uids for sandboxed bots are drawn from this range, one per seat process, so that
# the limit on processes (counted per uid) is per seat.
UID_RANGE = (1_000_000, 1_900_000)

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"


class HostError(RuntimeError):
    """The host failed to start a bot (no bubblewrap, no folder): the game is void, not lost."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (and each of its children)."""

    cpu_seconds: int = 600
    memory_bytes: int = 2 * 1024**3
    processes: int = 128
    file_bytes: int = 16 * 1024**2
    open_files: int = 256

    def prlimit_args(self, *, with_processes: bool) -> list[str]:
        """The ``prlimit`` options that apply these limits (soft = hard)."""
        args = [
            f"--cpu={self.cpu_seconds}",
            f"--as={self.memory_bytes}",
            f"--fsize={self.file_bytes}",
            f"--nofile={self.open_files}",
            "--core=0",
        ]
        if with_processes:
            args.append(f"--nproc={self.processes}")
        return args


@dataclass(frozen=True)
class LaunchPlan:
    """Everything needed to start one seat's process."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    bind_address: str  # what the bot is told to bind (as seen inside its sandbox)
    connect_address: str  # what the runner connects to (as seen from the host)
    sandboxed: bool


@functools.cache
def bwrap_path() -> str | None:
    """The bubblewrap binary, or None when the machine has none that works.

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
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if done.returncode == 0 else None


def sandbox_available() -> bool:
    """Whether bots can be sandboxed on this machine."""
    return bwrap_path() is not None


def _is_root() -> bool:
    return os.geteuid() == 0


def _user_args() -> list[str]:
    # As root, bwrap keeps every capability inside; setpriv drops them and the uid. As a normal
    # user, bwrap needs a user namespace, and the bot is already unprivileged.
    return [] if _is_root() else ["--unshare-user"]


def _usr_merged_links() -> list[str]:
    """``/bin``, ``/lib``... as the host has them: symlinks into ``/usr`` or real folders."""
    args: list[str] = []
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), str(host)]
        elif host.is_dir():
            args += ["--ro-bind", str(host), str(host)]
    return args


def _parent_dirs(destinations: list[str]) -> list[str]:
    """``--dir`` options making every missing parent of the mount points, world-traversable.

    bwrap would create them itself, but private (0700), which an unprivileged bot cannot cross.
    """
    made = {"/", "/usr", "/tmp", "/proc", "/dev"}
    args: list[str] = []
    for dest in destinations:
        for parent in reversed(Path(dest).parents):
            name = str(parent)
            if name not in made:
                made.add(name)
                args += ["--perms", "0755", "--dir", name]
    return args


def python_paths() -> list[Path]:
    """The folders a Python bot needs from the host: the interpreter and the virtualenv."""
    paths = {Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()}
    # The venv's python may be a symlink chain out of both prefixes (pyenv shims and the like).
    real = Path(os.path.realpath(sys.executable)).parent.parent
    paths.add(real)
    return sorted(p for p in paths if not str(p).startswith("/usr/"))


def make_seat_dir(label: str) -> Path:
    """A private folder for one seat process: its socket lives here. Raises HostError."""
    try:
        return Path(tempfile.mkdtemp(prefix=f"scopa-seat-{label}-"))
    except OSError as error:
        raise HostError(f"cannot create a folder for the bot's socket: {error}") from error


def remove_seat_dir(path: Path) -> None:
    """Removes a seat folder made by :func:`make_seat_dir`."""
    shutil.rmtree(path, ignore_errors=True)


def resolve_command(command: list[str], folder: Path, *, sandbox: bool) -> list[str]:
    """The manifest's command with ``python`` meaning the arena's own interpreter.

    A first word that names a file of the bot's folder (``./run.sh``, ``bin/bot``) becomes that
    file's path as the process will see it (``/bot/...`` in a sandbox).
    """
    first, *rest = command
    if first in {"python", "python3"}:
        first = sys.executable
    elif "/" in first and not first.startswith("/"):
        base = BOT_MOUNT if sandbox else str(folder)
        first = str(Path(base) / first)
    return [first, *rest]


def launch_command(
    command: list[str],
    folder: Path,
    seat_dir: Path,
    limits: Limits,
    *,
    sandbox: bool,
    python: bool,
    extra_env: dict[str, str] | None = None,
) -> LaunchPlan:
    """The plan for starting ``command`` of the bot in ``folder`` with its socket in ``seat_dir``.

    ``python`` binds the interpreter, the virtualenv and the ``arena`` package into the
    sandbox; ``extra_env`` adds variables (``SCOPA_BOT_SEED``). Raises HostError when a sandbox
    is asked for and the machine cannot make one.
    """
    env = {
        "PATH": SANDBOX_PATH,
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MALLOC_ARENA_MAX": "2",  # glibc arenas count against the address-space limit
        "GRPC_ENABLE_FORK_SUPPORT": "0",
        **(extra_env or {}),
    }
    if not sandbox:
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
            "prlimit",
            *limits.prlimit_args(with_processes=not _is_root()),
            "--",
            # The bot dies with the runner, however the runner ends.
            *(["setpriv", "--pdeathsig", "KILL", "--"] if shutil.which("setpriv") else []),
            *resolve_command(command, folder, sandbox=False),
        ]
        return LaunchPlan(argv, env, str(folder), address, address, sandboxed=False)

    bwrap = bwrap_path()
    if bwrap is None:
        raise HostError("bubblewrap (bwrap) is not available on this machine")
    inside = f"unix://{SOCKET_MOUNT}/{SOCKET_NAME}"
    env.update({"HOME": "/tmp", "TMPDIR": "/tmp", "SCOPA_BOT_ADDRESS": inside})
    args = [
        bwrap,
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
        "--ro-bind",
        "/usr",
        "/usr",
        *_usr_merged_links(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
    ]
    binds = [(name, name) for name in ETC_FILES if os.path.exists(name)]
    if PROTOS_DIR.is_dir():  # the protocol's .proto files, for bots that load them at run time
        binds.append((str(PROTOS_DIR), f"{LIB_MOUNT}/protos"))
        env["SCOPA_PROTO_PATH"] = f"{LIB_MOUNT}/protos"
    if python:
        binds += [(str(path), str(path)) for path in python_paths()]
        binds.append((str(PACKAGE_DIR), f"{LIB_MOUNT}/arena"))
        env["PYTHONPATH"] = LIB_MOUNT
    binds.append((str(folder), BOT_MOUNT))
    args += _parent_dirs([dest for _, dest in binds] + [SOCKET_MOUNT])
    for source, dest in binds:
        args += ["--ro-bind", source, dest]
    args += ["--bind", str(seat_dir), SOCKET_MOUNT, "--chdir", BOT_MOUNT]
    for key, value in env.items():
        args += ["--setenv", key, value]
    args.append("--")
    target = resolve_command(command, folder, sandbox=True)
    if _is_root():
        uid = secrets.randbelow(UID_RANGE[1] - UID_RANGE[0]) + UID_RANGE[0]
        os.chown(seat_dir, uid, uid)
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
    argv = ["prlimit", *limits.prlimit_args(with_processes=True), "--", *args, *target]
    connect = f"unix://{seat_dir / SOCKET_NAME}"
    # The host side runs in the seat folder: bwrap itself binds (and checks) the bot folder.
    return LaunchPlan(argv, {"PATH": SANDBOX_PATH}, str(seat_dir), inside, connect, sandboxed=True)


def spawn(plan: LaunchPlan) -> subprocess.Popen[bytes]:
    """Starts the plan's process in a session of its own. Raises HostError if it cannot start."""
    try:
        return subprocess.Popen(
            plan.argv,
            env=plan.env,
            cwd=plan.cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            umask=0o022,  # folders bwrap creates for mount points must be traversable
        )
    except OSError as error:
        raise HostError(f"cannot start {plan.argv[0]}: {error}") from error


def kill_group(process: subprocess.Popen[bytes]) -> None:
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
    """Whether a process that died before listening failed because of the sandbox itself.

    bubblewrap and prlimit prefix their own errors; a bot's command that does not exist inside
    the sandbox fails in ``setpriv`` (the bot's fault, not the host's).
    """
    return any(line.startswith(("bwrap: ", "prlimit: ")) for line in stderr_text.splitlines())
