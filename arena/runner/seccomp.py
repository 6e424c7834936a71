"""The system-call filter of a bot's sandbox, compiled to BPF by libseccomp.

bubblewrap loads a compiled filter from a file descriptor (``bwrap --seccomp FD``). This
module writes the policy below with the machine's own libseccomp (the library that systemd,
Docker and Flatpak use to compile theirs), through a small :mod:`ctypes` binding, and returns the
BPF program as bytes. It does not start processes (see :mod:`arena.runner.sandbox`).

The policy is a deny-list on top of what the sandbox already forbids (no capabilities, no
network, no other filesystem), aimed at two things:

- *The kernel's attack surface.* Calls a card-playing bot has no use for and that have a
  record of privilege escalations: new namespaces (``unshare``, ``setns``, ``clone`` with a
  namespace flag), mounts, ``ptrace`` and cross-process memory, keyrings, ``bpf``,
  ``perf_event_open``, ``userfaultfd``, module and ``kexec`` loading, and the like. Making one
  kills the whole bot (``SIGSYS``): the runner records a ``forbidden`` fault. ``clone3`` and
  ``io_uring`` answer ``ENOSYS`` instead, so that the C library and libuv fall back to
  ``clone`` and plain system calls, as they do on older kernels.
- *Channels between seats.* Two sandboxes still see some of the same files (``/usr``, the
  interpreter). File locks on them (``flock``, ``fcntl`` record and open-file-description
  locks, leases) and inotify/dnotify watches would let one seat signal another through a file
  both can open; they fail with ``ENOLCK`` / ``ENOSYS`` / ``EPERM``. Host-wide counters a seat
  could move for another to read fail at the call that would move them: ``sysinfo`` (memory and
  process counts) and Linux AIO (``io_setup`` and the rest, counted in
  ``/proc/sys/fs/aio-nr``) with ``ENOSYS``. Sockets of any family but unix and netlink fail
  with ``EAFNOSUPPORT``: a bot binds a unix socket, and without IPv4 and IPv6 it cannot move
  TCP's and UDP's host-wide counters (``/proc/net/sockstat``'s ``alloc`` and ``mem``,
  ``/proc/net/protocols``' memory, the per-CPU packet counts of ``softnet_stat``), while
  ``AF_VSOCK`` would reach a virtual machine's host whatever the network namespace.

Numbers from counters of the whole host: pidfds (``pidfd_open``, ``clone`` with
``CLONE_PIDFD``), secret memfds and message queues fail, and so do a socket's cookie
(``SO_COOKIE``) and ``NETLINK_SOCK_DIAG`` sockets, whose dumps give cookies. A forked seat's
filter is *supervised* (``policy(supervised=True)``): the calls that make pipes, sockets and
memfds (:data:`SEALED`), whose inode numbers come from such a counter, are asked of the runner
(``SECCOMP_RET_USER_NOTIF``), which lets them through while the seat starts and closes the
listener when its game begins: the kernel then refuses them with ``ENOSYS``
(:mod:`arena.runner.seal`).

Every argument a rule inspects is compared the way the kernel reads it: ``fcntl``'s command,
``socket``'s family and ``clone``'s flags are 32-bit values to the kernel (``unsigned int``,
``int``, and the low half of ``unsigned long`` for ``clone``), while libseccomp compares all 64
bits of a register. So each condition masks the low 32 bits (``SCMP_CMP_MASKED_EQ`` with
``0xFFFFFFFF``, or with the flag itself for ``clone``): ``fcntl(fd, (1 << 32) | F_SETLK)`` is
refused like ``F_SETLK``. ``tests/runner/test_seccomp.py`` loads the compiled filter into a
child process and makes every guarded call with high bits set in each inspected argument.

System calls of another architecture (32-bit ``int 0x80``, x32) kill the process: a filter
only speaks for the architecture it was compiled for.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os
import tempfile
from dataclasses import dataclass

# Actions (seccomp.h).
ACT_KILL_PROCESS = 0x80000000
ACT_ALLOW = 0x7FFF0000
ACT_NOTIFY = 0x7FC00000
_ACT_ERRNO = 0x00050000

# Comparison operators of struct scmp_arg_cmp.
_CMP_GT = 6
_CMP_MASKED_EQ = 7

LOW_32_BITS = 0xFFFFFFFF
"""The kernel reads ``int`` and ``unsigned int`` arguments from the low half of a register."""

_ATTR_ACT_BADARCH = 2

CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

# fcntl commands that take or wait for a lock, take a lease or set a directory watch.
F_SETLK, F_SETLKW, F_OFD_SETLK, F_OFD_SETLKW = 6, 7, 37, 38
F_SETLEASE, F_NOTIFY = 1024, 1026

FORBIDDEN = (
    # namespaces and mounts
    "unshare",
    "setns",
    "mount",
    "umount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    # other processes' memory
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    # kernel subsystems a bot has no use for
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "fanotify_init",
    "open_by_handle_at",
    "name_to_handle_at",
    "lookup_dcookie",
    # the machine itself
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "syslog",
    "quotactl",
    "quotactl_fd",
    "iopl",
    "ioperm",
    "vm86",
    "vm86old",
    "uselib",
    "nfsservctl",
    "_sysctl",
    "vhangup",
)
"""System calls that kill the bot (``SIGSYS``): the runner records a ``forbidden`` fault."""

NOT_IMPLEMENTED = (
    "clone3",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
    "sysinfo",
    # Linux AIO: each context counts in the host-wide /proc/sys/fs/aio-nr
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    # descriptors whose inode numbers come from host-wide counters (pidfs, the secret memory
    # and message queue file systems), which a bot has no use for
    "pidfd_open",
    "memfd_secret",
    "mq_open",
)
"""System calls that fail with ENOSYS, as on a kernel without them (callers fall back)."""

NO_LOCKS = ("flock",)
"""System calls that fail with ENOLCK (no locks available)."""

ALLOWED_SOCKET_FAMILIES = (1, 16)  # AF_UNIX, AF_NETLINK
AF_NETLINK, NETLINK_SOCK_DIAG = 16, 4
SOL_SOCKET, SO_COOKIE = 1, 57
CLONE_PIDFD = 0x1000

SEALED = ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "memfd_create")
"""System calls that make an object whose inode number comes from a counter of the whole host
(the kernel's ``get_next_ino`` for pipes and sockets, the internal tmpfs's for memfds), which a
seat reads back with ``fstat``. In a supervised filter (:func:`policy` with ``supervised``)
each is asked of the seat's supervisor (:data:`ACT_NOTIFY`): allowed while the seat starts,
refused once its game has begun (see :mod:`arena.runner.forkserver`)."""
FAMILY_BOUND = 64
"""Every family below this that is not allowed is refused by a rule of its own (AF_MAX is 46
in Linux 6.18; the kernel refuses a family at or above AF_MAX itself, and a negative one)."""


class SeccompError(RuntimeError):
    """libseccomp is missing or refused the policy: the sandbox runs without the filter."""


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


@dataclass(frozen=True)
class Rule:
    """One rule of the policy: a system call, its action, and conditions on its arguments."""

    syscall: str
    action: int
    conditions: tuple[tuple[int, int, int, int], ...] = ()  # (arg, op, a, b)


def errno_action(code: int) -> int:
    """The action that makes a system call fail with ``code``."""
    return _ACT_ERRNO | (code & 0xFFFF)


def int_is(arg: int, value: int) -> tuple[int, int, int, int]:
    """The condition "argument ``arg``, read as the kernel reads a 32-bit ``int`` or ``unsigned
    int``, equals ``value``": whatever the high half of the register holds."""
    return (arg, _CMP_MASKED_EQ, LOW_32_BITS, value & LOW_32_BITS)


