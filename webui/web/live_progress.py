"""The live progress of a match or a season, as the pages poll it (``/api/.../live``).

Games done and planned come from the database (finished matches, recorded games); the game
being played comes from the ``live`` cache its worker writes (:mod:`webui.league.live`). The
pages poll these small JSON documents every few seconds rather than hold a server-sent event
stream open: a poll costs one short request, so the site's synchronous workers (gunicorn behind
nginx) are never tied up by the pages left open, and a page that misses a poll simply reads the
next one.
"""

from __future__ import annotations

import datetime
from typing import Any, TypedDict

from django.db.models import Count, Q

from arena.engine import side_of_seat
from webui.league import read_models
from webui.league.formats import format_of
from webui.league.live import read_state, read_states
from webui.league.models import Match, MatchSeat, Season

from .read_cache import cached
from .reads import match_detail
from .replay_frames import card_label
from .shapes import (
    FinishedLiveGame,
    LiveGame,
    MatchLive,
    MatchRow,
    Progress,
    PublicTable,
    SeasonLive,
)

POLL_MS = 2000
"""How often the pages ask for the live progress (milliseconds)."""
SEASON_LIVE_MATCHES = 8
"""The most matches in play a season's live progress lists."""
SEASON_LIVE_MOVES = 40
"""The latest moves of each match a season's live progress gives (a match's own, all)."""


def _card(name: Any) -> str:
    try:
        return card_label(str(name))
    except Exception:  # a card the rules do not know is shown as written
        return str(name)


def move_text(record: dict[str, Any], players: list[str]) -> str:
    """One move in words: ``greedy@1 plays Sette di denari, takes Tre di bastoni, Quattro ...``."""
    seat = int(record.get("seat", 0))
    who = players[seat] if 0 <= seat < len(players) else f"seat {seat}"
    text = f"{who} plays {_card(record.get('card', '?'))}"
    capture = record.get("capture") or []
    if capture:
        text += ", takes " + ", ".join(_card(c) for c in capture)
    if record.get("auto"):
        text += f" (played by the arena: {record['auto']})"
    return text


def _public_table(raw: Any) -> PublicTable | None:
    """The published table, only its public fields, or None (a worker of before it)."""
    if not isinstance(raw, dict) or "table" not in raw:
        return None
    return PublicTable(
        table=raw.get("table"),
        hands=raw.get("hands"),
        captured=raw.get("captured"),
        scope=raw.get("scope"),
        stock=raw.get("stock"),
        dealer=raw.get("dealer"),
        to_move=raw.get("to_move"),
    )


def _current(state: dict[str, Any] | None, last: int | None = None) -> LiveGame | None:
    """The game being played; ``last``: only its latest moves (a season lists many matches)."""
    if state is None or not state.get("played"):
        return None
    moves = list(state.get("moves") or [])
    if last is not None:
        moves = moves[-last:]
    players = [str(p) for p in state.get("players") or []]
    return {
        "game": int(state.get("game", 0)),
        "deal": int(state.get("deal", 0)),
        "players": players,
        "totals": list(state.get("totals") or []),
        "moves": [
            {
                "deal": int(m.get("deal", 0)),
                "move": int(m.get("move", 0)),
                "seat": int(m.get("seat", 0)),
                "text": move_text(m, players),
                "card": str(m.get("card", "")),
                "capture": [str(c) for c in m.get("capture") or []],
                "scopa": bool(m.get("scopa")),
                "auto": m.get("auto") or None,
                "ms": m.get("ms"),
                "clock": m.get("clock"),
            }
            for m in moves
        ],
        # The table after the latest move, as every seat sees it (no hand): for the live
        # view drawn like the replay viewer (live.js with viewer.js).
        "table": _public_table(state.get("table")),
        "updated": datetime.datetime.fromtimestamp(
            float(state.get("updated", 0)), tz=datetime.UTC
        ).isoformat(),
    }


def _progress(
    status: str,
    games_planned: int,
    recorded: int,
    state: dict[str, Any] | None,
    last: int | None = None,
) -> Progress:
    finished = status in {Match.Status.DONE, Match.Status.VOID}
    playing = status == Match.Status.RUNNING and state is not None
    done = recorded
    if not finished:
        done = 0
        if state is not None:
            # A game counts once it is over: listed (a worker that lists them), or left
            # behind by the game being played.
            done = max(len(state.get("games") or []), int(state.get("game", 0)))
        done = min(games_planned, done)
    return {
        "status": status,
        "finished": finished,
        "games_planned": games_planned,
        "games_done": done,
        "current": _current(state, last) if playing else None,
    }


def finished_games(state: dict[str, Any] | None, sides: int) -> list[FinishedLiveGame]:
    """The finished games a worker listed in a match's live state, oldest first."""
    rows: list[FinishedLiveGame] = []
    for raw in (state or {}).get("games") or []:
        if not isinstance(raw, dict):
            continue
        players = [str(p) for p in raw.get("players") or []]
        # A side played by one version in both seats is named once, as the recorded games are.
        names = [
            " & ".join(
                dict.fromkeys(p for k, p in enumerate(players) if side_of_seat(k, sides) == s)
            )
            for s in range(sides)
        ]
        winner = raw.get("winner_side")
        void = bool(raw.get("void"))
        if void:
            outcome = "void"
        elif winner is None:
            outcome = "draw"
        else:
            outcome = f"{names[winner]} won" if 0 <= winner < len(names) else "won"
        rows.append(
            {
                "index": int(raw.get("index", len(rows))),
                "players": players,
                "sides": names,
                "totals": [int(t) for t in raw.get("totals") or []],
                "winner_side": winner if isinstance(winner, int) else None,
                "outcome": outcome,
                "void": void,
                "forfeit": bool(raw.get("forfeit")),
                "faults": int(raw.get("faults", 0)),
            }
        )
    return rows


