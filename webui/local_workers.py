"""Local Celery worker processes, started by the commands that need them.

The embedded default has no broker server and no separate worker service: ``arena season run``
(and ``arena demo``, ``arena web``) start real ``arena worker`` processes on this machine with
:class:`LocalWorkers`, over the same broker the environment configures (the ``filesystem://``
transport by default, Redis when ``ARENA_BROKER_URL`` says so), and stop them when done. Tests
and ``arena bench season`` use it too, to kill and restart workers. A worker is a process
started by its command, so whoever starts one imports nothing of :mod:`workers`. It is not a
supervisor: in production, run ``arena worker`` under one (docker-compose, systemd).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, NamedTuple

from arena.process_groups import (
    LIFELINE_ENV,
    become_subreaper,
    exited_unreaped,
    finish_group,
    kill_orphans,
    lifeline,
    reap_exited,
    signal_group,
)
from arena.runner.cgroups import end_orphaned_seats

ROOT = Path(__file__).resolve().parents[1]


def worker_command(
    name: str,
    concurrency: int | None = 1,
    loglevel: str = "WARNING",
    beat: bool = False,
    play: bool = False,
) -> list[str]:
    """The command line of one local worker: ``arena worker`` with this interpreter (``play``:
    a Play worker, ``arena worker --play``; ``concurrency`` None: its default)."""
    command = [
        sys.executable,
        "-m",
        "arena.cli",
        "worker",
        "--name",
        f"{name}@%h",
        "--loglevel",
        loglevel,
    ]
    if concurrency is not None:
        command += ["--concurrency", str(concurrency)]
    if beat:
        command.append("--beat")
    if play:
        command.append("--play")
    return command


class WorkerExit(NamedTuple):
    """A local worker that exited on its own: its exit code, and whether another took its
    place (:meth:`LocalWorkers.replace_exited`)."""

    code: int
    replaced: bool


class LocalWorkers:
    """``count`` worker processes of ``concurrency`` each, in their own process groups;
    ``play``: Play workers (``arena worker --play``: the Play queue, a pool of threads,
    ``ARENA_PLAY_SLOTS`` games each unless ``concurrency`` is given)."""

    def __init__(
        self,
        count: int = 1,
        *,
        concurrency: int | None = 1,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
        loglevel: str = "WARNING",
        prefix: str = "local",
        play: bool = False,
    ) -> None:
        if count < 1:
            raise ValueError(f"at least one worker, not {count}")
        self.count = count
        self.concurrency = concurrency
        self.env = {**os.environ, **(env or {})}
        self.env.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in [str(ROOT), self.env.get("PYTHONPATH", "")] if p
        )
        self.log_dir = log_dir
        self.loglevel = loglevel
        self.prefix = prefix if not play or prefix != "local" else "play"
        self.play = play
        self.processes: list[subprocess.Popen[bytes]] = []
        self._logs: list[IO[bytes]] = []
        self._started = 0
        self.replaced = 0
        """How many exited workers :meth:`replace_exited` has replaced."""
        self._stopping = False
        self._lock = threading.Lock()  # replace_exited (a thread) against stop

    def start_one(self) -> subprocess.Popen[bytes]:
        """Starts one more worker process and returns it."""
        process = self._launch()
        self.processes.append(process)
        return process

    def _launch(self) -> subprocess.Popen[bytes]:
        """A new worker process, in a process group of its own, its output to its log."""
        self._started += 1
        name = f"{self.prefix}{self._started}-{os.getpid()}"
        output: int | IO[bytes] = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            output = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 (closed in stop)
            self._logs.append(output)
        # Its lifeline: should this process die without stopping it (SIGKILL, the OOM
        # killer), the worker reads end-of-file there and ends itself and all it started.
        line = lifeline()
        process = subprocess.Popen(
            worker_command(name, self.concurrency, self.loglevel, play=self.play),
            cwd=ROOT,
            env={**self.env, LIFELINE_ENV: str(line)},
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            pass_fds=(line,),
            start_new_session=True,  # its own process group: stop() ends its pool children too
        )
        return process

    def start(self) -> LocalWorkers:
        """Starts the workers (they connect to the broker on their own, in a second or two)."""
        self._stopping = False
        for _ in range(self.count):
            self.start_one()
        return self

    def replace_exited(self, limit: int | None = None) -> list[WorkerExit]:
        """Starts a new worker in the place of each one that has exited on its own; returns
        how each ended and whether it was replaced (none: all are running). An exited worker's
        group is killed first (its pool children must not outlive it). What it was playing is
        played again once its lease runs out (the sweep sends it again). Past ``limit``
        replacements in all, an exited worker is left exited (``replaced`` False)."""
        exits: list[WorkerExit] = []
        with self._lock:
            if self._stopping:  # asked to stop: they exit because they were told to
                return exits
            for index, process in enumerate(self.processes):
                if process.returncode is None and exited_unreaped(process, 0):
                    finish_group(process, 0)
                    code = process.wait()  # reaped already: its code
                    if limit is not None and self.replaced >= limit:
                        exits.append(WorkerExit(code, replaced=False))
                        continue
                    self.replaced += 1
                    self.processes[index] = self._launch()
                    exits.append(WorkerExit(code, replaced=True))
        return exits

    def kill(self, process: subprocess.Popen[bytes], sig: int = signal.SIGKILL) -> None:
        """Sends ``sig`` to a worker's whole process group (SIGKILL: a crashed host)."""
        signal_group(process, sig)
        if sig == signal.SIGKILL:
            process.wait()

    def stop(self, timeout: float = 10.0, *, cold: bool = False) -> None:
        """Asks every worker to finish, then kills stragglers after ``timeout`` seconds.

        Warm (SIGTERM): a worker finishes the match it plays first, which can take minutes.
        ``cold`` (SIGQUIT, Celery's cold shutdown): it stops at once; the match it was playing
        is recorded by nobody and is played again from the start once its lease runs out (the
        sweep sends it again), as after a crashed host.
        """
        self.signal_all(signal.SIGQUIT if cold else signal.SIGTERM)
        self.finish(time.monotonic() + timeout)

    def signal_all(self, sig: int) -> None:
        """Sends ``sig`` to every worker's process group (they are stopping: none is replaced
        from now on)."""
        with self._lock:
            self._stopping = True
            for process in self.processes:
                signal_group(process, sig)

    def finish(self, deadline: float) -> None:
        """Waits for the workers already asked to stop until ``deadline`` (monotonic), kills
        what is left of their groups, and closes their logs."""
        for process in self.processes:
            # Its pool children share the group: none may outlive it.
            finish_group(process, deadline - time.monotonic())
        self.processes.clear()
        for handle in self._logs:
            handle.close()
        self._logs.clear()

    def __enter__(self) -> LocalWorkers:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


