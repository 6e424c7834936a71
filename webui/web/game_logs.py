"""The bots' own logs of a game, for their owners: who may read which, and their JSON and text.

A game's logs (:class:`webui.league.models.GameLog`) are private: a bot's owner reads the logs
of the seats its bots played, staff every seat's; anyone else finds nothing (the routes answer
404, as for a game that does not exist). They are never part of the replay.
"""

from __future__ import annotations

from typing import Any, TypedDict

from django.db.models import QuerySet

from webui.league.models import GameLog


class TurnJson(TypedDict):
    """Where one turn's lines are in a log's text."""

    deal: int  # the deal's index in the game (0 first), as the replay's deals
    move: int  # the move's index in its deal (0 first)
    seat: int
    start: int  # offsets in the text: text[start:end] is what the bot wrote in this turn
    end: int


class GameLogJson(TypedDict):
    """One bot process's log of a game."""

    seat: int
    seats: list[int]
    bot: str  # the version's label, ``name@number``
    text: str
    cut: int  # characters left out over the cap (the text ends with a note saying so)
    turns: list[TurnJson]


def readable_logs(user: Any, game_id: int) -> QuerySet[GameLog]:
    """The logs of game ``game_id`` that ``user`` may read: its own bots' (every one for staff,
    none for anyone not logged in)."""
    logs = GameLog.objects.filter(game_id=game_id)
    if not getattr(user, "is_authenticated", False):
        return logs.none()
    if user.is_staff:
        return logs
    return logs.filter(version__bot__owner_id=user.pk)


def log_json(log: GameLog) -> GameLogJson:
    """A log with its turns' offsets as start and end (the text runs to the next turn's start,
    the last turn to the end of the text)."""
    text = str(log.text)
    marks = [m for m in log.turns if isinstance(m, list) and len(m) == 4]
    turns: list[TurnJson] = []
    for i, (deal, move, seat, start) in enumerate(marks):
        end = int(marks[i + 1][3]) if i + 1 < len(marks) else len(text)
        turns.append(
            {"deal": int(deal), "move": int(move), "seat": int(seat), "start": start, "end": end}
        )
    return {
        "seat": log.seat,
        "seats": [int(s) for s in log.seats],
        "bot": log.version.label,
        "text": text,
        "cut": log.cut,
        "turns": turns,
    }


def logs_text(game_id: int, logs: list[GameLog]) -> str:
    """The logs as one text to download: each seat's under a heading line."""
    parts = []
    for log in logs:
        seats = ", ".join(str(s) for s in log.seats)
        parts.append(f"=== game {game_id}, seat {seats}: {log.version.label} ===\n{log.text}")
    return "\n".join(parts)


__all__ = ["GameLogJson", "TurnJson", "log_json", "logs_text", "readable_logs"]
