"""Matches: created (for a season's round, the ladder or a challenge), claimed by one worker,
leased while it plays, given back or void after failures of the infrastructure, and recorded
once.

A worker claims a match with a conditional update (``scheduled``, or ``running`` with a lease
the database's clock says ran out, to ``running`` with a fresh ``claim_token``) and renews the
lease while it plays; only the holder of the current token records the result, once
("run it twice, count it once"). What follows a result (ratings, the next round) is enqueued by
task name after the transaction commits. Nothing here plays a game: the workers call the runner
and hand the report to :func:`record_result`.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import DurationField, ExpressionWrapper, F, Q
from django.db.models.functions import Now
from django.utils import timezone

from arena.engine import side_of_seat
from arena.seeds import draw_seed

from . import inputs, read_models
from .locks import retry_on_deadlock, share_variant
from .models import BotVersion, Game, GameLog, Match, MatchSeat, Round, Season, Variant
from .queue import enqueue

if TYPE_CHECKING:
    from arena.runner import MatchReportJson
    from arena.runner.report import GameJson

MOVE_TIME_MS = 1000
"""The clock of a match outside a season (ladder, challenge): per move..."""
BANK_MS = 30_000
"""...and its bank."""


def worker_name() -> str:
    """``host:pid`` of this process, recorded on the matches it claims."""
    return f"{socket.gethostname()}:{os.getpid()}"


def create_match(
    season: Season, round_: Round, board: int, versions: Sequence[BotVersion], pairing: str
) -> Match:
    """A scheduled match of ``versions`` in runner order, enqueued after commit.

    Each entrant's side in the first game is its index modulo the variant's sides (two
    entrants: 0 and 1; three at a ``scopa-3`` table: 0, 1, 2; four at a partnership table:
    the first and third against the second and fourth). For the schedulers only. Its seed is
    drawn from secrets: never derived from the season's seed, which is shown.
    """
    match = Match.objects.create(
        round=round_,
        season=season,
        variant=season.variant,
        pairing=pairing,
        board=board,
        seed=draw_seed(),  # from secrets: never derived from the season's seed, which is shown
        games_planned=season.games_per_pairing,
        enqueued_at=timezone.now(),
    )
    sides = max(1, int(season.variant.sides))
    MatchSeat.objects.bulk_create(
        [
            MatchSeat(match=match, index=i, version=v, side=side_of_seat(i, sides))
            for i, v in enumerate(versions)
        ]
    )
    enqueue("arena.play_match", match.pk)
    read_models.bump_on_commit(read_models.matches_scope(v.bot_id) for v in versions)
    return match


def create_open_match(
    kind: str,
    variant: Variant,
    versions: Sequence[BotVersion],
    *,
    games: int,
    rated: bool,
    priority: int = 0,
    requested_by: Any = None,
) -> Match:
    """A scheduled match outside any season (the ladder's, a challenge), enqueued on
    ``arena.play_match`` after commit."""
    now = timezone.now()
    match = Match.objects.create(
        kind=kind,
        variant=variant,
        rated=rated,
        priority=priority,
        pairing="-".join(str(v.pk) for v in versions),
        seed=draw_seed(),
        games_planned=games,
        move_time_ms=MOVE_TIME_MS,
        bank_ms=BANK_MS,
        requested_by=requested_by,
        created=now,
        enqueued_at=now,
    )
    MatchSeat.objects.bulk_create(
        MatchSeat(match=match, index=i, version=v, side=i % 2) for i, v in enumerate(versions)
    )
    enqueue("arena.play_match", match.pk)
    read_models.bump_on_commit(
        [*(read_models.matches_scope(v.bot_id) for v in versions), read_models.LADDER]
    )
    return match


@dataclass(frozen=True)
class Claim:
    """A worker's hold on a match: only the holder of ``token`` may record its result."""

    match_id: int
    token: str
    attempt: int


def lease_end() -> Any:
    """The end of a lease taken or renewed now, by the database's clock (an expression).

    Leases are reckoned by the database alone: a worker's own clock never decides whether a
    lease holds, so hosts whose clocks disagree still agree on who holds a match.
    """
    return Now() + timedelta(seconds=settings.ARENA_MATCH_LEASE_S)


def claim_match(match_id: int, worker: str | None = None) -> Claim | None:
    """Takes a scheduled match (or one whose last worker's lease ran out) to play it.

    A conditional update: of two workers claiming at once, one gets the match, the other None.
    Whether the last lease ran out is the database's call, by its own clock.
    """
    token = str(uuid.uuid4())
    with transaction.atomic():
        changed = (
            Match.objects.filter(pk=match_id)
            .filter(
                Q(status=Match.Status.SCHEDULED)
                | Q(status=Match.Status.RUNNING, lease_until__lt=Now())
            )
            .update(
                status=Match.Status.RUNNING,
                claim_token=token,
                claimed_by=(worker or worker_name())[:200],
                claimed_at=Now(),
                lease_until=lease_end(),
                attempts=F("attempts") + 1,
                started=Now(),
            )
        )
        if changed != 1:
            return None
        _bump_started(match_id)
    attempts = Match.objects.values_list("attempts", flat=True).get(pk=match_id)
    return Claim(match_id, token, attempts)


def renew_lease(claim: Claim) -> bool:
    """Extends the claim's lease (by the database's clock); False when the match was taken
    over or finished."""
    return (
        Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
        ).update(lease_until=lease_end())
        == 1
    )


