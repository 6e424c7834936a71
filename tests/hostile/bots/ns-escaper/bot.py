"""A bot that tries the kernel's attack surface: new (user) namespaces, mounts, ptrace,
keyrings, bpf, perf events, userfaultfd, clone3 and io_uring. Each dangerous call is made in
a forked child, whose end is logged (``blocked by signal 31`` is SIGSYS); then, at its first
turn, the bot itself asks for a new user namespace."""

import ctypes
import errno
import os
import sys

from arena.sdk import Bot, serve

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
SIGCHLD = 17
# x86_64 system call numbers
CALLS = {
    "unshare(CLONE_NEWUSER)": (272, CLONE_NEWUSER),
    "unshare(CLONE_NEWNS)": (272, CLONE_NEWNS),
    "clone(CLONE_NEWUSER)": (56, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0),
    "mount(tmpfs)": (165, 0, 0, 0, 0, 0),
    "ptrace(TRACEME)": (101, 0, 0, 0, 0),
    "keyctl(GET_KEYRING_ID)": (250, 0, -3, 0),
    "bpf(MAP_CREATE)": (321, 0, 0, 0),
    "perf_event_open": (298, 0, 0, -1, -1, 0),
    "userfaultfd": (323, 0),
    "setns": (308, 0, 0),
}
ENOSYS_CALLS = {"clone3": (435, 0, 0), "io_uring_setup": (425, 1, 0)}


def log(text):
    print(f"ns-escaper: {text}", file=sys.stderr, flush=True)


def try_in_child(name, call):
    pid = os.fork()
    if pid == 0:
        result = libc.syscall(*call)
        if result == 0 and name.startswith("clone"):
            os._exit(0)  # the new child of clone
        os._exit(0 if result >= 0 else 100 + min(ctypes.get_errno(), 50))
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        log(f"{name} blocked by signal {os.WTERMSIG(status)}")
    elif os.WEXITSTATUS(status) >= 100:
        log(f"{name} failed with {errno.errorcode.get(os.WEXITSTATUS(status) - 100)}")
    else:
        log(f"{name} SUCCEEDED")


for call_name, arguments in CALLS.items():
    try_in_child(call_name, arguments)
for call_name, arguments in ENOSYS_CALLS.items():
    result = libc.syscall(*arguments)
    code = errno.errorcode.get(ctypes.get_errno(), "?") if result < 0 else "no error"
    log(f"{call_name} returned {result} ({code})")


def user_namespace():
    """The process's user namespace (``?`` where there is no /proc: a forked seat)."""
    try:
        return os.readlink("/proc/self/ns/user")
    except OSError:
        return "?"


before = user_namespace()


class NsEscaper(Bot):
    name = "ns-escaper"

    def choose(self, observation, legal_moves):
        log("asking for a user namespace in the bot itself")
        if libc.unshare(CLONE_NEWUSER) == 0:
            log(f"SUCCEEDED: user namespace {user_namespace()} (was {before})")
        else:
            log(f"unshare failed with {errno.errorcode.get(ctypes.get_errno())}")
        return legal_moves[0]


serve(NsEscaper())
