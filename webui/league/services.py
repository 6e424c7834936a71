"""The league's write paths: every change to seasons, matches, results and ratings goes here.

Each function is safe to run twice: a second call finds the work done and changes nothing
("run it twice, count it once"). State changes are conditional updates that act only when one
row changed, guarded by unique constraints; work for the workers is enqueued by task name after
the transaction commits. Nothing here plays a game: the workers call the runner and hand the
report to :func:`record_result`.
"""

from __future__ import annotations

import hashlib
import logging
import os
import random
import socket
import tomllib
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import DurationField, ExpressionWrapper, F, Max, Q
from django.db.models.functions import Now
from django.utils import timezone
from django.utils.text import slugify

from arena import rating as trueskill_rating
from arena import scheduling
from arena.seeds import draw_seed

from . import formats, inputs, seat_limits
from . import limits as ranges
from .formats import StandingRow as StandingRow
from .models import (
    Bot,
    BotArchive,
    BotVersion,
    Game,
    Match,
    MatchSeat,
    Rating,
    RatingHistory,
    Round,
    Season,
    SeasonEntrant,
    Variant,
)
from .queue import enqueue, queue_depth

log = logging.getLogger("arena.league")


class LeagueError(ValueError):
    """A request the league refuses; the message is one line a person can act on."""


# ---------------------------------------------------------------------------------------------
# Workers


def worker_name() -> str:
    """``host:pid`` of this process, recorded on the matches it claims."""
    return f"{socket.gethostname()}:{os.getpid()}"


# ---------------------------------------------------------------------------------------------
# Variants, bots and versions


def variant_slug(name: str, options: dict[str, Any]) -> str:
    """A stable URL name: the preset, plus its overrides when there are any."""
    if not options:
        return name
    parts = "-".join(f"{key}-{options[key]}" for key in sorted(options))
    slug = f"{slugify(name)}--{slugify(parts.replace('_', '-'))}"
    if len(slug) > 120:
        digest = hashlib.sha256(repr(sorted(options.items())).encode()).hexdigest()[:12]
        slug = f"{slugify(name)}--{digest}"
    return slug


def variant_of(name: str, options: dict[str, Any] | None = None) -> Variant:
    """The :class:`Variant` of a RULES.md preset and options, checked; nothing is written.

    The stored row when there is one, else an unsaved one: a request that is then refused
    leaves no variant behind (:func:`get_variant` stores it, in the transaction of what uses
    it). Unknown presets or options, and a label longer than its column, raise
    :class:`LeagueError`.
    """
    from arena.engine import rules_for

    try:
        rules = rules_for(name, options or {})
    except ValueError as error:
        raise LeagueError(str(error)) from None
    overrides = rules.options()
    slug = variant_slug(rules.variant, overrides)
    label = rules.variant if not overrides else (
        rules.variant + " (" + ", ".join(f"{k}={v}" for k, v in sorted(overrides.items())) + ")"
    )
    most = inputs.column_max(Variant, "label")
    if len(label) > most:  # not with the engine's options today: a guard against new ones
        raise LeagueError(f"variant {label[:60]!r}...: its options make a name of "
                          f"{len(label)} characters, more than {most}")
    existing = Variant.objects.filter(slug=slug).first()
    if existing is not None:
        return existing
    return Variant(slug=slug, name=rules.variant, options=overrides, label=label,
                   standard=rules.is_standard, players=rules.players, sides=rules.num_sides)


def get_variant(name: str, options: dict[str, Any] | None = None) -> Variant:
    """The :class:`Variant` for a RULES.md preset and options, created on first use.

    Call it where the variant is used, in the transaction that uses it (a season, a match):
    :func:`variant_of` checks one without writing. Unknown presets or options raise
    :class:`LeagueError` with the engine's reason.
    """
    variant = variant_of(name, options)
    if variant.pk is not None:
        return variant
    stored, _ = Variant.objects.get_or_create(
        slug=variant.slug,
        defaults={field: getattr(variant, field) for field in
                  ("name", "options", "label", "standard", "players", "sides")},
    )
    return stored


def create_bot(owner: Any, name: str, description: str = "") -> Bot:
    """A new bot; the name must be unique and URL-safe (``[a-z0-9-]{1,40}``)."""
    if not name or slugify(name) != name or len(name) > 40:
        raise LeagueError(f"bot name {name!r}: use 1 to 40 of a-z, 0-9 and -")
    if Bot.objects.filter(name=name).exists():
        raise LeagueError(f"bot name {name!r} is taken")
    try:
        with transaction.atomic():
            return Bot.objects.create(owner=owner, name=name, description=description)
    except IntegrityError:
        raise LeagueError(f"bot name {name!r} is taken") from None


