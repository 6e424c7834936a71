"""The arena's Celery tasks: thin, idempotent, by name; each re-reads the world from its ids.

``arena.validate_version(version_id)``, ``arena.schedule_round(season_id)``,
``arena.play_match(match_id)``, ``arena.record_match(match_id, token, report)``,
``arena.update_ratings(variant_id)`` and the periodic ``arena.sweep()``. The work is done by
the league (:mod:`webui.league.versions`, :mod:`~webui.league.seasons`,
:mod:`~webui.league.matches`, :mod:`~webui.league.ratings`: the data) and
:func:`arena.runner.run_match` (the games); a task only connects them, decides what is worth a
retry, and never waits for another task.

A bot's fault (timeout, crash, illegal move) is a result recorded in the replay; only failures
of the infrastructure (the host could not start a sandbox, the database went away) are retried,
with exponential backoff and a ceiling, after which the match is void and counts for nobody.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
django.setup()

from celery import Task  # noqa: E402
from celery.exceptions import SoftTimeLimitExceeded  # noqa: E402
from django.db import close_old_connections  # noqa: E402

from arena.archives import ArchiveError, check_folder  # noqa: E402
from arena.engine import rules_for  # noqa: E402
from arena.engine.replay import Replay  # noqa: E402
from arena.runner import (  # noqa: E402
    BotRef,
    MatchError,
    MatchReport,
    MatchReportJson,
    MatchSpec,
    run_match,
)
from webui.league import matches, ratings, seasons, versions  # noqa: E402
from webui.league.bot_files import BotFilesError, bot_ref_text  # noqa: E402
from webui.league.live import LivePublisher  # noqa: E402
from webui.league.models import BotVersion, Match  # noqa: E402
from webui.league.seat_limits import runner_limits  # noqa: E402
from webui.league.sweep import requeue_stale  # noqa: E402
from webui.league.validation import judge  # noqa: E402
from workers.celery_app import app  # noqa: E402
from workers.lease import LeaseKeeper  # noqa: E402
from workers.sandbox_policy import refusal, sandbox_wanted  # noqa: E402

log = logging.getLogger("workers.tasks")

F = TypeVar("F", bound=Callable[..., Any])


def arena_task(name: str, **options: Any) -> Callable[[F], F]:
    """``app.task`` with its name given and its type kept for the checker."""
    return cast(Callable[[F], F], app.task(name=name, **options))


MAX_MATCH_ATTEMPTS = 5
"""A match whose plays failed this many times for the infrastructure's sake is void."""
MAX_RETRIES = 8
VALIDATION_VARIANT = "scopa"


def backoff(retries: int) -> float:
    """Seconds before retry number ``retries + 1``: 2, 4, 8 ... capped at five minutes."""
    return float(min(300, 2 ** (retries + 1)))


def empty_matches() -> bool:
    """``ARENA_BENCH_EMPTY_MATCHES=1``: record matches without playing them.

    For ``arena bench season`` only: it measures what the queue, the claims and the recording
    cost per match, with every other step of a match's life as in production.
    """
    return os.environ.get("ARENA_BENCH_EMPTY_MATCHES", "") == "1"


def empty_report(spec: MatchSpec) -> MatchReport:
    """A match report with no games, as :func:`empty_matches` records."""
    return MatchReport(
        spec=spec,
        rules=rules_for(spec.variant, spec.options or None),
        seed=spec.seed or 0,
        labels=[bot.label for bot in spec.entrants],
    )


class Unsandboxed(ValueError):
    """This worker may not run an uploaded bot: it has no sandbox (one line, why)."""


def match_spec(match: Match) -> MatchSpec:
    """The runner's ``MatchSpec`` for a scheduled match (of a season, the ladder or a
    challenge), its bots' folders on this host.

    Raises ``ValueError`` for a match that cannot be played here: a bot folder missing with no
    archive to unpack it from, a damaged archive, a bad manifest, or :class:`Unsandboxed`
    (:mod:`workers.sandbox_policy`).
    """
    variant = match.play_variant()
    move_time_ms, bank_ms = match.clocks()
    season_limits = match.season.seat_limits if match.season is not None else {}
    versions = match.entrants()
    bots = [BotRef.parse(bot_ref_text(v)) for v in versions]
    refused = refusal(
        {v.label: bot for v, bot in zip(versions, bots, strict=True)}, sandbox_wanted()
    )
    if refused:
        raise Unsandboxed(refused)
    return MatchSpec(
        entrants=bots,
        variant=variant.name,
        options=dict(variant.options),
        games=match.games_planned,
        seed=match.seed,
        move_time_ms=move_time_ms,
        bank_ms=bank_ms,
        sandbox=sandbox_wanted(),
        match_id=str(match.pk),
        limits=runner_limits(season_limits or {}, match.games_planned, bank_ms),
    )


