"""Seasons: create one (its format checks and shapes it), start it, schedule each round when the
one before it is complete, and read its table, cross-table, champion and planned matches.

A season's format (:mod:`webui.league.formats`) does the format's part: these functions are the
same for every format. Each is safe to run twice: a round number is unique and the season's row
is the lock, so a round is scheduled once. Rounds are enqueued as matches
(:mod:`webui.league.matches`); :func:`run_season` watches a season to its end from the shell.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from . import formats, inputs, ranges, read_models
from .errors import LeagueError
from .formats import StandingRow
from .formats.base import close_round_if_done
from .locks import retry_on_deadlock, share_variant
from .models import BotVersion, Round, Season, SeasonEntrant, Variant
from .queue import queue_depth
from .ratings import update_ratings
from .seat_limits import check_seat_limits
from .sweep import requeue_stale

log = logging.getLogger("arena.league")


def create_season(
    *,
    name: str,
    variant: Variant,
    entrants: Sequence[BotVersion],
    games_per_pairing: int = 2,
    move_time_ms: int = 1000,
    bank_ms: int = 30_000,
    seed: int | None = None,
    created_by: Any = None,
    format: str | None = None,
    seat_limits: dict[str, int] | None = None,
    format_options: Mapping[str, object] | None = None,
    **options: object,
) -> Season:
    """A draft season; entrants are numbered 1..n in the order given.

    ``format`` is one of :func:`webui.league.formats.format_names` (default: a round-robin for
    two sides, tables for more); ``options`` its options by name (``knockout_size=4``,
    ``double_round_robin=True``, a Swiss's ``rounds=5``: each format's
    :attr:`~webui.league.formats.SeasonFormat.Options`; an option of another format left at
    its default is ignored), ``seat_limits`` overrides of the bots' seat limits
    (:data:`webui.league.seat_limits.SEAT_LIMITS`); ``format_options`` gives the options as a
    mapping (the keywords win). Everything is checked before anything is
    written: a refusal raises :class:`LeagueError` and creates nothing.
    """
    name = name.strip()
    if not name:
        raise LeagueError("a season needs a name")
    if Season.objects.filter(name=name).exists():
        raise LeagueError(f"season name {name!r} is taken")
    ids = [v.pk for v in entrants]
    if len(ids) < 2:
        raise LeagueError("a season needs at least 2 entrants")
    if len(set(ids)) != len(ids):
        raise LeagueError("an entrant is listed twice")
    try:
        inputs.check_text(
            "name", name, inputs.column_max(Season, "name"), name=True, label="the season's name"
        )
        ranges.check_season_numbers(
            {
                "games_per_pairing": games_per_pairing,
                "move_time_ms": move_time_ms,
                "bank_ms": bank_ms,
                "seed": seed,
            }
        )
        seat_overrides = check_seat_limits(seat_limits)
    except (ranges.RangeError, inputs.InputError) as error:
        raise LeagueError(str(error)) from None
    try:
        season_format = formats.chosen_format(variant, format)
        chosen = season_format.options_from(
            {**(format_options or {}), **options}, formats.every_option()
        )
        formats.check_entrants(variant, entrants)
        shape = season_format.shape(variant, len(ids), chosen, games_per_pairing)
    except formats.FormatError as error:
        raise LeagueError(str(error)) from None
    with transaction.atomic():
        share_variant(variant.pk)  # the league's lock order: the variant first
        season = Season.objects.create(
            name=name,
            variant=variant,
            format=shape.format,
            format_options=shape.options.to_json(),
            games_per_pairing=shape.games_per_pairing,
            move_time_ms=move_time_ms,
            bank_ms=bank_ms,
            seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
            seat_limits=seat_overrides,
            created_by=created_by,
        )
        SeasonEntrant.objects.bulk_create(
            SeasonEntrant(season=season, version=v, number=i)
            for i, v in enumerate(entrants, start=1)
        )
        # The seasons' lists and the season's page (a new season may show a new variant).
        read_models.bump([read_models.HOME, read_models.season_scope(season.pk)])
    return season


def start_season(season: Season) -> bool:
    """Draft to running, then schedules the first round (enqueued). False if already started."""
    with transaction.atomic():
        share_variant(season.variant_id)  # the league's lock order: the variant first
        changed = Season.objects.filter(pk=season.pk, status=Season.Status.DRAFT).update(
            status=Season.Status.RUNNING, started=timezone.now()
        )
        if changed:
            schedule_next_round(season.pk)
    season.refresh_from_db()
    return changed == 1


@retry_on_deadlock
def schedule_next_round(season_id: int) -> Round | None:
    """Schedules the season's next round when the last one is done; finishes the season.

    One scheduler at a time per season (a row lock); a round number is unique, so running this
    twice schedules a round once. Returns the new round, or None when nothing was due. Locks
    in the league's order (:mod:`webui.league.locks`), and runs again if the database still
    picks it to break a deadlock.
    """
    variant_id = Season.objects.values_list("variant_id", flat=True).get(pk=season_id)
    with transaction.atomic():
        share_variant(variant_id)  # first: the new matches refer to it
        season = Season.objects.select_for_update().get(pk=season_id)
        if season.status != Season.Status.RUNNING:
            return None
        last = season.rounds.order_by("-number").first()
        if last is not None and not close_round_if_done(last):
            return None
        entrants = season.entrant_versions()
        number = 1 if last is None else last.number + 1
        new_round = formats.format_of(season).schedule_round(entrants, number, last)
        # Last: a new round or the season's end changes its page and the home page's progress.
        scopes = [read_models.HOME, read_models.season_scope(season.pk)]
        if new_round is not None:
            read_models.bump(scopes)
            return new_round
        Season.objects.filter(pk=season.pk, status=Season.Status.RUNNING).update(
            status=Season.Status.FINISHED, finished=timezone.now()
        )
        read_models.bump(scopes)
        log.info("season %s finished", season.name)
        return None


def planned_matches(season: Season) -> int:
    """How many matches the whole season will have (league, then knockout)."""
    return formats.format_of(season).planned_matches()


def league_standings(season: Season) -> list[StandingRow]:
    """The table of a season, ranked by its format's tie-breaks."""
    return formats.format_of(season).standings()


