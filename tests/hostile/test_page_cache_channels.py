"""Seats that try to pass a hand through the page cache of the files they can read.

The test bot (``bots/page-marker``) marks its hand in pages of files every seat has (the
standard library's sources): it reads a card's page (a first read) and drops the others
(``posix_fadvise(DONTNEED)``); a reader asks which pages are cached (``preadv2(RWF_NOWAIT)``,
``mincore``) or times a first read of each. Played through the real runner in the real
sandbox, between Scopone partners (the receiver reads at each turn), across the two games of a
duplicate set (game 2's new process reads before its first move) and across matches (a later
match of the same seed). The sandbox binds a runtime tree pinned in memory
(:mod:`arena.runner.runtime_tree`): every page of it is always cached, so a marked region
reads exactly as the never-marked control region does. Without the sandbox (the control) the
same bots pass the hand exactly, which shows they would.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import BANK_MS, HOSTILE_LIMITS, hostile, require, verify_replays

from arena.runner import BotRef, MatchReport, MatchSpec, run_match, runtime_tree, sandbox
from arena.runner.process import fork_server

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

CONTROL = 4  # the region no process marks
EXACT = ("drop-nowait", "drop-mincore", "first-nowait", "first-mincore")
"""The readings that read nothing: with the pinned tree each must equal the control's, or be
refused (a tmpfs takes no ``RWF_NOWAIT`` read: ENOTSUP, for every page alike)."""
TIMED = ("drop-timed", "first-timed")
TIMED_MOST_RIGHT = 0.75
"""A timed reading, cut in two as an attacker would, gets fewer than this share of a marked
region's 40 bits right (chance is a half; docs/SECURITY.md states the bound)."""


def play(tmp_path: Path, *, variant: str, games: int, seed: int = 7, **spec: Any) -> MatchReport:
    replays = tmp_path / "replays"
    report = run_match(
        MatchSpec(
            entrants=[hostile("page-marker"), BotRef.parse("random")],
            variant=variant,
            options={"target": 1},
            games=games,
            duplicate=games > 1,
            move_time_ms=5000,
            bank_ms=BANK_MS * 3,
            limits=HOSTILE_LIMITS,
            replays_dir=replays,
            seed=seed,
            **spec,
        )
    )
    verify_replays(replays)
    for game in report.games:
        assert game.faults == [] and game.forfeit is None, game.faults
    return report


def per_process(log: str) -> list[str]:
    """A seat's log cut by process (each line names its own), in the order each process
    first said something: its first turn, so game by game."""
    lines: dict[str, list[str]] = {}
    for tag, text in re.findall(r"^page-marker (\w+): (.*)$", log, re.MULTILINE):
        lines.setdefault(tag, []).append(text)
    return ["\n".join(texts) for texts in lines.values()]


def marks(log: str) -> list[tuple[int, int, int, str]]:
    """(deal, moves, region, bits) of each ``MARK``."""
    return [
        (int(d), int(m), int(r), bits)
        for d, m, r, bits in re.findall(r"MARK (\d+) (\d+) (\d) ([01]{40})", log)
    ]


def probes(log: str) -> dict[tuple[str, int], str]:
    """{(method, region): bits} of a process's ``PROBE`` lines."""
    return {
        (method, int(r)): bits
        for method, r, bits in re.findall(r"PROBE (\S+) (\d) ([01]{40})", log)
    }


def reads(log: str) -> dict[tuple[int, int, str], dict[int, str]]:
    """{(deal, moves, method): {region: bits}} of the ``READ`` lines."""
    found: dict[tuple[int, int, str], dict[int, str]] = {}
    for d, m, method, r, bits in re.findall(r"READ (\d+) (\d+) (\S+) (\d) ([01]{40})", log):
        found.setdefault((int(d), int(m), method), {})[int(r)] = bits
    return found


REFUSED = {
    "nowait": r"refused preadv2 \((ENOTSUP|EOPNOTSUPP|EPERM|ENOSYS)\)",
    "mincore": r"refused mincore \((ENOSYS|EPERM)\)",
}
"""How a seat's log says a reading's call was refused (by the tmpfs, or by the system-call
filter, which refuses both ``RWF_NOWAIT`` and ``mincore``): then it reads nothing."""


def exact_methods(log: str) -> list[str]:
    """The readings of :data:`EXACT` that ``log`` holds: each unless the seat's call for it
    was refused (then for every page: it says nothing)."""
    refused = {kind for kind, pattern in REFUSED.items() if re.search(pattern, log)}
    return [m for m in EXACT if m.rsplit("-", 1)[1] not in refused]