def _wins(state: dict[str, Any] | None, entrants: int) -> list[int] | None:
    """Games won by each entrant among the listed ones; None before any game is over."""
    games = [g for g in (state or {}).get("games") or [] if isinstance(g, dict)]
    if not games:
        return None
    wins = [0] * entrants
    for game in games:
        if game.get("void"):
            continue
        for entrant in game.get("winners") or []:
            if 0 <= int(entrant) < entrants:
                wins[int(entrant)] += 1
    return wins


class MatchRows(TypedDict):
    """What a match's page and live progress read of the database: its page's rows and the
    counts its progress needs. Kept under the ``live`` scope (bumped by every change of a
    match's state), so a poll reads them from the shared cache."""

    detail: MatchRow
    status: str
    games_planned: int
    recorded: int
    sides: int
    entrants: int


def _match_rows(match_id: int) -> MatchRows | None:
    match = (
        Match.objects.select_related("season__variant", "round", "variant")
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        return None
    detail = match_detail(match)
    return {
        "detail": detail,
        "status": match.status,
        "games_planned": match.games_planned,
        "recorded": len(detail["games"]) if match.is_finished else 0,
        "sides": max(1, int(match.play_variant().sides)),
        "entrants": len(detail["entrants"]),
    }


def match_rows(match_id: int) -> MatchRows | None:
    """A match's rows (None: no such match), from the shared cache when another request
    read them since the last change of a match's state."""
    return cached(f"match-rows:{match_id}", [read_models.LIVE], lambda: _match_rows(match_id))


def match_live(match: Match | int) -> MatchLive:
    """A match's progress: games done of planned, the game being played (if any), and its
    games finished so far (listed live until the match's games are recorded at its end)."""
    rows = match_rows(match if isinstance(match, int) else match.pk)
    if rows is None:
        raise Match.DoesNotExist(f"no match {match}")
    return live_of(match if isinstance(match, int) else match.pk, rows)


def live_of(match_id: int, rows: MatchRows) -> MatchLive:
    """A match's progress from its rows and its live state (one read of the ``live`` cache
    while it is played)."""
    state = read_state(match_id) if rows["status"] == Match.Status.RUNNING else None
    return {
        "match": match_id,
        **_progress(rows["status"], rows["games_planned"], rows["recorded"], state),
        "games": finished_games(state, rows["sides"]),
        "wins": _wins(state, rows["entrants"]),
    }


class _SeasonRows(TypedDict):
    status: str
    matches_done: int
    matches_planned: int
    matches_scheduled: int
    running: list[dict[str, Any]]


def _season_rows(season_id: int) -> _SeasonRows | None:
    season = Season.objects.select_related("variant").filter(pk=season_id).first()
    if season is None:
        return None
    counts = Match.objects.filter(season=season).aggregate(
        scheduled=Count("id"),
        done=Count("id", filter=Q(status__in=[Match.Status.DONE, Match.Status.VOID])),
    )
    running = list(
        Match.objects.filter(season=season, status=Match.Status.RUNNING)
        .select_related("round")
        .order_by("round__number", "board")[:SEASON_LIVE_MATCHES]
    )
    labels: dict[int, list[str]] = {}
    for seat in (
        MatchSeat.objects.filter(match__in=running)
        .select_related("version__bot")
        .order_by("match_id", "index")
    ):
        labels.setdefault(seat.match_id, []).append(seat.version.label)
    return {
        "status": season.status,
        "matches_done": counts["done"],
        "matches_planned": max(format_of(season).planned_matches(), counts["scheduled"]),
        "matches_scheduled": counts["scheduled"],
        "running": [
            {
                "match": m.pk,
                "round": m.round.number if m.round is not None else None,
                "entrants": labels.get(m.pk, []),
                "status": m.status,
                "games_planned": m.games_planned,
            }
            for m in running
        ],
    }


def season_live(season: Season | int) -> SeasonLive:
    """A season's progress: matches done of planned, and the matches being played now.

    Its rows (counts, the matches in play) are kept under the season's scope, which every
    claim and result of its matches bumps; the moves come from the ``live`` cache at each
    read. A poll so costs the version query and two cache reads, whoever asked last.
    """
    season_id = season if isinstance(season, int) else season.pk
    rows = cached(
        f"season-live-rows:{season_id}",
        [read_models.season_scope(season_id)],
        lambda: _season_rows(season_id),
    )
    if rows is None:
        raise Season.DoesNotExist(f"no season {season_id}")
    states = read_states([m["match"] for m in rows["running"]])
    return {
        "season": season_id,
        "status": rows["status"],
        "matches_done": rows["matches_done"],
        "matches_planned": rows["matches_planned"],
        "matches_scheduled": rows["matches_scheduled"],
        "playing": [
            {
                "match": m["match"],
                "round": m["round"],
                "entrants": m["entrants"],
                **_progress(
                    m["status"], m["games_planned"], 0, states.get(m["match"]), SEASON_LIVE_MOVES
                ),
            }
            for m in rows["running"]
        ],
    }