def release_match(claim: Claim, error: str) -> bool:
    """Gives a match back after an infrastructure failure, to be played again."""
    with transaction.atomic():
        changed = Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
        ).update(
            status=Match.Status.SCHEDULED,
            claim_token="",
            lease_until=None,
            error=inputs.storable(error[:2000]),
        )
        if changed:
            _bump_started(claim.match_id)
    return changed == 1


def _bump_started(match_id: int) -> None:
    """A match was claimed or given back: its season's page and its bots' recent matches
    are stale."""
    season_id = Match.objects.values_list("season_id", flat=True).get(pk=match_id)
    read_models.bump(
        read_models.match_scopes(season_id, read_models.match_bots(match_id), finished=False)
    )


def lease_remaining(match_id: int) -> float:
    """Seconds until the current claim on a running match expires (0 when free or expired),
    by the database's clock."""
    left = (
        Match.objects.filter(pk=match_id, status=Match.Status.RUNNING, lease_until__isnull=False)
        .annotate(left=ExpressionWrapper(F("lease_until") - Now(), output_field=DurationField()))
        .values_list("left", flat=True)
        .first()
    )
    if left is None:
        return 0.0
    return max(0.0, float(left.total_seconds()))


def void_match(claim: Claim, reason: str) -> bool:
    """Gives up a match for good (after too many infrastructure failures): it counts for nobody."""
    with transaction.atomic():
        changed = Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
        ).update(
            status=Match.Status.VOID, error=inputs.storable(reason[:2000]), finished=timezone.now()
        )
        season_id = Match.objects.values_list("season_id", flat=True).get(pk=claim.match_id)
        if changed and season_id is not None:
            enqueue("arena.schedule_round", season_id)
        if changed:
            read_models.bump(
                read_models.match_scopes(season_id, read_models.match_bots(claim.match_id))
            )
    return changed == 1


def record_result(claim: Claim, report: MatchReportJson) -> bool:
    """Records a played match once: its games, its summary and winner; enqueues the follow-ups.

    ``report`` is the runner's ``MatchReport.to_json(replays=True, logs=True)``, trusted as
    typed: of each game it takes the replay, the seats, the totals, the winning side and its
    entrants (the engine's rules, :func:`arena.engine.result_winner` and
    :func:`arena.engine.side_of_seat`, applied by the runner), void, forfeit, faults and
    duration; each entrant's wins and points are the report's summary. Only the current
    claim's holder records; a stale or repeated call changes nothing and returns False. What
    the bots wrote into it (fault details, fallback messages) is made storable
    (:func:`inputs.storable_json`).
    """
    # The same record, its strings made storable (and any number that is not finite null).
    report = cast("MatchReportJson", inputs.storable_json(report))
    return _record_result(claim, report)