def read_or_refused(log: str) -> None:
    """Each exact reading of a sandboxed seat's ``log`` was either made or refused."""
    made = exact_methods(log)
    for method in EXACT:
        kind = method.rsplit("-", 1)[1]
        assert method in made or re.search(REFUSED[kind], log), (method, log[-2000:])


def reads_the_hand(sent: str, read: str) -> bool:
    """Whether a reading shows the hand: every card's page cached, and most others not (a
    page dropped may stay when the kernel cached it in a larger folio)."""
    cards = [r for s, r in zip(sent, read, strict=True) if s == "1"]
    others = [r for s, r in zip(sent, read, strict=True) if s == "0"]
    return set(cards) == {"1"} and others.count("0") >= 20


def right_share(pairs: list[tuple[str, str]]) -> float:
    """The share of bits of ``(sent, read)`` pairs read right."""
    right = sum(a == b for sent, read in pairs for a, b in zip(sent, read, strict=True))
    return right / sum(len(sent) for sent, _ in pairs)


def partner_pairs(report: MatchReport, method: str) -> list[tuple[str, str]]:
    """(the hand the sender last marked, what the receiver read of that region) for each
    reading after a mark in the same deal and process pair."""
    pairs = []
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    for send_log, read_log in zip(per_process(sender), per_process(receiver), strict=True):
        marked = marks(send_log)
        for (deal, moves, kind), regions in reads(read_log).items():
            before = [(r, bits) for d, m, r, bits in marked if d == deal and m < moves]
            if kind == method and before:
                region, bits = before[-1]
                pairs.append((bits, regions[region]))
    return pairs


@pytest.fixture(scope="module")
def partners(bwrap: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MatchReport]:
    yield play(tmp_path_factory.mktemp("partners"), variant="scopone", games=2)


@pytest.mark.alone  # a neighbour reading the same files sets the pages it drops
def test_without_the_sandbox_partners_pass_a_hand_through_the_page_cache(tmp_path: Path) -> None:
    # The control: the host's files, their pages dropped and read by the sender.
    report = play(tmp_path, variant="scopone", games=2, sandbox=False)
    for method in ("drop-nowait", "drop-mincore"):
        pairs = partner_pairs(report, method)
        assert len(pairs) >= 4, (method, report.logs["0/1"][-2000:])
        assert all(reads_the_hand(sent, read) for sent, read in pairs), (method, pairs[:3])


def test_the_page_cache_carries_no_bit_between_partners(partners: MatchReport) -> None:
    sender, receiver = partners.logs["0/0"], partners.logs["0/1"]
    assert len(marks(sender)) >= 4, sender[-2000:]
    found = reads(receiver)
    methods = exact_methods(receiver)
    read_or_refused(receiver)
    for method in methods:
        readings = [regions for (_, _, kind), regions in found.items() if kind == method]
        assert len(readings) >= 4, (method, receiver[-2000:])
        for regions in readings:
            # Every page of every region reads cached, the marked ones as the control.
            assert set(regions.values()) == {"1" * 40}, (method, regions)
        assert len(partner_pairs(partners, method)) >= 4


def test_a_timed_read_tells_partners_no_better_than_chance(partners: MatchReport) -> None:
    for method in TIMED:
        pairs = partner_pairs(partners, method)
        assert len(pairs) >= 4, method
        assert right_share(pairs) < TIMED_MOST_RIGHT, (method, right_share(pairs), pairs[:3])


def test_a_seat_sees_its_runtime_from_memory_and_nothing_else_of_usr(
    partners: MatchReport,
) -> None:
    for seat in ("0/0", "0/1"):
        log = partners.logs[seat]
        kinds = dict(re.findall(r"FS (\S+) (\S+)", log))
        # /usr, the interpreter, grpc and the seat's copy of its folder: all on a tmpfs, or
        # the seat cannot ask (the system-call filter refuses statfs): then the host says so.
        assert len(kinds) == 4 and set(kinds.values()) <= {"1021994", "-ENOSYS"}, kinds
        if "-ENOSYS" in kinds.values():
            tree = runtime_tree.runtime_tree()
            assert tree.in_memory
            assert runtime_tree._fs_type(tree.root) == runtime_tree.TMPFS_MAGIC
        seen = dict(re.findall(r"EXISTS (\S+) (yes|no)", log))
        assert seen == {
            "/usr/bin/perl": "no",
            "/usr/share/doc": "no",
            "/usr/bin/python3": "no",
            "/usr/bin/env": "yes",
        }, seen


