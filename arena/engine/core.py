"""Which engine plays: the compiled core (:mod:`arena.engine._core`) where it is built, else the
pure-Python engine, which stays the reference.

``scripts/setup`` builds the core with Cython and the machine's C compiler; without them the
engine is pure Python and nothing else changes.  ``ARENA_ENGINE=python`` in the environment
forces the pure engine even where the core is built.  With the core loaded, every
:class:`arena.engine.Deal` made for rules it plays is a ``CoreDeal``: the same API, moves, states,
scores and replays, on a state kept in C (the differential tests in ``tests/engine`` check it).

>>> backend() in ("core", "python")
True
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.engine.state import Deal, set_fast_deal
from arena.engine.variants import Rules

ENV_VAR = "ARENA_ENGINE"


def _stale() -> bool:
    """Whether the built core is older than its source (a checkout changed it since the
    build): then it is not loaded until ``scripts/setup`` builds it again."""
    here = Path(__file__).resolve().parent
    source = here / "_core.pyx"
    builds = list(here.glob("_core.*.so")) + list(here.glob("_core.*.pyd"))
    if not source.exists() or not builds:
        return False  # an installed package without its source, or nothing built
    return max(b.stat().st_mtime for b in builds) < source.stat().st_mtime


def _load() -> ModuleType | None:
    if _stale():
        return None
    try:
        import arena.engine._core as built  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return built  # type: ignore[no-any-return, unused-ignore]


compiled: ModuleType | None = _load()
"""The compiled core module when it is built, whatever ``ARENA_ENGINE`` says (for tests and
benchmarks that compare the two engines)."""

_active: ModuleType | None = None
_unsupported: dict[Rules, str | None] = {}


def unsupported(rules: Rules) -> str | None:
    """Why the compiled core declines ``rules`` (the pure engine plays them), or None."""
    if compiled is None:
        return "the compiled core is not built"
    if rules not in _unsupported:
        _unsupported[rules] = compiled.unsupported(rules)
    return _unsupported[rules]


def _fast_class(rules: Rules) -> type[Deal] | None:
    core = _active
    if core is None:
        return None
    why = _unsupported.get(rules, "?")
    if why == "?":
        why = unsupported(rules)
    return None if why else core.CoreDeal  # type: ignore[no-any-return, unused-ignore]


def use(name: str) -> None:
    """Makes ``name`` (``"core"`` or ``"python"``) the engine of every deal made from now on.

    ``"core"`` needs the compiled core built (raises :class:`RuntimeError` otherwise)."""
    global _active
    if name == "python":
        _active = None
        set_fast_deal(None)
        return
    if name != "core":
        raise ValueError(f"no engine {name!r} (core or python)")
    if compiled is None:
        raise RuntimeError("the compiled core is not built (run scripts/setup)")
    _active = compiled
    set_fast_deal(_fast_class)


@contextmanager
def engine(name: str) -> Iterator[None]:
    """Deals made inside are ``name``'s (``"core"`` or ``"python"``); the engine before is back
    after."""
    before = backend()
    use(name)
    try:
        yield
    finally:
        use(before)


def backend() -> str:
    """The engine deals are made with: ``"core"`` or ``"python"``."""
    return "core" if _active is not None else "python"


def describe() -> dict[str, Any]:
    """The engine in use and why, for ``arena bench`` and ``arena version`` style reports."""
    return {
        "engine": backend(),
        "compiled": compiled is not None,
        "forced_python": os.environ.get(ENV_VAR, "").lower() == "python",
        "stale": _stale(),
    }


if compiled is not None and os.environ.get(ENV_VAR, "").lower() != "python":
    use("core")
