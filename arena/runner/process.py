"""One running bot process: start it, wait until it listens, keep its log, end it.

A :class:`BotProcess` owns a private seat folder, the process (sandboxed or not, see
:mod:`arena.runner.sandbox`), the seat's memory, process and CPU limits as a whole and its
freezer (a control group or a watchdog and signals, :mod:`arena.runner.cgroups`), an open
descriptor of the socket it listens on, and two reader threads that keep a bounded head and
tail of its stdout and stderr as its log. It reports start-up failures as :class:`StartError`
(the bot's fault: it crashed, never said ``LISTENING``, or its socket is not one) or
:class:`~arena.runner.sandbox.HostError` (the host's: the game is void). It does not speak
gRPC.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import arena.runner.cgroups as cgroups
import arena.runner.forkserver as forkserver
import arena.runner.sandbox as sandbox
import arena.runner.seal as seal
import arena.runner.seccomp as seccomp
from arena.protocol import ADDRESS_ENV
from arena.runner.fallbacks import warn_once
from arena.runner.gamelogs import GameLogCapture
from arena.runner.sandbox import HostError, Limits, SocketError
from arena.text import printable

READY_PREFIX = b"LISTENING "
LOG_HEAD_BYTES = 512 * 1024
LOG_TAIL_BYTES = 512 * 1024
MAX_LINE_BYTES = 8 * 1024
READ_CHUNK = 64 * 1024
SOCKET_WAIT_S = 2.0  # a bot that said LISTENING a moment before its socket appeared
AHEAD_SOCKET_WAIT_S = 1.0  # for the socket of a seat made ready ahead (its SDK binds it)
FORK_ENV = "SCOPA_FORK_SEATS"
MAX_START_BYTES = 128 * 1024
"""The most a seat's start may take: its command and environment, each string counted with
its terminating NUL as ``execve`` counts them (one string may not pass 128 KiB there). A
start over it is refused before anything is built, as the bot's fault."""
"""Set to ``0``, every seat is started by ``exec`` (the fork server is not used)."""


class StartError(RuntimeError):
    """A bot did not come up: it exited, hung, or printed nothing usable before its deadline."""


class _ForkFailed(HostError):
    """The fork server failed to fork a seat, or the forked seat failed to join its sandbox:
    the seat can start by exec. ``lasting``: it would fail again (this host does not let the
    server join a sandbox), so seats are no longer forked in this process."""

    def __init__(self, message: str, *, lasting: bool = False) -> None:
        super().__init__(message)
        self.lasting = lasting


class CappedLog:
    """A bounded log of a bot's output: its first and last bytes, whole lines, with counts.

    At most ``LOG_HEAD_BYTES`` of the first lines and ``LOG_TAIL_BYTES`` of the last are kept
    (about 1 MiB a seat, whatever the bot writes); a line longer than ``MAX_LINE_BYTES`` is
    cut. What is left out is counted and said where it was.
    """

    def __init__(self) -> None:
        self._head: list[str] = []
        self._head_size = 0
        self._tail: deque[str] = deque()
        self._tail_size = 0
        self._dropped_lines = 0
        self._dropped_bytes = 0
        self._lock = threading.Lock()
        # The game being played taps the log: its own bounded copy, turn by turn.
        self.tap: GameLogCapture | None = None

    @property
    def dropped_bytes(self) -> int:
        """Bytes of output left out of the log (between head and tail, or cut from lines)."""
        return self._dropped_bytes

    def add(self, line: str) -> None:
        """Keeps one line (in the head while there is room, then in the tail)."""
        size = len(line)
        tap = self.tap
        if tap is not None:
            tap.add(line)
        with self._lock:
            if not self._tail and self._head_size + size <= LOG_HEAD_BYTES:
                self._head.append(line)
                self._head_size += size
                return
            self._tail.append(line)
            self._tail_size += size
            while self._tail_size > LOG_TAIL_BYTES and len(self._tail) > 1:
                gone = self._tail.popleft()
                self._tail_size -= len(gone)
                self._dropped_lines += 1
                self._dropped_bytes += len(gone)

    def cut(self, count: int) -> None:
        """Counts ``count`` bytes cut from an over-long line."""
        with self._lock:
            self._dropped_bytes += count

    def text(self) -> str:
        """The log as one string, with a marker where lines were left out, and every control
        or format character but newlines and tabs escaped (the bot's output is shown as text,
        never as terminal commands: :func:`arena.text.printable`)."""
        with self._lock:
            parts = list(self._head)
            if self._dropped_lines:
                parts.append(
                    f"[... {self._dropped_lines} lines ({self._dropped_bytes:,} bytes in all, "
                    "with cuts) left out ...]\n"
                )
            elif self._dropped_bytes:
                parts.append(f"[... {self._dropped_bytes:,} bytes cut from long lines ...]\n")
            parts.extend(self._tail)
        return printable("".join(parts), lines=True)


