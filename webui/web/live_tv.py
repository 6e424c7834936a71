"""The game featured live: the home page's "now playing" and ``/tv/``, which moves on to the
next match being played when its match ends, as lichess TV does.

Which matches are being played is read from the database once per change of a match's state
(the ``live`` scope, bumped by every claim, give-back and result) and kept in the shared cache;
the game itself comes from the ``live`` cache its worker writes (:mod:`webui.league.live`). A
poll of ``/api/tv`` so costs the version query and two cache reads, however many watch. It
only reads: the demo keeps something to watch by scheduling ladder matches on its own side
(:func:`webui.league.ladder.house_match`), never from a page.
"""

from __future__ import annotations

import time
from typing import Any, TypedDict

from webui.league import read_models
from webui.league.live import read_states
from webui.league.models import Match, MatchSeat

from .live_progress import _progress, _wins, finished_games
from .read_cache import cached
from .shapes import TvLive

TV_MATCHES = 20
"""The most matches in play the featured game is chosen from (the most recently started)."""
QUIET_S = 60.0
"""A match in play whose worker has written nothing for this long (gone, its lease not yet
run out) is featured only when no other is being played."""


class Running(TypedDict):
    """A match being played, as the featured game names it."""

    match: int
    kind: str
    variant: str
    season: str | None
    entrants: list[str]
    games_planned: int
    sides: int


def _running() -> list[Running]:
    matches = list(
        Match.objects.filter(status=Match.Status.RUNNING)
        .select_related("season__variant", "variant")
        .order_by("-claimed_at", "-pk")[:TV_MATCHES]
    )
    labels: dict[int, list[str]] = {}
    for seat in (
        MatchSeat.objects.filter(match__in=matches)
        .select_related("version__bot")
        .order_by("match_id", "index")
    ):
        labels.setdefault(seat.match_id, []).append(seat.version.label)
    rows: list[Running] = []
    for m in matches:
        variant = m.play_variant()
        rows.append(
            {
                "match": m.pk,
                "kind": m.kind,
                "variant": variant.label,
                "season": m.season.name if m.season is not None else None,
                "entrants": labels.get(m.pk, []),
                "games_planned": m.games_planned,
                "sides": max(1, int(variant.sides)),
            }
        )
    return rows


def running() -> list[Running]:
    """The matches being played, the most recently started first (at most
    :data:`TV_MATCHES`), from the shared cache until a match's state changes."""
    return cached("live-running", [read_models.LIVE], _running)


def _choose(
    rows: list[Running], states: dict[int, dict[str, Any]], stay: int | None
) -> Running | None:
    """The match to show: ``stay`` while it is played; else the most recently started one
    whose worker has written lately; else the most recently started."""
    for row in rows:
        if row["match"] == stay:
            return row
    now = time.time()
    for row in rows:
        state = states.get(row["match"])
        if state is not None and now - float(state.get("updated", 0)) < QUIET_S:
            return row
    return rows[0] if rows else None


def featured(stay: int | None = None) -> TvLive:
    """The game featured now: ``stay`` (the match a TV shows) while it is played, else the
    next; its entrants and live progress. ``match`` None: nothing is being played."""
    rows = running()
    states = read_states([row["match"] for row in rows])
    row = _choose(rows, states, stay)
    if row is None:
        return {
            "match": None,
            "kind": None,
            "variant": None,
            "season": None,
            "entrants": [],
            "playing": 0,
            "live": None,
        }
    state = states.get(row["match"])
    return {
        "match": row["match"],
        "kind": row["kind"],
        "variant": row["variant"],
        "season": row["season"],
        "entrants": row["entrants"],
        "playing": len(rows),
        "live": {
            "match": row["match"],
            **_progress(Match.Status.RUNNING, row["games_planned"], 0, state),
            "games": finished_games(state, row["sides"]),
            "wins": _wins(state, len(row["entrants"])),
        },
    }
