"""What a test's runner left running: the processes this test process started that are still
alive (bots, bubblewrap, holders), but for its fork server (the runner's own, started once per
process: it holds no seat)."""

from __future__ import annotations

import os


def live_children() -> list[str]:
    """The command lines of this process's live descendants but its fork server, sorted."""
    from arena.runner.forkserver import SERVER_TITLE
    from workers.bench.hostlab import cmdline, descendants

    found = (cmdline(pid) for pid in descendants({os.getpid()}) - {os.getpid()})
    # "": gone between the listing and the read, or a zombie (dead, its memory released).
    return sorted(command for command in found if command and command != SERVER_TITLE)
