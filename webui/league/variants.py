"""Variants: a RULES.md preset plus option overrides, the thing seasons, matches and leaderboards
are about; checked by the engine, named once, stored on first use.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.utils.text import slugify

from . import inputs
from .errors import LeagueError
from .models import Variant


def variant_slug(name: str, options: dict[str, Any]) -> str:
    """A stable URL name: the preset, plus its overrides when there are any."""
    if not options:
        return name
    parts = "-".join(f"{key}-{options[key]}" for key in sorted(options))
    slug = f"{slugify(name)}--{slugify(parts.replace('_', '-'))}"
    if len(slug) > 120:
        digest = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()[:12]
        slug = f"{slugify(name)}--{digest}"
    return slug


def variant_of(name: str, options: dict[str, Any] | None = None) -> Variant:
    """The :class:`Variant` of a RULES.md preset and options, checked; nothing is written.

    The stored row when there is one, else an unsaved one: a request that is then refused
    leaves no variant behind (:func:`get_variant` stores it, in the transaction of what uses
    it). Unknown presets or options, and a label longer than its column, raise
    :class:`LeagueError`.
    """
    from arena.engine import rules_for

    try:
        rules = rules_for(name, options or {})
    except ValueError as error:
        raise LeagueError(str(error)) from None
    overrides = rules.options()
    slug = variant_slug(rules.variant, overrides)
    label = (
        rules.variant
        if not overrides
        else (
            rules.variant + " (" + ", ".join(f"{k}={v}" for k, v in sorted(overrides.items())) + ")"
        )
    )
    most = inputs.column_max(Variant, "label")
    if len(label) > most:  # not with the engine's options today: a guard against new ones
        raise LeagueError(
            f"variant {label[:60]!r}...: its options make a name of "
            f"{len(label)} characters, more than {most}"
        )
    existing = Variant.objects.filter(slug=slug).first()
    if existing is not None:
        return existing
    return Variant(
        slug=slug,
        name=rules.variant,
        options=overrides,
        label=label,
        standard=rules.is_standard,
        players=rules.players,
        sides=rules.num_sides,
    )


def get_variant(name: str, options: dict[str, Any] | None = None) -> Variant:
    """The :class:`Variant` for a RULES.md preset and options, created on first use.

    Call it where the variant is used, in the transaction that uses it (a season, a match):
    :func:`variant_of` checks one without writing. Unknown presets or options raise
    :class:`LeagueError` with the engine's reason.
    """
    variant = variant_of(name, options)
    if variant.pk is not None:
        return variant
    stored, _ = Variant.objects.get_or_create(
        slug=variant.slug,
        defaults={
            field: getattr(variant, field)
            for field in ("name", "options", "label", "standard", "players", "sides")
        },
    )
    return stored