@arena_task("arena.play_match", bind=True, max_retries=MAX_RETRIES)
def play_match(self: Task, match_id: int) -> str:
    """Claims a match, plays it with the runner while keeping its lease, records it once.

    A lost lease (:mod:`workers.lease`: taken over, or no renewal for a whole lease) cancels
    the match at once (the runner's cancel event), its seats with it, and records nothing: the
    match is another worker's.
    """
    asked = time.monotonic()
    claim = matches.claim_match(match_id)
    if claim is None:
        # Done already, or another worker holds a live lease (a duplicate message, or a worker
        # that just died: when its lease runs out, the sweep enqueues the match again).
        status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
        return f"match {match_id}: {status or 'missing'}, nothing to do"
    if claim.attempt > MAX_MATCH_ATTEMPTS:
        matches.void_match(claim, f"gave up after {claim.attempt - 1} failed attempts")
        return f"match {match_id}: void"
    keeper = LeaseKeeper(claim, since=asked)
    with keeper:
        match = Match.objects.select_related("season__variant", "variant").get(pk=match_id)
        try:
            spec = match_spec(match)
        except (MatchError, ValueError) as error:  # no bot folder nor archive, a bad manifest
            keeper.stopped.set()
            matches.void_match(claim, f"cannot be played: {error}")
            return f"match {match_id}: void ({error})"
        except Exception as error:  # this host could not unpack a bot (disk, database): retry
            keeper.stopped.set()
            log.warning("match %s could not be prepared on this worker: %s", match_id, error)
            close_old_connections()
            matches.release_match(claim, f"{type(error).__name__}: {error}")
            raise self.retry(exc=error, countdown=backoff(self.request.retries)) from None
        try:
            labels = [v.label for v in match.entrants()]
            with LivePublisher(match_id, match.games_planned, labels) as live:
                spec.on_move = live.on_move
                spec.cancel = keeper.cancel
                # Each finished game is listed live as it ends (recorded with the match).
                report = empty_report(spec) if empty_matches() else run_match(spec, live.on_game)
        except MatchError as error:
            keeper.stopped.set()
            matches.void_match(claim, f"cannot be played: {error}")
            return f"match {match_id}: void ({error})"
        except (Exception, SoftTimeLimitExceeded) as error:
            keeper.stopped.set()
            log.warning("match %s failed on this worker: %s", match_id, error)
            close_old_connections()
            matches.release_match(claim, f"{type(error).__name__}: {error}")
            raise self.retry(exc=error, countdown=backoff(self.request.retries)) from None
    if report.cancelled:
        return f"match {match_id}: lease lost ({keeper.why}); its seats are stopped"
    if keeper.lost:
        return f"match {match_id}: lease lost ({keeper.why}), result dropped"
    recorded = matches.record_result(claim, report.to_json(replays=True, logs=True))
    return f"match {match_id}: {'recorded' if recorded else 'already recorded'}"


@arena_task("arena.record_match")
def record_match(match_id: int, token: str, report: MatchReportJson) -> bool:
    """Records a report played elsewhere under the claim ``token``; False if not the holder."""
    return matches.record_result(matches.Claim(match_id, token, 0), report)


@arena_task("arena.schedule_round")
def schedule_round(season_id: int) -> int | None:
    """Schedules the season's next round if the last one is complete; returns its number."""
    new = seasons.schedule_next_round(season_id)
    return None if new is None else new.number


@arena_task("arena.update_ratings")
def update_ratings(variant_id: int) -> int:
    """Rates the variant's new results in order (one writer per variant: a row lock)."""
    return ratings.update_ratings(variant_id)


