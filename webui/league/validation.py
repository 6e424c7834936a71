"""The verdict on a new version's validation games: does it play, and does it choose by itself?

A version passes when, in every game of its validation set against the random bot, it started,
answered in time, played legal moves and never forfeited, and when it chose most of its moves
itself. The SDK answers a legal move for a bot whose ``choose`` raised and says so (the
``fallback`` of its answer); the runner counts those moves per seat. A version whose fallbacks
are more than :data:`FALLBACK_LIMIT` of the moves it answered did not really play: it fails,
saying how many of its moves were not its own and the first error. A few fallbacks are let
through, and shown on the version's page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.engine import side_of_seat
from arena.engine.replay import ReplayFault, ReplayForfeit

FALLBACK_LIMIT = 0.5
"""The largest share of its answered moves a version may leave to the SDK's fallback."""


class PlayedGame(Protocol):
    """What the verdict reads of a game the runner played (``arena.runner.GameOutcome``)."""

    seats: list[int]
    winner_side: int | None
    forfeit: ReplayForfeit | None
    faults: list[ReplayFault]
    totals: list[int]
    void: str | None
    fallbacks: list[int]
    answered: list[int]


@dataclass
class Verdict:
    """Pass or fail, the one-line reason of a failure, and each game as the page shows it."""

    ok: bool
    reason: str = ""
    games: list[dict[str, Any]] = field(default_factory=list)
    answered: int = 0
    fallbacks: int = 0


def judge(games: Sequence[PlayedGame], labels: Sequence[str], sides: int, own: int = 0) -> Verdict:
    """The verdict on entrant ``own`` of these games; ``labels`` names each entrant."""
    summaries = []
    answered = fallbacks = 0
    first_fault: dict[str, Any] | None = None
    first_fallback = ""
    forfeited = False
    for index, game in enumerate(games):
        own_seats = {seat for seat, entrant in enumerate(game.seats) if entrant == own}
        own_sides = {side_of_seat(seat, sides) for seat in own_seats}
        players = [labels[e] if e < len(labels) else f"entrant {e}" for e in game.seats]
        game_answered = sum(game.answered[s] for s in own_seats if s < len(game.answered))
        game_fallbacks = sum(game.fallbacks[s] for s in own_seats if s < len(game.fallbacks))
        answered += game_answered
        fallbacks += game_fallbacks
        faults = [
            dict(f, player=players[f["seat"]] if 0 <= f.get("seat", -1) < len(players) else "")
            for f in game.faults
        ]
        for fault in faults:
            if fault.get("seat") not in own_seats:
                continue
            if fault.get("kind") == "fallback":
                first_fallback = first_fallback or str(fault.get("detail", ""))
            elif first_fault is None:
                first_fault = fault
        if game.forfeit is not None and game.forfeit.get("side") in own_sides:
            forfeited = True
        winner = None
        if game.winner_side is not None:
            winner = " & ".join(
                p for seat, p in enumerate(players) if side_of_seat(seat, sides) == game.winner_side
            )
        summaries.append(
            {
                "index": index,
                "players": players,
                "totals": list(game.totals),
                "winner": winner,
                "forfeit": game.forfeit,
                "void": game.void or None,
                "answered": game_answered,
                "fallbacks": game_fallbacks,
                "faults": faults,
            }
        )
    verdict = Verdict(True, "", summaries, answered, fallbacks)
    if first_fault is not None:
        detail = str(first_fault.get("detail", ""))
        verdict.ok, verdict.reason = False, f"{first_fault.get('kind')}: {detail}".rstrip(": ")
    elif forfeited:
        verdict.ok, verdict.reason = False, "forfeit"
    elif fallbacks and fallbacks > FALLBACK_LIMIT * answered:
        verdict.ok = False
        verdict.reason = (
            f"its own code chose only {answered - fallbacks} of its {answered} moves: the "
            f"other {fallbacks} were fallback moves after its choose() failed (at most half "
            f"may be); first failure: {first_fallback or 'not reported'}"
        )
    return verdict