def register_version(
    bot: Bot,
    *,
    sha256: str,
    manifest: dict[str, Any],
    source_dir: str = "",
    archive_path: str = "",
    address: str = "",
    validate: bool = True,
) -> tuple[BotVersion, bool]:
    """Adds a version to ``bot``, or returns the one with the same ``sha256``.

    The caller has stored the archive and unpacked it (``source_dir``, relative to
    ``ARENA_DATA_DIR`` or absolute), or gives the ``address`` of a bot run elsewhere. A new
    version starts ``validating`` and a validation game is enqueued (unless ``validate`` is
    false, when it is ready at once: only for trusted bots such as the samples). Returns the
    version and whether it is new.
    """
    if not source_dir and not address:
        raise LeagueError("a bot version needs an unpacked folder or an address")
    for _attempt in range(3):
        existing = BotVersion.objects.filter(bot=bot, sha256=sha256).first()
        if existing is not None:
            return existing, False
        try:
            with transaction.atomic():
                Bot.objects.select_for_update().filter(pk=bot.pk).first()
                number = (bot.versions.aggregate(n=Max("number"))["n"] or 0) + 1
                version = BotVersion.objects.create(
                    bot=bot,
                    number=number,
                    sha256=sha256,
                    manifest=manifest,
                    source_dir=source_dir,
                    archive_path=archive_path,
                    address=address,
                    status=BotVersion.Status.VALIDATING if validate else BotVersion.Status.READY,
                    validated=None if validate else timezone.now(),
                )
                if validate:
                    enqueue("arena.validate_version", version.pk)
                return version, True
        except IntegrityError:
            continue  # a concurrent upload of the same archive or number: look again
    raise LeagueError(f"could not add a version to {bot.name}: try again")


def store_archive(sha256: str, kind: str, data: bytes) -> bool:
    """Keeps an uploaded archive's bytes in the database; False if they are there already.

    A row whose bytes no longer hash to its name (damaged) is written again with ``data``.
    Call it in the transaction that registers the version, so both are stored or neither.
    """
    if hashlib.sha256(data).hexdigest() != sha256:
        raise LeagueError(f"archive {sha256[:12]}: its bytes do not hash to its name")
    archive, created = BotArchive.objects.get_or_create(
        sha256=sha256, defaults={"kind": kind, "data": data, "size": len(data)}
    )
    if created or hashlib.sha256(bytes(archive.data)).hexdigest() == sha256:
        return created
    BotArchive.objects.filter(sha256=sha256).update(kind=kind, data=data, size=len(data))
    log.warning("archive %s was damaged in the database: stored again from an upload",
                sha256[:12])
    return True