def has_flag(arg: int, flag: int) -> tuple[int, int, int, int]:
    """The condition "argument ``arg`` has every bit of ``flag``" (a flag of the low half)."""
    return (arg, _CMP_MASKED_EQ, flag, flag)


GUARDED_FCNTL = {
    F_SETLK: errno.ENOLCK,
    F_SETLKW: errno.ENOLCK,
    F_OFD_SETLK: errno.ENOLCK,
    F_OFD_SETLKW: errno.ENOLCK,
    F_SETLEASE: errno.EPERM,
    F_NOTIFY: errno.EPERM,
}
"""The ``fcntl`` commands refused, and the error each gets."""


def policy(*, supervised: bool = False) -> list[Rule]:
    """The sandbox's rules, in the order they are added. ``supervised``: the calls of
    :data:`SEALED` are asked of a supervisor (the filter's listener must be served, or they
    fail with ``ENOSYS``), which also refuses sockets of ``NETLINK_SOCK_DIAG``."""
    kill = ACT_KILL_PROCESS
    rules = [Rule(name, kill) for name in FORBIDDEN]
    # The kernel reads clone's flags from the low 32 bits (kernel/fork.c: lower_32_bits), and
    # a masked comparison with the flag itself ignores the high half.
    for flag in CLONE_NAMESPACE_FLAGS.values():
        rules.append(Rule("clone", kill, (has_flag(0, flag),)))
    rules += [Rule(name, errno_action(errno.ENOSYS)) for name in NOT_IMPLEMENTED]
    rules += [Rule(name, errno_action(errno.ENOLCK)) for name in NO_LOCKS]
    for fcntl in ("fcntl", "fcntl64"):
        for command, code in GUARDED_FCNTL.items():
            rules.append(Rule(fcntl, errno_action(code), (int_is(1, command),)))
    refuse = errno_action(errno.EAFNOSUPPORT)
    for call in ("socket", "socketpair"):
        for family in range(FAMILY_BOUND):
            if family not in ALLOWED_SOCKET_FAMILIES:
                rules.append(Rule(call, refuse, (int_is(0, family),)))
        # A backstop for the rest: any register above the bound (high bits included).
        rules.append(Rule(call, refuse, ((0, _CMP_GT, FAMILY_BOUND - 1, 0),)))
        if supervised:
            for family in ALLOWED_SOCKET_FAMILIES:
                rules.append(Rule(call, ACT_NOTIFY, (int_is(0, family),)))
        else:
            # sock_diag dumps a socket's cookie, numbered from a host-wide counter (and the
            # supervisor refuses it where there is one).
            rules.append(
                Rule(
                    call,
                    errno_action(errno.EPROTONOSUPPORT),
                    (int_is(0, AF_NETLINK), int_is(2, NETLINK_SOCK_DIAG)),
                )
            )
    if supervised:
        rules += [Rule(name, ACT_NOTIFY) for name in SEALED if name not in {"socket", "socketpair"}]
    # A socket's cookie is numbered from a host-wide counter when first asked for.
    rules.append(
        Rule(
            "getsockopt",
            errno_action(errno.ENOPROTOOPT),
            (int_is(1, SOL_SOCKET), int_is(2, SO_COOKIE)),
        )
    )
    # A pidfd's inode number is the process's pidfs number, counted for the whole host.
    rules.append(Rule("clone", errno_action(errno.EINVAL), (has_flag(0, CLONE_PIDFD),)))
    return rules


