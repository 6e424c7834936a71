"""Season formats, found by name: each is a :class:`~webui.league.formats.base.SeasonFormat`
in a module of its own, and :data:`FORMATS` is the one registry.

- ``round-robin`` (``round-robin+knockout`` with a knockout): two sides; Berger tables
  (:mod:`webui.league.formats.round_robin`);
- ``swiss``: two sides; rounds paired from the table (:mod:`webui.league.formats.swiss`);
- ``tables``: variants of three sides or more; every pair at the same table equally often
  (:mod:`webui.league.formats.tables`);
- ``partnerships``: four-player partnership variants; a whist tournament
  (:mod:`webui.league.formats.partnerships`).

A new format is a new module here with its class, added to :data:`FORMATS` below, its page's
``web/formats/<key>.html`` template, and its tests. Its name, labels, description and options
(a frozen dataclass, :mod:`webui.league.formats.options`, stored as ``Season.format_options``)
are declared on the class, and the model's choices, the season form, the API's fields and
schema and the command line's ``--format`` and flags are read from :data:`FORMATS`. Code
outside the formats asks a season's format object (:func:`format_of`), never which format it
is.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import BotVersion, Season, Variant
from .base import FormatError, Ref, SeasonFormat, SeasonShape, StandingRow
from .options import FormatOptions, Option
from .partnerships import Partnerships
from .round_robin import RoundRobin
from .swiss import Swiss
from .tables import Tables

FORMATS: dict[str, type[SeasonFormat]] = {
    cls.key: cls for cls in (RoundRobin, Swiss, Tables, Partnerships)
}
"""Every format by the name a new season asks for, in the order they are offered (a test may
add one for its duration)."""


def format_names() -> tuple[str, ...]:
    """What a new season may ask for (a knockout is asked for by its size)."""
    return tuple(FORMATS)


def format_choices() -> list[tuple[str, str]]:
    """Every ``Season.format`` value with its label: the model's choices."""
    return [choice for cls in FORMATS.values() for choice in cls.choices()]


def every_option() -> dict[str, Option]:
    """Each format's options by name (two formats may share an option only if they declare
    it alike), in the order the formats are offered."""
    out: dict[str, Option] = {}
    for cls in FORMATS.values():
        for declared in cls.Options.declared():
            if out.setdefault(declared.name, declared) != declared:
                raise TypeError(f"option {declared.name!r} is declared twice, differently")
    return out


def _by_stored() -> dict[str, type[SeasonFormat]]:
    return {name: cls for cls in FORMATS.values() for name in cls.names()}


def format_of(season: Season) -> SeasonFormat:
    """The format object of a season (by its stored ``Season.format``)."""
    cls = _by_stored().get(season.format)
    if cls is None:
        raise FormatError(f"season {season.name!r} has an unknown format {season.format!r}")
    return cls(season)


def chosen_format(variant: Variant, requested: str | None) -> type[SeasonFormat]:
    """The format of a new season: the one asked for, checked against the variant.

    No format asked for (or ``auto``): the first whose :meth:`~SeasonFormat.is_default_for`
    takes the variant (a round-robin for two sides, tables for more).
    """
    names = format_names()
    name = (requested or "").strip()
    if name in {"", "auto"}:
        name = next((key for key, cls in FORMATS.items() if cls.is_default_for(variant)), names[0])
    cls = _by_stored().get(name)
    if cls is None:
        raise FormatError(f"format {name!r}: one of {', '.join(names)}")
    cls.check_variant(variant)
    return cls


def check_entrants(variant: Variant, entrants: Sequence[BotVersion]) -> None:
    """Refuses versions that are not validated or whose bot.toml does not list the variant."""
    not_ready = [v.label for v in entrants if v.status != BotVersion.Status.READY]
    if not_ready:
        raise FormatError(f"not validated yet: {', '.join(not_ready)}")
    for version in entrants:
        declared = version.manifest.get("variants") if isinstance(version.manifest, dict) else None
        names = [str(n) for n in declared] if isinstance(declared, list) and declared else ["*"]
        if "*" not in names and variant.name not in names:
            raise FormatError(
                f"entrant {version.label} does not play {variant.name}: its bot.toml lists "
                f"{', '.join(names)}"
            )


__all__ = [
    "FORMATS",
    "FormatError",
    "FormatOptions",
    "Option",
    "Ref",
    "SeasonFormat",
    "SeasonShape",
    "StandingRow",
    "check_entrants",
    "chosen_format",
    "every_option",
    "format_choices",
    "format_names",
    "format_of",
]
