"""Partners that try to pass a hand, and a seat that tries to starve the other, on one host.

Each attack is a pair of test bots played through the real runner in the real sandbox: a
sender (the lower seat of the side) that moves something of the host with its hand's bits, and
a receiver (the higher seat) that watches it; or a hog beside a seat that measures its own
compute. Where the test can make the attack possible on purpose (no sandbox, no freezer, no
control group) it does, and the same bots then pass the hand or starve the neighbour, which
shows they would. Compute is only ever compared within one match (the same run's baseline):
never an absolute time.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import BANK_MS, hostile, require, verify_replays

from arena.runner import BotRef, Limits, MatchReport, MatchSpec, cgroups, run_match
from arena.runner.process import fork_server

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

# Room for 64 spinning processes, and their copies of the interpreter where the watchdog sums
# each process's resident memory.
SPINNER_LIMITS = Limits(
    cpu_seconds=120,
    memory_bytes=3 * 1024**3,
    processes=128,
    file_bytes=1024**2,
    tmp_bytes=32 * 1024**2,
)
SMALL_LIMITS = Limits(
    cpu_seconds=60,
    memory_bytes=768 * 1024**2,
    processes=64,
    file_bytes=1024**2,
    tmp_bytes=32 * 1024**2,
)
COMPUTE_MARGIN = 0.8
"""A seat's compute beside a hostile neighbour is at least this share of its compute beside a
quiet one (docs/SECURITY.md states the margin)."""


def play(
    tmp_path: Path,
    bot: str,
    *,
    opponent: str = "random",
    variant: str = "scopone",
    target: int = 1,
    games: int = 2,
    limits: Limits = SPINNER_LIMITS,
    **spec: Any,
) -> MatchReport:
    """A match of test bot ``bot`` (entrant 0) against ``opponent``: a duplicate set, or one
    game with ``games=1``. Unpaced unless ``pace_partners`` says otherwise: the channels here
    are the host's (CPU, counters, object numbers, locks), not think time, and a turn played at
    once leaves a channel less time to fade than one held to its release point."""
    spec.setdefault("pace_partners", False)
    replays = tmp_path / "replays"
    report = run_match(
        MatchSpec(
            entrants=[hostile(bot), BotRef.parse(opponent)],
            variant=variant,
            options={"target": target},
            games=games,
            duplicate=games > 1,
            move_time_ms=3000,
            bank_ms=BANK_MS * 3,
            limits=limits,
            replays_dir=replays,
            **spec,
        )
    )
    verify_replays(replays)
    return report


def per_game(log: str) -> list[str]:
    """A log cut at each start of the process: one piece a game."""
    return log.split("[arena] starting")[1:]


def paired(sender: str, receiver: str, sent: str, read: str) -> list[tuple[int, str]]:
    """(the bit the sender had set, what the receiver read) for each reading, game by game.

    ``sent`` matches ``<deal> <moves> <bit>``, ``read`` ``<deal> <moves> <value>``: each
    reading goes with the last bit set before it in the same deal.
    """
    pairs = []
    for send_log, read_log in zip(per_game(sender), per_game(receiver), strict=True):
        bits = [((int(d), int(m)), int(b)) for d, m, b in re.findall(sent, send_log)]
        for d, m, value in re.findall(read, read_log):
            when = (int(d), int(m))
            before = [b for at, b in bits if at[0] == when[0] and at < when]
            if before:
                pairs.append((before[-1], value))
    return pairs


def split_point(values: list[float]) -> float:
    """Where a receiver cuts its readings into 0s and 1s: the midpoint between the means of
    the two groups it finds (two-means clustering), as an attacker would."""
    cut = (min(values) + max(values)) / 2
    for _ in range(20):
        low = [v for v in values if v <= cut]
        high = [v for v in values if v > cut]
        if not low or not high:
            return cut
        moved = (statistics.fmean(low) + statistics.fmean(high)) / 2
        if moved == cut:
            break
        cut = moved
    return cut


def decoded_share(pairs: list[tuple[int, float]], *, lower_is_one: bool = False) -> float | None:
    """The share of bits a receiver reads right, cutting its readings in two groups
    (:func:`split_point`); None when the readings never change (nothing to read)."""
    values = [value for _, value in pairs]
    if len(set(values)) < 2:
        return None
    middle = split_point(values)
    right = sum(
        ((value < middle) if lower_is_one else (value > middle)) == bool(bit)
        for bit, value in pairs
    )
    return right / len(pairs)


# ---- locks, leases and directory notifications, with high bits ------------------------------


@pytest.mark.usefixtures("host_locks_alone")
def test_without_the_sandbox_partners_pass_a_hand_through_locks_with_high_bits(
    tmp_path: Path,
) -> None:
    # The control: the kernel reads 32 bits of the command, so (1 << 32) | F_SETLK is a lock.
    report = play(tmp_path, "fcntl-partners", limits=SMALL_LIMITS, sandbox=False)
    sender, receiver = per_game(report.logs["0/0"]), per_game(report.logs["0/1"])
    for send_log, read_log in zip(sender, receiver, strict=True):
        hand = re.search(r"SENT cards ([\d ]+)", send_log)
        assert hand is not None, send_log
        for variant in ("F_SETLK|1<<32", "F_OFD_SETLKW|0xffffffff<<32"):
            assert (
                f"FOUND the partner's hand through {variant} locks: {hand.group(1)}" in read_log
            ), read_log
        assert "FOUND" in read_log and "directory notifications from the partner" in read_log


@pytest.mark.usefixtures("host_locks_alone")
def test_locks_leases_and_notifications_with_high_bits_are_refused(
    bwrap: str, tmp_path: Path
) -> None:
    report = play(tmp_path, "fcntl-partners", limits=SMALL_LIMITS)
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    assert "FOUND" not in receiver, receiver
    sends = sender.count("SENT cards")  # one at every deal's start: a game has one deal or more
    assert sends >= 2, sender
    for command in ("F_SETLK", "F_SETLKW", "F_OFD_SETLK", "F_OFD_SETLKW"):
        for high in ("1<<32", "0xffffffff<<32"):
            assert sender.count(f"sender: {command}|{high} lock refused (ENOLCK)") == sends
    # The receiver's lock queries (F_OFD_GETLK) are refused too, since the allow-list.
    assert receiver.count("receiver: lock query refused (ENOLCK)") >= 2
    for high in ("1<<32", "0xffffffff<<32"):
        assert sender.count(f"sender: F_SETLEASE|{high} lease refused (EPERM)") == sends
        assert (
            receiver.count(f"receiver: F_NOTIFY|{high} on the package folder refused (EPERM)")
            == sends
        )
    for game in report.games:
        assert game.faults == [] and game.forfeit is None


# ---- host-wide counters -----------------------------------------------------------------


def counter_pairs(report: MatchReport, counter: str) -> list[tuple[int, str]]:
    return paired(
        report.logs["0/0"],
        report.logs["0/1"],
        r"SET (\d+) (\d+) (\d)",
        rf"READ (\d+) (\d+) {re.escape(counter)} (.+)",
    )


def test_without_the_sandbox_partners_pass_a_hand_through_host_counters(tmp_path: Path) -> None:
    # The control: AIO contexts and pseudo-terminals are counted for the whole host.
    report = play(tmp_path, "counter-partners", sandbox=False, limits=SMALL_LIMITS)
    for counter in ("aio-nr", "pty-nr"):
        pairs = [(bit, float(value)) for bit, value in counter_pairs(report, counter)]
        assert len(pairs) >= 8
        assert decoded_share(pairs) == 1.0, (counter, pairs)


def test_no_host_counter_carries_a_bit_between_partners(bwrap: str, tmp_path: Path) -> None:
    report = play(tmp_path, "counter-partners", limits=SMALL_LIMITS)
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    # What would move the host-wide counters is refused...
    assert sender.count("sender: io_setup refused (ENOSYS)") == 2
    assert sender.count("sender: /dev/ptmx refused (ENOENT)") == 2
    assert sender.count("sender: socket(AF_INET) refused (EAFNOSUPPORT)") == 2
    # ... and what the seat can still move (open files, names in its /tmp) it cannot read.
    counters = set(re.findall(r"READ \d+ \d+ (\S+) ", receiver))
    assert {
        "aio-nr",
        "pty-nr",
        "file-nr",
        "inode-nr",
        "dentry-state",
        "stat",
        "loadavg",
        "meminfo",
        "interrupts",
        "softirqs",
        "cgroups",
        "pressure",
    } <= counters
    unreadable = {
        "aio-nr",
        "pty-nr",
        "file-nr",
        "inode-nr",
        "dentry-state",
        "entropy",
        "stat",
        "loadavg",
        "meminfo",
        "vmstat",
        "interrupts",
        "softirqs",
        "cgroups",
        "pressure",
        "slabinfo",
    }
    for counter in sorted(counters):
        pairs = counter_pairs(report, counter)
        assert len(pairs) >= 8, counter
        if counter in unreadable:
            assert all(value.startswith("-") for _, value in pairs), (counter, pairs[:3])
            continue
        # Still readable (TCP's and the packet counters of the host's network stack): the
        # seat cannot move them, so they follow nothing the sender sends.
        numbers = [
            (bit, float(int(value, 16 if counter == "softnet" else 10)))
            for bit, value in pairs
            if not value.startswith("- ")
        ]
        share = decoded_share(numbers)
        assert share is None or share < 0.9, (counter, pairs)
    for game in report.games:
        assert game.faults == [] and game.forfeit is None


# ---- the kernel's numbering of objects -------------------------------------------------------


def inode_pairs(report: MatchReport) -> list[tuple[int, float]]:
    return [
        (bit, float(value))
        for bit, value in paired(
            report.logs["0/0"],
            report.logs["0/1"],
            r"SEND (\d+) (\d+) (\d)",
            r"RECEIVED (\d+) (\d+) (-?\d+)",
        )
    ]


def test_without_the_sandbox_partners_pass_a_hand_through_inode_numbers(tmp_path: Path) -> None:
    # The control: pipes take their numbers from one counter of the whole host, and a seat
    # of 8 batches for a 1 stands out of what the rest of the host takes meanwhile.
    report = play(tmp_path, "inode-partners", sandbox=False, limits=SMALL_LIMITS)
    pairs = inode_pairs(report)
    assert len(pairs) >= 8
    share = decoded_share(pairs)
    assert share is not None and share >= 0.8, pairs


def test_no_object_number_carries_a_bit_between_partners(bwrap: str, tmp_path: Path) -> None:
    # Seats are sealed where they are forked: a root runner with a freezer group.
    found = cgroups.backend()
    require(
        os.geteuid() == 0
        and found is not None
        and found.freezer_parent is not None
        and fork_server() is not None,
        "a root runner with a freezer group (forked seats)",
    )
    report = play(tmp_path, "inode-partners", limits=SMALL_LIMITS)
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    for log in (sender, receiver):
        # While a seat starts it makes pipes and sockets as any program does...
        assert log.count("START pipe ok") == 2, log[-2000:]
        # ... and once its game has begun, it can make nothing numbered from a host-wide
        # counter, nor read one in another way.
        # (The sealed calls fail with ENOSYS: the kernel's answer once their listener is
        # closed, which nobody has to give.)
        for refused in (
            "pipe (ENOSYS)",
            "socket (ENOSYS)",
            "socketpair (ENOSYS)",
            "memfd_create (ENOSYS)",
            "proc (ENOENT)",
            "pidfd_open (ENOSYS)",
            "sock_diag (EPROTONOSUPPORT)",  # refused by the allow-list, sealed or not
            "so_cookie (ENOPROTOOPT)",
        ):
            assert log.count(f"refused {refused}") >= 2, (refused, log[-2000:])
    assert "SEND" in sender
    assert "RECEIVED" not in receiver
    for game in report.games:
        assert game.faults == [] and game.forfeit is None


# ---- the CPU ------------------------------------------------------------------------------


@pytest.fixture(params=["cgroup", "watchdog"])
def freezer(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Seats frozen by their control group's freezer (as the host allows), or by signals."""
    if request.param == "watchdog":
        monkeypatch.setenv(cgroups.CGROUP_ENV, "off")
    cgroups.backend.cache_clear()
    found = cgroups.backend()
    if request.param == "cgroup":
        require(
            found is not None and found.freezer_parent is not None,
            "a freezer group for the bots' seats",
        )
    yield request.param
    cgroups.backend.cache_clear()


