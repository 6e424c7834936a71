"""The sandbox's system-call filter is an allow-list, and it reads arguments as the kernel does.

These tests compile the runner's own policy, load it into a child process
(``seccomp_probe.py``) and make every system call number of the architecture, then every other
value of each multiplexer the policy allows for some values (``fcntl`` commands, ``ioctl``
requests, ``prctl`` options, socket levels and options, ``madvise`` and ``fadvise64`` advice,
``preadv2``/``pwritev2`` flags, ``clone`` flags one by one, socket families, types and
protocols), with and without high bits in the inspected argument: each is refused unless the
policy allows it. What the policy allows is computed from its rules by :func:`decide` (the
rules' own meaning, compared with 64-bit registers), so the tests check the compiled program
against the rules, and the rules against the lists docs/SECURITY.md states.
"""

from __future__ import annotations

import errno
import functools
import json
import shutil
import signal
import subprocess
import sys
import tempfile
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

NUMBERS = range(0, 600)
"""Every system call number of x86_64 (456 is the highest libseccomp names here, Linux 6.18's
is below 470), and room above: a number the kernel adds later is refused like any other."""
FOREIGN = (0x4000_0000 + 39, 0x4000_0000 + 512)
"""x32 numbers (``__X32_SYSCALL_BIT``): another architecture's calls, which kill."""

SKIPPED = {
    "exit": "ends the process that makes it (the probe's own end, allowed)",
    "exit_group": "ends the process that makes it (the probe's own end, allowed)",
    "rt_sigreturn": "restores a signal frame that is not there: the child dies of SIGSEGV",
    "pause": "waits for a signal that never comes",
    "vfork": "its child runs on the probe's own stack and memory until it ends",
}
"""System calls the sweep does not make, each allowed (the test checks that), and why."""

SPECIAL_ARGUMENTS: dict[str, list[Any]] = {
    # With null time-outs these three wait for ever; a zero time-out returns at once.
    "select": [0, 0, 0, 0, "timeval0", 0],
    "pselect6": [0, 0, 0, 0, "timespec0", 0],
    "ppoll": [0, 0, "timespec0", 0, 8, 0],
}
"""The arguments of calls that would block with all-zero ones (the rest get six zeros)."""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runner's filter, compiled, in a file."""
    problem = seccomp.filter_problem()
    require(problem is None, f"libseccomp ({problem})")
    path = tmp_path_factory.mktemp("seccomp") / "filter.bpf"
    path.write_bytes(seccomp.compile_policy())
    return path


def run_probes(
    filter_file: Path | None, probes: list[tuple[str, list[Any]]], *, inline: bool = False
) -> list[dict[str, int]]:
    """How each probe ended in a child process with the filter (None: without it); with
    ``inline``, each made in the probe process itself (calls that cannot end it)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as listing:
        json.dump([[name, args, inline] for name, args in probes], listing)
        listing.flush()
        done = subprocess.run(
            [sys.executable, str(PROBE), str(filter_file) if filter_file else "-", listing.name],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(results) == len(probes), done.stdout
    return results


def numbers_of() -> dict[int, str]:
    """The names of this architecture's system calls, by number (those libseccomp knows)."""
    import ctypes

    lib = seccomp._library()
    lib.seccomp_syscall_resolve_num_arch.argtypes = [ctypes.c_uint32, ctypes.c_int]
    lib.seccomp_syscall_resolve_num_arch.restype = ctypes.c_char_p
    names = {}
    for number in NUMBERS:
        name = lib.seccomp_syscall_resolve_num_arch(0, number)  # 0: this architecture
        if name:
            names[number] = name.decode()
    return names


def _holds(condition: tuple[int, int, int, int], args: list[Any]) -> bool:
    arg, op, a, b = condition
    value = args[arg] if arg < len(args) else 0
    assert isinstance(value, int), f"a rule inspects argument {arg}, which the probe makes"
    value &= 0xFFFFFFFFFFFFFFFF
    if op == seccomp._CMP_MASKED_EQ:
        return value & a == b
    assert op == seccomp._CMP_GT, condition
    return value > a