def folder_sha256(folder: Path) -> str:
    """A content address for a bot folder: its files' paths and bytes, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if any(part in {"__pycache__", "node_modules"} or part.startswith(".")
               for part in relative.parts):
            continue
        digest.update(str(relative).encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def register_folder_bot(owner: Any, folder: Path, *, validate: bool = False) -> BotVersion:
    """Registers a bot folder with a ``bot.toml`` (the sample bots) as a bot and a version.

    Idempotent: the same folder content gives the same version.
    """
    folder = folder.resolve()
    try:
        manifest = tomllib.loads((folder / "bot.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise LeagueError(f"{folder / 'bot.toml'}: {error}") from None
    name = str(manifest.get("name", ""))
    bot = Bot.objects.filter(name=name).first() or create_bot(owner, name)
    version, _ = register_version(
        bot,
        sha256=folder_sha256(folder),
        manifest=manifest,
        source_dir=str(folder),
        validate=validate,
    )
    return version


def finish_validation(version_id: int, ok: bool, reason: str = "", log_text: str = "",
                      replay: dict[str, Any] | None = None,
                      games: list[dict[str, Any]] | None = None) -> bool:
    """Records a validation outcome once: ``validating`` to ``ready`` or ``failed``; a ready
    version enters the continuous ladder (:mod:`webui.league.ladder`).

    ``games`` summarizes each validation game (:func:`webui.league.validation.judge`).
    """
    # A bot's own output and messages are in all of these: kept, made storable.
    changed = BotVersion.objects.filter(
        pk=version_id, status=BotVersion.Status.VALIDATING
    ).update(
        status=BotVersion.Status.READY if ok else BotVersion.Status.FAILED,
        status_reason="" if ok else inputs.storable(reason[:500]),
        validation_log=inputs.storable(log_text[-100_000:]),
        validation_replay=inputs.storable_json(replay),
        validation_games=inputs.storable_json(games or []),
        validated=timezone.now(),
    )
    if changed and ok:
        from .ladder import enter_validated

        enter_validated(version_id)  # a version that passes enters the continuous ladder
    return changed == 1


# ---------------------------------------------------------------------------------------------
# Seasons and rounds


def create_season(
    *,
    name: str,
    variant: Variant,
    entrants: Sequence[BotVersion],
    knockout_size: int = 0,
    double_round_robin: bool = False,
    games_per_pairing: int = 2,
    move_time_ms: int = 1000,
    bank_ms: int = 30_000,
    seed: int | None = None,
    created_by: Any = None,
    format: str | None = None,
    swiss_rounds: int | None = None,
    limits: dict[str, int] | None = None,
) -> Season:
    """A draft season; entrants are numbered 1..n in the order given.

    ``format`` is one of :data:`webui.league.formats.FORMAT_NAMES` (default: a round-robin for
    two sides, tables for more), ``swiss_rounds`` the rounds of a Swiss (default ``ceil(log2
    n) + 2``), ``limits`` overrides of the bots' seat limits
    (:data:`webui.league.seat_limits.SEAT_LIMITS`). Everything is checked before anything is
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
    if knockout_size and not 2 <= knockout_size <= len(ids):
        raise LeagueError(f"knockout size {knockout_size}: between 2 and {len(ids)}, or 0")
    try:
        inputs.check_text("name", name, inputs.column_max(Season, "name"), name=True,
                          label="the season's name")
        ranges.check_season_numbers({
            "knockout_size": knockout_size, "games_per_pairing": games_per_pairing,
            "move_time_ms": move_time_ms, "bank_ms": bank_ms, "seed": seed,
        })
        seat_overrides = seat_limits.check_seat_limits(limits)
    except (ranges.LimitError, inputs.InputError) as error:
        raise LeagueError(str(error)) from None
    try:
        season_format = formats.season_format(variant, format, knockout_size)
        formats.check_entrants(variant, entrants)
        shape = formats.shape_season(season_format, variant, len(ids), swiss_rounds,
                                     games_per_pairing)
    except formats.FormatError as error:
        raise LeagueError(str(error)) from None
    if double_round_robin and season_format not in formats.CLASSIC:
        raise LeagueError("a double round-robin is a round-robin: not with format "
                          f"{season_format!r}")
    with transaction.atomic():
        season = Season.objects.create(
            name=name,
            variant=variant,
            format=shape.format,
            knockout_size=knockout_size,
            swiss_rounds=shape.swiss_rounds,
            double_round_robin=double_round_robin,
            games_per_pairing=shape.games_per_pairing,
            move_time_ms=move_time_ms,
            bank_ms=bank_ms,
            seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
            limits=seat_overrides,
            created_by=created_by,
        )
        SeasonEntrant.objects.bulk_create(
            SeasonEntrant(season=season, version=v, number=i)
            for i, v in enumerate(entrants, start=1)
        )
    return season


def start_season(season: Season) -> bool:
    """Draft to running, then schedules the first round (enqueued). False if already started."""
    with transaction.atomic():
        changed = Season.objects.filter(pk=season.pk, status=Season.Status.DRAFT).update(
            status=Season.Status.RUNNING, started=timezone.now()
        )
        if changed:
            schedule_next_round(season.pk)
    season.refresh_from_db()
    return changed == 1


def create_match(season: Season, round_: Round, board: int, versions: Sequence[BotVersion],
                 pairing: str) -> Match:
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
        [MatchSeat(match=match, index=i, version=v, side=i % sides)
         for i, v in enumerate(versions)]
    )
    enqueue("arena.play_match", match.pk)
    return match


def _close_round_if_done(round_: Round) -> bool:
    if round_.status == Round.Status.DONE:
        return True
    if round_.matches.exclude(status__in=[Match.Status.DONE, Match.Status.VOID]).exists():
        return False
    Round.objects.filter(pk=round_.pk, status=Round.Status.RUNNING).update(
        status=Round.Status.DONE, finished=timezone.now()
    )
    round_.status = Round.Status.DONE
    return True