class LineReader:
    """Splits a stream's bytes into lines of at most ``MAX_LINE_BYTES``, in bounded memory."""

    def __init__(self, log: CappedLog) -> None:
        self.log = log
        self._partial = bytearray()
        self._cut = 0  # bytes dropped from the line being read

    def feed(self, data: bytes) -> list[bytes]:
        """The whole lines completed by ``data`` (each cut to the maximum, newline kept)."""
        lines: list[bytes] = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start : end + 1]
            room = MAX_LINE_BYTES - len(self._partial)
            if len(piece) > room:
                self._cut += len(piece) - room
                piece = piece[:room]
            self._partial += piece
            if end < 0:
                break
            lines.append(self._finish())
            start = end + 1
        return lines

    def flush(self) -> list[bytes]:
        """The last line, if the stream ended without a newline."""
        return [self._finish()] if self._partial or self._cut else []

    def _finish(self) -> bytes:
        line = bytes(self._partial)
        if self._cut:
            self.log.cut(self._cut)
            line = line.rstrip(b"\n") + f" [... {self._cut:,} bytes cut]\n".encode()
        self._partial.clear()
        self._cut = 0
        return line


_server_lock = threading.Lock()
_server: forkserver.ForkServer | None = None
_server_owner = 0  # the pid that started it (a forked worker starts its own)
_server_failed = False


def fork_server() -> forkserver.ForkServer | None:
    """This process's fork server (:mod:`arena.runner.forkserver`), started on first use;
    None where seats are not forked: not root, turned off (``SCOPA_FORK_SEATS=0``), or the
    server did not start (said once)."""
    global _server, _server_owner, _server_failed
    if os.environ.get(FORK_ENV, "1") == "0" or os.geteuid() != 0:
        return None
    with _server_lock:
        if _server is not None and _server_owner == os.getpid() and _server.alive():
            return _server
        if _server is not None and _server_owner == os.getpid():
            _server.close()  # it died: one new start
        _server = None
        if _server_failed:
            return None
        try:
            _server = forkserver.ForkServer(sandbox.server_command(), sandbox.base_env())
        except forkserver.ForkError as error:
            _server_failed = True
            warn_once("forkserver", f"Python seats start by exec: {error}")
            return None
        _server_owner = os.getpid()
        return _server


def _stop_forking(why: str) -> None:
    """No more forked seats in this process (the host does not let them join a sandbox)."""
    global _server, _server_failed
    with _server_lock:
        _server_failed = True
        if _server is not None and _server_owner == os.getpid():
            _server.close()
        _server = None
    warn_once("forkserver", f"Python seats start by exec from now on: {why}")


def _forkable(command: list[str]) -> bool:
    """Whether a Python bot's command is ``python <script> [args]`` (no interpreter flags):
    its script runs in the forked interpreter (other commands are exec'd by it)."""
    return len(command) >= 2 and not command[1].startswith("-")