@functools.cache
def rules_of(name: str) -> tuple[seccomp.Rule, ...]:
    """The policy's rules for the system call ``name``."""
    return tuple(rule for rule in seccomp.policy() if rule.syscall == name)


def decide(name: str, args: list[Any]) -> set[int]:
    """The actions the policy's rules give ``name(*args)`` (the default when none matches)."""
    actions = {
        rule.action
        for rule in rules_of(name)
        if all(_holds(condition, args) for condition in rule.conditions)
    }
    return actions or {seccomp.errno_action(seccomp.DEFAULT_ERRNO)}


def refused(got: dict[str, int], action: int) -> bool:
    """Whether ``got`` is how a call refused with ``action`` ends."""
    if action == seccomp.ACT_KILL_PROCESS:
        return got == {"signal": int(signal.SIGSYS)}
    return got == {"result": -1, "errno": action & 0xFFFF}


def let_through(got: dict[str, int]) -> bool:
    """Whether the call reached the kernel: not killed by the filter, not ``ENOSYS``."""
    return got.get("signal") != signal.SIGSYS and got.get("errno") != errno.ENOSYS


def holes(
    probes: list[tuple[str, list[Any]]], results: list[dict[str, int]]
) -> list[tuple[Any, ...]]:
    """The probes that did not end as the policy says: refused when allowed, or let through
    (or refused otherwise) when refused."""
    wrong = []
    for (name, args), got in zip(probes, results, strict=True):
        actions = decide(name, args)
        if seccomp.ACT_ALLOW in actions:
            if not let_through(got):
                wrong.append((name, args, got, "allowed, but refused"))
        elif not any(refused(got, action) for action in actions):
            wrong.append((name, args, got, f"refused ({sorted(actions)}), but not so"))
    return wrong


def test_every_system_call_number_is_refused_unless_on_the_list(compiled: Path) -> None:
    names = numbers_of()
    probes: list[tuple[str, list[Any]]] = []
    for number in NUMBERS:
        name = names.get(number)
        if name in SKIPPED:
            continue
        args = SPECIAL_ARGUMENTS.get(name or "", [0, 0, 0, 0, 0, 0])
        probes.append((name or f"#{number}", args))
    beyond = beyond_any_filter(compiled.parent, probes)
    probes = [probe for probe in probes if probe[0] not in beyond]
    results = run_probes(compiled, probes)
    wrong = holes(probes, results)
    assert wrong == [], f"{len(wrong)} of {len(probes)} calls: {wrong[:8]}"
    allowed = {
        name
        for (name, args), got in zip(probes, results, strict=True)
        if seccomp.ACT_ALLOW in decide(name, args)
    }
    # What the sweep let through with all-zero arguments is the list, and the multiplexers
    # whose zero value is allowed (each swept below); the rest of them refuse a zero.
    listed = set(seccomp.ALLOWED) | set(seccomp.SEALED) - {"socket", "socketpair"}
    zero_allowed = {"clone", "fcntl", "madvise", "fadvise64", "preadv2", "pwritev2"}
    assert allowed == (listed | zero_allowed) & set(names.values()) - set(SKIPPED)
    assert set(SKIPPED) <= set(seccomp.ALLOWED)
    # Numbers without a name here (the newest calls, and numbers no call has yet) are refused.
    unnamed = [got for (name, _), got in zip(probes, results, strict=True) if name[0] == "#"]
    assert len(unnamed) > 100
    assert all(got == {"result": -1, "errno": errno.ENOSYS} for got in unnamed)


def beyond_any_filter(folder: Path, probes: list[tuple[str, list[Any]]]) -> set[str]:
    """The probes' calls that a filter killing every call does not stop: numbers a host's
    kernel answers before it consults seccomp (no Linux system call; on the development
    virtual machine, 335 and 336 answer SIGILL and ENXIO with any filter and without one).
    Only unnamed numbers are asked: a named call is never left out.
    No filter can refuse them, so the sweep leaves them out, and says so here."""
    marked = folder / "marked.bpf"  # the policy, but its default error is one of its own
    mark = errno.ENOTRECOVERABLE
    marked.write_bytes(seccomp.compile_policy(default=seccomp.errno_action(mark)))
    unnamed = [probe for probe in probes if probe[0].startswith("#")]
    results = run_probes(marked, unnamed)
    beyond = {
        name
        for (name, _), got in zip(unnamed, results, strict=True)
        if got != {"result": -1, "errno": mark}
    }
    assert len(beyond) <= 4, beyond
    return beyond


