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

import ctypes
import errno
import functools
import re
import signal

import pytest
from hostile_helpers import PlayMatch, require

from arena.runner import seccomp
from arena.runner.process import fork_server

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


@functools.cache
def call_names() -> dict[int, str]:
    """The names of this architecture's system calls that libseccomp knows, by number."""
    lib = seccomp._library()
    lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_char_p
    names = {}
    for number in range(1024):
        name = lib.seccomp_syscall_resolve_num_arch(0, number)  # 0: this architecture
        if name:
            names[number] = name.decode()
    return names


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


def expected_refusal(number: int) -> int | None:
    """The action the policy takes for call ``number`` with all-zero arguments, None when it
    lets the call through."""
    name = call_names().get(number)
    if name is None or (name in seccomp.SEALED and name not in {"socket", "socketpair"}):
        # (a forked seat's game runs sealed: the calls of SEALED fail with ENOSYS)
        return seccomp.errno_action(seccomp.DEFAULT_ERRNO)
    actions = {
        rule.action
        for rule in seccomp.policy()
        if rule.syscall == name and all(value == 0 for _, _, _, value in rule.conditions)
        # (with zero arguments a condition holds when it asks for zero bits)
    }
    if not actions:
        return seccomp.errno_action(seccomp.DEFAULT_ERRNO)
    if seccomp.ACT_ALLOW in actions:
        return None
    (action,) = actions
    return action


def test_a_sealed_seat_finds_every_call_number_refused_unless_on_the_list(
    play_hostile: PlayMatch,
) -> None:
    # The sample in the real sandbox (tests/runner/test_seccomp.py sweeps every number and
    # every multiplexer value in a child under the compiled filter).
    require(fork_server() is not None, "forked seats (a root runner), sealed at their game")
    report = play_hostile("syscall-sweeper", "scopone", games=2)
    for game in report.games:
        assert game.faults == [] and game.forfeit is None, game.faults
    log = report.logs["0/0"]
    assert "SWEPT" in log, log[-2000:]
    seen = {
        int(number): (how, int(value))
        for number, how, value in re.findall(r"CALL (\d+) (errno|signal) (\d+)", log)
    }
    assert len(seen) >= 470
    wrong, beyond = [], []
    for number, got in sorted(seen.items()):
        action = expected_refusal(number)
        if action is None:
            if got in {("signal", signal.SIGSYS), ("errno", errno.ENOSYS)}:
                wrong.append((number, got, "allowed, but refused"))
        elif action == seccomp.ACT_KILL_PROCESS:
            if got != ("signal", signal.SIGSYS):
                wrong.append((number, got, "killed"))
        elif got != ("errno", action & 0xFFFF):
            if number not in call_names():
                beyond.append(number)  # no Linux call: a host's own (see test_seccomp.py)
            else:
                wrong.append((number, got, f"refused with {action & 0xFFFF}"))
    assert wrong == [], wrong
    assert len(beyond) <= 4, beyond
