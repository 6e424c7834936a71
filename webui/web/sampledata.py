"""Seasons filled with engine-played games, for the site's tests, screenshots and benchmark.

The games are real: dealt and played by :mod:`arena.engine` (a small greedy policy, seeded) and
recorded in the REPLAY.md format; the results go through the league's own write paths (claim,
record, rate, schedule), exactly as a worker would hand them over. What is skipped is only the
bot processes and gRPC, which the site never sees. Not used by the running site.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from arena.engine import Game, Move, ReplayRecorder, rules_for, side_of_seat
from arena.engine.replay import Replay
from webui.league import matches, ratings, seasons
from webui.league.models import Match, Season

if TYPE_CHECKING:
    from arena.runner import GameJson, MatchReportJson


def _greedy(moves: list[Move], pick: random.Random) -> Move:
    """Takes the biggest capture (the settebello first), else lays down a random card."""
    captures = [m for m in moves if m.capture]
    if captures:
        return max(
            captures, key=lambda m: (6 in m.capture or m.card == 6, len(m.capture), pick.random())
        )
    return pick.choice(moves)


def engine_replay(
    variant: str,
    seed: int,
    players: list[str],
    options: dict[str, Any] | None = None,
    greedy_seats: frozenset[int] = frozenset(),
    fault_at: tuple[int, int] | None = None,
) -> Replay:
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


def match_report(
    match: Match, greedy_entrant: int | None = 0, greedy_entrants: frozenset[int] | None = None
) -> MatchReportJson:
    """The report a worker would hand over for ``match``: duplicate sets of engine games.

    Each set seats the entrants as the runner does: seat ``s`` of rotation ``r`` gets entrant
    ``(s + r) % entrants``. The entrants in ``greedy_entrants`` (default: ``greedy_entrant``)
    play greedily, the others at random.
    """
    entrants = match.entrants()
    variant = match.play_variant()
    season_id = match.season_id
    first = (
        season_id is not None
        and not Match.objects.filter(season_id=season_id, pk__lt=match.pk).exists()
    )
    greedy_ones = (
        greedy_entrants
        if greedy_entrants is not None
        else frozenset({greedy_entrant} if greedy_entrant is not None else set())
    )
    per_set = len(entrants)
    games: list[GameJson] = []
    for index in range(match.games_planned):
        rotation = index % per_set
        seats = [(seat + rotation) % per_set for seat in range(variant.players)]
        greedy = frozenset(seat for seat, entrant in enumerate(seats) if entrant in greedy_ones)
        replay = engine_replay(
            variant.name,
            match.seed + index // per_set,
            [entrants[e].label for e in seats],
            dict(variant.options),
            greedy,
            # The first game of a season's first match has a timeout, as real seasons do.
            fault_at=(0, 2) if index == 0 and first else None,
        )
        replay["match"] = str(match.pk)
        result = replay.get("result")
        totals = [] if result is None else result["totals"]
        winner = None if result is None else result["winner"]
        moves = sum(len(d["moves"]) for d in replay["deals"])
        games.append(
            {
                "index": index,
                "set": index // per_set,
                "seed": replay["seed"],
                "seats": seats,
                "totals": totals,
                "winner_side": winner,
                "winner_entrants": sorted(
                    {
                        e
                        for seat, e in enumerate(seats)
                        if side_of_seat(seat, variant.sides) == winner
                    }
                ),
                "void": None,
                "forfeit": None,
                "faults": list(replay.get("faults") or []),
                "fallbacks": [0] * len(seats),
                "duration_ms": 40 * moves,
                "moves": moves,
                "replay": replay,
            }
        )
    move_time_ms, bank_ms = match.clocks()
    return {
        "variant": variant.name,
        "options": dict(variant.options),
        "seed": match.seed,
        "move_time_ms": move_time_ms,
        "bank_ms": bank_ms,
        "entrants": [v.label for v in entrants],
        "sandboxed": [False] * len(entrants),
        "summary": [],  # what record_result does not read
        "elo": None,
        "games": games,
        "duration_ms": sum(g["duration_ms"] for g in games),
    }


def play_season(
    season: Season, max_rounds: int = 100, greedy_versions: frozenset[int] | None = None
) -> int:
    """Plays every scheduled match of ``season`` in this process until it is finished.

    Returns the number of matches played. The season must have been started. By default a
    different entrant of each match plays greedily (a different strength story per match);
    with ``greedy_versions`` (bot version ids), exactly those versions do.
    """
    played = 0
    for _ in range(max_rounds):
        pending = list(
            Match.objects.filter(season=season, status=Match.Status.SCHEDULED).order_by("id")
        )
        for match in pending:
            claim = matches.claim_match(match.pk, "sampledata")
            if claim is None:
                continue
            if greedy_versions is not None:
                ids = [v.pk for v in match.entrants()]
                report = match_report(
                    match,
                    greedy_entrants=frozenset(
                        i for i, vid in enumerate(ids) if vid in greedy_versions
                    ),
                )
            else:
                greedy = match.pk % 3
                report = match_report(match, greedy if greedy < 2 else None)
            matches.record_result(claim, report)
            played += 1
        ratings.update_ratings(season.variant_id)
        seasons.schedule_next_round(season.pk)
        season.refresh_from_db()
        if season.status == Season.Status.FINISHED:
            break
    return played
