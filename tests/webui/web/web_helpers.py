"""The processes below a process, for the tests that stop commands, and reading a serving
command's output, and a ladder match recorded as a worker records it. (The archives the
submission tests upload: ``archive_samples``.)"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest


def process_table() -> dict[int, tuple[int, str, str]]:
    """Every process: pid -> (parent pid, start time in clock ticks, command line)."""
    table: dict[int, tuple[int, str, str]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError):
            continue  # it ended while we looked
        table[int(stat.parent.name)] = (
            int(fields[1]),
            fields[19],
            command.decode(errors="replace").strip(),
        )
    return table


def descendants(root: int) -> dict[int, tuple[str, str]]:
    """Every process below ``root``: pid -> (start time, command line)."""
    table = process_table()
    found: dict[int, tuple[str, str]] = {}
    frontier = [root]
    while frontier:
        pid = frontier.pop()
        for child, (parent, started, command) in table.items():
            if parent == pid and child not in found:
                found[child] = (started, command)
                frontier.append(child)
    return found


def still_running(processes: dict[int, tuple[str, str]]) -> list[str]:
    """Those of ``processes`` that still run (the same process: same pid and start time)."""
    table = process_table()
    return [
        command
        for pid, (started, command) in processes.items()
        if pid in table and table[pid][1] == started and table[pid][2]
    ]


def until_serving(process: subprocess.Popen[str], what: str) -> list[str]:
    """The lines ``process`` printed up to the one saying it serves the site (included).

    Fails the test with everything it printed if it ended first; ``what`` names it.
    """
    assert process.stdout is not None
    output: list[str] = []
    for line in process.stdout:
        output.append(line)
        if "Serving the site at" in line:
            return output
    pytest.fail(f"{what} ended without serving:\n" + "".join(output))


def _interruptible() -> None:
    """In the child before it runs the command: Ctrl-C (SIGINT) works as at a terminal, even
    when the tests were started where it is ignored (a background job of a script, as CI's
    may be), which a child would otherwise inherit and Python would then leave ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Streamed:
    """A command in a session of its own, its output read as it comes (a thread drains the
    pipe, so the command never blocks on it)."""

    name = "the command"

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=_interruptible,
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        """Everything printed so far, as printed."""
        return "".join(self.lines)

    @property
    def words(self) -> str:
        """Everything printed so far, its lines and spaces made single spaces (a terminal
        wraps long lines)."""
        return " ".join(self.output.split())

    def wait_for(self, words: str, timeout: float) -> str:
        """:attr:`words` once they hold ``words``; fails with the output if the command ends
        first or ``timeout`` (a bound on a hang, not a measure) passes."""
        deadline = time.monotonic() + timeout
        while words not in self.words:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.reader.join(timeout=5)
                pytest.fail(f"{self.name} never printed {words!r}:\n{self.output}")
            time.sleep(0.2)
        return self.words


def record_ladder_match(versions: list[Any]) -> Any:
    """One ladder match played by the engine and recorded as a worker records it (claim,
    ``record_result``), then rated as the ``arena.update_ratings`` task that follows does."""
    from webui.league import matches, ratings, variants
    from webui.league.models import Match
    from webui.web.sampledata import match_report

    variant = variants.get_variant("scopa")
    match = matches.create_open_match(Match.Kind.LADDER, variant, versions, games=2, rated=True)
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    assert matches.record_result(claim, match_report(match))
    ratings.update_ratings(variant.pk)
    return match
