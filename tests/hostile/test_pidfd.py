"""No seat holds a pidfd: the pidfs count (a number of every process the host ever made,
moved by forking) reaches no seat, nor the runner's pid or credentials.

``pidfd-partners`` plays both seats of a side in scopone: the sender forks for each 1 of its
hand; the receiver tries every way to hold a pidfd and read its inode number (``pidfd_open``,
``clone`` with ``CLONE_PIDFD``, ``getsockopt(SO_PEERPIDFD)`` on its server's listening socket
after a child of its own called ``listen()`` on it again, and on the runner's gRPC connection),
and ``SO_PEERCRED`` / ``SO_PASSPIDFD`` / ``SO_PASSCRED``, each also with high bits in the level
and the option name. Every one is refused by the system-call allow-list
(``arena/runner/seccomp.py``); without the sandbox the same bot reads pidfs numbers, which
shows it would.
"""

from __future__ import annotations

import pytest
from hostile_helpers import PlayMatch

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

REFUSED = [
    ("pidfd_open", "ENOSYS"),
    ("clone CLONE_PIDFD", "EINVAL"),
    *(
        (f"{option}{high} on {where}", "ENOPROTOOPT")
        for option in ("SO_PEERPIDFD", "SO_PEERCRED", "SO_PASSPIDFD", "SO_PASSCRED")
        for high in ("", "|high")
        for where in ("listening", "connection")
    ),
]
"""What each seat of the bot tries, and the error the allow-list answers."""


def test_no_seat_holds_a_pidfd_or_its_peers_credentials(play_hostile: PlayMatch) -> None:
    report = play_hostile("pidfd-partners", "scopone")
    for game in report.games:
        assert game.faults == [] and game.forfeit is None, game.faults
    seats = [key for key in report.logs if key.startswith("0/")]
    assert len(seats) == 2
    for seat in seats:
        log = report.logs[seat]
        # Both games' processes tried everything once (a fresh process each game).
        assert log.count("relisten ok") == 2, log[-3000:]  # listen() itself stays allowed
        assert log.count("sockets 1 listening 1 connected") == 2, log[-3000:]
        for what, code in REFUSED:
            refusals = [line for line in log.splitlines() if f"refused {what} " in line]
            assert refusals and all(line.endswith(f"({code})") for line in refusals), (
                what,
                log[-3000:],
            )
        for word in ("RECEIVED", "PEER ", "FOUND"):
            assert word not in log, log[-3000:]
    assert "SEND" in report.logs["0/0"] + report.logs["0/1"]


def test_without_the_sandbox_the_same_bot_reads_pidfs_numbers(play_hostile: PlayMatch) -> None:
    # The control: unsandboxed, pidfd_open gives the bot a pidfd, whose inode number it reads.
    report = play_hostile("pidfd-partners", "scopone", sandbox=False)
    logs = "".join(report.logs[key] for key in report.logs if key.startswith("0/"))
    assert "RECEIVED pidfd_open" in logs, logs[-3000:]
