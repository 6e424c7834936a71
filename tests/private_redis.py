"""A real ``redis-server`` of the test's own, for tests that restart or flush Redis.

The machine's Redis (127.0.0.1:6379) is shared by every test run and every engineer on the
machine, so a test never stops or flushes it. A test that needs to do so starts this instead:
the same ``redis-server`` program, on a free port, with its folder in the test's temporary
folder and no persistence (a restart loses every message, as a crashed broker would). It is
stopped at the end of the test, and dies with the test process if that is killed
(``PR_SET_PDEATHSIG``), so nothing outlives a run. Not a fixture module itself: the fixture is
``private_redis`` in ``tests/conftest.py``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> list[str]:
    """An argv prefix after which the kernel sends SIGTERM to the server when the test process
    dies (``setpriv --pdeathsig``). Not a ``preexec_fn``: that makes Python fork the whole test
    process, whose gRPC threads (the runner's tests) then run fork handlers in the child."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []


class PrivateRedis:
    """One ``redis-server`` process on its own port and folder; ``restart()`` empties it."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise FileNotFoundError("redis-server is not installed")
        self.executable = executable
        self.folder = folder
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        """The URL of its database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        """Starts the server and waits until it answers PING."""
        if self.process is not None and self.process.poll() is None:
            raise RuntimeError(f"redis-server on port {self.port} is already running")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = open(self.folder / "redis.log", "ab")  # noqa: SIM115 (the child keeps it)
        try:
            self.process = subprocess.Popen(
                [
                    *_die_with_parent(),
                    self.executable,
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    str(self.port),
                    "--dir",
                    str(self.folder),
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--daemonize",
                    "no",
                    "--protected-mode",
                    "yes",
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()
        self.wait_ready()
        return self

    def wait_ready(self, timeout_s: float = 20.0) -> None:
        """Waits for PONG; raises if the server exited or never answered."""
        import redis

        deadline = time.monotonic() + timeout_s
        while True:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server on port {self.port} exited: {self.log_tail()}")
            client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
            try:
                if client.ping():
                    return
            except redis.RedisError:
                pass
            finally:
                client.close()
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis-server on port {self.port} never answered")
            time.sleep(0.05)

    def stop(self) -> None:
        """Stops the server at once (SIGKILL: nothing is saved, as in a crash)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self.process = None

    def restart(self, down_s: float = 0.5) -> None:
        """Stops the server, leaves it down for ``down_s``, starts it again on the same port."""
        self.stop()
        time.sleep(down_s)
        self.start()

    def log_tail(self) -> str:
        """The end of the server's log, for failure messages."""
        path = self.folder / "redis.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""