def test_another_architectures_calls_kill(compiled: Path) -> None:
    results = run_probes(compiled, [(f"#{number}", [0] * 6) for number in FOREIGN])
    assert results == [{"signal": int(signal.SIGSYS)}] * len(FOREIGN)


def test_pidfds_page_cache_and_counters_are_refused_by_name(compiled: Path) -> None:
    # The calls docs/SECURITY.md names, each with the error it states.
    probes: list[tuple[str, list[Any]]] = [
        ("pidfd_open", [1, 0]),
        ("clone", [SIGCHLD | seccomp.CLONE_PIDFD, 0, 0, 0, 0]),
        ("clone3", [0, 0]),
        ("getsockopt", ["socket", seccomp.SOL_SOCKET, seccomp.SO_PEERPIDFD, "buffer", "length"]),
        ("getsockopt", ["socket", seccomp.SOL_SOCKET, seccomp.SO_PEERCRED, "buffer", "length"]),
        ("setsockopt", ["socket", seccomp.SOL_SOCKET, seccomp.SO_PASSPIDFD, "buffer", 4]),
        ("setsockopt", ["socket", seccomp.SOL_SOCKET, seccomp.SO_PASSCRED, "buffer", 4]),
        ("getsockopt", ["socket", seccomp.SOL_SOCKET, seccomp.SO_COOKIE, "buffer", "length"]),
        ("fadvise64", ["fd", 0, 0, 4]),  # POSIX_FADV_DONTNEED
        ("fadvise64", ["fd", 0, 0, 3]),  # POSIX_FADV_WILLNEED
        ("preadv2", ["fd", "buffer", 0, 0, 0, 8]),  # RWF_NOWAIT
        ("readahead", ["fd", 0, 4096]),
        ("mincore", [0, 4096, "buffer"]),
        ("mlock", [0, 4096]),
        ("madvise", [0, 4096, 21]),  # MADV_PAGEOUT
        ("statfs", [0, "buffer"]),
        ("fstatfs", ["fd", "buffer"]),
        ("sysinfo", ["buffer"]),
        ("io_setup", [1, "pair"]),
        ("memfd_secret", [0]),
    ]
    results = run_probes(compiled, probes)
    enoprotoopt = {"result": -1, "errno": errno.ENOPROTOOPT}
    enosys = {"result": -1, "errno": errno.ENOSYS}
    assert results == [
        enosys,
        {"result": -1, "errno": errno.EINVAL},
        enosys,
        enoprotoopt,
        enoprotoopt,
        enoprotoopt,
        enoprotoopt,
        enoprotoopt,
        *[enosys] * 12,
    ]


def sweep(
    call: str,
    template: list[Any],
    index: int,
    values: list[int],
    highs: tuple[int, ...] = HIGH_BITS,
) -> list[Any]:
    """``call`` with each of ``values`` (and each with ``highs``) as argument ``index``."""
    probes = []
    for value in values:
        for high in highs:
            args = list(template)
            args[index] = value | high
            probes.append((call, args))
    return probes


def ioctl_requests() -> list[int]:
    """Requests from the kernel headers' common ranges: the terminal and ``FIO*`` ones
    (0x54xx), the socket ones (0x89xx), and ``_IOC(dir, type, nr, size)`` for the file-system
    ('f', 0x94, 'X'), namespace (0xb7), pidfd (0xff), seccomp ('!'), block (0x12) and
    ``FS_IOC_GETVERSION`` ('v') types."""
    requests = list(range(0x5400, 0x5500)) + list(range(0x8900, 0x8A00))
    for kind in (ord("f"), 0x94, ord("X"), 0xB7, 0xFF, ord("!"), 0x12, ord("v")):
        for number in range(64):
            for direction in (0, 1, 2, 3):
                for size in (0, 4, 8, 0x50):
                    requests.append((direction << 30) | (size << 16) | (kind << 8) | number)
    return requests