def meter_pairs(report: MatchReport) -> list[tuple[int, float]]:
    return [
        (spinning, float(rounds))
        for spinning, rounds in paired(
            report.logs["1/0"],
            report.logs["0/0"],
            r"HOG (\d+) (\d+) (\d)",
            r"METER (\d+) (\d+) (\d+) ",
        )
    ]


def compute_ratio(pairs: list[tuple[int, float]]) -> float:
    """The meter's median compute beside the hog's spinners over its median beside none."""
    spinning = [rounds for on, rounds in pairs if on]
    quiet = [rounds for on, rounds in pairs if not on]
    assert len(spinning) >= 6 and len(quiet) >= 6, pairs
    return statistics.median(spinning) / statistics.median(quiet)


def test_a_seat_computes_as_much_beside_64_spinning_processes_as_beside_none(
    bwrap: str, tmp_path: Path, freezer: str
) -> None:
    # One match, the hog spinning in every other turn: the meter's compute in the turns after
    # the hog spun and in the turns after it did not, on the same machine at the same time.
    # A second match only if the first misses the margin (a busy machine's noise).
    ratios = []
    for attempt in range(2):
        report = play(
            tmp_path / str(attempt),
            "cpu-meter",
            opponent=str(hostile("cpu-hog").folder),
            variant="scopa",
            games=1,
        )
        assert "(64 spinners)" in report.logs["1/0"]
        for game in report.games:
            assert game.faults == [] and game.forfeit is None
        ratios.append(compute_ratio(meter_pairs(report)))
        if ratios[-1] >= COMPUTE_MARGIN:
            break
    assert ratios[-1] >= COMPUTE_MARGIN, f"the neighbour's compute fell to {ratios}"