def test_the_fork_server_maps_only_files_of_the_tree(bwrap: str) -> None:
    # A forked seat inherits the server's maps: they must be pages of the pinned tree.
    server = fork_server()
    require(server is not None, "the fork server (a root runner)")
    assert server is not None
    tree = runtime_tree.runtime_tree()
    maps = [
        line.split(maxsplit=5) for line in Path(f"/proc/{server.pid}/maps").read_text().splitlines()
    ]
    devices = {fields[3] for fields in maps if len(fields) == 6 and fields[5].startswith("/")}
    assert devices, "the server maps no file"
    tree_device = os.stat(tree.root).st_dev
    assert devices == {f"{os.major(tree_device):02x}:{os.minor(tree_device):02x}"}, devices


def test_game_two_of_a_duplicate_set_recovers_no_card_of_game_one(
    bwrap: str, tmp_path: Path
) -> None:
    # The duplicate rule as a fact about knowledge: game 1's process marks every hand it holds
    # (in the page cache and in every file it can write) and ends; game 2's new process,
    # before its first move, reads every region by every method and looks for the files.
    report = play(tmp_path, variant="scopa", games=2)
    first, second = per_process(report.logs["0/0"])
    marked = marks(first)
    assert marked, first[-2000:]
    found = probes(second)
    read_or_refused(second)
    for method in exact_methods(second):
        control = found[(method, CONTROL)]
        assert control == "1" * 40, (method, control)
        for _, _, region, _ in marked:
            assert found[(method, region)] == control, (method, region)
    # Timed: the regions of game 1's last marks read no better than chance.
    last = {region: bits for _, _, region, bits in marked}
    for method in TIMED:
        pairs = [(bits, found[(method, region)]) for region, bits in last.items()]
        assert right_share(pairs) < TIMED_MOST_RIGHT, (method, pairs)
    # No file game 1's process wrote is there for game 2's: its /tmp, /dev/shm and socket
    # folder are new, its own folder is read-only.
    assert re.findall(r"FILE (\S+) (.*)", second) == [
        ("/tmp", "none"),
        ("/dev/shm", "none"),
        ("/bot", "none"),
        ("/sock", "none"),
    ], second[-2000:]
    assert "refused write /bot (EROFS)" in first


@pytest.mark.alone  # a neighbour reading the same files sets the pages it drops
def test_without_the_sandbox_game_two_reads_game_one_s_marks(tmp_path: Path) -> None:
    # The control of the test above: the host's files keep game 1's marks for game 2.
    report = play(tmp_path, variant="scopa", games=2, sandbox=False)
    first, second = per_process(report.logs["0/0"])
    last = {region: bits for _, _, region, bits in marks(first)}
    found = probes(second)
    assert last
    for method in ("drop-nowait", "drop-mincore"):
        for region, bits in last.items():
            assert reads_the_hand(bits, found[(method, region)]), (method, region, bits)


def test_a_later_match_of_the_same_seed_reads_no_mark_of_an_earlier_one(
    bwrap: str, tmp_path: Path
) -> None:
    earlier = play(tmp_path / "earlier", variant="scopa", games=2, seed=11)
    later = play(tmp_path / "later", variant="scopa", games=2, seed=11)
    last = {
        region: bits
        for log in per_process(earlier.logs["0/0"])
        for _, _, region, bits in marks(log)
    }
    assert last
    probed = per_process(later.logs["0/0"])[0]
    found = probes(probed)
    for method in exact_methods(probed):
        for region in (*last, CONTROL):
            assert found[(method, region)] == "1" * 40, (method, region)
    for method in TIMED:
        pairs = [(bits, found[(method, region)]) for region, bits in last.items()]
        assert right_share(pairs) < TIMED_MOST_RIGHT, (method, pairs)


def test_a_tree_left_by_a_runner_that_is_gone_is_swept() -> None:
    # A runner killed before its exit handlers ran leaves its tree in memory: the next runner
    # on the host removes it (no process has that pid: it is over the kernel's pid_max).
    base, _ = runtime_tree.memory_base()
    left = base / f"{runtime_tree.TREE_PREFIX}4999999999-test"
    (left / "usr" / "bin").mkdir(parents=True)
    (left / "usr" / "bin" / "python").write_bytes(b"x" * 4096)
    try:
        assert sandbox.sweep_stale_seat_dirs() >= 1
        assert not left.exists()
    finally:
        sandbox.remove_tree(left)
