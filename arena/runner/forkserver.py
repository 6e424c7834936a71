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
   namespaces and root, the bot's stdout and stderr pipes, the seat's control groups, a pipe
   holding the seat's spec (script, uid, limits, system-call filter), one for the exit
   status and the *go* pipe.
3. The server forks a *middle* process, which joins the sandbox's namespaces (ipc, uts, net,
   cgroup, pid, mount), takes its root and forks the bot (the first process of the pid
   namespace it joined). The middle joins the seat's control groups (what it does is the
   seat's work, weighed and frozen with the bot; where root may, the OOM killer never picks
   it), answers the bot's sealed calls, waits for the bot and writes its exit status.
4. The bot joins the seat's control groups, leads a session of its own, keeps only its
   stdin (``/dev/null``), stdout and stderr, takes the seat's limits, becomes the seat's
   unprivileged uid with every capability dropped (bounding, inheritable, ambient), sets
   ``no_new_privs`` and installs the sandbox's system-call filter, whose listener it hands
   to the middle. Confined, it waits on the go pipe; the runner writes the start's
   environment there (the bot seed among it) when the seat's game starts, and only then does
   the bot's script run (``runpy``) or its command (``execve``).
5. The filter asks the middle about each call of :data:`arena.runner.seccomp.SEALED` (pipes,
   sockets, accepts, memfds: objects numbered from counters of the whole host). The middle
   lets them through until the runner *seals* the seat (:meth:`ForkServer.fork`'s seal pipe)
   before its game's first message, and refuses them after. The sandbox has no procfs, whose
   new entries are numbered from the same counter. So no seat that knows a card can move or
   read that numbering (docs/SECURITY.md, "The seal").

The runner builds the next game's seats this far while the current game plays (see
:meth:`arena.runner.process.BotProcess.prepare`): what is left for the game's start is the
bot's own start-up. Nothing a start is given passes through the server: its memory, which
every later seat inherits, never holds any seat's data.

What the bot ends with is what ``bwrap ... setpriv ... python`` gives (the tests compare the
two: namespaces, root, uid, capabilities, filter, limits, groups), with three differences it
can see: the SDK is already imported, its parent is outside its pid namespace (``getppid``
is 0) and the holder shares its sandbox. A process of the server never runs a bot's code
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
import errno
import fcntl
import gc
import json
import os
import resource
import runpy
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import traceback
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
FIXED_FDS = 7 + len(NAMESPACES)  # spec, status, stdout, stderr, go, seal, root, namespaces

SERVER_TITLE = "arena-fork-server"
"""The server's command line as ``ps`` shows it (a runner's own process, holding no seat)."""
WAITER_TITLE = "arena-seat-waiter"
"""A middle's (part of its seat: it ends with the seat's bot), before the bot's command."""

CMDLINE_ROOM = 4096
"""Bytes of the server's command line that each forked seat writes its own command over."""

HOST_FAILURE = "forkserver: "
"""How the fork server's own failures start (the host's fault, like ``bwrap: `` lines)."""
SETUP_FAILED = 125  # the exit status of a bot whose set-up failed before its code ran
SETUP_WORD = b"setup"
"""What a middle writes for its exit status when the bot's set-up failed (not the bot's)."""