@functools.cache
def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    try:
        lib = ctypes.CDLL(name, use_errno=True)
    except OSError as error:
        raise SeccompError(f"libseccomp is not installed ({error})") from None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


def compile_policy(rules: list[Rule] | None = None) -> bytes:
    """The BPF program of ``rules`` (default: :func:`policy`) for this machine's architecture.

    System calls this architecture does not have are skipped. Raises SeccompError when
    libseccomp is missing or refuses a rule.
    """
    lib = _library()
    ctx = lib.seccomp_init(ACT_ALLOW)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        if lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, ACT_KILL_PROCESS) != 0:
            raise SeccompError("libseccomp cannot kill on a foreign architecture")
        for rule in rules if rules is not None else policy():
            number = lib.seccomp_syscall_resolve_name(rule.syscall.encode())
            if number < 0:  # __NR_SCMP_ERROR: not a system call of this architecture
                continue
            conditions = (_ArgCmp * max(1, len(rule.conditions)))(
                *(_ArgCmp(arg, op, a, b) for arg, op, a, b in rule.conditions)
            )
            done = lib.seccomp_rule_add_array(
                ctx, rule.action, number, len(rule.conditions), conditions
            )
            if done != 0:
                raise SeccompError(
                    f"libseccomp refused the rule for {rule.syscall}: {os.strerror(-done)}"
                )
        with tempfile.TemporaryFile() as out:
            if lib.seccomp_export_bpf(ctx, out.fileno()) != 0:
                raise SeccompError("libseccomp could not export the filter")
            out.seek(0)
            return out.read()
    finally:
        lib.seccomp_release(ctx)


@functools.cache
def sandbox_filter(*, supervised: bool = False) -> bytes | None:
    """The compiled sandbox filter, once per process; None when libseccomp is unavailable."""
    try:
        return compile_policy(policy(supervised=supervised))
    except SeccompError:
        return None


@functools.cache
def syscall_numbers(names: tuple[str, ...]) -> dict[str, int]:
    """The numbers of the system calls ``names`` on this architecture (those it has); the
    same dictionary for the same names (do not change it)."""
    lib = _library()
    numbers = {}
    for name in names:
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number >= 0:
            numbers[name] = number
    return numbers


def filter_problem() -> str | None:
    """Why the sandbox has no system-call filter on this machine, or None when it has one."""
    try:
        compile_policy()
    except SeccompError as error:
        return str(error)
    return None


__all__ = [
    "ACT_NOTIFY",
    "ALLOWED_SOCKET_FAMILIES",
    "FAMILY_BOUND",
    "FORBIDDEN",
    "GUARDED_FCNTL",
    "NOT_IMPLEMENTED",
    "SEALED",
    "Rule",
    "SeccompError",
    "compile_policy",
    "filter_problem",
    "policy",
    "sandbox_filter",
    "syscall_numbers",
]
