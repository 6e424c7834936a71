"""Seats started by forking an interpreter that has already imported the SDK, and sealed.

A sandboxed Python seat started by ``exec`` spends most of its start importing gRPC and
protobuf (about 90 ms of CPU of 130), and every game of a duplicate set after the first needs
fresh processes. The fork server takes that off every start: a process of the runner's own
(:func:`serve`, started once per runner process) imports the SDK and nothing of any game,
then forks each seat into a sandbox bubblewrap has built, as a second process of it (a
Python bot's script runs in the forked interpreter; any other command is exec'd by it):

1. The runner starts the seat's sandbox as for any bot, with a holder for a command
   (:data:`HOLDER`: ``cat``, which says ``HELD`` once it runs and then waits on its input),
   bound as the bot's sandbox is plus the ``arena`` package at its host path (so the imported
   modules' own paths hold inside).
2. It sends the fork server descriptors only (:meth:`ForkServer.fork`): the sandbox's
   namespaces and root, the bot's stdout and stderr pipes, the seat's control groups, a memfd
   holding the seat's spec (script, uid, limits, system-call filter: a file, so no spec is too
   large to hand over), a pipe for the exit status, the *go* pipe and a socket to the runner
   (the *confine* socket).
3. The server joins the sandbox's pid namespace for its children only, forks the bot (the
   first process of that namespace it made) and goes back to its own. The server is the
   bot's parent: it reaps the bot when it ends and writes its exit status. Forking the bot
   straight from the server (no process between them) spares each seat a fork, an exit and
   the copies of the server's pages a second copy of it would take.
4. The bot joins the sandbox's other namespaces (ipc, uts, net, cgroup, mount) and its root,
   joins the seat's control groups, leads a session of its own, keeps only its stdin
   (``/dev/null``), stdout and stderr, takes the seat's limits, becomes the seat's
   unprivileged uid with every capability dropped (bounding, inheritable, ambient), sets
   ``no_new_privs`` and installs the sandbox's system-call filter. Confined, it says so on
   the confine socket (:data:`CONFINED_WORD`), handing the runner its filter's listener, and
   closes it; then it waits on the go pipe. The runner writes the start's environment there
   (the bot seed among it) when the seat's game starts, and only then does the bot's script
   run (``runpy``) or its command (``execve``).
5. The filter asks the runner (:mod:`arena.runner.seal`) about each call of
   :data:`arena.runner.seccomp.SEALED` (pipes, sockets, accepts, memfds: objects numbered
   from counters of the whole host). The runner lets them through until it *seals* the seat
   before its game's first message, by closing the listener: after that the kernel refuses
   them itself. The sandbox has no procfs, whose new entries are numbered from the same
   counter. So no seat that knows a card can move or read that numbering
   (docs/SECURITY.md, "The seal").

The runner builds the next game's seats this far while the current game plays (see
:meth:`arena.runner.process.BotProcess.prepare`): what is left for the game's start is the
bot's own start-up. Nothing a start is given passes through the server: its memory, which
every later seat inherits, never holds any seat's data.

What the bot ends with is what ``bwrap ... setpriv ... python`` gives (the tests compare the
two: namespaces, root, uid, capabilities, filter, limits, groups), with four differences it
can see: the SDK is already imported, a Python script's SDK server is already started on the
seat's socket (:func:`_start_grpc`), its parent is outside its pid namespace (``getppid`` is 0)
and the holder shares its sandbox. A process of the server never runs a bot's code
before the fork, so nothing one seat does reaches another through the server.

The server needs root (``setns`` and ``chroot``) and a control group with a freezer for the
seat (the signal fallbacks walk the sandbox's process tree, which the forked bot is not in);
elsewhere the runner starts every seat by ``exec``. This module imports only the standard
library at its top: the server process imports the SDK and nothing of the runner.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import gc
import json
import os
import resource
import runpy
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

HOLDER = ["/bin/cat"]
"""The sandbox's own command while a forked bot runs in it. Its input is a pipe of the
runner's holding :data:`HELD_LINE`, which it copies out once it runs (the sandbox is then
built), and which the runner keeps open: it waits there until the runner closes it. One
``exec``, where a shell that says so and execs ``sleep`` took two (about 1.2 ms of the host's
CPU a seat)."""
HELD_LINE = b"HELD\n"

# The namespaces a forked bot joins, in order (the mount namespace last: it changes the root
# the others' files are opened from), with their CLONE_* flags.
NAMESPACES = (
    ("ipc", 0x08000000),
    ("uts", 0x04000000),
    ("net", 0x40000000),
    ("cgroup", 0x02000000),
    ("pid", 0x20000000),
    ("mnt", 0x00020000),
)
_PID_NAMESPACE = 4  # its index in NAMESPACES (the server joins it for the fork only)
FIXED_FDS = 7 + len(NAMESPACES)  # spec, status, stdout, stderr, go, confine, root, namespaces

SERVER_TITLE = "arena-fork-server"
"""The server's command line as ``ps`` shows it (a runner's own process, holding no seat)."""
CMDLINE_ROOM = 4096
"""Bytes of the server's command line that each forked seat writes its own command over."""