STOP_GRACE_S = 3.0
"""How long :func:`stop_all` lets workers stop on their own before it kills their groups."""


def stop_all(pools: list[LocalWorkers], grace_s: float = STOP_GRACE_S) -> None:
    """Stops every pool at once with a cold shutdown: all are signalled first, then each gets
    what is left of one grace period, so a command that started several pools is gone within
    ``grace_s`` of being asked (Ctrl-C, SIGTERM) whatever its workers were playing."""
    for pool in pools:
        pool.signal_all(signal.SIGQUIT)
    deadline = time.monotonic() + grace_s
    for pool in pools:
        pool.finish(deadline)
    # A seat its killed worker had frozen (only the seat on move runs) cannot die until it is
    # thawed: end the seat groups whose runner is gone.
    end_orphaned_seats()
    # What a killed worker had started in sessions of its own (a bot's sandbox) was adopted by
    # this process (adopt_orphans) and is ended here.
    if _adopting:
        kill_orphans(keep=set())


_adopting = False
REAP_INTERVAL_S = 2.0
"""How often an adopting process reaps the orphans that ended on their own."""


def adopt_orphans(pools: list[LocalWorkers]) -> bool:
    """Makes this process adopt what its local workers orphan when they are killed (Linux),
    so that :func:`stop_all` ends it too; for a process whose only other children are the
    workers of ``pools`` (``arena web``, ``arena demo``). True if it does.

    An adopting process must also reap what ends on its own (a sandbox's bubblewrap whose bot
    is done, which would otherwise stay a zombie for as long as the site runs): a daemon thread
    does, every :data:`REAP_INTERVAL_S`, leaving the workers (``pools``, read at each round, so
    pools started later count) to their own :class:`subprocess.Popen`."""
    global _adopting
    _adopting = become_subreaper()
    if _adopting:

        def reap() -> None:
            while True:
                time.sleep(REAP_INTERVAL_S)
                reap_exited({p.pid for pool in list(pools) for p in list(pool.processes)})

        threading.Thread(target=reap, name="orphan-reaper", daemon=True).start()
    return _adopting


KEEP_INTERVAL_S = 2.0
"""How often :func:`keep_running` looks for exited workers."""


def exited_line(ended: WorkerExit) -> str:
    """What a command says when one of its local workers exited on its own."""
    then = "started another" if ended.replaced else "not replaced: too many have exited"
    return f"a local worker exited (code {ended.code}); {then}"


def keep_running(pools: list[LocalWorkers], report: Callable[[str], None]) -> None:
    """Replaces, from a daemon thread, every local worker of ``pools`` that exits on its own
    (killed by the kernel's OOM killer, say), for a command that serves for hours (``arena
    web``, ``arena demo``); ``report`` gets one line each time. Pools being stopped are left
    alone."""

    def keep() -> None:
        while True:
            time.sleep(KEEP_INTERVAL_S)
            for pool in list(pools):
                for ended in pool.replace_exited():
                    report(exited_line(ended))

    threading.Thread(target=keep, name="worker-keeper", daemon=True).start()
