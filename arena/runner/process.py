"""One running bot process: start it, wait until it listens, keep its log, end it.

A :class:`BotProcess` owns a private seat folder (its socket), the process (sandboxed or not,
see :mod:`arena.runner.sandbox`) and two reader threads that keep the head and tail of its
stdout and stderr as its log. It reports start-up failures as :class:`StartError` (the bot's
fault: it crashed or never said ``LISTENING``) or :class:`~arena.runner.sandbox.HostError` (the
host's: the game is void). It does not speak gRPC.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections import deque
from pathlib import Path

from arena.runner import sandbox
from arena.runner.sandbox import HostError, Limits

READY_PREFIX = "LISTENING "
LOG_HEAD_BYTES = 256 * 1024
LOG_TAIL_LINES = 2000


class StartError(RuntimeError):
    """A bot did not come up: it exited, hung, or printed nothing usable before its deadline."""


class CappedLog:
    """The first ``LOG_HEAD_BYTES`` of a stream and its last ``LOG_TAIL_LINES`` lines."""

    def __init__(self) -> None:
        self._head: list[str] = []
        self._head_size = 0
        self._tail: deque[str] = deque(maxlen=LOG_TAIL_LINES)
        self._dropped = 0
        self._lock = threading.Lock()

    def add(self, line: str) -> None:
        """Keeps one line (in the head while there is room, then in the tail)."""
        with self._lock:
            if self._head_size + len(line) <= LOG_HEAD_BYTES and not self._tail:
                self._head.append(line)
                self._head_size += len(line)
                return
            if len(self._tail) == self._tail.maxlen:
                self._dropped += 1
            self._tail.append(line)

    def text(self) -> str:
        """The log as one string, with a marker where lines were left out."""
        with self._lock:
            parts = list(self._head)
            if self._dropped:
                parts.append(f"[... {self._dropped} lines left out ...]\n")
            parts.extend(self._tail)
        return "".join(parts)


class BotProcess:
    """A started bot: its process, its socket address and its log."""

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
    ) -> None:
        self.label = label
        self.command = command
        self.folder = folder
        self.limits = limits
        self.sandboxed = sandboxed
        self.python = python
        self.start_timeout = start_timeout
        self.env = dict(env or {})
        self.log = CappedLog()
        self.address = ""
        self.seat_dir: Path | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._ready = threading.Event()
        self._threads: list[threading.Thread] = []

    @property
    def pid(self) -> int | None:
        """The pid of the outermost process (prlimit/bwrap), while it runs."""
        return None if self._process is None else self._process.pid

    def start(self) -> None:
        """Starts the bot and waits for its ``LISTENING`` line.

        Raises StartError when the bot exits or stays silent past ``start_timeout``, and
        HostError when the host cannot start it (no folder, no sandbox, bwrap failing).
        """
        self.stop()
        self.seat_dir = sandbox.make_seat_dir(self.label)
        plan = sandbox.launch_command(
            self.command,
            self.folder,
            self.seat_dir,
            self.limits,
            sandbox=self.sandboxed,
            python=self.python,
            extra_env=self.env,
        )
        self.address = plan.connect_address
        self._ready.clear()
        self.log.add(f"[arena] starting {' '.join(self.command)}\n")
        process = sandbox.spawn(plan)
        self._process = process
        assert process.stdout is not None and process.stderr is not None
        self._threads = [
            threading.Thread(target=self._read_stdout, args=(process.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(process.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not self._ready.wait(timeout=0.02):
            if process.poll() is not None:
                # Let the reader threads catch the last words before judging them.
                for thread in self._threads:
                    thread.join(timeout=1.0)
                if self._ready.is_set():
                    break
                text = self.log.text()
                self.stop()
                if sandbox.is_host_failure(text):
                    raise HostError(f"the sandbox failed to start {self.label}: {_last_line(text)}")
                raise StartError(
                    f"exited with status {process.returncode} before listening ({_last_line(text)})"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise StartError(f"did not print LISTENING within {self.start_timeout:g} s")

    def _read_stdout(self, stream: object) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            line = raw.decode("utf-8", "replace")
            if not self._ready.is_set() and line.startswith(READY_PREFIX):
                self._ready.set()
                continue
            self.log.add(line if line.endswith("\n") else line + "\n")

    def _read_stderr(self, stream: object) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            line = raw.decode("utf-8", "replace")
            self.log.add(line if line.endswith("\n") else line + "\n")

    def is_running(self) -> bool:
        """Whether the process is still alive."""
        return self._process is not None and self._process.poll() is None

    def exit_status(self) -> int | None:
        """The exit status (negative: killed by that signal), or None while it runs."""
        return None if self._process is None else self._process.poll()

    def stop(self) -> None:
        """Kills the whole process group and removes the seat folder. Safe to call twice."""
        if self._process is not None:
            sandbox.kill_group(self._process)
            for thread in self._threads:
                thread.join(timeout=1.0)
            for stream in (self._process.stdout, self._process.stderr):
                if stream is not None:
                    stream.close()
            self._process = None
        if self.seat_dir is not None:
            sandbox.remove_seat_dir(self.seat_dir)
            self.seat_dir = None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("[arena]")]
    return lines[-1][:300] if lines else "no output"


__all__ = ["BotProcess", "CappedLog", "HostError", "StartError"]
