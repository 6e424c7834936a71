"""Seasons filled with engine-played games, for the site's tests, screenshots and benchmark.

The games are real: dealt and played by :mod:`arena.engine` (a small greedy policy, seeded) and
recorded in the REPLAY.md format; the results go through the league's own services (claim,
record, rate, schedule), exactly as a worker would hand them over. What is skipped is only the
bot processes and gRPC, which the site never sees. Not used by the running site.
"""

from __future__ import annotations

import random
from typing import Any

from arena.engine import Game, Move, ReplayRecorder, rules_for
from webui.league import services
from webui.league.models import Match, Season


def _greedy(moves: list[Move], pick: random.Random) -> Move:
    """Takes the biggest capture (the settebello first), else lays down a random card."""
    captures = [m for m in moves if m.capture]
    if captures:
        return max(captures, key=lambda m: (6 in m.capture or m.card == 6, len(m.capture),
                                            pick.random()))
    return pick.choice(moves)


def engine_replay(
    variant: str,
    seed: int,
    players: list[str],
    options: dict[str, Any] | None = None,
    greedy_seats: frozenset[int] = frozenset(),
    fault_at: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """A whole game played by the engine: random players, greedy in ``greedy_seats``.

    ``fault_at=(deal, move)`` records a timeout of the seat to move there (the arena moves).
    """
    rules = rules_for(variant, options or None)
    game = Game(rules, seed)
    pick = random.Random(seed)
    recorder = ReplayRecorder(rules, seed, players)
    bank = [30_000] * rules.players
    deal_index = 0
    while not game.is_over():
        deal = game.new_deal()
        recorder.start_deal(game, deal)
        move_index = 0
        while not deal.is_over():
            seat = deal.to_move
            moves = deal.legal_moves()
            auto = None
            if fault_at == (deal_index, move_index):
                recorder.record_fault(seat, "timeout", "no answer within the move time")
                auto = "timeout"
                ms = 1000
            else:
                ms = pick.randint(2, 120)
            move = _greedy(moves, pick) if seat in greedy_seats else pick.choice(moves)
            bank[seat] = max(0, bank[seat] - ms)
            deal.apply(move)
            recorder.record_move(seat, move, ms=ms, clock_ms=bank[seat], auto=auto)
            move_index += 1
        game.finish_deal(deal)
        deal_index += 1
    return recorder.finish(game)


def match_report(match: Match, greedy_entrant: int | None = 0) -> dict[str, Any]:
    """The report a worker would hand over for ``match``: a duplicate set of engine games."""
    entrants = match.entrants()
    variant = match.season.variant
    first = not Match.objects.filter(season_id=match.season_id, pk__lt=match.pk).exists()
    games = []
    for index in range(match.games_planned):
        swapped = index % 2 == 1
        seats = [1, 0] if swapped else [0, 1]
        if variant.players == 4:
            seats = seats + seats
        greedy = frozenset(
            seat for seat, entrant in enumerate(seats) if entrant == greedy_entrant
        )
        replay = engine_replay(
            variant.name,
            match.seed + index // 2,
            [entrants[e].label for e in seats],
            dict(variant.options),
            greedy,
            # The first game of a season's first match has a timeout, as real seasons do.
            fault_at=(0, 2) if index == 0 and first else None,
        )
        replay["match"] = str(match.pk)
        games.append({
            "replay": replay,
            "seats": seats,
            "winner_side": (replay.get("result") or {}).get("winner"),
            "void": "",
            "forfeit": None,
            "faults": list(replay.get("faults") or []),
            "duration_ms": 40 * sum(len(d["moves"]) for d in replay["deals"]),
        })
    return {"games": games, "duration_ms": sum(g["duration_ms"] for g in games)}


def play_season(season: Season, max_rounds: int = 100) -> int:
    """Plays every scheduled match of ``season`` in this process until it is finished.

    Returns the number of matches played. The season must have been started.
    """
    played = 0
    for _ in range(max_rounds):
        pending = list(
            Match.objects.filter(season=season, status=Match.Status.SCHEDULED).order_by("id")
        )
        for match in pending:
            claim = services.claim_match(match.pk, "sampledata")
            if claim is None:
                continue
            greedy = match.pk % 3  # a different strength story per match
            services.record_result(claim, match_report(match, greedy if greedy < 2 else None))
            played += 1
        services.update_ratings(season.variant_id)
        services.schedule_next_round(season.pk)
        season.refresh_from_db()
        if season.status == Season.Status.FINISHED:
            break
    return played