def schedule_next_round(season_id: int) -> Round | None:
    """Schedules the season's next round when the last one is done; finishes the season.

    One scheduler at a time per season (a row lock); a round number is unique, so running this
    twice schedules a round once. Returns the new round, or None when nothing was due.
    """
    with transaction.atomic():
        season = Season.objects.select_for_update().get(pk=season_id)
        if season.status != Season.Status.RUNNING:
            return None
        last = season.rounds.order_by("-number").first()
        if last is not None and not _close_round_if_done(last):
            return None
        entrants = season.entrant_versions()
        number = 1 if last is None else last.number + 1
        if season.format not in formats.CLASSIC:
            new_round = formats.schedule_round(season, entrants, number)
            if new_round is not None:
                return new_round
            Season.objects.filter(pk=season.pk, status=Season.Status.RUNNING).update(
                status=Season.Status.FINISHED, finished=timezone.now()
            )
            log.info("season %s finished", season.name)
            return None
        plans = scheduling.round_robin(len(entrants), season.double_round_robin)
        if number <= len(plans):
            return _schedule_league_round(season, entrants, plans[number - 1], number)
        if season.has_knockout:
            new = _schedule_knockout_round(season, entrants, last, number)
            if new is not None:
                return new
        Season.objects.filter(pk=season.pk, status=Season.Status.RUNNING).update(
            status=Season.Status.FINISHED, finished=timezone.now()
        )
        log.info("season %s finished", season.name)
        return None


def _schedule_league_round(season: Season, entrants: list[BotVersion],
                           plan: scheduling.RoundPlan, number: int) -> Round:
    round_ = Round.objects.create(
        season=season,
        number=number,
        phase=Round.Phase.LEAGUE,
        plan={
            "pairings": [[entrants[a - 1].pk, entrants[b - 1].pk] for a, b in plan.pairings],
            "bye": entrants[plan.bye - 1].pk if plan.bye else None,
        },
    )
    for board, (a, b) in enumerate(plan.pairings):
        create_match(season, round_, board, [entrants[a - 1], entrants[b - 1]], f"{a}-{b}")
    if not plan.pairings:  # nothing to play (cannot happen with >= 2 entrants)
        _close_round_if_done(round_)
    return round_


def _schedule_knockout_round(season: Season, entrants: list[BotVersion], last: Round | None,
                             number: int) -> Round | None:
    assert last is not None
    by_id = {v.pk: v for v in entrants}
    if last.phase == Round.Phase.LEAGUE:
        table = league_standings(season)
        seeds = [row.version for row in table[: season.knockout_size]]
        slots_by_seed = scheduling.bracket(len(seeds))
        slots = [
            [seeds[a - 1].pk, seeds[b - 1].pk if b is not None else None]
            for a, b in slots_by_seed
        ]
        seed_ids = [v.pk for v in seeds]
    else:
        advancing = knockout_advancing(last)
        if len(advancing) < 2:
            return None  # the final is over
        slots = [[a, b] for a, b in scheduling.next_bracket_round(advancing)]
        seed_ids = list(last.plan["seeds"])
    round_ = Round.objects.create(
        season=season,
        number=number,
        phase=Round.Phase.KNOCKOUT,
        plan={"slots": slots, "seeds": seed_ids},
    )
    seed_of = {v: i for i, v in enumerate(seed_ids, start=1)}
    for board, (a, b) in enumerate(slots):
        if a is None or b is None:
            continue  # a bye: the first seed advances without a match
        create_match(season, round_, board, [by_id[a], by_id[b]], f"{seed_of[a]}-{seed_of[b]}")
    return round_


def knockout_advancing(round_: Round) -> list[int]:
    """The bot version ids advancing from each slot of a finished knockout round."""
    winners = {m.board: m.winner_id for m in round_.matches.all()}
    advancing: list[int] = []
    for board, (a, b) in enumerate(round_.plan["slots"]):
        if b is None:
            advancing.append(a)
        else:
            winner = winners.get(board)
            advancing.append(winner if winner is not None else a)
    return advancing


# ---------------------------------------------------------------------------------------------
# Matches: claim, lease, result


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
    changed = Match.objects.filter(pk=match_id).filter(
        Q(status=Match.Status.SCHEDULED) | Q(status=Match.Status.RUNNING, lease_until__lt=Now())
    ).update(
        status=Match.Status.RUNNING,
        claim_token=token,
        claimed_by=(worker or worker_name())[:200],
        claimed_at=Now(),
        lease_until=lease_end(),
        attempts=F("attempts") + 1,
        started=Now(),
    )
    if changed != 1:
        return None
    attempts = Match.objects.values_list("attempts", flat=True).get(pk=match_id)
    return Claim(match_id, token, attempts)