@arena_task("arena.sweep")
def sweep() -> int:
    """Enqueues again what lost messages or dead workers left behind: matches, rounds,
    validations, ratings (:func:`requeue_stale`) and Play games
    (:func:`webui.play.games.sweep`, which also ends those that can no longer be played)."""
    from webui.league.queue import play_queue, queue_depth
    from webui.play import games

    return requeue_stale(waiting=queue_depth()) + games.sweep(waiting=queue_depth(play_queue()))


def sample_label(name: str) -> str:
    """The platform's name of a sample bot: its registered version (``random@1``) when this
    installation registered it, else ``random (sample bot)``."""
    from arena.runner.bots import SAMPLE_BOTS
    from webui.league.versions import folder_sha256

    sha256 = folder_sha256(SAMPLE_BOTS / name)
    version = BotVersion.objects.select_related("bot").filter(sha256=sha256).first()
    return version.label if version is not None else f"{name} (sample bot)"


def named(replay: Replay, seats: list[int], version: BotVersion) -> Replay:
    """A validation game's replay with its players named as the site names them: the version
    as ``name@N`` (not its bot.toml's ``name@version``), and the random sample bot.

    ``seats`` gives the runner's entrant of each seat: 0 is the version, 1 the sample.
    """
    opponent = sample_label("random")
    return {**replay, "players": [version.label if e == 0 else opponent for e in seats]}


@arena_task("arena.validate_version", bind=True, max_retries=MAX_RETRIES)
def validate_version(self: Task, version_id: int) -> str:
    """Plays a new version a duplicate set against the random sample bot; ready or failed once.

    The verdict is :func:`webui.league.validation.judge`: every fault but a fallback fails
    the version, and so do fallbacks on more than half of its moves.
    """
    from arena.runner import BotError, BotRef, MatchError, MatchSpec, run_match

    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None or version.status != BotVersion.Status.VALIDATING:
        return f"version {version_id}: nothing to do"
    variants = list(version.manifest.get("variants") or ["*"])
    variant = (
        VALIDATION_VARIANT
        if "*" in variants or VALIDATION_VARIANT in variants
        else (str(variants[0]))
    )
    try:
        ref_text = bot_ref_text(version)
        if not version.address:
            check_folder(Path(ref_text))  # what the sandbox cannot copy is the bot's fault
        bot = BotRef.parse(ref_text)
        refused = refusal({version.label: bot}, sandbox_wanted())
        if refused:
            versions.finish_validation(version_id, False, refused)
            return f"version {version_id}: failed ({refused})"
        spec = MatchSpec(
            entrants=[bot, BotRef.parse("random")],
            variant=variant,
            games=1,  # a duplicate set: the runner rounds up; the seed is drawn from secrets
            move_time_ms=2000,
            bank_ms=60_000,
            sandbox=sandbox_wanted(),
            match_id=f"validation-{version_id}",
        )
        report = run_match(spec)
    except (BotError, BotFilesError, MatchError) as error:
        versions.finish_validation(version_id, False, str(error))
        return f"version {version_id}: failed ({error})"
    except ArchiveError as error:  # its own files: failed once, never retried as the host's
        versions.finish_validation(version_id, False, f"its files are refused: {error}")
        return f"version {version_id}: failed ({error})"
    except Exception as error:
        if self.request.retries >= MAX_RETRIES:
            versions.finish_validation(version_id, False, f"could not be validated: {error}")
            return f"version {version_id}: gave up"
        raise self.retry(exc=error, countdown=backoff(self.request.retries)) from None
    void = next((game.void for game in report.games if game.void), None)
    if void:
        raise self.retry(exc=RuntimeError(void), countdown=backoff(self.request.retries))
    logs = "\n".join(
        f"--- {key} ---\n{text}"
        for key, text in sorted(report.logs.items())
        if key.startswith("0/")
    )
    game = report.games[0]
    replay = named(game.replay, list(game.seats), version)
    verdict = judge(report.games, [version.label, sample_label("random")], report.rules.num_sides)
    versions.finish_validation(version_id, verdict.ok, verdict.reason, logs, replay, verdict.games)
    if not verdict.ok:
        return f"version {version_id}: failed ({verdict.reason})"
    return f"version {version_id}: ready"
