"""Whether a worker may run a bot's code: uploaded bots only in the sandbox.

``ARENA_SANDBOX`` says whether bots run in bubblewrap: ``1`` (the default) always, ``auto``
when the host has it, ``0`` never (development). Without the sandbox the arena's own sample
bots (trusted: they ship with it) still run; a bot anyone uploaded (or any other folder) does
not, unless the operator opts in with the separate, loudly named
``ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED=1``. A refused validation fails, and a refused match is
void, with the reason in one line; the bot's code is never started. Bots served at a
``grpc://`` address run on their author's machine, not here, and are not concerned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

UNSAFE_SETTING = "ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED"
ON = {"1", "true", "yes", "on"}
OFF = {"0", "false", "no", "off"}


def sandbox_wanted() -> bool:
    """``ARENA_SANDBOX``: ``1`` always (default), ``0`` never (development), ``auto`` if bwrap."""
    value = os.environ.get("ARENA_SANDBOX", "1").strip().lower()
    if value == "auto":
        from arena.runner import sandbox_available

        return sandbox_available()
    return value not in OFF


def unsafe_uploads_allowed() -> bool:
    """Whether the operator allowed uploaded bots to run without the sandbox."""
    value = os.environ.get(UNSAFE_SETTING, "").strip().lower()
    if value and value not in ON | OFF:
        raise ValueError(f"{UNSAFE_SETTING}={value!r}: expected 1 or 0")
    return value in ON


def refusal(bots: Mapping[str, Any], sandbox: bool) -> str | None:
    """Why these bots may not run on this worker, or None if they may.

    ``bots`` maps each bot's label (``name@N``) to its runner ``BotRef``; ``sandbox`` is what
    the match would ask of the runner (:func:`sandbox_wanted`): with it, the runner sandboxes
    every untrusted bot itself, or refuses one where bubblewrap is missing.
    """
    if sandbox:
        return None
    untrusted = [label for label, bot in bots.items() if not bot.trusted and not bot.is_remote]
    if not untrusted or unsafe_uploads_allowed():
        return None
    names = ", ".join(sorted(untrusted))
    why = os.environ.get("ARENA_SANDBOX", "1").strip() or "1"
    return (
        f"refused to run {names} without the sandbox (ARENA_SANDBOX={why} on this worker): "
        f"only the sample bots run unsandboxed unless {UNSAFE_SETTING}=1"
    )