def renew_lease(claim: Claim) -> bool:
    """Extends the claim's lease (by the database's clock); False when the match was taken
    over or finished."""
    return Match.objects.filter(
        pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
    ).update(lease_until=lease_end()) == 1


def release_match(claim: Claim, error: str) -> bool:
    """Gives a match back after an infrastructure failure, to be played again."""
    return Match.objects.filter(
        pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
    ).update(
        status=Match.Status.SCHEDULED, claim_token="", lease_until=None,
        error=inputs.storable(error[:2000])
    ) == 1


def lease_remaining(match_id: int) -> float:
    """Seconds until the current claim on a running match expires (0 when free or expired),
    by the database's clock."""
    left = Match.objects.filter(
        pk=match_id, status=Match.Status.RUNNING, lease_until__isnull=False
    ).annotate(
        left=ExpressionWrapper(F("lease_until") - Now(), output_field=DurationField())
    ).values_list("left", flat=True).first()
    if left is None:
        return 0.0
    return max(0.0, float(left.total_seconds()))


def void_match(claim: Claim, reason: str) -> bool:
    """Gives up a match for good (after too many infrastructure failures): it counts for nobody."""
    with transaction.atomic():
        changed = Match.objects.filter(
            pk=claim.match_id, status=Match.Status.RUNNING, claim_token=claim.token
        ).update(status=Match.Status.VOID, error=inputs.storable(reason[:2000]),
                 finished=timezone.now())
        season_id = Match.objects.values_list("season_id", flat=True).get(pk=claim.match_id)
        if changed and season_id is not None:
            enqueue("arena.schedule_round", season_id)
    return changed == 1


def _void_reason(value: Any, replay: dict[str, Any]) -> str:
    if isinstance(value, str):
        return value
    if value:
        return str(replay.get("void") or "void")
    return str(replay.get("void") or "")


def record_result(claim: Claim, report: dict[str, Any]) -> bool:
    """Records a played match once: its games, its summary and winner; enqueues the follow-ups.

    ``report`` is :func:`workers.tasks.report_to_json` of the runner's ``MatchReport``:
    ``{"games": [{"replay", "seats", "winner_side", "void", "forfeit", "faults",
    "duration_ms"}], "duration_ms"}``. Only the current claim's holder records; a stale or
    repeated call changes nothing and returns False. What the bots wrote into it (fault
    details, fallback messages) is made storable (:func:`inputs.storable_json`).
    """
    report = inputs.storable_json(report)
    with transaction.atomic():
        match = Match.objects.select_for_update(of=("self",)).select_related(
            "season__variant", "round", "variant").get(pk=claim.match_id)
        if match.status != Match.Status.RUNNING or match.claim_token != claim.token:
            return False
        if match.games.exists():  # cannot happen while the token holds; never count twice
            return False
        entrants = [s.version for s in match.seats.order_by("index")]
        variant = match.play_variant()
        games = []
        wins = [0] * len(entrants)
        points = [0] * len(entrants)
        for index, data in enumerate(report["games"]):
            replay = data["replay"]
            result = replay.get("result") or {}
            seats = [int(s) for s in data["seats"]]
            totals = [int(t) for t in result.get("totals", [])]
            void = _void_reason(data.get("void"), replay)
            winner_side = data.get("winner_side", result.get("winner"))
            winner_side = None if void or winner_side is None else int(winner_side)
            totals = totals or [int(t) for t in data.get("totals") or []]
            # The replay names who sat where by bot version, as the site shows them.
            replay = {**replay, "players": [entrants[e].label for e in seats]}
            # Each entrant's side in this game (an entrant playing both seats of a side
            # counts once).
            side_of: dict[int, int] = {}
            for seat, entrant in enumerate(seats):
                side_of.setdefault(entrant, seat % variant.sides)
            winner_entrant = None
            if winner_side is not None:
                winner_entrant = seats[int(winner_side) % len(seats)]
                for entrant, side in side_of.items():
                    if side == winner_side:
                        wins[entrant] += 1
            if totals and not void:
                for entrant, side in side_of.items():
                    points[entrant] += totals[side]
            games.append(
                Game(
                    match=match,
                    index=index,
                    variant=variant,
                    replay=replay,
                    seats=seats,
                    players=[entrants[e].pk for e in seats],
                    totals=totals,
                    winner_side=winner_side,
                    winner_entrant=winner_entrant,
                    forfeit=data.get("forfeit") or result.get("forfeit"),
                    void=void,
                    faults=data.get("faults") or replay.get("faults") or [],
                    duration_ms=int(data.get("duration_ms") or 0),
                )
            )
        Game.objects.bulk_create(games)
        winner = _match_winner(entrants, wins, points, match)
        now = timezone.now()
        Match.objects.filter(pk=match.pk).update(
            status=Match.Status.DONE,
            finished=now,
            duration_ms=int(report.get("duration_ms") or sum(g.duration_ms for g in games)),
            summary={"wins": wins, "points": points, "games": len(games)},
            winner=winner,
            lease_until=None,
        )
        if match.rated:
            enqueue("arena.update_ratings", variant.pk)
        if match.round_id is None:  # a ladder match or a challenge: no round to close
            return True
        # The round's row serializes the matches finishing in it, so the last one sees the
        # others done and asks for the next round.
        Round.objects.select_for_update().filter(pk=match.round_id).first()
        still_open = Match.objects.filter(round_id=match.round_id).exclude(
            status__in=[Match.Status.DONE, Match.Status.VOID]
        )
        if not still_open.exists():
            enqueue("arena.schedule_round", match.season_id)
    return True


