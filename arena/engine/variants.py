"""The rule options of RULES.md and the named variants built from them.

:class:`Rules` is one frozen value holding a variant's layout and every option, each named
exactly as in RULES.md; :data:`VARIANTS` maps each named variant to its rules and
:func:`rules_for` applies option overrides.  This module describes rules; it does not apply
them (that is :mod:`arena.engine.state` and :mod:`arena.engine.scoring`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine.cards import Seat, Side, VariantError

LAYOUTS = ("scopa", "scopone", "scientifico")

# option name -> allowed values (a tuple of choices), or the type for free values.
OPTION_CHOICES: dict[str, tuple[Any, ...] | type] = {
    "target": int,
    "tie_rule": ("play_on", "count_out"),
    "primiera_method": ("sum", "count"),
    "primiera_missing_suit": ("loses", "void", "zero"),
    "re_bello": bool,
    "napoli": bool,
    "sette_tutti": bool,
    "cappotto": bool,
    "last_play_scopa": bool,
    "redeal_kings": bool,
    "assi": bool,
    "assi_sweep_is_scopa": bool,
    "assi_ace_takes_ace": bool,
    "assi_empty_table": ("stay", "pile"),
    "assi_redeal_on_ace": bool,
    "quindici": bool,
}
"""Every rule option of RULES.md, by its exact name, with the values it may take."""

OPTION_NAMES: tuple[str, ...] = tuple(OPTION_CHOICES)

MAX_TARGET = 1000


def side_of_seat(seat: Seat, sides: int) -> Side:
    """The side seat ``seat`` plays for in a game of ``sides`` sides: seats take the sides in
    turn (with partners, seats 0 and 2 are side 0, seats 1 and 3 side 1).

    The one rule for it, for code that knows a game's number of sides but not its rules.

    >>> [side_of_seat(seat, 2) for seat in range(4)], side_of_seat(2, 3)
    ([0, 1, 0, 1], 2)
    """
    return seat % sides


def forfeit_winner(sides: int, side: Side) -> Side | None:
    """Who wins a game that ``side`` forfeits: the other side of a two-side game; with more
    sides, nobody (the game has no winner).

    >>> forfeit_winner(2, 0), forfeit_winner(2, 1), forfeit_winner(3, 1)
    (1, 0, None)
    """
    others = [s for s in range(sides) if s != side]
    return others[0] if len(others) == 1 else None


@dataclass(frozen=True)
class Rules:
    """A variant's layout and every rule option (RULES.md names), as one immutable value.

    >>> rules = rules_for("scopone-21")
    >>> rules.players, rules.partners, rules.target, rules.side_of(3)
    (4, True, 21, 1)
    >>> rules.options(), rules.is_standard
    ({}, True)
    """

    variant: str = "scopa"
    layout: str = "scopa"
    players: int = 2
    partners: bool = False
    target: int = 11
    tie_rule: str = "play_on"
    primiera_method: str = "sum"
    primiera_missing_suit: str = "loses"
    re_bello: bool = False
    napoli: bool = False
    sette_tutti: bool = False
    cappotto: bool = False
    last_play_scopa: bool = False
    redeal_kings: bool = True
    assi: bool = False
    assi_sweep_is_scopa: bool = False
    assi_ace_takes_ace: bool = True
    assi_empty_table: str = "stay"
    assi_redeal_on_ace: bool = False
    quindici: bool = False

    @property
    def num_sides(self) -> int:
        """How many sides score: 2 in partnership games, else one per player."""
        return 2 if self.partners else self.players

    def side_of(self, seat: Seat) -> Side:
        """The side a seat plays for (``seat % 2`` with partners, else the seat itself)."""
        return side_of_seat(seat, self.num_sides)

    def forfeit_winner(self, side: Side) -> Side | None:
        """Who wins a game that ``side`` forfeits (:func:`forfeit_winner`)."""
        return forfeit_winner(self.num_sides, side)

    def seats_of(self, side: Side) -> tuple[Seat, ...]:
        """The seats that play for ``side``.

        >>> rules_for("scopone").seats_of(1)
        (1, 3)
        """
        return tuple(s for s in range(self.players) if self.side_of(s) == side)

    @property
    def hand_size(self) -> int:
        """Cards in each hand after each deal or refill."""
        return {"scopa": 3, "scopone": 9, "scientifico": 10}[self.layout]

    @property
    def table_size(self) -> int:
        """Cards face up on the table when play starts."""
        return 0 if self.layout == "scientifico" else 4

    @property
    def rounds(self) -> int:
        """How many times hands are dealt in one deal (6, 4 or 3 for scopa, else 1)."""
        if self.layout != "scopa":
            return 1
        return (40 - self.table_size) // (3 * self.players)

    def options(self) -> dict[str, Any]:
        """The options that differ from the named variant, ready for JSON.

        >>> rules_for("scopa", {"target": 21, "re_bello": True}).options()
        {'target': 21, 're_bello': True}
        """
        base = VARIANTS.get(self.variant)
        if base is None:
            return {name: getattr(self, name) for name in OPTION_NAMES}
        return {
            name: getattr(self, name)
            for name in OPTION_NAMES
            if getattr(self, name) != getattr(base, name)
        }

    @property
    def is_standard(self) -> bool:
        """Whether these are exactly the named variant's rules (no overrides)."""
        return not self.options()

    def to_json(self) -> dict[str, Any]:
        """``{"variant": ..., "options": {...}}``, the form replays and the protocol use."""
        return {"variant": self.variant, "options": self.options()}

    @property
    def label(self) -> str:
        """The variant name, with its overrides when there are any: ``scopa (target=21)``."""
        opts = self.options()
        if not opts:
            return self.variant
        inner = ", ".join(f"{k}={_option_text(v)}" for k, v in opts.items())
        return f"{self.variant} ({inner})"


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _variant(name: str, layout: str, players: int, **options: Any) -> Rules:
    return Rules(variant=name, layout=layout, players=players, partners=players == 4, **options)


