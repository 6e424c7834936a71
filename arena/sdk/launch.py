"""Runs a bot folder you trust without a sandbox: as a local process, or in this process.

:class:`LocalBot` reads the folder's ``bot.toml`` (:mod:`arena.manifest`), starts its
``command`` inside the folder with ``SCOPA_BOT_ADDRESS`` set to a unix socket in a fresh
temporary folder, and waits for the ``LISTENING`` line. This is how ``arena bot check FOLDER``
and the SDK tests run a bot you trust. :func:`load_bot` makes a Python SDK bot's
:class:`~arena.sdk.Bot` in this process, as its own script makes it (benchmarks, the training
environment's opponents). Neither is the match runner's launcher (:mod:`arena.runner`
sandboxes untrusted bots).
"""

from __future__ import annotations

import contextlib
import os
import runpy
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from arena.manifest import Manifest, ManifestError, read_manifest
from arena.protocol import ADDRESS_ENV, READY_PREFIX
from arena.sdk.bot import Bot
from arena.sdk.server import handing_over

_LOADING = threading.Lock()
"""One bot script at a time: it runs with this process's ``sys.argv`` set to its own."""


def resolve_command(command: tuple[str, ...]) -> list[str]:
    """The argv to run: ``python`` means the arena's own interpreter."""
    argv = list(command)
    if argv[0] in {"python", "python3"}:
        argv[0] = sys.executable
    return argv


class LocalBot:
    """A bot folder running as a local process; a context manager that stops it on exit.

    ``address`` is the gRPC target to connect to once :meth:`start` returns.
    """

    def __init__(
        self,
        folder: str | Path,
        env: dict[str, str] | None = None,
        startup_timeout: float = 30.0,
    ) -> None:
        self.folder = Path(folder).resolve()
        self.manifest: Manifest = read_manifest(self.folder)
        self.extra_env = env or {}
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.address = ""
        self._tmp: str | None = None

    def start(self) -> str:
        """Starts the bot and waits for its ``LISTENING`` line; returns the address."""
        self._tmp = tempfile.mkdtemp(prefix="scopa-bot-")
        socket_path = os.path.join(self._tmp, "bot.sock")
        bind = f"unix://{socket_path}"
        env = {**os.environ, **self.manifest.env, **self.extra_env, ADDRESS_ENV: bind}
        argv = resolve_command(self.manifest.command)
        try:
            self.process = subprocess.Popen(
                argv,
                cwd=self.folder,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            self.stop()
            raise RuntimeError(f"{self.manifest.name}: cannot start {argv[0]!r}: {exc}") from None
        line = self._read_ready_line()
        if not line.startswith(READY_PREFIX):
            self.stop()
            raise RuntimeError(
                f"{self.manifest.name}: expected 'LISTENING <address>' on stdout, got {line!r}"
            )
        self.address = line[len(READY_PREFIX) :].strip() or bind
        # Drain anything else the bot prints so a chatty bot never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()
        return self.address

    def _drain(self) -> None:
        stdout = self.process.stdout if self.process is not None else None
        if stdout is None:
            return
        with contextlib.suppress(OSError, ValueError):
            while os.read(stdout.fileno(), 65536):
                pass

    def _read_ready_line(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout
        deadline = time.monotonic() + self.startup_timeout
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in buffer:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.stop()
                    raise RuntimeError(
                        f"{self.manifest.name}: no LISTENING line within {self.startup_timeout}s"
                    )
                if not selector.select(timeout=left):
                    continue
                chunk = os.read(stdout.fileno(), 4096)
                if not chunk:
                    code = self.process.wait()
                    self.stop()
                    raise RuntimeError(
                        f"{self.manifest.name}: exited with status {code} before listening"
                    )
                buffer += chunk
        return buffer.split(b"\n", 1)[0].decode(errors="replace")

    def stop(self) -> None:
        """Stops the bot's whole process group and removes its temporary folder."""
        if self.process is not None and self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=3)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> LocalBot:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def load_bot(folder: str | Path, args: Sequence[str] | None = None) -> Bot:
    """The :class:`~arena.sdk.Bot` of a Python SDK bot folder, made in this process.

    Runs the script of the folder's ``bot.toml`` command (``["python", "bot.py", ...]``) as
    ``__main__`` with ``args`` as its arguments (default: the command's own), as the arena
    starts it, except that :func:`arena.sdk.serve` hands the bot back instead of serving it:
    no process, no protocol, no sandbox, so only for bots you trust (benchmarks, the training
    environment's opponents). The bot.toml's ``[env]`` is not applied, and the script runs
    in this process's folder. Raises :class:`ValueError` (one line) for a folder whose bot
    is not a Python SDK bot.
    """
    folder = Path(folder).resolve()
    manifest = read_manifest(folder)
    if not manifest.is_python or len(manifest.command) < 2:
        raise ValueError(
            f"{folder}: {manifest.name} is not a Python bot (its command is "
            f"{' '.join(manifest.command)!r})"
        )
    script = folder / manifest.command[1]
    if not script.is_file():
        raise ValueError(f"{folder}: its command's script {manifest.command[1]!r} is missing")
    argv = [str(script), *(manifest.command[2:] if args is None else args)]
    with _LOADING, handing_over() as bots:
        saved = sys.argv
        sys.argv = argv
        try:
            runpy.run_path(str(script), run_name="__main__")
        except SystemExit as exc:
            raise ValueError(
                f"{folder}: {script.name} exited ({exc.code}) before serving its bot"
            ) from None
        finally:
            sys.argv = saved
    if not bots:
        raise ValueError(f"{folder}: {script.name} did not call arena.sdk.serve(bot)")
    return bots[-1]


__all__ = ["LocalBot", "ManifestError", "load_bot", "resolve_command"]