HOST_FAILURE = "forkserver: "
"""How the fork server's own failures start (the host's fault, like ``bwrap: `` lines)."""
SETUP_FAILED = 125  # the exit status of a bot whose set-up failed before its code ran
CONFINED_WORD = b"confined"
"""What a bot says to the runner once confined, before any of its code (with its filter's
listener, where its filter asks)."""
AHEAD_WORD = b"ahead"
"""What a Python seat says next if its SDK's server is started (:func:`_start_grpc`)."""

_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_SECCOMP_MODE_FILTER = 2
_CAPABILITY_VERSION_3 = 0x20080522
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_NEW_LISTENER = 1 << 3


class ForkError(RuntimeError):
    """The fork server could not start a seat (the host's fault: the runner starts it by
    ``exec`` instead, or the game is void)."""


# --- the server's side: runs in its own process -----------------------------------------


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_libc: Any = None


def _call(name: str, *args: Any) -> None:
    """Calls libc's ``name``; raises OSError on failure."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    if getattr(_libc, name)(*args) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")


def serve(control_fd: int) -> NoReturn:
    """The fork server's loop: imports the SDK (:func:`_preload`), then forks a seat for each
    request on ``control_fd`` (a SOCK_SEQPACKET socket) until the runner closes it, and reaps
    the seats' bots (its children) as they end, writing each one's exit status."""
    global _libc, _last_capability
    _preload()
    _libc = ctypes.CDLL(None, use_errno=True)
    _last_capability = _read_last_capability()
    # Everything imported so far to the collector's permanent generation: a seat's collections
    # then leave the server's objects (and the pages they share with it) alone.
    gc.collect()
    gc.freeze()
    # Every fork below must come from a process with one thread (a fork keeps only the
    # calling thread, and setns into a pid namespace wants one).
    if threading.active_count() != 1 or len(os.listdir("/proc/self/task")) != 1:
        os.write(2, f"{HOST_FAILURE}the server has more than one thread\n".encode())
        os._exit(1)
    _retitle([SERVER_TITLE])
    title = _title_area()  # the same in every seat (a fork's copy of this command line)
    own_pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    control = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner's Ctrl-C is the runner's
    base_path = [entry for entry in sys.path if entry]
    poller = select.poll()
    poller.register(control, select.POLLIN)
    bots: dict[int, tuple[int, int]] = {}  # pidfd -> the bot's pid, its status pipe
    control.sendall(b"ready")
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for fd, _ in events:
            if fd in bots:
                pid, status_fd = bots.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _report_exit(pid, status_fd)
                continue
            if fd != control.fileno():
                continue
            try:
                message, ancillary, _, _ = control.recvmsg(16, socket.CMSG_SPACE(64 * 4))
            except InterruptedError:
                continue
            if not message:
                os._exit(0)  # the runner is gone (its seats end with their sandboxes)
            forked = _fork_seat(
                message, _received_fds(ancillary), own_pid_namespace, control, base_path, title
            )
            if forked is None:
                continue
            pidfd, pid, status_fd = forked
            bots[pidfd] = (pid, status_fd)
            poller.register(pidfd, select.POLLIN)


def _received_fds(ancillary: list[tuple[int, int, bytes]]) -> list[int]:
    fds: list[int] = []
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(data) - len(data) % 4
            fds += list(memoryview(data)[:usable].cast("i"))
    return fds


def _fork_seat(
    message: bytes,
    fds: list[int],
    own_pid_namespace: int,
    control: socket.socket,
    base_path: list[str],
    title: tuple[int, int],
) -> tuple[int, int, int] | None:
    """Forks the bot of one request into its sandbox's pid namespace and answers the runner
    with its pid and a pidfd of it: returns the server's own pidfd, the pid and the status
    pipe, or None when the request failed (said to the runner)."""
    if message != b"fork" or len(fds) < FIXED_FDS:
        for fd in fds:
            os.close(fd)
        control.sendall(b"error: a request needs the fork descriptors")
        return None
    status_fd = fds[1]
    pid_namespace = fds[7 + _PID_NAMESPACE]
    pid = -1
    failure = ""
    try:
        # Only the server's children join it; the server itself stays where it is.
        _call("setns", pid_namespace, NAMESPACES[_PID_NAMESPACE][1])
    except OSError as error:
        failure = f"cannot join the sandbox's pid namespace: {error}"
    else:
        try:
            pid = os.fork()
        except OSError as error:
            failure = f"cannot fork: {error}"
        if pid == 0:
            control.close()
            _seat(fds, base_path, title)
        try:
            _call("setns", own_pid_namespace, NAMESPACES[_PID_NAMESPACE][1])
        except OSError as error:  # a server that cannot go back forks no other seat
            os.write(2, f"{HOST_FAILURE}cannot leave a seat's pid namespace: {error}\n".encode())
            os._exit(1)
    pidfd = -1
    if pid > 0:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError as error:
            failure = f"cannot open the bot's pidfd: {error}"
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    for fd in fds:
        if fd != status_fd or pidfd < 0:
            os.close(fd)
    if pidfd < 0:
        control.sendall(f"error: {failure}".encode())
        return None
    control.sendmsg([b"%d" % pid], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _int_array([pidfd]))])
    return pidfd, pid, status_fd


def _report_exit(pid: int, status_fd: int) -> None:
    """Reaps the ended bot ``pid`` and writes its exit status on its status pipe."""
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            status = -1
            break
    with contextlib.suppress(OSError):  # the runner gave the seat up
        os.write(
            status_fd,
            b"%d" % (os.waitstatus_to_exitcode(status) if status >= 0 else -signal.SIGKILL),
        )
    os.close(status_fd)


def _preload() -> None:
    """What the server imports before its first fork: the SDK (gRPC, protobuf, the engine,
    the stubs), what the sample bots import besides, and what gRPC imports only when a
    process makes its first server (every seat does: 6 ms of CPU a seat when each imported
    them). Nothing of any game."""
    import argparse
    import concurrent.futures.thread  # noqa: F401
    import logging
    import random  # noqa: F401

    import grpc._interceptor
    import grpc._server  # noqa: F401

    import arena.sdk  # noqa: F401

    # What the SDK's serve() makes at every start, made once here: its first argument parser
    # and log format compile regular expressions that every seat then finds in re's cache.
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--address", default=None)
    parser.parse_known_args([])
    logging.Formatter("%(levelname)s %(message)s")


def _seat(fds: list[int], base_path: list[str], title: tuple[int, int]) -> NoReturn:
    """A forked seat, in its sandbox's pid namespace: joins the sandbox's other namespaces
    and root, then becomes its bot (:func:`_bot`)."""
    spec_fd, status_fd, stdout_fd, stderr_fd, go_fd, confine_fd, root_fd = fds[:7]
    namespace_fds = fds[7:FIXED_FDS]
    group_fds = fds[FIXED_FDS:]
    try:
        os.close(status_fd)  # the server's, which reaps the bot
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        spec = json.loads(_read_all(spec_fd))
        os.close(spec_fd)
        for fd, (name, flag) in zip(namespace_fds, NAMESPACES, strict=True):
            if name != "pid":  # joined at the fork
                _call("setns", fd, flag)
            os.close(fd)
        os.fchdir(root_fd)
        os.chroot(".")
        os.close(root_fd)
    except BaseException as error:  # the host's failure: said on the bot's stderr
        with contextlib.suppress(OSError):
            os.write(stderr_fd, f"{HOST_FAILURE}cannot join the sandbox: {error}\n".encode())
        os._exit(SETUP_FAILED)
    _bot(spec, stdout_fd, stderr_fd, go_fd, group_fds, base_path, confine_fd, title)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _bot(
    spec: dict[str, Any],
    stdout_fd: int,
    stderr_fd: int,
    go_fd: int,
    group_fds: list[int],
    base_path: list[str],
    confine_fd: int,
    title: tuple[int, int],
) -> NoReturn:
    """Becomes the seat's bot (see the module's notes), waits for its start's environment on
    ``go_fd`` and runs its script or command (or ends quietly if the start is called off: no
    word)."""
    try:
        _retitle(spec["cmdline"], title)
        _take_fds(stdout_fd, stderr_fd, go_fd, group_fds, confine_fd)
        _drop_privileges(spec)
        script = _confine(spec, base_path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.write(2, f"{HOST_FAILURE}cannot set up the seat: {error}\n".encode())
        os._exit(SETUP_FAILED)
    # It waits for its start (which may be a game away: a seat made ready ahead) and the
    # start's environment.
    try:
        if script and _start_grpc(spec.get("address", "")):
            os.write(4, AHEAD_WORD)
        os.close(4)  # the bot's own code never holds it
        given = _read_all(3)
        os.close(3)
        if not given:
            os._exit(0)  # the start was called off
        os.environ.clear()
        os.environ.update(json.loads(given))
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.write(2, f"{HOST_FAILURE}cannot take the seat's start: {error}\n".encode())
        os._exit(SETUP_FAILED)
    if not script:
        _exec(spec["cmdline"])
    os._exit(_run_script(script))


def _take_fds(
    stdout_fd: int, stderr_fd: int, go_fd: int, group_fds: list[int], confine_fd: int
) -> None:
    """Joins the seat's control groups and a session of its own, and keeps only its stdin,
    stdout, stderr, go pipe and confine socket (0 to 4)."""
    for fd in group_fds:  # into the seat's control groups: "0" is the writer itself
        os.write(fd, b"0")
        os.close(fd)
    os.setsid()
    null = os.open("/dev/null", os.O_RDWR)
    # 0 to 4: stdin, stdout, stderr, go, confine (each first moved above 4, where no
    # dup2 below lands on it).
    sources = (null, stdout_fd, stderr_fd, go_fd, confine_fd)
    for target, fd in enumerate([fcntl.fcntl(fd, fcntl.F_DUPFD, 5) for fd in sources]):
        os.dup2(fd, target)
    os.closerange(5, os.sysconf("SC_OPEN_MAX"))
    # What a freshly started interpreter has (the server's are, but for these two; it
    # ignores SIGPIPE and SIGXFSZ as any interpreter does).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


def _drop_privileges(spec: dict[str, Any]) -> None:
    """Takes the seat's folder, limits and uid, with every capability dropped and
    ``no_new_privs`` set."""
    os.umask(0o022)
    os.chdir(spec["cwd"])
    for name, value in spec["rlimits"].items():
        resource.setrlimit(getattr(resource, name), (value, value))
    uid = int(spec["uid"])
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    # The bounding set, while still able to change it: every capability this kernel has.
    for capability in range(_last_capability + 1):
        with contextlib.suppress(OSError):
            _call("prctl", _PR_CAPBSET_DROP, capability, 0, 0, 0)
    _call("prctl", _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    os.setresuid(uid, uid, uid)
    header = _CapHeader(_CAPABILITY_VERSION_3, 0)
    empty = (_CapData * 2)()
    _call("capset", ctypes.byref(header), empty)
    _call("prctl", _PR_SET_DUMPABLE, 1, 0, 0, 0)  # as after an exec (setresuid cleared it)
    _call("prctl", _PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _confine(spec: dict[str, Any], base_path: list[str]) -> str:
    """Sets the script's ``sys.argv`` and path, installs the filter and says so to the
    runner (:data:`CONFINED_WORD`): the script to run ("": the command is exec'd)."""
    script = spec["script"]
    if script:
        sys.argv = [script, *spec["args"]]
        added = [os.path.dirname(os.path.abspath(script)), *spec["path"]]
        sys.path[:] = [*added, *base_path]
        # The entries that are new here are looked up afresh (the server may have found
        # nothing at such a path on the host). The server's own entries are the same
        # folders, bound at the same paths: their finders see changes by modification
        # time, and keep their listings (invalidating them all cost each seat 0.9 ms and
        # a new listing of each folder at its next import).
        for entry in added:
            sys.path_importer_cache.pop(entry, None)
    program = bytes.fromhex(spec["filter"])
    listener = _install_filter(program, spec["seccomp_number"]) if program else None
    # Confined: from here on, the process can do nothing a bot could not. It says so to
    # the runner, handing it the filter's listener (the bot never keeps it: it could
    # answer its own calls), before any of its code runs: a bot that ends without that
    # word failed in its set-up (the host's failure, which no bot can claim to be).
    runner = socket.socket(fileno=4)
    try:
        socket.send_fds(runner, [CONFINED_WORD], [] if listener is None else [listener])
    finally:
        runner.detach()  # kept open for its next word (AHEAD_WORD)
    if listener is not None:
        os.close(listener)
    return str(script)


_grpc_started: object = None


_last_capability = 63


def _read_last_capability() -> int:
    """The highest capability number the kernel knows (63 when it does not say): the bounding
    set holds none above it."""
    try:
        with open("/proc/sys/kernel/cap_last_cap", encoding="ascii") as last:
            return min(63, max(0, int(last.read())))
    except (OSError, ValueError):
        return 63


def _start_grpc(address: str) -> bool:
    """Starts, in a Python seat waiting for its start, the server the SDK's ``serve()`` would
    start at ``address`` (the seat's socket), with its first worker thread
    (:func:`arena.sdk.server.open_ahead`): the arena's code, not the bot's, and nothing of any
    game. The bot's ``serve()`` then takes it, and its start is its own code and little else.
    A bot that does not use the SDK's server makes its own at the same path (gRPC replaces a
    socket file it finds there). Without an address (or should that fail): an unstarted
    server, kept, which starts gRPC's core (threads cannot be started in the fork server).
    Whether the SDK's server was started."""
    global _grpc_started
    with contextlib.suppress(Exception):
        if address:
            from arena.sdk.server import open_ahead

            open_ahead(address)
            return True
    with contextlib.suppress(Exception):
        import concurrent.futures

        import grpc

        _grpc_started = grpc.server(concurrent.futures.ThreadPoolExecutor(max_workers=1))
    return False


def _install_filter(program: bytes, seccomp_number: int) -> int | None:
    """Installs the system-call filter ``program``; returns the listener of a filter that asks
    (:data:`arena.runner.seccomp.ACT_NOTIFY`), None for one that does not."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if seccomp_number < 0:
        _call("prctl", _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
        return None
    assert _libc is not None
    listener = _libc.syscall(
        ctypes.c_long(seccomp_number),
        ctypes.c_ulong(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_ulong(_SECCOMP_FILTER_FLAG_NEW_LISTENER),
        ctypes.byref(fprog),
    )
    if listener < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp: {os.strerror(code)}")
    return int(listener)


def _exec(argv: list[str]) -> NoReturn:
    """Becomes the seat's command (not a Python script): as ``exec`` from a shell would."""
    for number in (signal.SIGPIPE, signal.SIGXFSZ):  # ignored by the interpreter, not by it
        signal.signal(number, signal.SIG_DFL)
    try:
        os.execvpe(argv[0], argv, dict(os.environ))
    except OSError as error:
        with contextlib.suppress(OSError):
            os.write(2, f"cannot run {argv[0]}: {error.strerror}\n".encode())
    os._exit(127)


def _title_area() -> tuple[int, int]:
    """Where this process's command line is in its memory, and its size (read in ``/proc``)."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end (fields 48 and 49)
    return start, end - start


def _retitle(argv: list[str], area: tuple[int, int] | None = None) -> None:
    """Writes ``argv`` over the process's own command line (the server's, padded for this):
    ``ps`` and ``/proc/<pid>/cmdline`` show the bot's command, as for a seat started by
    ``exec`` (cut to the room there is). ``area``: :func:`_title_area`, read before."""
    start, room = area if area is not None else _title_area()
    if room <= 0:
        return
    data = b"\0".join(arg.encode() for arg in argv)[: room - 1]
    ctypes.memmove(ctypes.c_void_p(start), data.ljust(room, b"\0"), room)


def _run_script(script: str) -> int:
    """Runs ``script`` as ``__main__`` and ends as an interpreter would: its exit status."""
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        code = _exit_code(stop.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    with contextlib.suppress(BaseException):
        threading._shutdown()  # type: ignore[attr-defined]  # non-daemon threads, as at exit
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):
            stream.flush()
    return code


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


# --- the runner's side -------------------------------------------------------------------


@dataclass(frozen=True)
class ForkSpec:
    """What a forked seat becomes: its script and arguments, uid and limits (its environment
    comes with its start, :meth:`ForkServer.fork`'s ``go`` pipe)."""

    script: str  # as the bot's command names it, inside the sandbox ("": exec cmdline)
    args: list[str]
    cmdline: list[str]  # the whole command, as an exec would have started it
    cwd: str
    uid: int
    rlimits: dict[str, int]  # resource.RLIMIT_* name -> soft and hard value
    path: list[str]  # sys.path entries before the interpreter's own (PYTHONPATH's)
    filter: bytes  # the compiled system-call filter (empty: none)
    # The number of seccomp(2), when ``filter`` asks of a supervisor (else -1).
    seccomp_number: int = -1
    # Where the bot will serve (its start's SCOPA_BOT_ADDRESS): a Python script's server is
    # started there while it waits ("": none).
    address: str = ""

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "script": self.script,
                "args": self.args,
                "cmdline": self.cmdline,
                "cwd": self.cwd,
                "uid": self.uid,
                "rlimits": self.rlimits,
                "path": self.path,
                "filter": self.filter.hex(),
                "seccomp_number": self.seccomp_number,
                "address": self.address,
            }
        ).encode()


