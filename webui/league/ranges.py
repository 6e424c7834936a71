"""The ranges of the numbers a season, a bot and a token may hold, in one place.

The API, the forms, the command line and :func:`webui.league.seasons.create_season` all check
against these, so a value refused in one place is refused everywhere with the same range, and
nothing out of range reaches the database (where a seed of 2**63 would overflow its column) or
a worker (where a bank shorter than a move would void every match). Texts are checked by
:mod:`webui.league.inputs`; bot archives by :mod:`arena.archives`; rules options by the
engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Whole numbers of a season: (lowest, highest). The bank must also be at least a move's time.
#: A format's options declare their own ranges (:mod:`webui.league.formats.options`).
SEASON_NUMBERS: Mapping[str, tuple[int, int]] = {
    "games_per_pairing": (1, 100),
    "move_time_ms": (1, 600_000),
    "bank_ms": (1, 36_000_000),
    "seed": (0, 2**63 - 1),
}

DESCRIPTION_MAX = 2000  # a bot's description (its column has no bound of its own)
ENTRANTS_MAX = 256
# The bounds of names are their columns' (webui.league.inputs.column_max), read from the models.


class RangeError(ValueError):
    """A value out of its range: one line naming the field, the range and the value."""


def check_number(field: str, value: Any, label: str | None = None) -> int:
    """``value`` if it is a whole number in ``field``'s range, else :class:`RangeError`
    (whose message names ``label``, by default the field)."""
    lo, hi = SEASON_NUMBERS[field]
    name = label or field
    if isinstance(value, bool) or not isinstance(value, int):
        raise RangeError(f"{name} must be a whole number between {lo} and {hi}, not {value!r}")
    if not lo <= value <= hi:
        raise RangeError(f"{name} must be between {lo} and {hi}, not {value}")
    return value


def check_bank(
    move_time_ms: int, bank_ms: int, bank: str = "bank_ms", move: str = "move_time_ms"
) -> None:
    """A game's bank holds at least one move's time (else every match would be void); the
    message names the two as ``bank`` and ``move``."""
    if bank_ms < move_time_ms:
        raise RangeError(
            f"{bank} must be at least {move} ({move_time_ms}), not {bank_ms}: "
            "a bank shorter than one move voids every game"
        )


def check_season_numbers(values: Mapping[str, Any]) -> None:
    """Checks every season number given (by its field name) and the bank against the move."""
    for field, value in values.items():
        if field in SEASON_NUMBERS and value is not None:
            check_number(field, value)
    if "move_time_ms" in values and "bank_ms" in values:
        check_bank(values["move_time_ms"], values["bank_ms"])