def test_each_multiplexer_allows_only_its_listed_values(compiled: Path) -> None:
    probes: list[tuple[str, list[Any]]] = []
    probes += sweep("fcntl", ["scratch", 0, 0], 1, [*range(0, 80), *range(1024, 1100)])
    probes += sweep("ioctl", ["scratch", 0, "buffer"], 1, ioctl_requests(), HIGH_BITS[:3])
    special = [seccomp.PR_SET_VMA, 0x59616D61, 0x41555856]  # PR_SET_PTRACER, PR_GET_AUXV
    probes += sweep("prctl", [0, 0, 0, 0, 0], 0, [*range(0, 81), *special])
    for call in ("getsockopt", "setsockopt"):
        last: Any = "length" if call == "getsockopt" else 4
        options = ["socket", seccomp.SOL_SOCKET, 0, "buffer", last]
        probes += sweep(call, options, 2, list(range(0, 81)))
        probes += sweep(call, ["socket", 0, 1, "buffer", last], 1, list(range(0, 300)))
    probes += sweep("fadvise64", ["scratch", 0, 0, 0], 3, list(range(0, 12)))
    probes += sweep("madvise", [0, 0, 0], 2, [*range(0, 30), *range(100, 110)])
    rwf = [0, *(1 << bit for bit in range(32))]
    probes += sweep("preadv2", ["scratch", "buffer", 0, 0, 0, 0], 5, rwf)
    probes += sweep("pwritev2", ["scratch", "buffer", 0, 0, 0, 0], 5, rwf)
    probes += sweep("socket", [0, SOCK_STREAM, 0], 0, list(range(0, 64)))
    probes += sweep("socketpair", [0, SOCK_STREAM, 0, "pair"], 0, list(range(0, 64)))
    for family in (AF_UNIX, seccomp.AF_NETLINK):
        probes += sweep("socket", [family, 0, 0], 1, list(range(0, 16)))
        probes += sweep("socket", [family, SOCK_RAW, 0], 2, list(range(0, 32)))
        probes += sweep("socket", [family, 2, 0], 2, list(range(0, 32)))
    results = run_probes(compiled, probes, inline=True)
    wrong = holes(probes, results)
    assert wrong == [], f"{len(wrong)} of {len(probes)} calls: {wrong[:8]}"
    # What the rules allow of each sweep (the filter does as they say: above) is what the
    # lists say, and nothing else.
    passed: dict[str, set[int]] = {}
    for name, args in probes:
        index = {"fcntl": 1, "ioctl": 1, "prctl": 0, "fadvise64": 3, "madvise": 2}.get(name)
        if index is not None and seccomp.ACT_ALLOW in decide(name, args):
            passed.setdefault(name, set()).add(args[index] & seccomp.LOW_32_BITS)
    assert passed["fcntl"] == set(seccomp.FCNTL_COMMANDS)
    assert passed["ioctl"] == set(seccomp.IOCTL_REQUESTS)
    assert passed["prctl"] == set(seccomp.PRCTL_OPTIONS)
    assert passed["fadvise64"] == set(seccomp.FADVISE_ADVICE)
    assert passed["madvise"] == set(seccomp.MADVISE_ADVICE)


def test_clone_flags_one_by_one(compiled: Path) -> None:
    # Each flag with the exit signal, in a child of its own (a clone that goes through makes a
    # process that runs on in the probe's code; see seccomp_probe.CHILD_RETURNS).
    probes: list[tuple[str, list[Any]]] = []
    for bit in range(8, 32):
        for high in (0, 1 << 32):
            probes.append(("clone", [SIGCHLD | (1 << bit) | high, 0, 0, 0, 0]))
    results = run_probes(compiled, probes)
    wrong = holes(probes, results)
    assert wrong == [], wrong
    through = {
        args[0] & seccomp.LOW_32_BITS & ~0xFF
        for (name, args), got in zip(probes, results, strict=True)
        if seccomp.ACT_ALLOW in decide(name, args) and let_through(got)
    }
    assert through == {flag for flag in seccomp.CLONE_FLAGS.values() if flag != 0xFF}
    killed = {
        args[0] & ~SIGCHLD & seccomp.LOW_32_BITS
        for (_, args), got in zip(probes, results, strict=True)
        if got == {"signal": int(signal.SIGSYS)}
    }
    assert killed == set(seccomp.CLONE_NAMESPACE_FLAGS.values())