def test_without_freezer_nor_control_groups_the_hog_starves_its_neighbour(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The control: seats that run at once and weigh by their processes.
    monkeypatch.setenv(cgroups.CGROUP_ENV, "off")
    cgroups.backend.cache_clear()
    try:
        report = play(
            tmp_path,
            "cpu-meter",
            opponent=str(hostile("cpu-hog").folder),
            variant="scopa",
            games=1,
            freeze_idle_seats=False,
        )
    finally:
        cgroups.backend.cache_clear()
    assert compute_ratio(meter_pairs(report)) < 0.5


def cpu_pairs(report: MatchReport) -> list[tuple[int, float]]:
    return [
        (bit, float(rounds))
        for bit, rounds in paired(
            report.logs["0/0"],
            report.logs["0/1"],
            r"SEND (\d+) (\d+) (\d)",
            r"RECEIVED (\d+) (\d+) (\d+)",
        )
    ]


def manchester_share(report: MatchReport) -> float:
    """The share of the sender's bits the receiver reads right by comparing its two readings
    of each bit (the bit, then its complement: fewer rounds in the half that was a 1), as an
    attacker would on a host whose load drifts."""
    right = total = 0
    for send_log, read_log in zip(
        per_game(report.logs["0/0"]), per_game(report.logs["0/1"]), strict=True
    ):
        sends: dict[int, list[tuple[int, int]]] = {}
        for d, m, bit in re.findall(r"SEND (\d+) (\d+) (\d)", send_log):
            sends.setdefault(int(d), []).append((int(m), int(bit)))
        halves: dict[tuple[int, int], dict[int, float]] = {}
        for d, m, rounds in re.findall(r"RECEIVED (\d+) (\d+) (\d+)", read_log):
            before = [k for k, (at, _) in enumerate(sends.get(int(d), [])) if at < int(m)]
            if before:
                k = before[-1]
                halves.setdefault((int(d), k // 2), {})[k % 2] = float(rounds)
        for (deal, index), read in halves.items():
            if len(read) == 2:
                bit = sends[deal][2 * index][1]
                total += 1
                right += int((read[0] < read[1]) == bool(bit))
    assert total >= 8, total
    return right / total


def test_without_freezer_nor_control_groups_partners_time_each_other_on_the_cpu(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(cgroups.CGROUP_ENV, "off")
    cgroups.backend.cache_clear()
    try:
        report = play(tmp_path, "cpu-partners", games=1, target=11, freeze_idle_seats=False)
    finally:
        cgroups.backend.cache_clear()
    assert manchester_share(report) >= 0.8, cpu_pairs(report)


def test_partners_cannot_time_each_other_on_the_cpu(bwrap: str, tmp_path: Path) -> None:
    report = play(tmp_path, "cpu-partners", target=11)
    pairs = cpu_pairs(report)
    assert len(pairs) >= 30, pairs
    share = decoded_share(pairs, lower_is_one=True)
    # Chance is one half: 0.75 of 30 bits or more by chance is about 1 in 3,000.
    assert share is not None and share < 0.75, (share, pairs)
    for game in report.games:
        assert game.faults == [] and game.forfeit is None