_PR_SET_PDEATHSIG = 1
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
# ioctl(2) requests of a seccomp listener (_IOWR('!', n, struct)), and the structs' layouts.
_NOTIF_RECV = 0xC0502100  # struct seccomp_notif: id, pid, flags, nr, arch, ip, args[6]
_NOTIF_SEND = 0xC0182101  # struct seccomp_notif_resp: id, val, error, flags
_NOTIF = struct.Struct("=QIIiIQ6Q")
_NOTIF_RESP = struct.Struct("=QqiI")
_NOTIF_FLAG_CONTINUE = 1
_AF_NETLINK, _NETLINK_SOCK_DIAG = 16, 4
_LOW_32_BITS = 0xFFFFFFFF


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
    request on ``control_fd`` (a SOCK_SEQPACKET socket) until the runner closes it."""
    global _libc, _last_capability
    _preload()
    _libc = ctypes.CDLL(None, use_errno=True)
    _last_capability = _read_last_capability()
    # Everything imported so far to the collector's permanent generation: a seat's collections
    # then leave the server's objects (and the pages they share with it) alone.
    gc.collect()
    gc.freeze()
    # Every fork below must come from a process with one thread (setns into a mount
    # namespace needs it, and a fork keeps only the calling thread).
    if threading.active_count() != 1 or len(os.listdir("/proc/self/task")) != 1:
        os.write(2, f"{HOST_FAILURE}the server has more than one thread\n".encode())
        os._exit(1)
    _retitle([SERVER_TITLE])
    control = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # middles are reaped by the kernel
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner's Ctrl-C is the runner's
    base_path = [entry for entry in sys.path if entry]
    control.sendall(b"ready")
    while True:
        try:
            message, ancillary, _, _ = control.recvmsg(16, socket.CMSG_SPACE(64 * 4))
        except InterruptedError:
            continue
        if not message:
            os._exit(0)  # the runner is gone
        fds: list[int] = []
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(data) - len(data) % 4
                fds += list(memoryview(data)[:usable].cast("i"))
        if message != b"fork" or len(fds) < FIXED_FDS:
            for fd in fds:
                os.close(fd)
            control.sendall(b"error: a request needs the fork descriptors")
            continue
        pid = os.fork()
        if pid == 0:
            control.close()
            _middle(fds, base_path)
        for fd in fds:
            os.close(fd)
        control.sendall(b"%d" % pid)


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


def _middle(fds: list[int], base_path: list[str]) -> NoReturn:
    """Joins the sandbox, forks the bot into it, waits for it and writes its exit status."""
    spec_fd, status_fd, stdout_fd, stderr_fd, go_fd, seal_fd, root_fd = fds[:7]
    namespace_fds = fds[7:FIXED_FDS]
    group_fds = fds[FIXED_FDS:]
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        spec = json.loads(_read_all(spec_fd))
        os.close(spec_fd)
        # The host's /proc, before the sandbox's (which has none): this middle's own setting.
        oom_fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY | os.O_CLOEXEC)
        title = _title_area()  # read in this /proc, before the sandbox's root (which has none)
        _retitle([WAITER_TITLE, *spec["cmdline"]], title)
        for fd, (_, flag) in zip(namespace_fds, NAMESPACES, strict=True):
            _call("setns", fd, flag)
            os.close(fd)
        os.fchdir(root_fd)
        os.chroot(".")
        os.close(root_fd)
        confined_read, confined_write = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            for fd in (status_fd, seal_fd, confined_read, ours.detach(), oom_fd):
                os.close(fd)
            _bot(spec, stdout_fd, stderr_fd, go_fd, group_fds, base_path, confined_write,
                 theirs.detach(), title)
        os.close(confined_write)
        theirs.close()
        # The middle answers the bot's sealed calls: that work is the seat's, so the middle
        # joins the seat's groups (its CPU weighed and frozen with the bot's; a bot making
        # calls by the thousand spends its own share, not the runner's). Where root may, the
        # kernel's OOM killer never picks it there (the bot it forked keeps its own setting).
        with contextlib.suppress(OSError):  # CAP_SYS_RESOURCE: not every root has it
            os.write(oom_fd, b"-1000")
        os.close(oom_fd)
        with contextlib.suppress(OSError):  # (a middle left in the runner's group still works)
            for fd in group_fds:
                os.write(fd, b"0")
        for fd in (stdout_fd, stderr_fd, go_fd, *group_fds):
            os.close(fd)
        # The listener of the bot's system-call filter (none when it has no filter, or its
        # set-up failed first), then a word from the bot once it is confined, before any of
        # its code runs: without it, the bot's set-up failed (the host's failure, which no bot
        # can claim to be).
        listener = None
        with contextlib.suppress(OSError):
            _, received, _, _ = socket.recv_fds(ours, 16, 1)
            listener = received[0] if received else None
        ours.close()
        confined = _read_all(confined_read) == b"1"
        os.close(confined_read)
        if listener is not None and confined:
            sealed = {int(number): name for number, name in spec["sealed"].items()}
            try:
                _supervise(listener, seal_fd, pid, sealed)
            except Exception:  # unforeseen: the seat's sealed calls fail (ENOSYS) from now on
                with contextlib.suppress(OSError):
                    os.close(listener)
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        os.write(status_fd, b"%d" % os.waitstatus_to_exitcode(status) if confined
                 else SETUP_WORD)
    except BaseException as error:  # the host's failure: said on the bot's stderr
        with contextlib.suppress(OSError):
            os.write(stderr_fd, f"{HOST_FAILURE}cannot join the sandbox: {error}\n".encode())
        with contextlib.suppress(OSError):
            os.write(status_fd, SETUP_WORD)
    os._exit(0)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _supervise(listener: int, seal_fd: int, pid: int, sealed: dict[int, str]) -> None:
    """Answers the seat's sealed system calls (:data:`arena.runner.seccomp.SEALED`, by number
    in ``sealed``) until the bot ``pid`` ends: each is made as asked until the runner seals the
    seat (a byte on ``seal_fd``, or its end closed) before its game begins, and refused after.
    A ``NETLINK_SOCK_DIAG`` socket is always refused."""
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    for fd in (listener, seal_fd, pidfd):
        poller.register(fd, select.POLLIN)
    is_sealed = False
    buffer = bytearray(_NOTIF.size)
    while True:
        try:
            events = poller.poll()
        except InterruptedError:
            continue
        for fd, event in events:
            if fd == pidfd:
                os.close(pidfd)
                os.close(listener)
                return
            if fd == seal_fd:
                if not is_sealed:  # (a call in the same batch may have found it sealed)
                    is_sealed = True
                    poller.unregister(seal_fd)
                continue
            if not event & select.POLLIN:  # every process of the filter is gone
                poller.unregister(listener)
                continue
            buffer[:] = bytes(len(buffer))
            try:
                fcntl.ioctl(listener, _NOTIF_RECV, buffer)
            except OSError:  # the caller was interrupted or died meanwhile
                continue
            ident, _, _, number, _, _, *args = _NOTIF.unpack(buffer)
            # The seal is looked at after the call arrived: a call made once the bot had its
            # game's first message comes after the seal was written.
            if not is_sealed and select.select([seal_fd], [], [], 0)[0]:
                is_sealed = True
                poller.unregister(seal_fd)
            name = sealed.get(number, "")
            error = 0
            if (name in {"socket", "socketpair"} and args[0] & _LOW_32_BITS == _AF_NETLINK
                    and args[2] & _LOW_32_BITS == _NETLINK_SOCK_DIAG):
                error = errno.EPROTONOSUPPORT
            elif is_sealed:
                error = errno.EAGAIN if name in {"accept", "accept4"} else errno.EPERM
            answer = _NOTIF_RESP.pack(ident, 0, -error, 0 if error else _NOTIF_FLAG_CONTINUE)
            with contextlib.suppress(OSError):  # the caller was interrupted or died
                fcntl.ioctl(listener, _NOTIF_SEND, answer)


def _bot(
    spec: dict[str, Any], stdout_fd: int, stderr_fd: int, go_fd: int, group_fds: list[int],
    base_path: list[str], confined_fd: int, supervisor_fd: int, title: tuple[int, int],
) -> NoReturn:
    """Becomes the seat's bot (see the module's notes), waits for its start's environment on
    ``go_fd`` and runs its script or command (or ends quietly if the start is called off: no
    word)."""
    try:
        _retitle(spec["cmdline"], title)
        for fd in group_fds:  # into the seat's control groups: "0" is the writer itself
            os.write(fd, b"0")
            os.close(fd)
        os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        # 0 to 5: stdin, stdout, stderr, go, confined, supervisor (each first moved above 5,
        # where no dup2 below lands on it).
        sources = (null, stdout_fd, stderr_fd, go_fd, confined_fd, supervisor_fd)
        for target, fd in enumerate([fcntl.fcntl(fd, fcntl.F_DUPFD, 6) for fd in sources]):
            os.dup2(fd, target)
        os.closerange(6, os.sysconf("SC_OPEN_MAX"))
        # What a freshly started interpreter has (the server's are, but for these two; it
        # ignores SIGPIPE and SIGXFSZ as any interpreter does).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
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
        if program:
            _install_filter(program, spec["seccomp_number"])
        os.close(5)  # the middle has the listener now (or knows there is none)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.write(2, f"{HOST_FAILURE}cannot set up the seat: {error}\n".encode())
        os._exit(SETUP_FAILED)
    # Confined: from here on, the process can do nothing a bot could not. It says so to its
    # middle, then waits for its start (which may be a game away: a seat made ready ahead)
    # and the start's environment.
    try:
        os.write(4, b"1")
        os.close(4)
        if script:
            _start_grpc()
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


def _start_grpc() -> None:
    """Starts gRPC's core in a Python seat while it waits for its start (the arena's code, not
    the bot's): an unstarted server, kept. The bot's own server then takes about 2 ms to make,
    not 8 (threads cannot be started in the server before a fork)."""
    global _grpc_started
    with contextlib.suppress(Exception):
        import concurrent.futures

        import grpc

        _grpc_started = grpc.server(concurrent.futures.ThreadPoolExecutor(max_workers=1))


def _install_filter(program: bytes, seccomp_number: int) -> None:
    """Installs the system-call filter ``program``; a filter that asks (:data:`arena.runner.
    seccomp.ACT_NOTIFY`) hands its listener to the middle on descriptor 5."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if seccomp_number < 0:
        _call("prctl", _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0)
        return
    assert _libc is not None
    listener = _libc.syscall(
        ctypes.c_long(seccomp_number), ctypes.c_ulong(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_ulong(_SECCOMP_FILTER_FLAG_NEW_LISTENER), ctypes.byref(fprog),
    )
    if listener < 0:
        code = ctypes.get_errno()
        raise OSError(code, f"seccomp: {os.strerror(code)}")
    # The bot never holds its own listener (it could answer its own calls).
    with socket.socket(fileno=os.dup(5)) as supervisor:
        socket.send_fds(supervisor, [b"L"], [listener])
    os.close(listener)


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
    # The number of seccomp(2), when ``filter`` asks of a supervisor (else -1), and the
    # numbers of the calls it asks about (arena.runner.seccomp.SEALED) by name.
    seccomp_number: int = -1
    sealed: dict[int, str] | None = None

    def to_json(self) -> bytes:
        return json.dumps(
            {
                "script": self.script, "args": self.args, "cmdline": self.cmdline,
                "cwd": self.cwd,
                "uid": self.uid, "rlimits": self.rlimits, "path": self.path,
                "filter": self.filter.hex(), "seccomp_number": self.seccomp_number,
                "sealed": {str(number): name for number, name in (self.sealed or {}).items()},
            }
        ).encode()


class ForkedProcess:
    """A forked bot as the runner holds it: the parts of ``subprocess.Popen`` the runner
    uses. ``pid`` is the sandbox's (bwrap's, leading the session that ``killpg`` ends);
    the exit status is the bot's, as its middle process reports it, or the sandbox's when
    the sandbox ended first."""

    def __init__(self, sandbox: subprocess.Popen[bytes], status_fd: int,
                 stdout: Any, stderr: Any) -> None:
        self.sandbox = sandbox
        self.pid = sandbox.pid
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self.setup_failed = False  # the bot died in its set-up, before any of its code ran
        self._status_fd: int | None = status_fd
        self._lock = threading.Lock()

    def _status(self, timeout: float) -> int | None:
        """The bot's exit status once its middle has written it (None before)."""
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
            os.close(fd)
            self._status_fd = None
            self.setup_failed = data == SETUP_WORD
            try:
                self.returncode = SETUP_FAILED if self.setup_failed else int(data)
            except ValueError:  # the middle died without a word: the sandbox was killed
                self.returncode = -signal.SIGKILL
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
        """Closes the status pipe (the streams are the reader threads')."""
        with self._lock:
            if self._status_fd is not None:
                os.close(self._status_fd)
                self._status_fd = None


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
                [*python, "-P", os.path.abspath(__file__), str(theirs.fileno()),
                 "_" * CMDLINE_ROOM],  # room for the seats' command lines (_retitle)
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

    def fork(self, spec: ForkSpec, *, sandbox_pid: int, stdout_fd: int, stderr_fd: int,
             group_files: list[str]) -> tuple[int, int, int]:
        """Forks a bot into the sandbox whose first process is ``sandbox_pid``, confined and
        waiting for its start: returns the read end of the exit status pipe, the *go* pipe's
        write end, on which the caller writes the start's environment (JSON) and closes it to
        start the bot (closed without a word: the bot ends), and the *seal* pipe's write end,
        which the caller writes to (or closes) before the seat's game begins: from then on
        the seat's sealed calls are refused. The caller keeps (and closes) its own
        ``stdout_fd`` and ``stderr_fd``. Raises ForkError."""
        opened: list[int] = []
        status_read = go_write = seal_write = None
        try:
            spec_read, spec_write = os.pipe()
            opened.append(spec_read)
            try:
                # The spec fits a pipe's buffer (a few KiB): written whole before the fork.
                os.write(spec_write, spec.to_json())
            finally:
                os.close(spec_write)
            status_read, status_write = os.pipe()
            opened.append(status_write)
            go_read, go_write = os.pipe()
            opened.append(go_read)
            seal_read, seal_write = os.pipe()
            opened.append(seal_read)
            proc = f"/proc/{sandbox_pid}"
            root = os.open(f"{proc}/root", os.O_RDONLY | os.O_DIRECTORY)
            opened.append(root)
            namespaces = [os.open(f"{proc}/ns/{name}", os.O_RDONLY) for name, _ in NAMESPACES]
            opened += namespaces
            groups = [os.open(name, os.O_WRONLY) for name in group_files]
            opened += groups
            fds = [spec_read, status_write, stdout_fd, stderr_fd, go_read, seal_read, root,
                   *namespaces, *groups]
            with self._lock:
                self._socket.sendmsg(
                    [b"fork"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, _int_array(fds))],
                    socket.MSG_NOSIGNAL,  # a server that died is an error here, not a signal
                )
                answer = self._socket.recv(128)
        except OSError as error:
            for fd in (status_read, go_write, seal_write):
                if fd is not None:
                    os.close(fd)
            raise ForkError(f"cannot fork the seat: {error}") from None
        finally:
            for fd in opened:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if not answer.isdigit():
            for fd in (status_read, go_write, seal_write):
                os.close(fd)
            detail = answer.decode("utf-8", "replace") or "the fork server is gone"
            raise ForkError(f"cannot fork the seat: {detail}")
        return status_read, go_write, seal_write

    def close(self) -> None:
        """Ends the server (its seats live on in their sandboxes until the runner ends them)."""
        with contextlib.suppress(OSError):
            self._socket.close()
        with contextlib.suppress(OSError):
            self._process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=5)


def _int_array(fds: list[int]) -> bytes:
    import array

    return array.array("i", fds).tobytes()


if __name__ == "__main__":
    serve(int(sys.argv[1]))


__all__ = [
    "HELD_LINE",
    "HOLDER",
    "HOST_FAILURE",
    "SERVER_TITLE",
    "WAITER_TITLE",
    "ForkError",
    "ForkServer",
    "ForkSpec",
    "ForkedProcess",
    "serve",
]