def _match_winner(entrants: list[BotVersion], wins: list[int], points: list[int],
                  match: Match) -> BotVersion | None:
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


# ---------------------------------------------------------------------------------------------
# Ratings


def _rated_game(game: Game, sides: int) -> trueskill_rating.RatedGame:
    per_side: list[list[int]] = [[] for _ in range(sides)]
    for seat, version_id in enumerate(game.players):
        per_side[seat % sides].append(int(version_id))
    # Two sides: the winner (a forfeit already names the other side). More: the full ranking,
    # the forfeiting side last and the others by their points.
    places = formats.game_places(game, sides) if sides > 2 else None
    return trueskill_rating.RatedGame(
        sides=tuple(tuple(s) for s in per_side), winner=game.winner_side, ref=game.pk,
        places=places,
    )


def _store_entry(variant: Variant, entry: trueskill_rating.Entry, ladder: bool = False) -> Rating:
    """Stores a computed entry; ``ladder``: on the continuous ladder (its ``l:`` key)."""
    key = trueskill_rating.ladder_key(entry.key) if ladder else entry.key
    rating, _ = Rating.objects.update_or_create(
        variant=variant,
        key=key,
        defaults={
            "version_id": trueskill_rating.key_version(key),
            "ladder": trueskill_rating.key_ladder(key),
            "mu": entry.mu,
            "sigma": entry.sigma,
            "conservative": entry.conservative,
            "games": entry.games,
            "wins": entry.wins,
            "draws": entry.draws,
            "losses": entry.losses,
        },
    )
    return rating


def _ladder_of(variant: Variant, ladder_scope: bool = False) -> trueskill_rating.Ladder:
    """The stored ratings of the seasons (``v:``, ``p:``) or of the continuous ladder (``l:``,
    computed as ``v:`` keys)."""
    ladder = trueskill_rating.Ladder()
    ratings = Rating.objects.filter(variant=variant)
    if ladder_scope:
        ratings = ratings.filter(ladder=Rating.Ladder.LADDER)
    else:
        ratings = ratings.exclude(ladder=Rating.Ladder.LADDER)
    for r in ratings:
        key = trueskill_rating.solo_key(r.key) if ladder_scope else r.key
        ladder.entries[key] = trueskill_rating.Entry(
            key, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses
        )
    return ladder


RATED = Q(void="", match__rated=True)
"""The games that move ratings: not void, of a rated match (unrated challenges are not)."""


