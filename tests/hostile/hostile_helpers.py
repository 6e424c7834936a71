"""Helpers of the hostile-bot suite: the test bots, short clocks, small limits, checks."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from replay_checks import verify_replays
from service_checks import require

from arena.runner import BotRef, Limits, MatchReport

BOTS = Path(__file__).resolve().parent / "bots"

# Short clocks and small limits keep the hostile matches quick.
HOSTILE_LIMITS = Limits(
    cpu_seconds=30,
    memory_bytes=768 * 1024**2,
    processes=64,
    file_bytes=1024**2,
    tmp_bytes=32 * 1024**2,
)
MOVE_MS = 1000  # generous: the machine may be busy; attacks that need time ask for more
BANK_MS = 20_000

PlayMatch = Callable[..., MatchReport]


def hostile(name: str) -> BotRef:
    """One of the test bots of ``tests/hostile/bots``."""
    return BotRef.parse(str(BOTS / name))


def faults_of(report: MatchReport, game: int) -> list[str]:
    """The kinds of the faults of one game, in order."""
    return [fault["kind"] for fault in report.games[game].faults]


def assert_forfeited_by_hostile_side(report: MatchReport, kind: str) -> None:
    """Every game was lost by the hostile bot (entrant 0) by forfeit for ``kind``, and the
    replay says so."""
    for game in report.games:
        hostile_seat = game.seats.index(0)
        assert game.forfeit is not None, game.replay
        assert game.forfeit["side"] == report.rules.side_of(hostile_seat)
        assert game.forfeit["reason"].startswith(f"{kind}:"), game.forfeit
        assert game.winner_entrants == [1]
        assert game.replay["result"]["forfeit"] == game.forfeit
        assert any(f["kind"] == kind for f in game.replay["faults"]), game.replay["faults"]
        assert game.void is None


def processes_of_uid(uid: int) -> list[int]:
    """The pids of the host's processes running as ``uid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        match = re.search(r"^Uid:\s+(\d+)", status, re.MULTILINE)
        if match and int(match.group(1)) == uid:
            pids.append(int(entry.name))
    return pids


def seat_folders(bot: str) -> set[str]:
    """The runner's seat folders of bot ``bot`` on the host now (``scopa-seat-<bot>-*`` in the
    temporary folder, and the seats' copies of its folder in memory); the hostile tests of a
    run play one at a time (one xdist worker, group ``clocks``)."""
    import tempfile

    from arena.runner import runtime_tree

    prefix = f"scopa-seat-{bot}-"
    found: set[str] = set()
    for base in {Path(tempfile.gettempdir()), runtime_tree.memory_base()[0]}:
        found |= {str(e) for e in base.iterdir() if e.name.startswith(prefix)}
    return found


def rss_kib() -> int:
    """This process's resident memory, KiB."""
    text = Path("/proc/self/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
    assert found is not None
    return int(found.group(1))


def peak_rss_kib() -> int:
    """This process's peak resident memory since :func:`reset_peak_rss`, KiB."""
    text = Path("/proc/self/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", text, re.MULTILINE)
    assert found is not None
    return int(found.group(1))


def reset_peak_rss() -> None:
    """Resets this process's peak resident memory to its current one."""
    with open(f"/proc/{os.getpid()}/clear_refs", "w") as handle:
        handle.write("5")


__all__ = [
    "BANK_MS",
    "BOTS",
    "HOSTILE_LIMITS",
    "MOVE_MS",
    "PlayMatch",
    "assert_forfeited_by_hostile_side",
    "faults_of",
    "hostile",
    "peak_rss_kib",
    "processes_of_uid",
    "require",
    "reset_peak_rss",
    "rss_kib",
    "seat_folders",
    "verify_replays",
]
