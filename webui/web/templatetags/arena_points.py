"""``{% point_categories %}``: the engine's point categories
(:data:`arena.engine.POINT_CATEGORIES`) as JSON in the page, ``<script id="point-categories"
type="application/json">``, for the replay viewer and the Play page's scripts, which list no
category of their own."""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString

from arena.engine import POINT_CATEGORIES

register = template.Library()


@register.simple_tag
def point_categories() -> SafeString:
    """The point categories, in order: key, label, abbreviation, meaning, whether optional."""
    return json_script([c.to_json() for c in POINT_CATEGORIES], "point-categories")
