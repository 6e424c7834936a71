"""Saying once per process that the runner fell back from a protection this host lacks.

:func:`warn_once` is called where a fallback is taken (starting a sandbox, watching a seat's
memory, freezing a seat between turns); :mod:`arena.runner.protections` reports which
protections the host gives. Nothing here inspects the host or starts a bot.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("arena.runner")

_warned: set[str] = set()
_warned_lock = threading.Lock()


def warn_once(key: str, message: str) -> None:
    """Logs ``message`` as a warning the first time ``key`` is seen in this process."""
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning(message)


__all__ = ["warn_once"]
