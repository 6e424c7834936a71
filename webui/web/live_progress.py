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
from typing import Any

from django.db.models import Count, Q

from arena.engine import side_of_seat
from webui.league.formats import format_of
from webui.league.live import read_state, read_states
from webui.league.models import Match, MatchSeat, Season

from .replay_frames import card_label
from .shapes import FinishedLiveGame, LiveGame, MatchLive, Progress, PublicTable, SeasonLive

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


def match_live(match: Match) -> MatchLive:
    """A match's progress: games done of planned, the game being played (if any), and its
    games finished so far (listed live until the match's games are recorded at its end)."""
    recorded = match.games.count() if match.is_finished else 0
    state = read_state(match.pk) if match.status == Match.Status.RUNNING else None
    listed = state is not None and bool(state.get("games"))
    # Read only when there is a finished game to show (a poll costs no more before).
    sides = max(1, int(match.play_variant().sides)) if listed else 2
    entrants = match.seats.count() if listed else 0
    return {
        "match": match.pk,
        **_progress(match.status, match.games_planned, recorded, state),
        "games": finished_games(state, sides),
        "wins": _wins(state, entrants),
    }


def season_live(season: Season) -> SeasonLive:
    """A season's progress: matches done of planned, and the matches being played now."""
    counts = Match.objects.filter(season=season).aggregate(
        scheduled=Count("id"),
        done=Count("id", filter=Q(status__in=[Match.Status.DONE, Match.Status.VOID])),
    )
    planned = max(format_of(season).planned_matches(), counts["scheduled"])
    running = list(
        Match.objects.filter(season=season, status=Match.Status.RUNNING)
        .select_related("round")
        .order_by("round__number", "board")[:SEASON_LIVE_MATCHES]
    )
    states = read_states([m.pk for m in running])
    labels: dict[int, list[str]] = {}
    for seat in (
        MatchSeat.objects.filter(match__in=running)
        .select_related("version__bot")
        .order_by("match_id", "index")
    ):
        labels.setdefault(seat.match_id, []).append(seat.version.label)
    return {
        "season": season.pk,
        "status": season.status,
        "matches_done": counts["done"],
        "matches_planned": planned,
        "matches_scheduled": counts["scheduled"],
        "playing": [
            {
                "match": m.pk,
                "round": m.round.number if m.round is not None else None,
                "entrants": labels.get(m.pk, []),
                **_progress(m.status, m.games_planned, 0, states.get(m.pk), SEASON_LIVE_MOVES),
            }
            for m in running
        ],
    }
