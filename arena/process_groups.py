"""Stopping a child process together with its whole process group, safely.

The arena's long-lived helpers (local workers, the production web server, nginx) each run in
a session of their own, so that their children (pool processes, bots) share their process
group and go with them. A group may be signalled only while its leader is unreaped: a reaped
leader's pid, and so its group id, can be handed to an unrelated process at once (pids wrap
around quickly on a busy machine). Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping


def exited_unreaped(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Waits up to ``timeout`` for ``process`` to exit without reaping it; True if it did.

    A process left unreaped (a zombie) keeps its pid, so its process group id cannot be given
    to a new process while the caller still signals the group.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            info = os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        except ChildProcessError:  # already reaped elsewhere
            return True
        if info is not None:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Sends ``sig`` to the process group led by ``process``, if that group is still its own."""
    if process.returncode is not None:
        return  # reaped: its group id may already belong to another process
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def stop_group(
    process: subprocess.Popen[bytes], timeout: float = 10.0, sig: int = signal.SIGTERM
) -> int:
    """Asks the group to stop with ``sig``, kills what is left after ``timeout``, reaps the
    leader; returns its exit status."""
    signal_group(process, sig)
    finish_group(process, timeout)
    return process.returncode


def finish_group(process: subprocess.Popen[bytes], timeout: float) -> None:
    """Waits up to ``timeout`` for a leader already asked to stop, then kills its whole group
    (children included, which must not outlive it) and reaps the leader."""
    if process.returncode is None:
        exited_unreaped(process, max(0.0, timeout))
        signal_group(process, signal.SIGKILL)
    process.wait()


PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Makes this process adopt its orphaned descendants (Linux); True if it does.

    A worker killed mid-match orphans what it started in sessions of their own (a bot's
    sandbox): without this they would go to init and outlive the command that started the
    worker; with it they become this process's children, which :func:`kill_orphans` ends.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def children(pid: int | None = None) -> list[int]:
    """The pids whose parent is ``pid`` (this process by default), from /proc."""
    parent = os.getpid() if pid is None else pid
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended while we looked
        if int(fields[1]) == parent:
            found.append(int(entry.name))
    return found


def reap_exited(keep: set[int]) -> int:
    """Reaps this process's exited children not in ``keep`` (adopted orphans that ended on
    their own), without waiting; returns how many. A subreaper must do this as init would, or
    they stay zombies for as long as it runs. The children in ``keep`` (those it waits for
    itself, through their :class:`subprocess.Popen`) are left alone."""
    reaped = 0
    for pid in children():
        if pid in keep:
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != b"Z":
            continue
        with contextlib.suppress(ChildProcessError):
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                reaped += 1
    return reaped


def kill_orphans(keep: set[int], settle_s: float = 0.3, timeout: float = 3.0) -> int:
    """SIGKILLs this process's children not in ``keep`` (adopted orphans), each with the
    process group it leads, and reaps them, until none has come for ``settle_s``; returns how
    many. A child is still unreaped when it is signalled, so its pid is its own."""
    killed = 0
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - quiet_since < settle_s:
        found = [pid for pid in children() if pid not in keep]
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
                os.kill(pid, signal.SIGKILL)
            # Not a blocking wait: a process that cannot die yet (a seat frozen by its control
            # group's freezer takes its SIGKILL only when thawed) must not hang the caller.
            while time.monotonic() < deadline:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        break
                except ChildProcessError:
                    break
                time.sleep(0.02)
            killed += 1
        if found:
            quiet_since = time.monotonic()
        time.sleep(0.05)
    return killed


LIFELINE_ENV = "ARENA_LIFELINE_FD"
"""The environment variable naming a child's lifeline (:func:`lifeline`)."""

_lifeline: tuple[int, int] | None = None


def lifeline() -> int:
    """The read end of this process's lifeline, a pipe whose write end only this process
    holds (both ends are closed in every program it runs unless passed on): a child given
    the read end (``pass_fds`` and :data:`LIFELINE_ENV`) reads end-of-file when this process
    dies, however it dies (SIGKILL, the OOM killer), and can then go too
    (:func:`watch_lifeline`). Made once; the write end stays open until this process ends."""
    global _lifeline
    if _lifeline is None:
        _lifeline = os.pipe()
    return _lifeline[0]


def watch_lifeline(on_lost: Callable[[], object], env: Mapping[str, str] | None = None) -> bool:
    """Calls ``on_lost`` from a daemon thread once the lifeline this process was given
    (:data:`LIFELINE_ENV`) reads end-of-file: the process that started it has died. False
    (and nothing watched) when it was given none."""
    value = (os.environ if env is None else env).get(LIFELINE_ENV, "")
    if not value.isdigit():
        return False
    fd = int(value)
    try:
        os.set_inheritable(fd, False)  # nothing this process runs holds it on
    except OSError:
        return False
    if env is None:
        os.environ.pop(LIFELINE_ENV, None)

    def watch() -> None:
        while True:
            try:
                if not os.read(fd, 4096):
                    break
            except InterruptedError:
                continue
            except OSError:
                break
        on_lost()

    threading.Thread(target=watch, name="lifeline", daemon=True).start()
    return True


def own_group_members() -> list[int]:
    """The other processes of this process's group (the pool children of a worker that
    leads its own session), from /proc."""
    group = os.getpgid(0)
    me = os.getpid()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == group and fields[0] != b"Z":
            found.append(int(entry.name))
    return found
