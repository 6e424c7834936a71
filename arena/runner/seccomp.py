"""The system-call filter of a bot's sandbox, compiled to BPF by libseccomp: an allow-list.

bubblewrap loads a compiled filter from a file descriptor (``bwrap --seccomp FD``), and the fork
server installs the same program in a forked seat (:mod:`arena.runner.forkserver`). This module
writes the policy below with the machine's own libseccomp (the library that systemd, Docker and
Flatpak use to compile theirs), through a small :mod:`ctypes` binding, and returns the BPF
program as bytes. It does not start processes (see :mod:`arena.runner.sandbox`).

The policy *refuses by default*, as Chromium's and gVisor's sandboxes do: a system call that is
not on :data:`ALLOWED` (or allowed for the argument values below) fails with ``ENOSYS``, as on a
kernel without it, so that the C library, CPython, gRPC's core and libuv fall back where they
probe a newer call. Three rounds of closing one channel at a time showed that a deny-list does
not converge; with an allow-list a call the kernel adds, or one nobody thought of, is refused
until someone states why a bot needs it. The list was made from what the sample bots really
call (the Python bots served by the SDK over gRPC, the JavaScript bot under node, the protocol
compliance suite; traced with strace, then run under a filter that logs every call it would
refuse), at start, in steady play and at exit; docs/SECURITY.md ("The system-call allow-list")
says why each entry is there.

Some refusals are more than a refusal:

- *The kernel's attack surface* (:data:`FORBIDDEN`): new namespaces, mounts, ``ptrace`` and
  cross-process memory, keyrings, ``bpf``, ``perf_event_open``, ``userfaultfd``, module and
  ``kexec`` loading, file handles, and the like kill the whole bot (``SIGSYS``): the runner
  records a ``forbidden`` fault. So does ``clone`` with a namespace flag.
- *Locks, leases and watches*: ``flock`` and ``fcntl``'s lock commands fail with ``ENOLCK``,
  leases and ``dnotify`` with ``EPERM`` (as before the allow-list; the hostile tests read
  these errors).
- *Calls with a documented error of their own*: sockets of a family other than unix and
  netlink (``EAFNOSUPPORT``), a ``NETLINK_SOCK_DIAG`` socket (``EPROTONOSUPPORT``), a socket's
  cookie, credentials or pidfd (``getsockopt``: ``ENOPROTOOPT``), ``clone`` with
  ``CLONE_PIDFD`` (``EINVAL``).

The multiplexers are allowed for the values a runtime needs, and refused for every other:
``fcntl``'s command (:data:`FCNTL_COMMANDS`), ``ioctl``'s request (:data:`IOCTL_REQUESTS`),
``prctl``'s option (:data:`PRCTL_OPTIONS`), ``getsockopt``/``setsockopt``'s level and option
(:data:`SOCKET_OPTIONS`), ``madvise``'s advice (:data:`MADVISE_ADVICE`), ``fadvise64``'s advice
(:data:`FADVISE_ADVICE`), ``preadv2``/``pwritev2``'s flags (none), ``clone``'s flags
(:data:`CLONE_FLAGS`) and ``socket``/``socketpair``'s family, type and protocol
(:data:`SOCKET_KINDS`). Dropping a file's pages (``POSIX_FADV_DONTNEED``, ``MADV_PAGEOUT``),
reading them in ahead (``readahead``, ``MADV_WILLNEED``, ``MADV_POPULATE_READ``), locking them
(``mlock``) and asking which are cached (``mincore``, ``RWF_NOWAIT``) are all refused: none of
them is a runtime's need, and each moves or reads the page cache that seats share.

Every argument a rule inspects is compared the way the kernel reads it: a 32-bit ``int`` or
``unsigned int`` from the low half of its register (``fcntl``'s command, ``ioctl``'s request,
``prctl``'s option, a socket option's level and name, ``socket``'s family, the advice values,
the ``RWF`` flags), ``clone``'s flags from the low half of an ``unsigned long``; libseccomp
compares all 64 bits otherwise, so each condition masks the low 32 bits
(``SCMP_CMP_MASKED_EQ``): ``fcntl(fd, (1 << 32) | F_SETLK)`` is refused like ``F_SETLK``, and
``fcntl(fd, (1 << 32) | F_GETFL)`` is allowed like ``F_GETFL``, which is what the kernel does
with it. ``tests/runner/test_seccomp.py`` makes every system call number of the architecture
and every other value of each multiplexer under the compiled filter.

A forked seat's filter is *supervised* (``policy(supervised=True)``): the calls that make
pipes, sockets and memfds (:data:`SEALED`), whose inode numbers come from a counter of the
whole host, are asked of the runner (``SECCOMP_RET_USER_NOTIF``), which lets them through while
the seat starts and closes the listener when its game begins: the kernel then refuses them with
``ENOSYS`` (:mod:`arena.runner.seal`). Of the objects whose numbers count for the whole host,
a seat can make none after its seal, and it never has a pidfd: ``pidfd_open``, ``clone`` with
``CLONE_PIDFD``, ``clone3``, ``SO_PEERPIDFD``, ``SO_PASSPIDFD`` (``SCM_PIDFD``) are refused.

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
ACT_LOG = 0x7FFC0000
_ACT_ERRNO = 0x00050000

# Comparison operators of struct scmp_arg_cmp.
_CMP_GT = 6
_CMP_MASKED_EQ = 7

LOW_32_BITS = 0xFFFFFFFF
"""The kernel reads ``int`` and ``unsigned int`` arguments from the low half of a register."""

_ATTR_ACT_BADARCH = 2
_ATTR_CTL_OPTIMIZE = 8  # SCMP_FLTATR_CTL_OPTIMIZE (libseccomp 2.5): 2, a binary tree

CLONE_NAMESPACE_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}

ALLOWED = (
    # reading and writing descriptors
    "read",
    "write",
    "readv",
    "writev",
    "pread64",
    "pwrite64",
    "preadv",
    "pwritev",
    "lseek",
    "close",
    "close_range",
    "dup",
    "dup2",
    "dup3",
    "ftruncate",
    "fsync",
    "fdatasync",
    "sendfile",
    # files and folders (what a seat can write is its own tmpfs)
    "open",
    "openat",
    "creat",
    "stat",
    "fstat",
    "lstat",
    "newfstatat",
    "statx",
    "access",
    "faccessat",
    "faccessat2",
    "readlink",
    "readlinkat",
    "getdents",
    "getdents64",
    "getcwd",
    "chdir",
    "fchdir",
    "mkdir",
    "mkdirat",
    "rmdir",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "chmod",
    "fchmod",
    "fchmodat",
    "umask",
    "utimensat",
    # waiting on descriptors
    "poll",
    "ppoll",
    "select",
    "pselect6",
    "epoll_create",
    "epoll_create1",
    "epoll_ctl",
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "eventfd",
    "eventfd2",
    "timerfd_create",
    "timerfd_settime",
    "timerfd_gettime",
    # unix sockets (socket and socketpair: see SOCKET_KINDS; the option calls: SOCKET_OPTIONS)
    "bind",
    "listen",
    "connect",
    "getsockname",
    "getpeername",
    "sendto",
    "recvfrom",
    "sendmsg",
    "recvmsg",
    "sendmmsg",
    "recvmmsg",
    "shutdown",
    # memory (madvise: see MADVISE_ADVICE)
    "brk",
    "mmap",
    "munmap",
    "mremap",
    "mprotect",
    "msync",
    "membarrier",
    # threads and processes (clone: see CLONE_FLAGS)
    "fork",
    "vfork",
    "execve",
    "exit",
    "exit_group",
    "wait4",
    "waitid",
    "kill",
    "tkill",
    "tgkill",
    "set_tid_address",
    "set_robust_list",
    "rseq",
    "futex",
    "arch_prctl",
    "sched_yield",
    "sched_getaffinity",
    "sched_getparam",
    "sched_getscheduler",
    "sched_get_priority_max",
    "sched_get_priority_min",
    "getpriority",
    "setpriority",
    "restart_syscall",
    # identity (setpriv drops the uid and capabilities inside the sandbox; with no capability
    # left, the set- calls can only give up what a process has)
    "getpid",
    "getppid",
    "gettid",
    "getuid",
    "geteuid",
    "getgid",
    "getegid",
    "getresuid",
    "getresgid",
    "getgroups",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "capget",
    "capset",
    "getpgrp",
    "getpgid",
    "setpgid",
    "getsid",
    "setsid",
    # signals and time
    "rt_sigaction",
    "rt_sigprocmask",
    "rt_sigreturn",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "rt_sigpending",
    "sigaltstack",
    "pause",
    "alarm",
    "getitimer",
    "setitimer",
    "nanosleep",
    "clock_nanosleep",
    "clock_gettime",
    "clock_getres",
    "gettimeofday",
    "time",
    # the process's own facts
    "getrandom",
    "uname",
    "getrlimit",
    "setrlimit",
    "prlimit64",
    "getrusage",
    "times",
)
"""System calls allowed whatever their arguments (docs/SECURITY.md says why each is here)."""

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
    "open_tree_attr",
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
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    "pidfd_open",
    "memfd_secret",
    "mq_open",
)
"""Some of the calls refused with ``ENOSYS`` (the default for every call not allowed), named
because they were refused before the allow-list and tests and documents speak of them."""

NO_LOCKS = ("flock",)
"""System calls that fail with ENOLCK (no locks available)."""

DEFAULT_ERRNO = errno.ENOSYS
"""The error of a call not on the list: as on a kernel without it (callers fall back)."""

F_GETLK, F_SETLK, F_SETLKW = 5, 6, 7
F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 36, 37, 38
F_SETLEASE, F_NOTIFY = 1024, 1026

FCNTL_COMMANDS = {
    0: "F_DUPFD",
    1: "F_GETFD",
    2: "F_SETFD",
    3: "F_GETFL",
    4: "F_SETFL",
    1030: "F_DUPFD_CLOEXEC",
}
"""The ``fcntl`` commands allowed: descriptor flags, status flags, duplicates."""

GUARDED_FCNTL = {
    F_GETLK: errno.ENOLCK,
    F_SETLK: errno.ENOLCK,
    F_SETLKW: errno.ENOLCK,
    F_OFD_GETLK: errno.ENOLCK,
    F_OFD_SETLK: errno.ENOLCK,
    F_OFD_SETLKW: errno.ENOLCK,
    F_SETLEASE: errno.EPERM,
    F_NOTIFY: errno.EPERM,
}
"""The ``fcntl`` commands refused with an error of their own (the rest: ``ENOSYS``)."""

IOCTL_REQUESTS = {
    0x5401: "TCGETS",
    0x5413: "TIOCGWINSZ",
    0x541B: "FIONREAD",
    0x5421: "FIONBIO",
    0x5450: "FIONCLEX",
    0x5451: "FIOCLEX",
}
"""The ``ioctl`` requests allowed: is it a terminal (``isatty``), its size, bytes waiting,
non-blocking and close-on-exec. The rest fail with ``ENOSYS``."""

PR_SET_VMA = 0x53564D41
PRCTL_OPTIONS = {
    1: "PR_SET_PDEATHSIG",
    2: "PR_GET_PDEATHSIG",
    3: "PR_GET_DUMPABLE",
    7: "PR_GET_KEEPCAPS",
    8: "PR_SET_KEEPCAPS",
    15: "PR_SET_NAME",
    16: "PR_GET_NAME",
    23: "PR_CAPBSET_READ",
    24: "PR_CAPBSET_DROP",
    27: "PR_GET_SECUREBITS",
    38: "PR_SET_NO_NEW_PRIVS",
    39: "PR_GET_NO_NEW_PRIVS",
    47: "PR_CAP_AMBIENT",
    PR_SET_VMA: "PR_SET_VMA",
}
"""The ``prctl`` options allowed: thread names, the parent-death signal, reading and dropping
capabilities (``setpriv``), ``no_new_privs``, naming anonymous memory (glibc). The rest fail
with ``ENOSYS``."""

SOL_SOCKET, SOL_TCP = 1, 6
SO_PASSCRED, SO_PEERCRED, SO_PEERSEC, SO_PASSSEC = 16, 17, 31, 34
SO_COOKIE, SO_PEERGROUPS, SO_NETNS_COOKIE, SO_PASSPIDFD, SO_PEERPIDFD = 57, 59, 71, 76, 77
SOCKET_OPTIONS = {
    (SOL_SOCKET, 2): "SO_REUSEADDR",
    (SOL_SOCKET, 3): "SO_TYPE",
    (SOL_SOCKET, 4): "SO_ERROR",
    (SOL_SOCKET, 7): "SO_SNDBUF",
    (SOL_SOCKET, 8): "SO_RCVBUF",
    (SOL_SOCKET, 9): "SO_KEEPALIVE",
    (SOL_SOCKET, 13): "SO_LINGER",
    (SOL_SOCKET, 15): "SO_REUSEPORT",
    (SOL_SOCKET, 18): "SO_RCVLOWAT",
    (SOL_SOCKET, 19): "SO_SNDLOWAT",
    (SOL_SOCKET, 20): "SO_RCVTIMEO_OLD",
    (SOL_SOCKET, 21): "SO_SNDTIMEO_OLD",
    (SOL_SOCKET, 30): "SO_ACCEPTCONN",
    (SOL_SOCKET, 38): "SO_PROTOCOL",
    (SOL_SOCKET, 39): "SO_DOMAIN",
    (SOL_SOCKET, 66): "SO_RCVTIMEO_NEW",
    (SOL_SOCKET, 67): "SO_SNDTIMEO_NEW",
    (SOL_TCP, 1): "TCP_NODELAY",
    (SOL_TCP, 36): "TCP_INQ",
}
"""The socket options a bot may get and set (``getsockopt``, ``setsockopt``): buffers, time-outs,
errors, the socket's kind. The TCP ones are asked by gRPC's core of any stream socket (the
kernel refuses them on a unix socket). The rest fail with ``ENOSYS``, and with ``ENOPROTOOPT``
every option that gives a number of the host: the peer's credentials (``SO_PEERCRED``,
``SO_PEERGROUPS``, ``SO_PASSCRED``), its pidfd (``SO_PEERPIDFD``, ``SO_PASSPIDFD``), a security
label, the socket's and the network namespace's cookies."""

MADVISE_ADVICE = {
    0: "MADV_NORMAL",
    4: "MADV_DONTNEED",
    8: "MADV_FREE",
    10: "MADV_DONTFORK",
    11: "MADV_DOFORK",
    14: "MADV_HUGEPAGE",
    15: "MADV_NOHUGEPAGE",
    16: "MADV_DONTDUMP",
    17: "MADV_DODUMP",
    18: "MADV_WIPEONFORK",
    19: "MADV_KEEPONFORK",
}
"""The ``madvise`` advice allowed: what allocators say of their own memory. Refused (``ENOSYS``):
reading a file's pages in (``MADV_WILLNEED``, ``MADV_POPULATE_*``), dropping them from the page
cache (``MADV_COLD``, ``MADV_PAGEOUT``), read-ahead hints, merging pages with other processes
(``MADV_MERGEABLE``), removing and poisoning pages."""

FADVISE_ADVICE = {0: "POSIX_FADV_NORMAL"}
"""The ``fadvise64`` advice allowed: none that changes the page cache (``DONTNEED`` drops a
file's pages for every seat, ``WILLNEED`` and ``SEQUENTIAL`` read them in; ``ENOSYS``)."""

CLONE_FLAGS = {
    "CSIGNAL": 0x000000FF,
    "CLONE_VM": 0x00000100,
    "CLONE_FS": 0x00000200,
    "CLONE_FILES": 0x00000400,
    "CLONE_SIGHAND": 0x00000800,
    "CLONE_VFORK": 0x00004000,
    "CLONE_THREAD": 0x00010000,
    "CLONE_SYSVSEM": 0x00040000,
    "CLONE_SETTLS": 0x00080000,
    "CLONE_PARENT_SETTID": 0x00100000,
    "CLONE_CHILD_CLEARTID": 0x00200000,
    "CLONE_CHILD_SETTID": 0x01000000,
}
"""The ``clone`` flags allowed, in any combination: what glibc's threads, ``fork`` and
``posix_spawn`` (``CLONE_VM | CLONE_VFORK``) use, and the exit signal. A namespace flag kills,
``CLONE_PIDFD`` fails with ``EINVAL``, any other flag with ``ENOSYS``."""
CLONE_ALLOWED_MASK = functools.reduce(lambda a, b: a | b, CLONE_FLAGS.values())
CLONE_PIDFD = 0x1000

AF_UNIX, AF_NETLINK = 1, 16
NETLINK_ROUTE, NETLINK_SOCK_DIAG = 0, 4
SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_SEQPACKET = 1, 2, 3, 5
SOCK_TYPE_MASK = 0xF
SOCKET_KINDS = (
    (AF_UNIX, SOCK_STREAM, None),
    (AF_UNIX, SOCK_DGRAM, None),
    (AF_UNIX, SOCK_SEQPACKET, None),
    (AF_NETLINK, SOCK_RAW, NETLINK_ROUTE),
    (AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE),
)
"""The sockets a bot may make (family, type without its flags, protocol or None for any):
unix sockets (its server's, gRPC's wake-up pairs, a bot's own), and a netlink route socket
(glibc's ``getaddrinfo`` and ``if_nameindex``, node's ``os.networkInterfaces``: the seat's own
network namespace, a loopback device). ``socketpair`` makes unix ones only."""
ALLOWED_SOCKET_FAMILIES = (AF_UNIX, AF_NETLINK)

SEALED = ("pipe", "pipe2", "socket", "socketpair", "accept", "accept4", "memfd_create")
"""System calls that make an object whose inode number comes from a counter of the whole host
(the kernel's ``get_next_ino`` for pipes and sockets, the internal tmpfs's for memfds), which a
seat reads back with ``fstat``. In a supervised filter (:func:`policy` with ``supervised``)
each is asked of the seat's supervisor (:data:`ACT_NOTIFY`): allowed while the seat starts,
refused once its game has begun (see :mod:`arena.runner.forkserver`); without a supervisor,
allowed (``socket`` and ``socketpair`` for :data:`SOCKET_KINDS` only)."""
FAMILY_BOUND = 64
"""Every family below this that is not allowed is refused by a rule of its own (AF_MAX is 46
in Linux 6.18; the kernel refuses a family at or above AF_MAX itself, and a negative one)."""

PREADV2_FLAGS_ARG = 5
"""``preadv2`` and ``pwritev2`` take ``(fd, iov, iovcnt, pos_low, pos_high, flags)``."""


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


def only_flags(arg: int, allowed: int) -> tuple[int, int, int, int]:
    """The condition "the low half of argument ``arg`` has no bit outside ``allowed``"."""
    return (arg, _CMP_MASKED_EQ, LOW_32_BITS & ~allowed, 0)


def policy(*, supervised: bool = False) -> list[Rule]:
    """The sandbox's rules, in the order they are added; every call no rule allows fails with
    :data:`DEFAULT_ERRNO`. ``supervised``: the calls of :data:`SEALED` are asked of a
    supervisor (the filter's listener must be served, or they fail with ``ENOSYS``)."""
    allow = ACT_ALLOW
    kill = ACT_KILL_PROCESS
    rules = [Rule(name, allow) for name in ALLOWED]
    rules += [Rule(name, kill) for name in FORBIDDEN]
    rules += [Rule(name, errno_action(errno.ENOSYS)) for name in NOT_IMPLEMENTED]
    rules += [Rule(name, errno_action(errno.ENOLCK)) for name in NO_LOCKS]
    sealed = ACT_NOTIFY if supervised else allow
    rules += [Rule(name, sealed) for name in SEALED if name not in {"socket", "socketpair"}]
    # clone: the kernel reads its flags from the low 32 bits (kernel/fork.c: lower_32_bits).
    rules.append(Rule("clone", allow, (only_flags(0, CLONE_ALLOWED_MASK),)))
    for flag in CLONE_NAMESPACE_FLAGS.values():
        rules.append(Rule("clone", kill, (has_flag(0, flag),)))
    # A pidfd's inode number is the process's pidfs number, counted for the whole host.
    rules.append(Rule("clone", errno_action(errno.EINVAL), (has_flag(0, CLONE_PIDFD),)))
    for fcntl in ("fcntl", "fcntl64"):
        for command in FCNTL_COMMANDS:
            rules.append(Rule(fcntl, allow, (int_is(1, command),)))
        for command, code in GUARDED_FCNTL.items():
            rules.append(Rule(fcntl, errno_action(code), (int_is(1, command),)))
    rules += [Rule("ioctl", allow, (int_is(1, request),)) for request in IOCTL_REQUESTS]
    rules += [Rule("prctl", allow, (int_is(0, option),)) for option in PRCTL_OPTIONS]
    for call in ("getsockopt", "setsockopt"):
        for level, name in SOCKET_OPTIONS:
            rules.append(Rule(call, allow, (int_is(1, level), int_is(2, name))))
        for name in (
            SO_PASSCRED,
            SO_PEERCRED,
            SO_PEERSEC,
            SO_PASSSEC,
            SO_COOKIE,
            SO_PEERGROUPS,
            SO_NETNS_COOKIE,
            SO_PASSPIDFD,
            SO_PEERPIDFD,
        ):
            refuse_option = errno_action(errno.ENOPROTOOPT)
            rules.append(Rule(call, refuse_option, (int_is(1, SOL_SOCKET), int_is(2, name))))
    rules += [Rule("madvise", allow, (int_is(2, advice),)) for advice in MADVISE_ADVICE]
    rules += [Rule("fadvise64", allow, (int_is(3, advice),)) for advice in FADVISE_ADVICE]
    for call in ("preadv2", "pwritev2"):
        rules.append(Rule(call, allow, (int_is(PREADV2_FLAGS_ARG, 0),)))
    refuse_family = errno_action(errno.EAFNOSUPPORT)
    for call in ("socket", "socketpair"):
        for family in range(FAMILY_BOUND):
            if family not in ALLOWED_SOCKET_FAMILIES:
                rules.append(Rule(call, refuse_family, (int_is(0, family),)))
        # A backstop for the rest: any register above the bound (high bits included).
        rules.append(Rule(call, refuse_family, ((0, _CMP_GT, FAMILY_BOUND - 1, 0),)))
        for family, kind, protocol in SOCKET_KINDS:
            if call == "socketpair" and family != AF_UNIX:
                continue
            conditions = [int_is(0, family), (1, _CMP_MASKED_EQ, SOCK_TYPE_MASK, kind)]
            if protocol is not None:
                conditions.append(int_is(2, protocol))
            rules.append(Rule(call, ACT_NOTIFY if supervised else allow, tuple(conditions)))
        # sock_diag dumps a socket's cookie, numbered from a host-wide counter.
        rules.append(
            Rule(
                call,
                errno_action(errno.EPROTONOSUPPORT),
                (int_is(0, AF_NETLINK), int_is(2, NETLINK_SOCK_DIAG)),
            )
        )
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


def compile_policy(rules: list[Rule] | None = None, *, default: int | None = None) -> bytes:
    """The BPF program of ``rules`` (default: :func:`policy`) for this machine's architecture;
    a call no rule takes gets ``default`` (an action; by default it fails with
    :data:`DEFAULT_ERRNO`).

    System calls this architecture does not have are skipped. Raises SeccompError when
    libseccomp is missing or refuses a rule.
    """
    lib = _library()
    default = errno_action(DEFAULT_ERRNO) if default is None else default
    ctx = lib.seccomp_init(default)
    if not ctx:
        raise SeccompError("seccomp_init failed")
    try:
        if lib.seccomp_attr_set(ctx, _ATTR_ACT_BADARCH, ACT_KILL_PROCESS) != 0:
            raise SeccompError("libseccomp cannot kill on a foreign architecture")
        # The calls are found by a binary search of their numbers, not one test after another:
        # an allow-list of 200 calls otherwise costs the last of them hundreds of instructions
        # at every call. Best effort: a libseccomp before 2.5 keeps the plain order.
        lib.seccomp_attr_set(ctx, _ATTR_CTL_OPTIMIZE, 2)
        for rule in rules if rules is not None else policy():
            if rule.action == default:  # (libseccomp refuses a rule that says the default)
                continue
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
    "ALLOWED",
    "ALLOWED_SOCKET_FAMILIES",
    "CLONE_FLAGS",
    "DEFAULT_ERRNO",
    "FADVISE_ADVICE",
    "FAMILY_BOUND",
    "FCNTL_COMMANDS",
    "FORBIDDEN",
    "GUARDED_FCNTL",
    "IOCTL_REQUESTS",
    "MADVISE_ADVICE",
    "NOT_IMPLEMENTED",
    "PRCTL_OPTIONS",
    "SEALED",
    "SOCKET_KINDS",
    "SOCKET_OPTIONS",
    "Rule",
    "SeccompError",
    "compile_policy",
    "filter_problem",
    "policy",
    "sandbox_filter",
    "syscall_numbers",
]
