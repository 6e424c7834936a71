"""The sandbox's system-call filter holds whatever a bot puts in the high half of a register.

The kernel reads ``fcntl``'s command, ``socket``'s family and ``clone``'s flags as 32-bit
values; a filter comparing all 64 bits would let ``fcntl(fd, (1 << 32) | F_SETLK)`` through.
These tests compile the runner's own policy, load it into a child process
(``seccomp_probe.py``) and make every call a rule guards with the guarded value and with high
bits set in the inspected argument; the same calls without the filter are the control.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import require

from arena.runner import seccomp

PROBE = Path(__file__).resolve().parent / "seccomp_probe.py"

HIGH_BITS = (0, 1 << 32, 0xFFFFFFFF << 32, 1 << 63, 0x5CA0_0000 << 32)
"""What a hostile bot may put in the high half of an inspected argument (0: the plain call)."""

SIGCHLD = 17
SOCK_STREAM, SOCK_RAW = 1, 3
DN_ACCESS = 1
F_RDLCK = 0
AF_UNIX, AF_INET, AF_INET6 = 1, 2, 10


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runner's filter, compiled, in a file."""
    problem = seccomp.filter_problem()
    require(problem is None, f"libseccomp ({problem})")
    path = tmp_path_factory.mktemp("seccomp") / "filter.bpf"
    path.write_bytes(seccomp.compile_policy())
    return path


def run_probes(
    filter_file: Path | None, probes: list[tuple[str, list[Any]]]
) -> list[dict[str, int]]:
    """How each probe ended in a child process with the filter (None: without it)."""
    done = subprocess.run(
        [sys.executable, str(PROBE), str(filter_file) if filter_file else "-", json.dumps(probes)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(probes), done.stdout
    return results


def call_for(rule: seccomp.Rule, high: int) -> tuple[str, list[Any]]:
    """The system call that ``rule`` guards, with ``high`` ORed into every inspected argument,
    and every other argument one the kernel would accept."""
    if rule.syscall == "getsockopt":  # SOL_SOCKET and SO_COOKIE
        assert [(arg, value) for arg, _, _, value in rule.conditions] == [
            (1, seccomp.SOL_SOCKET),
            (2, seccomp.SO_COOKIE),
        ]
        return "getsockopt", [
            "socket",
            seccomp.SOL_SOCKET | high,
            seccomp.SO_COOKIE | high,
            "pair",
            "length",
        ]
    if len(rule.conditions) == 2:  # a NETLINK_SOCK_DIAG socket
        assert rule.syscall in {"socket", "socketpair"}
        assert [(arg, value) for arg, _, _, value in rule.conditions] == [
            (0, seccomp.AF_NETLINK),
            (2, seccomp.NETLINK_SOCK_DIAG),
        ]
        return rule.syscall, [
            seccomp.AF_NETLINK | high,
            SOCK_RAW,
            seccomp.NETLINK_SOCK_DIAG | high,
            *(["pair"] if rule.syscall == "socketpair" else []),
        ]
    assert len(rule.conditions) == 1, rule
    arg, op, mask_or_value, value = rule.conditions[0]
    if op == seccomp._CMP_GT:  # the family backstop: any value above the bound
        guarded = mask_or_value + 1
    else:
        assert op == seccomp._CMP_MASKED_EQ
        guarded = value
    inspected = guarded | high
    if rule.syscall == "clone":
        assert arg == 0
        return "clone", [inspected | SIGCHLD, 0, 0, 0, 0]
    if rule.syscall == "fcntl":
        assert arg == 1
        if guarded == seccomp.F_NOTIFY:
            return "fcntl", ["dirfd", inspected, DN_ACCESS]
        if guarded == seccomp.F_SETLEASE:
            return "fcntl", ["fd", inspected, F_RDLCK]
        return "fcntl", ["fd", inspected, "flock"]
    if rule.syscall == "socket":
        assert arg == 0
        return "socket", [inspected, SOCK_STREAM, 0]
    if rule.syscall == "socketpair":
        assert arg == 0
        return "socketpair", [inspected, SOCK_STREAM, 0, "pair"]
    raise AssertionError(f"no probe for a rule on {rule.syscall}: add one to this test")


def expected(rule: seccomp.Rule) -> dict[str, int]:
    if rule.action == seccomp.ACT_KILL_PROCESS:
        return {"signal": int(signal.SIGSYS)}
    return {"result": -1, "errno": rule.action & 0xFFFF}


def guarded_rules() -> list[seccomp.Rule]:
    """Every rule with a condition on an argument, of a system call this machine has."""
    rules = [rule for rule in seccomp.policy() if rule.conditions]
    return [rule for rule in rules if rule.syscall != "fcntl64"]  # 32-bit architectures only


def test_every_guarded_call_is_refused_whatever_the_high_bits(compiled: Path) -> None:
    rules = guarded_rules()
    assert {rule.syscall for rule in rules} == {
        "clone",
        "fcntl",
        "socket",
        "socketpair",
        "getsockopt",
    }
    probes, wanted = [], []
    for rule in rules:
        for high in HIGH_BITS:
            probes.append(call_for(rule, high))
            wanted.append(expected(rule))
    results = run_probes(compiled, probes)
    holes = [
        (probe, got)
        for probe, got, want in zip(probes, results, wanted, strict=True)
        if got != want
    ]
    assert holes == [], f"{len(holes)} of {len(probes)} calls were not refused: {holes[:5]}"


def test_without_the_filter_the_kernel_takes_the_same_calls_high_bits_and_all() -> None:
    # The control: the probes are calls the kernel accepts, reading only the low 32 bits, so
    # a filter comparing 64 bits would let them through.
    probes: list[tuple[str, list[Any]]] = []
    for high in HIGH_BITS:
        probes += [
            ("fcntl", ["fd", seccomp.F_SETLK | high, "flock"]),
            ("fcntl", ["fd", seccomp.F_OFD_SETLK | high, "flock"]),
            ("fcntl", ["fd", seccomp.F_SETLEASE | high, F_RDLCK]),
            ("fcntl", ["dirfd", seccomp.F_NOTIFY | high, DN_ACCESS]),
            ("socket", [AF_INET | high, SOCK_STREAM, 0]),
            ("socket", [AF_INET6 | high, SOCK_STREAM, 0]),
        ]
    results = run_probes(None, probes)
    refused = [
        (probe, got)
        for probe, got in zip(probes, results, strict=True)
        if got.get("result", -1) < 0
    ]
    assert refused == []


def test_the_filter_still_lets_a_bot_run(compiled: Path) -> None:
    probes: list[tuple[str, list[Any]]] = [
        ("socket", [AF_UNIX, SOCK_STREAM, 0]),
        ("socketpair", [AF_UNIX, SOCK_STREAM, 0, "pair"]),
        ("fcntl", ["fd", 3, 0]),  # F_GETFL
        ("clone", [SIGCHLD, 0, 0, 0, 0]),  # fork
    ]
    for result in run_probes(compiled, probes):
        assert result.get("result", -1) >= 0, result


def test_inet_sockets_and_linux_aio_are_refused(compiled: Path) -> None:
    probes: list[tuple[str, list[Any]]] = [
        ("socket", [AF_INET, SOCK_STREAM, 0]),
        ("socket", [AF_INET6, 2, 0]),  # SOCK_DGRAM
        ("io_setup", [1, "pair"]),
    ]
    results = run_probes(compiled, probes)
    assert results[0] == results[1] == {"result": -1, "errno": errno.EAFNOSUPPORT}
    assert results[2] == {"result": -1, "errno": errno.ENOSYS}
