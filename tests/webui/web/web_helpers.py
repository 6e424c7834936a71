"""The processes below a process, for the tests that stop commands, and reading a serving
command's output. (The archives the submission tests upload: ``archive_samples``.)"""

from __future__ import annotations

import subprocess
from pathlib import Path

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
        table[int(stat.parent.name)] = (int(fields[1]), fields[19], command.decode(
            errors="replace").strip())
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
    return [command for pid, (started, command) in processes.items()
            if pid in table and table[pid][1] == started and table[pid][2]]


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