def update_ratings(variant_id: int, batch: int = 500) -> int:
    """Rates the variant's unrated games in result order; one writer per variant at a time.

    The variant's row is the lock. Each game gets the next ``rating_seq`` as it is rated, so
    the order of rating is recorded and :func:`recompute_ratings` replays it exactly. Returns
    how many games were rated.
    """
    rated = 0
    while True:
        with transaction.atomic():
            variant = Variant.objects.select_for_update().get(pk=variant_id)
            pending = list(
                Game.objects.filter(RATED, variant=variant, rating_seq__isnull=True)
                .select_related("match")
                .order_by("match__finished", "match_id", "index")[:batch]
            )
            if not pending:
                return rated
            seq = Game.objects.filter(variant=variant).aggregate(s=Max("rating_seq"))["s"] or 0
            ladders = {False: _ladder_of(variant), True: _ladder_of(variant, True)}
            for game in pending:
                seq += 1
                on_ladder = game.match.kind != Match.Kind.SEASON
                entries = ladders[on_ladder].rate(_rated_game(game, variant.sides))
                Game.objects.filter(pk=game.pk, rating_seq__isnull=True).update(rating_seq=seq)
                for entry in entries:
                    rating = _store_entry(variant, entry, on_ladder)
                    RatingHistory.objects.create(
                        rating=rating,
                        game=game,
                        seq=seq,
                        mu=entry.mu,
                        sigma=entry.sigma,
                        conservative=entry.conservative,
                    )
            rated += len(pending)


def recompute_ratings(variant_id: int | None = None) -> dict[str, int]:
    """Rebuilds every rating (of one variant, or all) from the games in rating order.

    Games rated before keep their ``rating_seq``; games never rated are appended after them.
    The stored numbers are replaced by the recomputed ones, which equal the incremental ones.
    Returns the number of games rated per variant slug.
    """
    counts: dict[str, int] = {}
    variants = Variant.objects.all() if variant_id is None else Variant.objects.filter(
        pk=variant_id
    )
    for variant in variants:
        with transaction.atomic():
            variant = Variant.objects.select_for_update().get(pk=variant.pk)
            RatingHistory.objects.filter(rating__variant=variant).delete()
            Rating.objects.filter(variant=variant).delete()
            Game.objects.filter(variant=variant).exclude(void="").update(rating_seq=None)
            ladders = {False: trueskill_rating.Ladder(), True: trueskill_rating.Ladder()}
            games = list(
                Game.objects.filter(RATED, variant=variant).select_related("match").order_by(
                    F("rating_seq").asc(nulls_last=True), "match__finished", "match_id", "index"
                )
            )
            history: list[tuple[Game, int, trueskill_rating.Entry, bool]] = []
            for seq, game in enumerate(games, start=1):
                on_ladder = game.match.kind != Match.Kind.SEASON
                for entry in ladders[on_ladder].rate(_rated_game(game, variant.sides)):
                    history.append((game, seq, trueskill_rating.Entry(**vars(entry)), on_ladder))
                if game.rating_seq != seq:
                    Game.objects.filter(pk=game.pk).update(rating_seq=None)
            for seq, game in enumerate(games, start=1):
                if game.rating_seq != seq:
                    Game.objects.filter(pk=game.pk).update(rating_seq=seq)
            stored = {
                (key, scope): _store_entry(variant, entry, scope)
                for scope, ladder in ladders.items() for key, entry in ladder.entries.items()
            }
            RatingHistory.objects.bulk_create(
                RatingHistory(
                    rating=stored[(entry.key, scope)],
                    game=game,
                    seq=seq,
                    mu=entry.mu,
                    sigma=entry.sigma,
                    conservative=entry.conservative,
                )
                for game, seq, entry, scope in history
            )
            counts[variant.slug] = len(games)
    return counts


def leaderboard(variant: Variant, ladder: str = Rating.Ladder.SOLO) -> list[Rating]:
    """The variant's ratings on one ladder, best conservative rating first."""
    return list(
        Rating.objects.filter(variant=variant, ladder=ladder)
        .select_related("version__bot")
        .order_by("-conservative", "key")
    )


# ---------------------------------------------------------------------------------------------
# Standings


def _results_of(season: Season, phase: str | None) -> Iterable[scheduling.GameResult]:
    number_of = {se.version_id: se.number for se in season.season_entrants.all()}
    games = Game.objects.filter(match__season=season, match__status=Match.Status.DONE)
    if phase is not None:
        games = games.filter(match__round__phase=phase)
    sides = season.variant.sides
    for game in games.only("players", "winner_side", "totals", "void"):
        side_entrants = [number_of[int(game.players[s])] for s in range(sides)]
        totals = tuple(int(t) for t in game.totals) if game.totals else ()
        yield scheduling.GameResult(
            tuple(side_entrants), game.winner_side, totals, bool(game.void)
        )


def league_standings(season: Season) -> list[StandingRow]:
    """The table of a season, ranked by its format's tie-breaks.

    Round-robin: :mod:`arena.scheduling`'s; the other formats: :mod:`webui.league.formats`.
    """
    if season.format not in formats.CLASSIC:
        return formats.standings(season)
    entrants = list(season.season_entrants.select_related("version__bot").order_by("number"))
    by_number = {e.number: e.version for e in entrants}
    table = scheduling.standings(
        [e.number for e in entrants], _results_of(season, Round.Phase.LEAGUE)
    )
    return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]