class ForkedProcess:
    """A forked bot as the runner holds it: the parts of ``subprocess.Popen`` the runner
    uses. ``pid`` is the sandbox's (bwrap's, leading the session that ``killpg`` ends);
    the exit status is the bot's, as the fork server (its parent) reports it. ``confined``
    says whether the bot said it was confined (None: not yet)."""

    def __init__(
        self,
        sandbox: subprocess.Popen[bytes],
        status_fd: int,
        pidfd: int,
        confined: Callable[[], bool | None],
        stdout: Any,
        stderr: Any,
    ) -> None:
        self.sandbox = sandbox
        self.pid = sandbox.pid
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self.setup_failed = False  # the bot died in its set-up, before any of its code ran
        self._status_fd: int | None = status_fd
        self._pidfd: int | None = pidfd
        self._confined = confined
        self._lock = threading.Lock()

    def _status(self, timeout: float) -> int | None:
        """The bot's exit status once the server has written it (None before)."""
        with self._lock:
            if self.returncode is not None:
                return self.returncode
            fd = self._status_fd
            if fd is None:
                return None
            ready, _, _ = select.select([fd], [], [], max(0.0, timeout))
            if not ready:
                return None
            data = os.read(fd, 64)
            # No status: the server is gone, and the status with it. The bot's pidfd says
            # whether it still runs (it may: its sandbox holds it, not the server).
            if (
                not data
                and self._pidfd is not None
                and not select.select([self._pidfd], [], [], 0)[0]
            ):
                return None
            os.close(fd)
            self._status_fd = None
            self._close_pidfd()
            try:
                self.returncode = int(data)
            except ValueError:  # ended, its status lost with the server: taken as killed
                self.returncode = -signal.SIGKILL
            self.setup_failed = self._confined() is not True
            if self.setup_failed:
                self.returncode = SETUP_FAILED
            return self.returncode

    def poll(self) -> int | None:
        """The bot's exit status, or None while it runs."""
        return self._status(0.0)

    def wait(self, timeout: float | None = None) -> int:
        """Waits for the bot's end; raises ``subprocess.TimeoutExpired`` past ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            code = self._status(max(0.0, left))
            if code is not None:
                self._reap_sandbox()
                return code
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("forked bot", timeout or 0.0)

    def kill(self) -> None:
        """Kills the sandbox, and with its pid namespace the bot."""
        self.sandbox.kill()

    def _reap_sandbox(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.sandbox.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.sandbox.wait(timeout=5)

    def close(self) -> None:
        """Closes the status pipe and the pidfd (the streams are the reader threads')."""
        with self._lock:
            if self._status_fd is not None:
                os.close(self._status_fd)
                self._status_fd = None
            self._close_pidfd()

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


@dataclass(frozen=True)
class Forked:
    """What the caller of :meth:`ForkServer.fork` gets for a bot forked into its sandbox."""

    pid: int  # the bot's, on the host
    status_fd: int  # the read end of its exit status pipe (the server writes it)
    pidfd: int  # a pidfd of the bot
    go_fd: int
    """The *go* pipe's write end: the caller writes the start's environment (JSON) there and
    closes it to start the bot (closed without a word: the bot ends)."""
    confine: socket.socket
    """Where the bot says it is confined (:data:`CONFINED_WORD`) and hands over its filter's
    listener (:mod:`arena.runner.seal`)."""


class ForkServer:
    """The runner's handle on its fork server process (one per runner process)."""

    def __init__(self, python: list[str], env: dict[str, str]) -> None:
        """Starts the server: ``python`` is the interpreter and its flags, ``env`` its whole
        environment (as a bot's, without the per-seat variables)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            # This file as a script, not the package's module: the server imports the SDK and
            # nothing of the runner (-P: its folder is not put on sys.path).
            self._process = subprocess.Popen(
                [
                    *python,
                    "-P",
                    os.path.abspath(__file__),
                    str(theirs.fileno()),
                    "_" * CMDLINE_ROOM,
                ],  # room for the seats' command lines (_retitle)
                env=env,
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        finally:
            theirs.close()
        self._socket = ours
        self._lock = threading.Lock()
        ours.settimeout(60.0)
        try:
            hello = ours.recv(16)
        except OSError as error:
            self.close()
            raise ForkError(f"the fork server did not start: {error}") from None
        if hello != b"ready":
            self.close()
            raise ForkError("the fork server did not start")

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def fork(
        self,
        spec: ForkSpec,
        *,
        sandbox_pid: int,
        stdout_fd: int,
        stderr_fd: int,
        group_files: list[str],
    ) -> Forked:
        """Forks a bot into the sandbox whose first process is ``sandbox_pid``, to be confined
        and wait for its start (:class:`Forked` says what the caller gets). The caller keeps
        (and closes) its own ``stdout_fd`` and ``stderr_fd``. Raises ForkError."""
        opened: list[int] = []
        status_read = go_write = None
        ours: socket.socket | None = None
        answer, received = b"", list[int]()
        try:
            spec_read = _spec_file(spec)
            opened.append(spec_read)
            status_read, status_write = os.pipe()
            opened.append(status_write)
            go_read, go_write = os.pipe()
            opened.append(go_read)
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            confine_fd = theirs.detach()
            opened.append(confine_fd)
            proc = f"/proc/{sandbox_pid}"
            root = os.open(f"{proc}/root", os.O_RDONLY | os.O_DIRECTORY)
            opened.append(root)
            namespaces = [os.open(f"{proc}/ns/{name}", os.O_RDONLY) for name, _ in NAMESPACES]
            opened += namespaces
            groups = [os.open(name, os.O_WRONLY) for name in group_files]
            opened += groups
            fds = [
                spec_read,
                status_write,
                stdout_fd,
                stderr_fd,
                go_read,
                confine_fd,
                root,
                *namespaces,
                *groups,
            ]
            with self._lock:
                self._socket.sendmsg(
                    [b"fork"],
                    [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _int_array(fds))],
                    socket.MSG_NOSIGNAL,  # a server that died is an error here, not a signal
                )
                answer, received, _, _ = socket.recv_fds(self._socket, 128, 1)
        except OSError as error:
            answer = f"error: {error}".encode()
        finally:
            for fd in opened:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if answer.isdigit() and len(received) == 1 and ours is not None:
            assert status_read is not None and go_write is not None
            return Forked(int(answer), status_read, received[0], go_write, ours)
        for fd in received:
            os.close(fd)
        for pipe_end in (status_read, go_write):
            if pipe_end is not None:
                os.close(pipe_end)
        if ours is not None:
            ours.close()
        detail = answer.decode("utf-8", "replace").removeprefix("error: ")
        raise ForkError(f"cannot fork the seat: {detail or 'the fork server is gone'}")

    def close(self) -> None:
        """Ends the server (its seats live on in their sandboxes until the runner ends them)."""
        with contextlib.suppress(OSError):
            self._socket.close()
        with contextlib.suppress(OSError):
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)


def _spec_file(spec: ForkSpec) -> int:
    """A memfd holding ``spec`` (its JSON), read from its start: a file, not a pipe, so no
    spec is too large to hand over (a pipe written whole before anyone reads it blocks the
    runner for good once the spec outgrows the pipe's buffer)."""
    fd = os.memfd_create("arena-fork-spec", os.MFD_CLOEXEC)
    try:
        data = memoryview(spec.to_json())
        while data:
            data = data[os.write(fd, data) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _int_array(fds: list[int]) -> bytes:
    import array

    return array.array("i", fds).tobytes()


if __name__ == "__main__":
    serve(int(sys.argv[1]))


__all__ = [
    "AHEAD_WORD",
    "CONFINED_WORD",
    "HELD_LINE",
    "HOLDER",
    "HOST_FAILURE",
    "SERVER_TITLE",
    "ForkError",
    "ForkServer",
    "ForkSpec",
    "Forked",
    "ForkedProcess",
    "serve",
]
