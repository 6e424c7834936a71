"""Season formats, found by name: each is a :class:`~webui.league.formats.base.SeasonFormat`
in a module of its own, and :data:`FORMATS` is the one registry.

- ``round-robin`` (``round-robin+knockout`` with a knockout): two sides; Berger tables
  (:mod:`webui.league.formats.round_robin`);
- ``swiss``: two sides; rounds paired from the table (:mod:`webui.league.formats.swiss`);
- ``tables``: variants of three sides or more; every pair at the same table equally often
  (:mod:`webui.league.formats.tables`);
- ``partnerships``: four-player partnership variants; a whist tournament
  (:mod:`webui.league.formats.partnerships`).

A new format is a new module with its class, added to :data:`FORMATS` (and, for its page, a
``web/formats/<key>.html`` template). Code outside the formats asks a season's format object
(:func:`format_of`), never which format it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..models import BotVersion, Season, Variant
from .base import FormatError, Ref, SeasonFormat, SeasonShape, StandingRow
from .partnerships import Partnerships
from .round_robin import RoundRobin
from .swiss import Swiss
from .tables import Tables

FORMATS: dict[str, type[SeasonFormat]] = {
    cls.key: cls for cls in (RoundRobin, Swiss, Tables, Partnerships)
}
"""Every format by the name a new season asks for, in the order they are offered."""
FORMAT_NAMES = tuple(FORMATS)
"""What a new season may ask for (a knockout is asked for by its size)."""
_BY_STORED = {name: cls for cls in FORMATS.values() for name in cls.names()}


def format_of(season: Season) -> SeasonFormat:
    """The format object of a season (by its stored ``Season.format``)."""
    cls = _BY_STORED.get(season.format)
    if cls is None:
        raise FormatError(f"season {season.name!r} has an unknown format {season.format!r}")
    return cls(season)


def chosen_format(
    variant: Variant, requested: str | None, knockout_size: int
) -> type[SeasonFormat]:
    """The format of a new season: the one asked for, checked against the variant.

    No format asked for (or ``auto``): the first whose :meth:`~SeasonFormat.is_default_for`
    takes the variant (a round-robin for two sides, tables for more).
    """
    name = (requested or "").strip()
    if name in {"", "auto"}:
        name = next(
            (key for key, cls in FORMATS.items() if cls.is_default_for(variant)), FORMAT_NAMES[0]
        )
    cls = _BY_STORED.get(name)
    if cls is None or (name not in FORMATS and name not in cls.names()):
        raise FormatError(f"format {name!r}: one of {', '.join(FORMAT_NAMES)}")
    cls.check_variant(variant, knockout_size)
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
    "FORMAT_NAMES",
    "FormatError",
    "Ref",
    "SeasonFormat",
    "SeasonShape",
    "StandingRow",
    "check_entrants",
    "chosen_format",
    "format_of",
]
