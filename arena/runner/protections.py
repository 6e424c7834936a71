"""Which of the sandbox's protections this host gives, and what stands in for the missing ones.

:func:`protections` inspects the host once (bubblewrap and its features, libseccomp, control
groups, the runner's own privileges) and returns one :class:`Protection` per line of defence
in docs/SECURITY.md, each active or replaced by its fallback. ``arena doctor`` prints them;
``arena demo`` and ``arena worker`` print a summary when they start (the runner's own warning,
once per process, that it fell back is :func:`arena.runner.fallbacks.warn_once`). Nothing here
starts a bot.
"""

from __future__ import annotations

import logging
import os
import shutil
from dataclasses import asdict, dataclass
from typing import Any

from arena.runner import cgroups, sandbox, seccomp
from arena.runner.process import FORK_ENV

log = logging.getLogger("arena.runner")


@dataclass(frozen=True)
class Protection:
    """One line of defence: whether this host gives it, and how (or what replaces it)."""

    name: str
    active: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form."""
        return asdict(self)


def protections() -> list[Protection]:
    """Every protection of docs/SECURITY.md as this host gives it."""
    features = sandbox.bwrap_features()
    root = os.geteuid() == 0
    found: list[Protection] = []
    if features is None:
        found.append(
            Protection(
                "sandbox",
                False,
                "no working bubblewrap: only the sample bots run (limits only); other bots are "
                "refused unless --unsafe-no-sandbox",
            )
        )
    else:
        found.append(
            Protection(
                "sandbox",
                True,
                f"bubblewrap {features.version}: own network, pid, ipc, uts namespaces; the bot's "
                "private read-only copy, no host folder writable, host-wide /proc entries masked "
                "(/proc/sys a static copy), no pseudo-terminals",
            )
        )
    problem = seccomp.filter_problem()
    filter_ok = features is not None and features.seccomp and problem is None
    found.append(
        Protection(
            "system-call filter",
            filter_ok,
            "libseccomp allow-list: every call not on it refused; namespaces, mounts, ptrace, "
            "bpf... kill the bot; locks, leases, IP sockets and pidfds refused"
            if filter_ok
            else (problem or "this bubblewrap has no --seccomp"),
        )
    )
    if features is not None and features.disable_userns and not root:
        userns = "bwrap --disable-userns, and the system-call filter"
    else:
        userns = "the system-call filter (unshare/clone with a namespace flag kill the bot)"
    found.append(
        Protection(
            "no nested namespaces",
            filter_ok,
            userns if filter_ok else "not blocked: no system-call filter",
        )
    )
    if root:
        has_setpriv = shutil.which("setpriv") is not None
        found.append(
            Protection(
                "unprivileged bot",
                has_setpriv,
                "a fresh uid per seat, no capabilities (setpriv)"
                if has_setpriv
                else "setpriv is missing: sandboxed bots cannot start",
            )
        )
    else:
        found.append(
            Protection("unprivileged bot", True, "the runner's own uid, in a user namespace")
        )
    sized = features is not None and features.size
    found.append(
        Protection(
            "tmpfs sizes",
            sized,
            "/tmp, /dev/shm and /sock are size-limited tmpfs"
            if sized
            else (
                "this bubblewrap has no --size: tmpfs folders are bounded by the memory limit only"
            ),
        )
    )
    return found + _group_protections(features, root, filter_ok)


def _group_protections(
    features: sandbox.BwrapFeatures | None, root: bool, filter_ok: bool
) -> list[Protection]:
    """The protections of :func:`protections` that come with the seats' control groups, the
    fork server and the socket the runner checks."""
    found: list[Protection] = []
    group = cgroups.backend()
    found.append(
        Protection(
            "seat memory and processes",
            group is not None,
            f"{group.describe()}: one memory and one process limit per seat, tmpfs included"
            if group
            else "no writable control group: the runner's watchdog sums each seat's memory "
            "(and tmpfs) every 100 ms; processes by RLIMIT_NPROC, "
            + ("for each seat's own uid" if root else "for the runner's uid, shared by its seats"),
        )
    )
    freezer = group is not None and group.freezer_parent is not None
    found.append(
        Protection(
            "one seat runs at a time",
            freezer,
            f"every seat but the one on move is frozen ({group.kind} freezer group)"
            if freezer and group is not None
            else "no freezer group: every seat but the one on move is stopped with SIGSTOP, its "
            "process tree walked in /proc (weaker: a process forked during the walk is caught by "
            "the next walk only)",
        )
    )
    shares = group is not None and group.cpu_parent is not None
    found.append(
        Protection(
            "seat CPU share",
            shares,
            "each seat's group has an equal CPU weight, however many processes it runs"
            if shares
            else "no cpu controller for seat groups: a seat's processes weigh one by one against "
            "other matches' seats on this host (within a match, only the seat on move runs)",
        )
    )
    forked = root and freezer and filter_ok and os.environ.get(FORK_ENV, "1") != "0"
    found.append(
        Protection(
            "sealed seats",
            forked,
            "seats are forked into their sandboxes, with no procfs, and sealed when their game "
            "begins: no pipe, socket or memfd after that, nothing numbered by a host-wide counter"
            if forked
            else "seats start by exec and are not sealed: the kernel's numbering of pipes and "
            "sockets stays a channel between partners (needs root, a freezer group and the "
            f"system-call filter; {FORK_ENV}=0 turns it off)",
        )
    )
    info = features is not None and features.info_fd
    found.append(
        Protection(
            "socket the runner checked",
            info,
            "connects through the sandbox's root, without following links, to a socket"
            if info
            else "this bubblewrap has no --info-fd: sandboxed bots cannot start",
        )
    )
    return found


def summary() -> str:
    """One line for a command that starts: what protects the host and the games."""
    parts = [f"{p.name}: {'yes' if p.active else 'NO'}" for p in protections()]
    return "protections: " + ", ".join(parts)


__all__ = ["Protection", "protections", "summary"]
