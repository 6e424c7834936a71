"""A season's limits on each bot seat: memory, processes, tmpfs size, CPU time, files.

A season may override the runner's defaults (:class:`arena.runner.Limits`, docs/SECURITY.md)
for its matches: a search-heavy league may give its bots more memory, a blitz league less CPU.
The overrides are stored as a small JSON object on the season (``Season.seat_limits``) in the units
people use (MiB, seconds), checked here against ranges the host can keep, and turned into the
runner's :class:`~arena.runner.Limits` by the workers. Not the ranges of the season's other
numbers (:mod:`webui.league.ranges`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .ranges import RangeError

MIB = 1024**2

#: Each override: (lowest, highest, unit, the runner's Limits field, bytes per unit or 1).
SEAT_LIMITS: Mapping[str, tuple[int, int, str, str, int]] = {
    "memory_mb": (64, 65_536, "MiB", "memory_bytes", MIB),
    "processes": (8, 4_096, "", "processes", 1),
    "tmp_mb": (1, 4_096, "MiB", "tmp_bytes", MIB),
    "cpu_seconds": (1, 86_400, "s", "cpu_seconds", 1),
    "file_mb": (1, 4_096, "MiB", "file_bytes", MIB),
    "open_files": (32, 65_536, "", "open_files", 1),
}


def check_seat_limits(value: Any, label: str = "limits") -> dict[str, int]:
    """The overrides as stored: only known names, whole numbers in range; else RangeError
    naming ``label.name``, its range and what was given."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RangeError(f'{label} must be an object such as {{"memory_mb": 1024}}, not {value!r}')
    unknown = sorted(set(value) - set(SEAT_LIMITS))
    if unknown:
        raise RangeError(
            f"{label}.{unknown[0]} is not a seat limit; there are {', '.join(SEAT_LIMITS)}"
        )
    checked: dict[str, int] = {}
    for name, given in value.items():
        lo, hi, unit, _, _ = SEAT_LIMITS[name]
        shown = f" {unit}" if unit else ""
        if isinstance(given, bool) or not isinstance(given, int):
            raise RangeError(
                f"{label}.{name} must be a whole number between {lo} and {hi}{shown}, not {given!r}"
            )
        if not lo <= given <= hi:
            raise RangeError(f"{label}.{name} must be between {lo} and {hi}{shown}, not {given}")
        checked[name] = given
    return checked


def runner_limits(overrides: Mapping[str, int], games: int, bank_ms: int) -> Any:
    """The runner's :class:`~arena.runner.Limits` for a match of ``games`` games: its defaults
    (:func:`arena.runner.match.default_limits`) with the season's overrides."""
    from arena.runner.match import default_limits

    limits = default_limits(games, bank_ms)
    changes = {
        SEAT_LIMITS[name][3]: value * SEAT_LIMITS[name][4]
        for name, value in overrides.items()
        if name in SEAT_LIMITS
    }
    return dataclasses.replace(limits, **changes)


def describe(overrides: Mapping[str, int], games: int, bank_ms: int) -> dict[str, int]:
    """Every seat limit of such a match, overridden or not, in the units of the overrides."""
    limits = runner_limits(overrides, games, bank_ms)
    return {
        name: getattr(limits, field) // scale
        for name, (_, _, _, field, scale) in SEAT_LIMITS.items()
    }


__all__ = ["SEAT_LIMITS", "check_seat_limits", "describe", "runner_limits"]