def call_for(rule: seccomp.Rule, high: int) -> tuple[str, list[Any]]:
    """The system call that a refusing ``rule`` guards, with ``high`` ORed into every inspected
    argument, and every other argument one the kernel would accept."""
    if rule.syscall in {"getsockopt", "setsockopt"}:
        (_, _, _, level), (_, _, _, name) = rule.conditions
        last: Any = "length" if rule.syscall == "getsockopt" else 4
        return rule.syscall, ["socket", level | high, name | high, "buffer", last]
    if len(rule.conditions) == 2:  # a NETLINK_SOCK_DIAG socket
        assert rule.syscall in {"socket", "socketpair"}
        return rule.syscall, [
            seccomp.AF_NETLINK | high,
            SOCK_RAW,
            seccomp.NETLINK_SOCK_DIAG | high,
            *(["pair"] if rule.syscall == "socketpair" else []),
        ]
    assert len(rule.conditions) == 1, rule
    _, op, mask_or_value, value = rule.conditions[0]
    guarded = mask_or_value + 1 if op == seccomp._CMP_GT else value
    inspected = guarded | high
    if rule.syscall == "clone":
        return "clone", [inspected | SIGCHLD, 0, 0, 0, 0]
    if rule.syscall == "fcntl":
        if guarded == seccomp.F_NOTIFY:
            return "fcntl", ["dirfd", inspected, DN_ACCESS]
        if guarded == seccomp.F_SETLEASE:
            return "fcntl", ["fd", inspected, F_RDLCK]
        return "fcntl", ["fd", inspected, "flock"]
    if rule.syscall == "socket":
        return "socket", [inspected, SOCK_STREAM, 0]
    if rule.syscall == "socketpair":
        return "socketpair", [inspected, SOCK_STREAM, 0, "pair"]
    raise AssertionError(f"no probe for a rule on {rule.syscall}: add one to this test")


def refusing_rules() -> list[seccomp.Rule]:
    """Every rule that refuses some values of an argument, of a call this machine has."""
    rules = [
        rule
        for rule in seccomp.policy()
        if rule.conditions and rule.action not in {seccomp.ACT_ALLOW, seccomp.ACT_NOTIFY}
    ]
    return [rule for rule in rules if rule.syscall != "fcntl64"]  # 32-bit architectures only


def test_every_refusing_rule_holds_whatever_the_high_bits(compiled: Path) -> None:
    rules = refusing_rules()
    assert {rule.syscall for rule in rules} == {
        "clone",
        "fcntl",
        "socket",
        "socketpair",
        "getsockopt",
        "setsockopt",
    }
    probes, wanted = [], []
    for rule in rules:
        for high in HIGH_BITS:
            probes.append(call_for(rule, high))
            wanted.append(rule.action)
    results = run_probes(compiled, probes)
    wrong = [
        (probe, got)
        for probe, got, action in zip(probes, results, wanted, strict=True)
        if not refused(got, action)
    ]
    assert wrong == [], f"{len(wrong)} of {len(probes)} calls were not refused: {wrong[:5]}"


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
            ("fadvise64", ["fd", 0, 0, 4 | high]),  # POSIX_FADV_DONTNEED
            ("getsockopt", ["socket", 1 | high, seccomp.SO_PEERCRED | high, "buffer", "length"]),
        ]
    results = run_probes(None, probes)
    not_taken = [
        (probe, got)
        for probe, got in zip(probes, results, strict=True)
        if got.get("result", -1) < 0
    ]
    assert not_taken == []