VARIANTS: dict[str, Rules] = {
    rules.variant: rules
    for rules in (
        _variant("scopa", "scopa", 2),
        _variant("scopa-3", "scopa", 3),
        _variant("scopa-4", "scopa", 4),
        _variant("scopone", "scopone", 4),
        _variant("scopone-21", "scopone", 4, target=21),
        _variant("scientifico", "scientifico", 4),
        _variant("trentino", "scientifico", 4, target=21, napoli=True, cappotto=True),
        _variant("scopa-assi", "scopa", 2, assi=True),
        _variant("quindici", "scopa", 2, quindici=True),
        _variant(
            "scopa-veneta",
            "scopa",
            2,
            re_bello=True,
            napoli=True,
            sette_tutti=True,
            cappotto=True,
            primiera_method="count",
        ),
    )
}
"""The named variants of RULES.md, by name."""


def check_option(name: str, value: Any) -> Any:
    """The value of option ``name`` after validation; raises :class:`VariantError` if bad.

    >>> check_option("target", 21)
    21
    >>> check_option("tie_rule", "sudden")
    Traceback (most recent call last):
    ...
    arena.engine.cards.VariantError: option 'tie_rule' must be one of 'play_on', 'count_out', \
not 'sudden'
    """
    allowed = OPTION_CHOICES.get(name)
    if allowed is None:
        known = ", ".join(OPTION_NAMES)
        raise VariantError(f"unknown option {name!r} (known options: {known})")
    if allowed is bool:
        if not isinstance(value, bool):
            raise VariantError(f"option {name!r} must be true or false, not {value!r}")
        return value
    if allowed is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise VariantError(f"option {name!r} must be a whole number, not {value!r}")
        if not 1 <= value <= MAX_TARGET:
            raise VariantError(f"option {name!r} must be between 1 and {MAX_TARGET}, not {value}")
        return value
    assert isinstance(allowed, tuple)
    if value not in allowed:
        choices = ", ".join(repr(c) for c in allowed)
        raise VariantError(f"option {name!r} must be one of {choices}, not {value!r}")
    return value


def rules_for(variant: str, options: Mapping[str, Any] | None = None) -> Rules:
    """The rules of a named variant with single options overridden.

    >>> rules_for("scopa", {"target": 15}).target
    15
    >>> rules_for("briscola")
    Traceback (most recent call last):
    ...
    arena.engine.cards.VariantError: unknown variant 'briscola' (known variants: scopa, \
scopa-3, scopa-4, scopone, scopone-21, scientifico, trentino, scopa-assi, quindici, scopa-veneta)
    """
    base = VARIANTS.get(variant) if isinstance(variant, str) else None
    if base is None:
        known = ", ".join(VARIANTS)
        raise VariantError(f"unknown variant {variant!r} (known variants: {known})")
    if not options:
        return base
    if not isinstance(options, Mapping):
        raise VariantError(f"options must be an object of option names, not {options!r}")
    changes = {}
    for name, value in options.items():
        if not isinstance(name, str):
            raise VariantError(f"unknown option {name!r}")
        changes[name] = check_option(name, value)
    return dataclasses.replace(base, **changes)
