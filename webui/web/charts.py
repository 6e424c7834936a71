"""Server-drawn SVG charts: a bot's rating history (mu with its 3-sigma band), and an SPRT's
LLR between its bounds.

Plain SVG text with no script, so it shows on any phone and in any feed reader; the numbers
come from :func:`webui.web.reads.bot_charts`. Drawing only: no queries here.
"""

from __future__ import annotations

from html import escape
from typing import Any

from django.utils.safestring import SafeString, mark_safe

SERIES_COLOURS = 6
"""Series are coloured by the stylesheet (``.s0`` to ``.s5``), so each colour scheme has its own."""


def rating_chart(series: list[dict[str, Any]], width: int = 640, height: int = 240) -> SafeString:
    """An SVG line chart of mu per rated game, one line per series, with a sigma band; the
    x axis counts each rating's own games (``game``: 1 is its first rated game)."""
    points = [p for s in series for p in s["points"]]
    if not points:
        return mark_safe('<p class="empty">No rated games yet.</p>')
    left, right, top, bottom = 44, 12, 12, 28

    def at(p: dict[str, Any]) -> float:
        return float(p.get("game", p["seq"]))

    xs = [at(p) for p in points]
    lows = [p["mu"] - 3 * p["sigma"] for p in points] + [p["mu"] for p in points]
    highs = [p["mu"] + 3 * p["sigma"] for p in points] + [p["mu"] for p in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(lows), max(highs)
    if x1 == x0:
        x1 = x0 + 1
    pad = (y1 - y0) * 0.05 or 1.0
    y0, y1 = y0 - pad, y1 + pad
    w, h = width - left - right, height - top - bottom

    def sx(x: float) -> float:
        return float(left + (x - x0) / (x1 - x0) * w)

    def sy(y: float) -> float:
        return float(top + (1 - (y - y0) / (y1 - y0)) * h)

    out = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="Rating history">'
    ]
    for k in range(5):
        value = y0 + (y1 - y0) * k / 4
        y = sy(value)
        out.append(
            f'<line class="grid-line" x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}"/>'
        )
        out.append(
            f'<text class="axis" x="{left - 6}" y="{y + 4:.1f}" '
            f'text-anchor="end">{value:.0f}</text>'
        )
    out.append(f'<text class="axis" x="{left}" y="{height - 8}">game {x0:.0f}</text>')
    out.append(
        f'<text class="axis" x="{width - right}" y="{height - 8}" '
        f'text-anchor="end">game {max(xs):.0f} (rated games)</text>'
    )
    for i, s in enumerate(series):
        pts = s["points"]
        if not pts:
            continue
        colour = f"s{i % SERIES_COLOURS}"
        upper = " ".join(f"{sx(at(p)):.1f},{sy(p['mu'] + 3 * p['sigma']):.1f}" for p in pts)
        lower = " ".join(
            f"{sx(at(p)):.1f},{sy(p['mu'] - 3 * p['sigma']):.1f}" for p in reversed(pts)
        )
        out.append(f'<g class="{colour}">')
        out.append(f'<polygon points="{upper} {lower}" fill="currentColor" fill-opacity=".14"/>')
        line = " ".join(f"{sx(at(p)):.1f},{sy(p['mu']):.1f}" for p in pts)
        out.append(
            f'<polyline points="{line}" fill="none" stroke="currentColor" '
            f'stroke-width="2"><title>{escape(s["label"])}</title></polyline>'
        )
        last = pts[-1]
        out.append(
            f'<circle cx="{sx(at(last)):.1f}" cy="{sy(last["mu"]):.1f}" r="3.5" '
            f'fill="currentColor"><title>{escape(s["label"])}: mu {last["mu"]:.2f}, '
            f"sigma {last['sigma']:.2f}</title></circle></g>"
        )
    legend_x = left + 8
    for i, s in enumerate(series):
        out.append(
            f'<rect class="s{i % SERIES_COLOURS}" x="{legend_x}" y="{top + 4 + i * 16}" '
            f'width="10" height="10" fill="currentColor"/><text class="axis" '
            f'x="{legend_x + 14}" y="{top + 13 + i * 16}">{escape(s["label"])}</text>'
        )
    out.append("</svg>")
    return mark_safe("".join(out))


def llr_chart(
    history: list[float], lower: float, upper: float, width: int = 640, height: int = 240
) -> SafeString:
    """An SVG line chart of an SPRT's log-likelihood ratio after each pair, between its two
    bounds (dashed: accept H0 below ``lower``, H1 above ``upper``)."""
    left, right, top, bottom = 44, 12, 12, 28
    values = [0.0, *history]
    y0 = min(lower, *values) * 1.08
    y1 = max(upper, *values) * 1.08
    x1 = max(1, len(values) - 1)
    w, h = width - left - right, height - top - bottom

    def sx(x: float) -> float:
        return float(left + x / x1 * w)

    def sy(y: float) -> float:
        return float(top + (1 - (y - y0) / (y1 - y0)) * h)

    out = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="LLR after each pair, between its bounds">'
    ]
    for value, name in ((upper, "H1"), (0.0, ""), (lower, "H0")):
        y = sy(value)
        dash = ' stroke-dasharray="6 4"' if name else ""
        out.append(
            f'<line class="grid-line bound" x1="{left}" x2="{width - right}" '
            f'y1="{y:.1f}" y2="{y:.1f}"{dash}/>'
        )
        label = f"{name} {value:.2f}" if name else "0"
        out.append(
            f'<text class="axis" x="{left - 6}" y="{y + 4:.1f}" '
            f'text-anchor="end">{escape(label)}</text>'
        )
    out.append(f'<text class="axis" x="{left}" y="{height - 8}">pair 0</text>')
    out.append(
        f'<text class="axis" x="{width - right}" y="{height - 8}" '
        f'text-anchor="end">pair {len(history)}</text>'
    )
    line = " ".join(f"{sx(i):.1f},{sy(v):.1f}" for i, v in enumerate(values))
    out.append(
        f'<g class="s0"><polyline points="{line}" fill="none" stroke="currentColor" '
        f'stroke-width="2"><title>LLR</title></polyline>'
    )
    last = values[-1]
    out.append(
        f'<circle cx="{sx(len(values) - 1):.1f}" cy="{sy(last):.1f}" r="3.5" '
        f'fill="currentColor"><title>LLR {last:.2f} after {len(history)} pairs'
        f"</title></circle></g></svg>"
    )
    return mark_safe("".join(out))