def test_the_filter_still_lets_a_bot_run(compiled: Path) -> None:
    probes: list[tuple[str, list[Any]]] = [
        ("socket", [AF_UNIX, SOCK_STREAM, 0]),
        ("socket", [AF_UNIX, SOCK_STREAM | 0x80800, 0]),  # SOCK_NONBLOCK | SOCK_CLOEXEC
        ("socketpair", [AF_UNIX, SOCK_STREAM, 0, "pair"]),
        ("fcntl", ["fd", 3, 0]),  # F_GETFL
        ("fcntl", ["fd", 3 | 1 << 32, 0]),  # the kernel reads F_GETFL
        ("clone", [SIGCHLD, 0, 0, 0, 0]),  # fork
        ("getsockopt", ["socket", seccomp.SOL_SOCKET, 8, "buffer", "length"]),  # SO_RCVBUF
        ("ioctl", ["fd", 0x5451, 0]),  # FIOCLEX
        ("prctl", [16, "buffer", 0, 0, 0]),  # PR_GET_NAME
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


RUNTIME = """
import asyncio, multiprocessing, os, shutil, socket, subprocess, sys, tempfile, threading
sys.path.insert(0, sys.argv[2])
import seccomp_probe
with open(sys.argv[1], "rb") as handle:
    seccomp_probe.load_filter(handle.read())
said = []
said.append(subprocess.run(["echo", "subprocess"], capture_output=True, text=True).stdout)
thread = threading.Thread(target=lambda: said.append("thread"))
thread.start()
thread.join()
async def main():
    await asyncio.sleep(0)
    return "asyncio"
said.append(asyncio.run(main()))
with multiprocessing.Pool(2) as pool:
    said.append(f"pool {pool.map(abs, [-1, -2])}")
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "a"), "w") as handle:
    handle.write("x")
shutil.copy(os.path.join(folder, "a"), os.path.join(folder, "b"))
os.symlink("a", os.path.join(folder, "c"))
shutil.rmtree(folder)
said.append("files")
os.nice(1)
said.append(f"getaddrinfo {socket.getaddrinfo('localhost', 80)[0][4][0]}")
if shutil.which("node"):
    script = "console.log('node', require('os').cpus().length > 0)"
    said.append(subprocess.run(["node", "-e", script], capture_output=True, text=True).stdout)
print(" ".join(part.strip() for part in said))
"""
"""What bots' runtimes do, made under the filter: a subprocess, a thread, asyncio, a process
pool (pipes, semaphores in /dev/shm), files and links in a temporary folder, ``os.nice``, a
name lookup (netlink), and node when the host has it."""


def test_a_runtime_under_the_filter_does_what_bots_do(compiled: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", RUNTIME, str(compiled), str(PROBE.parent)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.split()
    for word in ("subprocess", "thread", "asyncio", "files", "127.0.0.1"):
        assert word in said, done.stdout
    assert "[1, 2]" in done.stdout
    if shutil.which("node"):
        assert "node true" in done.stdout


def test_every_allowed_call_is_in_this_section() -> None:
    # docs/SECURITY.md, "The system-call allow-list", names every allowed call and every
    # allowed value of a multiplexer.
    docs = Path(__file__).resolve().parents[2] / "docs" / "SECURITY.md"
    text = docs.read_text(encoding="utf-8")
    section = text.split("### The system-call allow-list", 1)[1].split("\n### ", 1)[0]
    names = [
        *seccomp.ALLOWED,
        *seccomp.SEALED,
        *seccomp.FCNTL_COMMANDS.values(),
        *seccomp.IOCTL_REQUESTS.values(),
        *seccomp.PRCTL_OPTIONS.values(),
        *seccomp.MADVISE_ADVICE.values(),
        *seccomp.FADVISE_ADVICE.values(),
        *(name for name in seccomp.CLONE_FLAGS if name != "CSIGNAL"),
    ]
    options = [
        name
        for name in seccomp.SOCKET_OPTIONS.values()
        if not name.startswith(("SO_RCVTIMEO", "SO_SNDTIMEO"))  # "the four time-outs"
    ]
    missing = [name for name in [*names, *options] if f"`{name}`" not in section]
    assert missing == []