def cross_table(season: Season) -> dict[tuple[int, int], float]:
    """League score of entrant number ``a`` against ``b``: ``{(a, b): score}``.

    At tables of three or more, how often ``a`` finished above ``b`` (1/2 for the same
    place); empty for rotating partnerships, whose rota replaces it.
    """
    if season.format == formats.PARTNERSHIPS:
        return {}
    pairwise = formats.pairwise_table(season)
    if pairwise is not None:
        return pairwise
    scores: dict[tuple[int, int], float] = {}
    for result in _results_of(season, Round.Phase.LEAGUE):
        if result.void:
            continue
        for side, entrant in enumerate(result.sides):
            for other_side, opponent in enumerate(result.sides):
                if side == other_side:
                    continue
                value = 0.5 if result.winner is None else float(result.winner == side)
                scores[(entrant, opponent)] = scores.get((entrant, opponent), 0.0) + value
    return scores


def season_champion(season: Season) -> BotVersion | None:
    """The winner of the final (knockout) or the top of the table, once the season is over."""
    if season.status != Season.Status.FINISHED:
        return None
    last = season.rounds.order_by("-number").first()
    if last is not None and last.phase == Round.Phase.KNOCKOUT:
        advancing = knockout_advancing(last)
        if len(advancing) == 1:
            return BotVersion.objects.get(pk=advancing[0])
    table = league_standings(season)
    return table[0].version if table else None


# ---------------------------------------------------------------------------------------------
# Keeping work moving


def requeue_stale(now: datetime | None = None, grace_s: float = 30.0,
                  waiting: int | None = None) -> int:
    """Enqueues again what a lost message or a dead worker left behind; returns how many.

    Matches still ``scheduled`` ``grace_s`` after they were last enqueued (by ``now``, this
    host's clock unless given), and ``running`` matches whose lease ran out (by the database's
    clock, as every lease), get a new ``arena.play_match``; running seasons whose last
    round is complete get ``arena.schedule_round``. ``waiting`` is how many messages the queue
    holds, when known: while it holds any, scheduled matches are taken to be queued behind
    them, not lost, and are left alone. Versions validating for over ten minutes
    get ``arena.validate_version``; unrated results get ``arena.update_ratings``. Duplicates
    are harmless: a match is claimed once and recorded once.
    """
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=grace_s)
    count = 0
    with transaction.atomic():
        lost = Q(status=Match.Status.RUNNING, lease_until__lt=Now())  # the database's clock
        if not waiting:
            lost |= Q(status=Match.Status.SCHEDULED, enqueued_at__lt=cutoff)
        stale = list(Match.objects.filter(lost).values_list("pk", flat=True))
        for match_id in stale:
            Match.objects.filter(pk=match_id).update(enqueued_at=now)
            enqueue("arena.play_match", match_id)
            count += 1
        for season_id in Season.objects.filter(status=Season.Status.RUNNING).values_list(
            "pk", flat=True
        ):
            open_matches = Match.objects.filter(season_id=season_id).exclude(
                status__in=[Match.Status.DONE, Match.Status.VOID]
            )
            if not open_matches.exists():
                enqueue("arena.schedule_round", season_id)
                count += 1
        # A validation game takes a while: ask again only when it is clearly lost.
        validation_cutoff = now - timedelta(seconds=max(grace_s, 600.0))
        for version_id in BotVersion.objects.filter(
            status=BotVersion.Status.VALIDATING, created__lt=validation_cutoff
        ).values_list("pk", flat=True):
            enqueue("arena.validate_version", version_id)
            count += 1
        for variant_id in (
            Game.objects.filter(RATED, rating_seq__isnull=True, match__finished__lt=cutoff)
            .values_list("variant_id", flat=True)
            .distinct()
        ):
            enqueue("arena.update_ratings", variant_id)
            count += 1
    return count


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
            raise TimeoutError(f"season {season.name!r} not finished after {timeout_s:g} s "
                               f"({done} of {total} matches done)")
        if now - last_sweep >= sweep_every_s:
            requeue_stale(grace_s=grace_s, waiting=queue_depth())
            last_sweep = now
        time.sleep(poll_s)
    update_ratings(season.variant_id)
    return season