def cross_table(season: Season) -> dict[tuple[int, int], float] | None:
    """League score of entrant number ``a`` against ``b``: ``{(a, b): score}``.

    At tables of three or more, how often ``a`` finished above ``b`` (1/2 for the same
    place); None for rotating partnerships, whose rota replaces it.
    """
    return formats.format_of(season).cross_table()


def season_champion(season: Season) -> BotVersion | None:
    """The winner of the final (knockout) or the top of the table, once the season is over."""
    return formats.format_of(season).champion()


def run_season(
    season: Season,
    *,
    poll_s: float = 0.5,
    sweep_every_s: float = 10.0,
    grace_s: float = 30.0,
    timeout_s: float | None = None,
    progress: Any = None,
) -> Season:
    """Starts a season if it is a draft and waits, sweeping, until its workers finish it.

    The workers play and record; this loop only watches, and every ``sweep_every_s`` enqueues
    again what lost messages or dead workers left behind (:func:`requeue_stale`). ``progress``
    is called with ``(done, scheduled)`` match counts. Raises ``TimeoutError`` after
    ``timeout_s``. Finally rates whatever is still unrated (one writer: safe beside workers).
    """
    import time

    start_season(season)
    started = time.monotonic()
    last_sweep = started
    while True:
        season.refresh_from_db()
        if progress is not None:
            progress(*season.progress())
        if season.status == Season.Status.FINISHED:
            break
        now = time.monotonic()
        if timeout_s is not None and now - started > timeout_s:
            done, total = season.progress()
            raise TimeoutError(
                f"season {season.name!r} not finished after {timeout_s:g} s "
                f"({done} of {total} matches done)"
            )
        if now - last_sweep >= sweep_every_s:
            requeue_stale(grace_s=grace_s, waiting=queue_depth())
            last_sweep = now
        time.sleep(poll_s)
    update_ratings(season.variant_id)
    return season
