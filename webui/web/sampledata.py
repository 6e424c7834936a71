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
    from arena.runner import MatchReportJson


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
    return engine_game(variant, seed, players, options, greedy_seats, fault_at)[0]


def engine_game(
    variant: str,
    seed: int,
    players: list[str],
    options: dict[str, Any] | None = None,
    greedy_seats: frozenset[int] = frozenset(),
    fault_at: tuple[int, int] | None = None,
) -> tuple[Replay, list[int]]:
    """:func:`engine_replay`'s game, with each side's scope over the game."""
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
    scope = [0] * rules.num_sides
    for score in game.scores:
        for side, points in enumerate(score.points):
            scope[side] += points["scope"]
    return recorder.finish(game), scope


def match_report(
    match: Match, greedy_entrant: int | None = 0, greedy_entrants: frozenset[int] | None = None
) -> MatchReportJson:
    """The report a worker would hand over for ``match``: duplicate sets of engine games.

    Each set seats the entrants as the runner does: seat ``s`` of rotation ``r`` gets entrant
    ``(s + r) % entrants``. The entrants in ``greedy_entrants`` (default: ``greedy_entrant``)
    play greedily, the others at random.
    """
    from arena.runner import BotRef, GameOutcome, MatchReport, MatchSpec

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
    outcomes: list[GameOutcome] = []
    for index in range(match.games_planned):
        rotation = index % per_set
        seats = [(seat + rotation) % per_set for seat in range(variant.players)]
        greedy = frozenset(seat for seat, entrant in enumerate(seats) if entrant in greedy_ones)
        replay, scope = engine_game(
            variant.name,
            match.seed + index // per_set,
            [entrants[e].label for e in seats],
            dict(variant.options),
            greedy,
            # The first game of a season's first match has a timeout, as real seasons do.
            fault_at=(0, 2) if index == 0 and first else None,
        )
        replay["match"] = str(match.pk)
        result = replay["result"]
        answered = [0] * len(seats)
        for deal in replay["deals"]:
            for move in deal["moves"]:
                if not move.get("auto"):
                    answered[move["seat"]] += 1
        moves = sum(len(d["moves"]) for d in replay["deals"])
        outcomes.append(
            GameOutcome(
                index=index,
                set_index=index // per_set,
                seed=replay["seed"],
                seats=seats,
                replay=replay,
                totals=list(result["totals"]),
                winner_side=result["winner"],
                winner_entrants=sorted(
                    {
                        e
                        for seat, e in enumerate(seats)
                        if side_of_seat(seat, variant.sides) == result["winner"]
                    }
                ),
                void=None,
                forfeit=None,
                faults=list(replay.get("faults") or []),
                duration_ms=40 * moves,
                moves=moves,
                scope=scope,
                fallbacks=[0] * len(seats),
                answered=answered,
            )
        )
    move_time_ms, bank_ms = match.clocks()
    spec = MatchSpec(
        [BotRef(text=v.label) for v in entrants],
        variant.name,
        dict(variant.options),
        games=match.games_planned,
        seed=match.seed,
        move_time_ms=move_time_ms,
        bank_ms=bank_ms,
        sandbox=False,
    )
    report = MatchReport(
        spec,
        rules_for(variant.name, dict(variant.options) or None),
        match.seed,
        [v.label for v in entrants],
        outcomes,
        duration_ms=sum(g.duration_ms for g in outcomes),
        sandboxed=[False] * len(entrants),
    )
    # The runner's own record of it, as a worker hands it over (with the replays).
    return report.to_json(replays=True)


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
