"""The arena's plugins: entry points (:mod:`importlib.metadata`) that name modules, as pytest
finds its plugins.

Two groups: ``scopa_arena.commands`` (the ``arena`` commands, :mod:`arena.cli`) and
``scopa_arena.bench`` (the benchmarks of ``arena bench``, :mod:`arena.commands.bench`). The
library declares its own there and the platform (``webui``, ``workers``) its own, so the
library finds the platform's without importing it by name. Standard library only.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points
from types import ModuleType

COMMANDS = "scopa_arena.commands"
"""The ``arena`` commands: each entry point's name is a command, its value the command's
module (``HELP``, ``register(subparsers)``)."""
BENCHES = "scopa_arena.bench"
"""The benchmarks: each entry point's name is a benchmark, its value the benchmark's module
(``SUMMARY``, ``add_arguments(parser)``, ``run(args)``)."""


def plugins(group: str) -> dict[str, EntryPoint]:
    """The entry points of ``group`` by name, in the order they are declared (the first one
    of a name wins); nothing is imported."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=group):
        found.setdefault(entry.name, entry)
    return found


def load(entry: EntryPoint) -> ModuleType | str:
    """The module an entry point names, or why it cannot be imported (one line): the
    platform's plugins where the platform is not installed."""
    try:
        loaded = entry.load()
    except ImportError as error:
        return f"{entry.value} cannot be imported: {error}"
    if not isinstance(loaded, ModuleType):
        return f"{entry.value} is not a module"
    return loaded