class BotProcess:
    """A started bot: its process, its socket and its log."""

    def __init__(
        self,
        *,
        label: str,
        command: list[str],
        folder: Path,
        limits: Limits,
        sandboxed: bool,
        python: bool,
        start_timeout: float = 30.0,
        env: dict[str, str] | None = None,
        log: CappedLog | None = None,
        fork: bool = True,
    ) -> None:
        self.label = label
        self.command = command
        self.folder = folder
        self.limits = limits
        self.sandboxed = sandboxed
        self.python = python
        self.start_timeout = start_timeout
        self.env = dict(env or {})
        self.log = log if log is not None else CappedLog()
        # A sandboxed Python seat is forked from the fork server where it can be (the same
        # sandbox, without the imports); False: always by exec.
        self.fork = fork
        self.forked = False  # how the current start went
        self.address = ""
        self.seat_dir: Path | None = None
        self.starts = 0
        self._copy_dir: Path | None = None  # the seat's private copy of the bot folder
        self._process: subprocess.Popen[bytes] | forkserver.ForkedProcess | None = None
        self._group: cgroups.SeatGroup | None = None
        self._plan: sandbox.LaunchPlan | None = None
        self._prepared = False  # the sandbox of the next start is built (prepare)
        self._streams: tuple[Any, Any] | None = None  # the bot's stdout and stderr, read ends
        self._unread: select.poll | None = None  # both streams, polled for bytes not yet read
        self._reading = threading.Lock()  # held while a read's lines go to the log
        self._bot_pipes: tuple[int, int] | None = None  # their write ends, until the fork
        self._go_fd: int | None = None  # a forked bot's go pipe, until its start
        self._go_left: bytes | None = None  # what of its start is still to be written there
        self._holder_fd: int | None = None  # a forked seat's holder's input, until it stops
        self._watch: seal.Watch | None = None  # a forked bot's confinement and seal
        self._watchdog: cgroups.MemoryWatchdog | None = None
        self._socket_fd: int | None = None
        # A seat made ready ahead: the socket of the server its SDK started while it waits
        # (forkserver._start_grpc), which the runner can connect to ahead of the start.
        self._ahead_fd: int | None = None
        self._sandbox_pid: int | None = None
        self._memory_fault: str | None = None
        self._freezer: cgroups.SeatGroup | cgroups.TreeFreezer | None = None
        self.frozen = False
        self.idle = False  # a spare: lowest CPU weight, frozen once listening
        self._ready = threading.Event()
        self._abort = threading.Event()
        self._weight_lock = threading.Lock()  # a spare's weight, set by two threads
        self._threads: list[threading.Thread] = []

    @property
    def pid(self) -> int | None:
        """The pid of the outermost process (bwrap, or the bot unsandboxed), while it runs."""
        return None if self._process is None else self._process.pid

    @property
    def sandbox_pid(self) -> int | None:
        """The host pid of the sandbox's first process (its root is the sandbox's root)."""
        return self._sandbox_pid

    @property
    def limited_by(self) -> str:
        """What holds the seat to its memory and process limits: a control group or watchdog."""
        if self._group is not None:
            return f"cgroup {self._group.backend.kind}"
        return "watchdog" if self._watchdog is not None else "none"

    def start(self, env: dict[str, str] | None = None, *, spare: bool = False) -> None:
        """Starts the bot and waits for its ``LISTENING`` line and its socket.

        ``env`` adds variables for this start (a fresh bot seed). ``spare``: a seat started
        ahead of its game, while another plays: it starts at the lowest CPU weight and is
        frozen once it listens, until :meth:`promote`. A seat :meth:`prepare` made ready is
        started in the sandbox built then. Raises StartError when the bot exits, stays silent
        past ``start_timeout`` or binds no socket (or the start is aborted), and HostError
        when the host cannot start it (no folder, no sandbox, bwrap failing).
        """
        self._check_size(env)
        prepared = self._prepared
        self._prepared = False
        if not prepared:
            self.stop()
        self.starts += 1
        self._memory_fault = None
        if not spare:  # a spare's start may be called off before it begins (see abort)
            self._abort.clear()
        if prepared and not spare:
            self.hurry()  # made ready at the lowest CPU weight: its game wants it now
        self.idle = spare
        try:
            try:
                if not prepared:
                    self._build(env)
                self._launch(env)
            except _ForkFailed as error:  # this start by exec
                if error.lasting:
                    _stop_forking(str(error))
                warn_once("fork-failed", f"a Python seat is started by exec: {error}")
                self.stop()
                self._build(env, fork=False)
                self._launch(env)
            if spare:
                self.freeze()
        except BaseException:  # whatever went wrong, nothing of this start is left behind
            self.stop()
            raise

    def _check_size(self, env: dict[str, str] | None) -> None:
        """Raises StartError when the start's command and environment pass
        :data:`MAX_START_BYTES`."""
        size = start_bytes(self.command, {**self.env, **(env or {})})
        if size > MAX_START_BYTES:
            self.log.add(f"[arena] not starting {self.label}: {size:,} bytes\n")
            raise StartError(
                f"its command and environment take {size:,} bytes, over the "
                f"{MAX_START_BYTES:,} bytes a start may take"
            )

    def prepare(self) -> bool:
        """Makes the next start ready now, without starting the bot: its seat folder, control
        group and sandbox, and the bot forked in, confined and waiting for its start (the
        bot's code runs only in :meth:`start`). False, with nothing kept, where the seat would
        not be forked (then :meth:`start` does all of it). Raises HostError as :meth:`start`."""
        self.stop()
        self._abort.clear()
        if not self._will_fork() or start_bytes(self.command, self.env) > MAX_START_BYTES:
            return False
        self.idle = True  # the lowest CPU weight: the game being played comes first
        try:
            self._build(None)
        except _ForkFailed:  # its start does it all, from a new server or by exec
            self.stop()
            return False
        except BaseException:
            self.stop()
            raise
        if not self.forked:  # the fork server went away meanwhile: start does it all
            self.stop()
            return False
        self._prepared = True
        if self.python and _forkable(self.command):
            self._ahead_fd = self._wait_ahead_socket()
        return True

    @property
    def ahead_address(self) -> str | None:
        """The address of the server started in a seat made ready ahead (:meth:`prepare`),
        before the bot's code runs: a connection made there now is the bot's once it starts
        and serves with the SDK (:meth:`_launch` checks it is the same socket). None where
        there is none."""
        return None if self._ahead_fd is None else sandbox.socket_address(self._ahead_fd)

    def _wait_ahead_socket(self) -> int | None:
        """The seat's socket as the waiting bot's SDK binds it (it says so a few ms after the
        fork), or None if it does not within a second (the bot's own start binds it then)."""
        plan = self._plan
        if (
            plan is None
            or not plan.sandboxed
            or self._sandbox_pid is None
            or self._watch is None
            or not self._watch.wait_ahead(AHEAD_SOCKET_WAIT_S)
        ):
            return None
        try:
            return sandbox.open_socket(f"/proc/{self._sandbox_pid}/root", plan.socket_path)
        except SocketError:
            return None

    def _will_fork(self) -> bool:
        """Whether this seat's next start forks the bot (see :mod:`arena.runner.forkserver`):
        a Python script run in the forked process, or any other command it execs."""
        if not (self.fork and self.sandboxed):
            return False
        backend = cgroups.backend()
        return backend is not None and backend.freezer_parent is not None

    def abort(self, stop: bool = True) -> None:
        """Makes a start under way (or about to begin) in another thread give up at once
        (StartError); ``stop=False`` lets the next start go ahead again."""
        if stop:
            self._abort.set()
        else:
            self._abort.clear()

    def hurry(self) -> None:
        """A spare still starting is wanted now: it gets a seat's CPU weight back (called from
        any thread; the spare stays frozen once it listens, until :meth:`promote`)."""
        with self._weight_lock:
            self.idle = False
            if self._group is not None:
                self._group.set_idle(False)

    def promote(self) -> None:
        """A spare becomes a seat of the game about to start: its CPU weight, then running."""
        self.hurry()
        self.thaw()

    def _build(self, env: dict[str, str] | None, *, fork: bool = True) -> None:
        """The host's part of a start: seat folder, group, sandbox, and the bot: started by
        exec, or (where it can be and ``fork``) forked in, confined and waiting for
        :meth:`_launch`. ``env`` is the start's (a forked bot gets it at :meth:`_launch`).
        Raises _ForkFailed when the fork server failed (the seat is left to :meth:`stop`)."""
        self.seat_dir = sandbox.make_seat_dir(self.label)
        folder = self._bot_folder()
        self._group = cgroups.make_group(
            self.label, self.limits.memory_bytes, self.limits.processes
        )
        with self._weight_lock:
            if self._group is not None and self.idle:
                self._group.set_idle(True)
        if self._group is None:
            warn_once(
                "watchdog",
                "no control group for the bots: each seat's memory is "
                "watched by the runner (every 100 ms), its processes counted per uid",
            )
        server = None
        if fork and self._will_fork() and self._group is not None and self._group.can_freeze:
            server = fork_server()
        plan = sandbox.launch_command(
            forkserver.HOLDER if server is not None else self.command,
            folder,
            self.seat_dir,
            self.limits,
            sandbox=self.sandboxed,
            python=self.python,
            extra_env={**self.env, **(env or {})},
            join=None if self._group is None or server is not None else self._group.join_command(),
            fork_layout=server is not None,
        )
        self._ready.clear()
        self.log.add(f"[arena] starting {' '.join(self.command)}\n")
        self.forked = server is not None
        self._plan = plan
        process, streams, bot_pipes = self._spawn(plan, held=server is not None)
        self._process = process
        self._threads = [
            threading.Thread(target=self._read, args=(streams[0], True), daemon=True),
            threading.Thread(target=self._read, args=(streams[1], False), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        unread = select.poll()
        for stream in streams:
            unread.register(stream.fileno(), select.POLLIN)
        self._unread = unread
        self._streams = streams
        self._bot_pipes = bot_pipes
        deadline = time.monotonic() + self.start_timeout
        if plan.info_fd is not None:
            self._sandbox_pid = _read_sandbox_pid(plan.info_fd, deadline)
        if server is not None:
            assert isinstance(process, subprocess.Popen) and bot_pipes is not None
            self._wait_held(process, deadline)
            try:
                self._process = self._fork_into(server, process, plan)
            finally:
                for fd in bot_pipes:
                    os.close(fd)
                self._bot_pipes = None

    def _bot_folder(self) -> Path:
        """The folder the bot runs in: for a sandboxed seat, its own copy in memory (made once,
        its Python compiled ahead), else the bot's folder."""
        if not self.sandboxed:
            return self.folder
        if self._copy_dir is None:
            self._copy_dir = sandbox.make_seat_dir(f"{self.label}-bot", in_memory=True)
            try:
                sandbox.copy_bot_folder(self.folder, self._copy_dir)
                if self.python:
                    main = self.command[1] if len(self.command) > 1 else None
                    sandbox.compile_bot_folder(self._copy_dir / "bot", main)
            except HostError:
                sandbox.remove_tree(self._copy_dir)
                self._copy_dir = None
                raise
        return self._copy_dir / "bot"

    def _spawn(
        self, plan: sandbox.LaunchPlan, *, held: bool
    ) -> tuple[subprocess.Popen[bytes], tuple[Any, Any], tuple[int, int] | None]:
        """Starts the plan's process: the bot by exec, or (``held``) the sandbox's holder,
        for a bot forked in later. Its output streams, and for a holder the write ends of
        the bot's own stdout and stderr (the sandbox's errors come on the same stderr)."""
        if not held:
            process = sandbox.spawn(plan)
            assert process.stdout is not None and process.stderr is not None
            return process, (process.stdout, process.stderr), None
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        bot_pipes = (out_write, err_write)
        streams = (os.fdopen(out_read, "rb", 0), os.fdopen(err_read, "rb", 0))
        # The holder's input: the line it says once the sandbox is built, then nothing
        # until the seat stops (its end closed: the holder ends).
        held_read, self._holder_fd = os.pipe()
        try:
            os.write(self._holder_fd, forkserver.HELD_LINE)
            process = sandbox.spawn(plan, stderr=err_write, stdin=held_read)
        except BaseException:
            for fd in bot_pipes:
                os.close(fd)
            for stream in streams:
                stream.close()
            raise
        finally:
            os.close(held_read)
        return process, streams, bot_pipes

    def _launch(self, env: dict[str, str] | None) -> None:
        """Starts a forked bot (its start's environment on its go pipe: until then it waits,
        confined, and runs none of its code), then waits for the bot to listen."""
        process = self._process
        plan = self._plan
        assert process is not None and plan is not None
        self._write_go(env, self.start_timeout)
        deadline = time.monotonic() + self.start_timeout
        self._watchdog = cgroups.MemoryWatchdog(
            process.pid,
            self.limits.memory_bytes,
            self._over_memory,
            self._tmpfs_folders,
            group=self._group,
        )
        while not self._ready.wait(timeout=0.02):
            if process.poll() is not None:
                # Let the reader threads catch the last words before judging them.
                for thread in self._threads:
                    thread.join(timeout=1.0)
                if self._ready.is_set():
                    break
                text = self.log.text()
                memory = self.memory_fault()
                # Once the bot's own code ran (a forked bot runs nothing else; by exec, the
                # step before it said so), its output is its own: a "bwrap: " line of its
                # making is no alibi for a start it failed.
                forked = isinstance(process, forkserver.ForkedProcess)
                host_part = plan.sandboxed and not forked and not sandbox.bot_was_started(plan)
                self.stop()
                if isinstance(process, forkserver.ForkedProcess) and process.setup_failed:
                    raise _ForkFailed(_last_line(text), lasting=True)
                if host_part and sandbox.is_host_failure(text):
                    raise HostError(f"the sandbox failed to start {self.label}: {_last_line(text)}")
                if memory is not None:
                    raise StartError(memory)
                raise StartError(
                    f"exited with status {process.returncode} before listening ({_last_line(text)})"
                )
            if self.idle:  # a spare's clock runs from when its game wants it (hurry)
                deadline = time.monotonic() + self.start_timeout
            if time.monotonic() > deadline:
                self.stop()
                raise StartError(f"did not print LISTENING within {self.start_timeout:g} s")
            if self._abort.is_set():
                self.stop()
                raise StartError("its start was called off")
        try:
            self._socket_fd = self._open_socket(plan)
        except SocketError as error:
            self.stop()
            raise StartError(str(error)) from None
        ahead, self._ahead_fd = self._ahead_fd, None
        if ahead is not None:
            # The socket the bot serves on is the one connected to ahead (the SDK's server
            # started while it waited): that connection is the bot's. Else it is not used.
            found, before = os.fstat(self._socket_fd), os.fstat(ahead)
            if (found.st_dev, found.st_ino) == (before.st_dev, before.st_ino):
                ahead, self._socket_fd = self._socket_fd, ahead
            os.close(ahead)
        self.address = sandbox.socket_address(self._socket_fd)
        if self._group is not None and self._group.can_freeze:
            self._freezer = self._group
        else:
            warn_once(
                "freezer",
                "no freezer group for the bots: a seat between its turns is "
                "stopped with SIGSTOP (its process tree, walked in /proc)",
            )
            self._freezer = cgroups.TreeFreezer(self._sandbox_pid or process.pid)

    def go(self, env: dict[str, str] | None = None) -> None:
        """Lets a seat made ready ahead (:meth:`prepare`) start now, from the caller's thread
        (what its go pipe takes at once, never waiting): :meth:`start` with the same ``env``,
        called next, writes the rest and waits for it. Nothing for any other seat."""
        if (
            self._prepared
            and self._go_fd is not None
            and start_bytes(self.command, {**self.env, **(env or {})}) <= MAX_START_BYTES
        ):
            self.hurry()
            self._write_go(env, 0.0)

    def _write_go(self, env: dict[str, str] | None, wait: float) -> None:
        """Writes a forked bot's start (its environment) on its go pipe, and closes it once
        all is written; waits at most ``wait`` seconds for the bot to read, never blocking
        past that (the pipe holds 64 KiB, a start up to :data:`MAX_START_BYTES`). Raises
        StartError when a positive ``wait`` passes before the bot has read it all."""
        plan = self._plan
        if self._go_fd is None or plan is None:
            return
        if self._go_left is None:
            # bwrap sets PWD where it changes folder, after the variables it was given.
            given = {**plan.inside_env, **(env or {}), "PWD": sandbox.BOT_MOUNT}
            self._go_left = json.dumps(given).encode()
            os.set_blocking(self._go_fd, False)
        deadline = time.monotonic() + wait
        try:
            while self._go_left:
                try:
                    self._go_left = self._go_left[os.write(self._go_fd, self._go_left) :]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if wait <= 0:
                        return  # the rest at the start (start -> _launch)
                    if left <= 0 or self._abort.is_set():
                        raise StartError(
                            f"did not take its start within {wait:g} s "
                            f"({len(self._go_left):,} bytes of it left)"
                        ) from None
                    select.select([], [self._go_fd], [], min(left, 0.05))
        except OSError:
            pass  # the bot is gone: the start says how it ended
        os.close(self._go_fd)
        self._go_fd = None
        self._go_left = None

    def _wait_held(self, holder: subprocess.Popen[bytes], deadline: float) -> None:
        """Waits for the sandbox's holder to say it is ready (its set-up done). Raises
        HostError when it does not (bwrap's own words are in the log)."""
        assert holder.stdout is not None
        said = b""
        fd = holder.stdout.fileno()
        while not said.endswith(b"\n") and len(said) < 64:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 64) if ready else b""
            if not chunk:
                break
            said += chunk
        holder.stdout.close()
        if said != forkserver.HELD_LINE or self._sandbox_pid is None:
            sandbox.kill_group(holder)
            time.sleep(0.05)  # the sandbox's last words, to the log
            raise HostError(
                f"the sandbox failed to start {self.label}: {_last_line(self.log.text())}"
            )

    def _fork_into(
        self,
        server: forkserver.ForkServer,
        holder: subprocess.Popen[bytes],
        plan: sandbox.LaunchPlan,
    ) -> forkserver.ForkedProcess:
        """Has the fork server fork the bot into the sandbox the holder keeps, where it waits
        for its start (:meth:`_launch`). Raises HostError when the server fails."""
        assert self._group is not None and self._bot_pipes is not None
        assert self._sandbox_pid is not None and self._streams is not None
        command = sandbox.resolve_command(self.command, self.folder, sandbox=True)
        script, args = "", []  # a command the bot execs
        if self.python and _forkable(self.command):
            script, *args = command[len(sandbox.python_command()) :]
        supervised = sandbox.seccomp_program(supervised=True)
        numbers = seccomp.syscall_numbers(("seccomp",)) if supervised else {}
        spec = forkserver.ForkSpec(
            script=script,
            args=args,
            cmdline=command,
            cwd=sandbox.BOT_MOUNT,
            uid=plan.uid if plan.uid is not None else os.geteuid(),
            rlimits=self.limits.rlimits(),
            path=[sandbox.LIB_MOUNT],
            filter=supervised or b"",
            seccomp_number=numbers.get("seccomp", -1),
            address=plan.inside_env.get(ADDRESS_ENV, "") if script else "",
        )
        try:
            forked = server.fork(
                spec,
                sandbox_pid=self._sandbox_pid,
                stdout_fd=self._bot_pipes[0],
                stderr_fd=self._bot_pipes[1],
                group_files=self._group.procs_files(),
            )
        except forkserver.ForkError as error:
            raise _ForkFailed(str(error)) from None
        self._go_fd = forked.go_fd
        self._watch = seal.warden().watch(forked.confine, self.log.add)
        return forkserver.ForkedProcess(
            holder, forked.status_fd, forked.pidfd, self._watch.confined, *self._streams
        )

    def kill(self) -> None:
        """Sends SIGKILL to the seat's processes now, without waiting (:meth:`stop` reaps them
        and cleans up): none of them runs again."""
        if self._group is not None:
            self._group.signal_kill()
        # As sandbox.kill_group: a process already reaped may have left its pid to another.
        if self._process is not None and self._process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self._process.pid, signal.SIGKILL)

    def seal(self) -> None:
        """Before the seat's game begins (its first message, which may carry hidden cards):
        from now on, a forked seat can make no pipe, socket or memfd, whose inode number
        would come from a counter of the whole host (:data:`arena.runner.seccomp.SEALED`).
        Nothing for a seat started by ``exec``."""
        if self._watch is not None:
            self._watch.seal()

    def freeze(self) -> None:
        """Stops every process of the seat until :meth:`thaw` (the runner freezes every seat
        but the one on move). Returns at once; a seat that is gone is left alone."""
        if self._freezer is None or self.frozen:
            return
        self.frozen = True
        try:
            self._freezer.freeze()
        except OSError as error:  # the group went away with the seat: nothing left to stop
            warn_once("freeze-failed", f"could not freeze a bot seat ({error})")

    def retire(self) -> None:
        """The seat plays no more: none of its processes runs again from now. They are frozen
        where the seat has a freezer (their end, which takes the host some CPU, comes with
        :meth:`stop`, which kills them before it thaws them), else killed now."""
        if not self._hold():
            self.kill()

    def rest(self) -> bool:
        """The seat sits out games until a later duplicate set's (see
        :class:`arena.runner.seats.Slot`): frozen by its control group and left alive, its
        connection open. False, with nothing done, where it is gone, has no such group (a
        seat it cannot hold still is ended instead) or no sandbox (what it holds on the host,
        its locks and files, would be there for the next game's processes to read)."""
        return self.sandboxed and self.is_running() and self._hold()

    def _hold(self) -> bool:
        """Freezes the seat by its control group, where it has one, and leaves it alive:
        whether it is held so (:meth:`retire`, :meth:`rest`)."""
        if not isinstance(self._freezer, cgroups.SeatGroup):
            return False
        try:
            if not self.frozen:
                self._freezer.freeze()
                self.frozen = True
        except OSError:  # (the group went away with the seat)
            return False
        return True

    def thaw(self) -> None:
        """Lets the seat's processes run again."""
        if self._freezer is None or not self.frozen:
            return
        self.frozen = False
        with contextlib.suppress(OSError):
            self._freezer.thaw()

    def _open_socket(self, plan: sandbox.LaunchPlan) -> int:
        root: str | None = None
        if plan.sandboxed:
            if self._sandbox_pid is None:
                raise HostError("bubblewrap did not say the sandbox's pid (--info-fd)")
            root = f"/proc/{self._sandbox_pid}/root"
        deadline = time.monotonic() + SOCKET_WAIT_S
        while True:
            try:
                return sandbox.open_socket(root, plan.socket_path)
            except SocketError as error:
                if not str(error).startswith("no socket") or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _tmpfs_folders(self) -> list[str]:
        if not self.sandboxed or self._sandbox_pid is None:
            return [str(self.seat_dir)] if self.seat_dir is not None else []
        root = f"/proc/{self._sandbox_pid}/root"
        return [f"{root}/tmp", f"{root}/dev/shm", f"{root}{sandbox.SOCKET_MOUNT}"]

    def _over_memory(self) -> None:
        """The watchdog found the seat over its memory limit: all of it is killed."""
        group = self._group
        self._memory_fault = self._memory_message() + (
            ": killed by the kernel" if group is not None else ""
        )
        if group is not None:
            group.kill()
        process = self._process
        if process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            for pid in cgroups.tree_pids(process.pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)

    def _memory_message(self) -> str:
        return (
            f"went over the seat's memory limit of {self.limits.memory_bytes // 1024**2} MiB "
            "(its processes and tmpfs folders together)"
        )

    def memory_fault(self) -> str | None:
        """Why the seat was killed for memory, or None when it was not."""
        if self._memory_fault is not None:
            return self._memory_fault
        if self._group is not None and self._group.oom_kills() > 0:
            return self._memory_message() + ": killed by the kernel"
        return None

    def _read(self, stream: object, is_stdout: bool) -> None:
        """Reads a stream to its end in chunks: lines go to the log, cut when too long.

        Nothing here grows with what the bot writes: a line is cut at ``MAX_LINE_BYTES`` and
        the log keeps a bounded head and tail.
        """
        fd = stream.fileno()  # type: ignore[attr-defined]
        reader = LineReader(self.log)
        waiting = select.poll()  # (poll, not select: any fd number)
        waiting.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        while True:
            with contextlib.suppress(OSError):
                waiting.poll()  # waits outside the lock (see output_settled)
            with self._reading:
                try:
                    data = os.read(fd, READ_CHUNK)
                except OSError:
                    data = b""
                lines = reader.feed(data) if data else reader.flush()
                for raw in lines:
                    if is_stdout and not self._ready.is_set() and raw.startswith(READY_PREFIX):
                        self._ready.set()
                        continue
                    line = raw.decode("utf-8", "replace")
                    self.log.add(line if line.endswith("\n") else line + "\n")
            if not data:
                return

    def output_settled(self) -> bool:
        """Whether every byte the bot has written so far is in its log (a line not yet ended
        aside): its pipes hold nothing unread, and no read is being added. The game marks a
        turn in the log once this holds, so that a turn's lines are the turn's.

        Asked at every turn: one ``poll`` of both pipes, without waiting (two ``FIONREAD``
        ioctls before, about 6 µs a turn from Python against 1)."""
        unread = self._unread
        if unread is None:
            return True
        if not self._reading.acquire(blocking=False):  # a read being added: not yet
            return False
        try:
            ready = unread.poll(0)
        except (OSError, RuntimeError):  # (RuntimeError: polled at once from elsewhere)
            return False
        finally:
            self._reading.release()
        # POLLIN: bytes to read. A pipe whose writer is gone and that holds nothing says
        # POLLHUP alone, and a descriptor closed here POLLNVAL: nothing more comes from it.
        return not ready or all(not events & select.POLLIN for _, events in ready)

    def is_running(self) -> bool:
        """Whether the process is still alive."""
        return self._process is not None and self._process.poll() is None

    def exit_status(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        return None if self._process is None else self._process.poll()

    def stop(self) -> None:
        """Kills the whole seat (group, tree) and removes its folder. Safe to call twice."""
        self._prepared = False
        self._go_left = None
        if self._go_fd is not None:  # a bot forked ahead: it ends without running its code
            with contextlib.suppress(OSError):
                os.close(self._go_fd)
            self._go_fd = None
        self.seal()
        if self._bot_pipes is not None:
            for fd in self._bot_pipes:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._bot_pipes = None
        if self.frozen:  # killed while frozen: none of them runs its own code again
            self.kill()
        if self._freezer is not None:  # a task frozen by the v1 freezer would not die
            with contextlib.suppress(OSError):
                self._freezer.thaw()
        self.frozen = False
        self._freezer = None
        if self._watchdog is not None:
            self._watchdog.stop()
        if self._process is not None:
            sandbox.kill_group(self._process)
        if self._group is not None:
            self._group.kill()
        if self._process is not None:
            for thread in self._threads:
                thread.join(timeout=1.0)
            for stream in (self._process.stdout, self._process.stderr):
                if stream is not None:
                    stream.close()
            if isinstance(self._process, forkserver.ForkedProcess):
                self._process.close()
            self._process = None
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        self._unread = None  # before its descriptors close (their numbers may be reused)
        if self._streams is not None:
            for stream in self._streams:
                with contextlib.suppress(OSError):
                    stream.close()
            self._streams = None
        if self._plan is not None and self._plan.started_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._plan.started_fd)
        if self._holder_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._holder_fd)
            self._holder_fd = None
        self._plan = None
        if self._group is not None:
            # The verdict on memory outlives the group's folder, for the fault.
            if self._memory_fault is None and self._group.oom_kills() > 0:
                self._memory_fault = self._memory_message() + ": killed by the kernel"
            self._group.remove()
        self._group = None
        self._watchdog = None
        self._sandbox_pid = None
        for held in (self._socket_fd, self._ahead_fd):
            if held is not None:
                with contextlib.suppress(OSError):
                    os.close(held)
        self._socket_fd = self._ahead_fd = None
        if self.seat_dir is not None:
            sandbox.remove_seat_dir(self.seat_dir)
            self.seat_dir = None

    def close(self) -> None:
        """Stops the bot and removes its private copy of the bot folder."""
        self.stop()
        if self._copy_dir is not None:
            sandbox.remove_tree(self._copy_dir)
            self._copy_dir = None


def _read_sandbox_pid(fd: int, deadline: float) -> int | None:
    """Reads what ``bwrap --info-fd`` writes (the sandbox's pid) to its end, closes ``fd``.

    bwrap closes its end once it has written; closing ours before would kill it (SIGPIPE).
    """
    data = b""
    try:
        while time.monotonic() < deadline and len(data) < 65536:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
        return sandbox.sandbox_pid(data)
    finally:
        os.close(fd)


def start_bytes(command: list[str], env: dict[str, str]) -> int:
    """What a start with ``command`` and ``env`` takes, as ``execve`` counts it (bytes, each
    string with its NUL).

    >>> start_bytes(["python", "bot.py"], {"A": "1"})
    18
    """
    strings = [*command, *(f"{name}={value}" for name, value in env.items())]
    return sum(len(text.encode("utf-8", "surrogateescape")) + 1 for text in strings)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("[arena]")]
    return lines[-1][:300] if lines else "no output"


__all__ = [
    "FORK_ENV",
    "MAX_START_BYTES",
    "BotProcess",
    "CappedLog",
    "HostError",
    "LineReader",
    "StartError",
    "fork_server",
    "start_bytes",
]