@retry_on_deadlock
def _record_result(claim: Claim, report: MatchReportJson) -> bool:
    played_in = (
        Match.objects.filter(pk=claim.match_id)
        .values_list("season__variant_id", "variant_id")
        .first()
    )
    if played_in is None:
        return False
    with transaction.atomic():
        # The league's lock order (webui.league.locks): the variant first (the games' foreign
        # key to it is checked at their insert, FOR KEY SHARE on its row; a rating update
        # holds it FOR UPDATE), then the round, the read versions, the games' lock.
        share_variant(played_in[0] or played_in[1])
        match = (
            Match.objects.select_for_update(of=("self",))
            .select_related("season__variant", "round", "variant")
            .get(pk=claim.match_id)
        )
        if match.status != Match.Status.RUNNING or match.claim_token != claim.token:
            return False
        if match.games.exists():  # cannot happen while the token holds; never count twice
            return False
        entrants = [s.version for s in match.seats.order_by("index")]
        variant = match.play_variant()
        summary = report["summary"]
        if [line["entrant"] for line in summary] != list(range(len(entrants))):
            raise ValueError("a report to record has one summary line per entrant, in order")
        # Each entrant's games won and game points: the runner's own tally (its summary).
        wins = [line["wins"] for line in summary]
        points = [line["points"] for line in summary]
        games = []
        for index, data in enumerate(report["games"]):
            if "replay" not in data:
                raise ValueError(
                    "a report to record has each game's replay (MatchReport.to_json(replays=True))"
                )
            seats = list(data["seats"])
            # The winning side by the engine's rule (result_winner: nobody in a void game, the
            # forfeit's winner in a game forfeited before it was won), as the runner recorded
            # it, and the entrants of that side (arena.engine.side_of_seat); a game names the
            # first of them.
            winners = data["winner_entrants"]
            games.append(
                Game(
                    match=match,
                    index=index,
                    variant=variant,
                    # The replay names who sat where by bot version, as the site shows them.
                    replay={**data["replay"], "players": [entrants[e].label for e in seats]},
                    seats=seats,
                    players=[entrants[e].pk for e in seats],
                    totals=list(data["totals"]),
                    winner_side=data["winner_side"],
                    winner_entrant=min(winners) if winners else None,
                    forfeit=data["forfeit"],
                    void=data["void"] or "",
                    faults=data["faults"],
                    duration_ms=data["duration_ms"],
                )
            )
        winner = _match_winner(entrants, wins, points, match)
        now = timezone.now()
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.DONE,
            finished=now,
            duration_ms=report["duration_ms"],
            summary={"wins": wins, "points": points, "games": len(games)},
            winner=winner,
            lease_until=None,
        )
        if match.rated:
            enqueue("arena.update_ratings", variant.pk)
        if match.round_id is not None:  # a ladder match or a challenge has no round to close
            # The round's row serializes the matches finishing in it, so the last one sees
            # the others done and asks for the next round.
            Round.objects.select_for_update().filter(pk=match.round_id).first()
            still_open = Match.objects.filter(round_id=match.round_id).exclude(
                status__in=[Match.Status.DONE, Match.Status.VOID]
            )
            if not still_open.exists():
                enqueue("arena.schedule_round", match.season_id)
        # The pages this result changes, in the same transaction as the result.
        read_models.bump(read_models.match_scopes(match.season_id, {v.bot_id for v in entrants}))
        # Last, the games: their ids follow commit order (the export's cursor); then their
        # bots' logs (which need the games' ids).
        _insert_games_in_commit_order(games)
        GameLog.objects.bulk_create(_game_logs(games, report["games"], entrants))
        read_models.add_head_to_head(match.pk)
    return True


def _game_logs(
    games: list[Game], reported: list[GameJson], entrants: list[BotVersion]
) -> list[GameLog]:
    """The bots' logs of each game (kept apart from the game: never in its replay), one per
    process, under the first seat it played."""
    logs: list[GameLog] = []
    for game, data in zip(games, reported, strict=True):
        for log in data.get("logs", {}).values():
            seats = [s for s in log["seats"] if 0 <= s < len(game.seats)]
            if not seats:
                continue
            logs.append(
                GameLog(
                    game=game,
                    seat=seats[0],
                    seats=seats,
                    version=entrants[game.seats[seats[0]]],
                    text=log["text"],
                    turns=log["turns"],
                    cut=log["cut"],
                )
            )
    return logs


GAMES_LOCK = 0x5C0_9A_0001
"""The PostgreSQL advisory lock that hands out game ids in commit order."""


def _insert_games_in_commit_order(games: list[Game]) -> None:
    """Inserts a result's games so that their ids follow the order in which the results
    commit: a reader that sees a game sees every game of a lower id that will ever commit.

    A sequence hands ids out at insert, and a result with low ids could commit after one with
    higher ids; the export's cursor (``after``, the last id a download holds) would then
    pass a game for good. On PostgreSQL the insert takes a transaction-level advisory lock,
    held until commit: the inserts and commits of results happen one after the other. It
    costs next to nothing: the games and their head-to-head are the transaction's last writes
    (its other locks are taken already, so nothing waits while holding it), and every result
    has bumped the home page's read version just before, which orders them from there to
    commit anyway; the lock makes the order a promise. SQLite has one writer at a time.
    """
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [GAMES_LOCK])
    Game.objects.bulk_create(games)


def _match_winner(
    entrants: list[BotVersion], wins: list[int], points: list[int], match: Match
) -> BotVersion | None:
    """Most games won, then most game points; in a knockout, then the higher seed (league rank)."""
    order = sorted(range(len(entrants)), key=lambda e: (-wins[e], -points[e]))
    best, second = order[0], order[1]
    if (wins[best], points[best]) != (wins[second], points[second]):
        return entrants[best]
    if match.round is not None and match.round.phase == Round.Phase.KNOCKOUT:
        # A knockout needs a winner: the higher seed.
        seeds = {version_id: i for i, version_id in enumerate(match.round.plan["seeds"])}
        return min(entrants, key=lambda v: seeds.get(v.pk, 10**6))
    return None


def match_score(summary: Any, n: int) -> dict[str, list[int]] | None:
    """Games won and game points of each of a match's ``n`` entrants, from its summary (None
    before it is recorded)."""
    if not isinstance(summary, dict):
        return None
    wins, points = summary.get("wins"), summary.get("points")
    if not isinstance(wins, list) or len(wins) != n:
        return None
    return {
        "wins": [int(w) for w in wins],
        "points": [int(p) for p in points] if isinstance(points, list) else [],
    }
