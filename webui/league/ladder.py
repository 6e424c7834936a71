"""The continuous ladder: which bots play, who plays whom next, and their ladder ratings.

Every variant of ``ARENA_LADDER_VARIANTS`` (two sides; a preset, or a preset with option
overrides such as ``scopa:target=21``) has a ladder. A bot is on it through its
:class:`LadderEntry`: its first version to pass validation enters at once (nothing to test it
against); a later one is a *candidate* (:func:`candidate`) until its owner promotes it
(:func:`promote`), or until a version test of it accepts H1 when the owner asked for that at
upload (``promote_on_pass``, :mod:`webui.training.sprt_tests`): test, then promote. The owner
may also choose another ready version, pause or retire the bot (:func:`choose`). The scheduler
(:func:`schedule`, run by celery beat as ``arena.schedule_ladder`` and by the loop of ``arena
demo``) keeps at most ``ARENA_LADDER_BACKLOG`` ladder matches open per variant and fills free
slots with pairs from :func:`arena.ladder.pair`, a pure function: bots that waited too long
first, then the most uncertain (highest sigma), each against the free bot of another owner with
the closest conservative rating (mu while either is provisional), and never a bot over
``ARENA_LADDER_CAP_PER_HOUR`` matches in the last hour. A ladder match is an ordinary
:class:`Match` (kind ``ladder``, no season, :func:`webui.league.matches.create_open_match`): one
duplicate deal, seats swapped, played by ``arena.play_match`` with the same claim, lease and
once-only recording as a season match.

Ladder ratings are TrueSkill (:mod:`arena.rating`) with keys ``l:<version id>``, rated by the
same writer as the seasons' (:func:`webui.league.ratings.update_ratings`) but from ladder
matches and rated challenges only; season games never move them and they never move season
ratings. Their history is :class:`RatingHistory`, as for seasons.
"""

from __future__ import annotations

import logging
import math
import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max
from django.utils import timezone

from arena import rating as trueskill_rating
from arena.ladder import STARVE_S, Candidate, pair, urgency

from . import read_models
from .errors import LeagueError
from .matches import create_open_match
from .models import Bot, BotVersion, LadderEntry, Match, MatchSeat, Rating, Variant
from .queue import queue_depth
from .sweep import requeue_stale
from .variants import get_variant

log = logging.getLogger("arena.league")

LADDER_DEALS = 1
"""Duplicate deals per ladder match: two games, the second with the seats swapped."""
OPEN = [Match.Status.SCHEDULED, Match.Status.RUNNING]

__all__ = ["STARVE_S", "Candidate", "LadderError", "pair", "schedule", "urgency"]


class LadderError(ValueError):
    """A ladder request refused; one line a person can act on. ``status`` is the HTTP answer:
    400 for a bad request, 409 for a change the entry's state forbids (a retired bot)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# ---------------------------------------------------------------------------------------------
# Which variants, which bots


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``scopa`` or ``scopa:target=21,napola=true``: a preset and its option overrides.

    >>> parse_variant("scopa:target=1,napola=true")
    ('scopa', {'target': 1, 'napola': True})
    """
    name, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, _, raw = item.partition("=")
        value: Any = raw.strip()
        if value.lower() in {"true", "false"}:
            value = value.lower() == "true"
        elif value.lstrip("-").isdigit():
            value = int(value)
        options[key.strip()] = value
    return name.strip(), options


def ladder_variants() -> list[Variant]:
    """The variants with a ladder (two sides only), created on first use."""
    out = []
    for text in settings.ARENA_LADDER_VARIANTS:
        try:
            variant = get_variant(*parse_variant(text))
        except LeagueError as error:
            log.warning("ARENA_LADDER_VARIANTS: %s", error)
            continue
        if variant.sides == 2:
            out.append(variant)
    return out


def plays(version: BotVersion, variant: Variant) -> bool:
    """Whether a version's bot.toml says it plays ``variant`` (``*`` is every variant)."""
    declared = version.manifest.get("variants") or ["*"]
    if not isinstance(declared, list):
        declared = [declared]
    return "*" in declared or variant.name in declared or variant.slug in declared


def enter_version(version: BotVersion, *, replace: bool = False) -> LadderEntry | None:
    """Puts a bot's first ready version on the ladder as its active version.

    A bot already on the ladder keeps its version: a later one is a candidate until its owner
    promotes it (:func:`promote`), unless ``replace`` (trusted bots the site registers itself,
    such as ``arena demo``'s samples, whose newer code replaces the older; a paused bot stays
    paused, a retired one off). Returns the entry, or None when ``version`` is not ready.
    """
    if not version.is_ready:
        return None
    with transaction.atomic():
        Bot.objects.select_for_update().filter(pk=version.bot_id).first()
        entry = LadderEntry.objects.filter(bot_id=version.bot_id).select_related("version").first()
        if entry is None:
            read_models.bump_on_commit([read_models.LADDER])  # its active versions
            return LadderEntry.objects.create(bot_id=version.bot_id, version=version)
        if (
            replace
            and entry.status != LadderEntry.Status.RETIRED
            and version.number > entry.version.number
        ):
            read_models.bump_on_commit([read_models.LADDER])
            entry.version = version
            entry.save(update_fields=["version", "updated"])
        return entry


def candidate(bot: Bot) -> BotVersion | None:
    """The bot's candidate: its newest ready version, when that is newer than its ladder
    version (an older one, left behind by a promotion, is a choice, not a candidate)."""
    entry = LadderEntry.objects.filter(bot=bot).select_related("version").first()
    if entry is None:
        return None
    return (
        BotVersion.objects.filter(
            bot=bot, status=BotVersion.Status.READY, number__gt=entry.version.number
        )
        .order_by("-number")
        .first()
    )


def promote(owner: Any, bot: Bot, number: int) -> LadderEntry:
    """The owner makes version ``number`` the bot's ladder version (a paused bot stays paused).

    Refuses as :func:`choose` does (:class:`LadderError`, nothing changed); promoting the
    ladder version again changes nothing.
    """
    return choose(owner, bot, number, None)


def enter_validated(version_id: int) -> None:
    """After a version passed validation: it enters the ladder (never fails the caller)."""
    version = BotVersion.objects.filter(pk=version_id).first()
    if version is None:
        return
    try:
        with transaction.atomic():  # a savepoint: a failure here undoes nothing of the caller's
            enter_version(version)
    except Exception as error:  # the validation result stands; the owner can choose later
        log.warning("version %s could not enter the ladder: %s", version_id, error)


def choose(
    owner: Any, bot: Bot, number: int | None = None, status: str | None = None
) -> LadderEntry:
    """The owner's choice: the active version (its ``number``), and/or ``status``.

    Refuses (:class:`LadderError`, nothing changed) another user's bot, a version number the bot
    lacks or that has not passed validation (saying why it was refused), an unknown status,
    and any change to a retired bot.
    """
    if getattr(owner, "pk", None) != bot.owner_id:
        raise LadderError(f"only the owner of bot {bot.name!r} may change its ladder entry", 403)
    if status is not None and status not in LadderEntry.Status.values:
        raise LadderError(f"status {status!r}: one of {', '.join(LadderEntry.Status.values)}")
    version = None
    if number is not None:
        version = BotVersion.objects.filter(bot=bot, number=number).first()
        if version is None:
            raise LadderError(f"bot {bot.name!r} has no version {number}")
        if not version.is_ready:
            why = f": {version.status_reason}" if version.status_reason else ""
            raise LadderError(f"version {version.label} is {version.status}, not ready{why}")
    with transaction.atomic():
        Bot.objects.select_for_update().filter(pk=bot.pk).first()
        read_models.bump_on_commit([read_models.LADDER])  # its active versions
        entry = LadderEntry.objects.filter(bot=bot).first()
        if entry is not None and entry.status == LadderEntry.Status.RETIRED:
            raise LadderError(f"bot {bot.name!r} is retired from the ladder", 409)
        if entry is None:
            version = version or bot.latest_ready_version()
            if version is None:
                raise LadderError(f"bot {bot.name!r} has no version that passed validation")
            return LadderEntry.objects.create(
                bot=bot, version=version, status=status or LadderEntry.Status.ACTIVE
            )
        if version is not None:
            entry.version = version
        if status is not None:
            entry.status = status
        entry.save()
        return entry


def active_versions(variant: Variant) -> list[BotVersion]:
    """The versions the ladder plays in ``variant``: active entries whose bot plays it."""
    entries = LadderEntry.objects.filter(status=LadderEntry.Status.ACTIVE).select_related(
        "version__bot"
    )
    return [e.version for e in entries if e.version.is_ready and plays(e.version, variant)]


def is_ladder_active(version: BotVersion) -> bool:
    """Whether ``version`` is its bot's active ladder version."""
    return LadderEntry.objects.filter(
        bot_id=version.bot_id, version=version, status=LadderEntry.Status.ACTIVE
    ).exists()


# ---------------------------------------------------------------------------------------------
# Scheduling: the glue


def candidates(variant: Variant, now: datetime) -> list[Candidate]:
    """The active versions of ``variant``'s ladder as :class:`Candidate` s."""
    versions = active_versions(variant)
    ids = [v.pk for v in versions]
    ratings = {
        r.version_id: r
        for r in Rating.objects.filter(variant=variant, pool=Rating.Pool.LADDER, version_id__in=ids)
    }
    seats = MatchSeat.objects.filter(version_id__in=ids)
    hour_ago = now - timedelta(hours=1)
    # The cap counts matches against other owners: the house matches that fill an idle
    # ladder (house_match) must not keep its bots from a newcomer's.
    one_owner = (
        Match.objects.filter(kind=Match.Kind.LADDER, created__gte=hour_ago)
        .annotate(owners=Count("seats__version__bot__owner", distinct=True))
        .filter(owners=1)
        .values("pk")
    )
    recent = dict(
        seats.filter(match__kind=Match.Kind.LADDER, match__created__gte=hour_ago)
        .exclude(match_id__in=one_owner)
        .values_list("version_id")
        .annotate(n=Count("match_id", distinct=True))
    )
    # Busy in this variant only: a bot on two ladders plays each of them, or the ladder
    # scheduled first would keep a small field busy and starve the others.
    busy = set(
        seats.filter(match__status__in=OPEN, match__variant=variant).values_list(
            "version_id", flat=True
        )
    )
    last = dict(
        seats.filter(match__kind=Match.Kind.LADDER)
        .values_list("version_id")
        .annotate(t=Max("match__created"))
    )
    latest: dict[int, int] = dict(  # version -> its latest ladder match (ids only grow)
        seats.filter(match__kind=Match.Kind.LADDER)
        .values_list("version_id")
        .annotate(m=Max("match_id"))
    )
    in_match: dict[int, list[int]] = {}
    for match_id, version_id in MatchSeat.objects.filter(
        match_id__in=set(latest.values())
    ).values_list("match_id", "version_id"):
        in_match.setdefault(match_id, []).append(version_id)
    opponent = {
        mine: other
        for mine, match_id in latest.items()
        for other in in_match.get(match_id, [])
        if other != mine
    }
    out = []
    for v in versions:
        r = ratings.get(v.pk)
        sigma = r.sigma if r else trueskill_rating.SIGMA
        conservative = (
            r.conservative
            if r
            else trueskill_rating.conservative(trueskill_rating.MU, trueskill_rating.SIGMA)
        )
        started = last.get(v.pk)
        waited = (now - started).total_seconds() if started else math.inf
        # By owner, not by bot: two bots of one owner never meet (the README's "another
        # author's"); by bot, one owner's new bot met its old one match after match.
        out.append(
            Candidate(
                v.pk,
                v.bot.owner_id,
                sigma,
                conservative,
                int(recent.get(v.pk, 0)),
                v.pk in busy,
                waited,
                opponent.get(v.pk),
            )
        )
    return out


def schedule(now: datetime | None = None) -> list[int]:
    """Tops up every ladder's open matches to the backlog; returns the new match ids.

    One scheduler at a time per variant (the variant's row lock). Nothing is added while a
    challenge of the variant waits in the queue: challenges go first.
    """
    now = now or timezone.now()
    created: list[int] = []
    for variant in ladder_variants():
        with transaction.atomic():
            Variant.objects.select_for_update().filter(pk=variant.pk).first()
            open_matches = Match.objects.filter(variant=variant, status__in=OPEN)
            if open_matches.filter(
                kind=Match.Kind.CHALLENGE, status=Match.Status.SCHEDULED
            ).exists():
                continue
            slots = (
                settings.ARENA_LADDER_BACKLOG - open_matches.filter(kind=Match.Kind.LADDER).count()
            )
            if slots <= 0:
                continue
            pairs = pair(candidates(variant, now), slots, settings.ARENA_LADDER_CAP_PER_HOUR)
            by_id = {
                v.pk: v
                for v in BotVersion.objects.filter(
                    pk__in=[i for p in pairs for i in p]
                ).select_related("bot")
            }
            for a, b in pairs:
                match = create_open_match(
                    Match.Kind.LADDER,
                    variant,
                    [by_id[a], by_id[b]],
                    games=2 * LADDER_DEALS,
                    rated=True,
                )
                created.append(match.pk)
    return created


HOUSE_PAUSE_S = 5.0
"""How long an idle ladder waits after its last match before :func:`house_match` starts one."""


def house_match(
    owner: Any, variant: Variant, pause_s: float = HOUSE_PAUSE_S, now: datetime | None = None
) -> int | None:
    """A ladder match between two of ``owner``'s active bots when ``variant``'s ladder is
    idle: nothing open there (scheduled or running) and no ladder match of it finished in
    the last ``pause_s`` seconds. Returns the new match's id, or None.

    For ``arena demo``, whose sample bots all belong to its house account, which
    :func:`pair` never sets against each other: without it the ladder went quiet once the
    demo's season ended and no visitor's bot was waiting, and there was nothing to watch. It
    adds one match at a time, only where :func:`schedule` added none (a visitor's bot goes
    first), so the queue never holds more than one of these: the bot that waited longest
    since its last ladder match, against the next longest waiting other than its last
    opponent (the three samples take turns). Its
    matches are rated, and do not count towards :data:`ARENA_LADDER_CAP_PER_HOUR`
    (:func:`candidates`).
    """
    now = now or timezone.now()
    owner_id = getattr(owner, "pk", owner)
    with transaction.atomic():
        Variant.objects.select_for_update().filter(pk=variant.pk).first()
        ladder_matches = Match.objects.filter(variant=variant, kind=Match.Kind.LADDER)
        if Match.objects.filter(variant=variant, status__in=OPEN).exists():
            return None
        last = ladder_matches.aggregate(t=Max("finished"))["t"]
        if last is not None and (now - last).total_seconds() < pause_s:
            return None
        house = sorted(
            (c for c in candidates(variant, now) if c.owner_id == owner_id and not c.busy),
            key=lambda c: (-c.waited_s, c.version_id),
        )
        if len(house) < 2:
            return None
        first = house[0]
        # Its opponent: the one that waited longest, another than its last when it can.
        second = min(
            house[1:],
            key=lambda c: (c.version_id == first.last_opponent, -c.waited_s, c.version_id),
        )
        versions = {
            v.pk: v
            for v in BotVersion.objects.filter(
                pk__in=[first.version_id, second.version_id]
            ).select_related("bot")
        }
        match = create_open_match(
            Match.Kind.LADDER,
            variant,
            [versions[first.version_id], versions[second.version_id]],
            games=2 * LADDER_DEALS,
            rated=True,
        )
        return match.pk


class LadderLoop:
    """The scheduler in a background thread (``arena demo``): :func:`schedule` and the sweep
    every ``interval_s`` until stopped; ``also``: more sweeps to run each time (the Play
    page's, which the league does not know)."""

    def __init__(self, interval_s: float = 5.0, also: Sequence[Callable[[], object]] = ()) -> None:
        self.interval_s = interval_s
        self.also = list(also)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name="ladder", daemon=True)

    def start(self) -> LadderLoop:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=30)

    def _run(self) -> None:
        from django.db import close_old_connections, connection

        try:
            while True:
                try:
                    schedule()
                    requeue_stale(waiting=queue_depth())
                    for extra in self.also:
                        extra()
                except Exception as error:  # the database blinked: next beat
                    log.warning("ladder scheduler: %s", error)
                    close_old_connections()
                if self.stopped.wait(self.interval_s):
                    return
        finally:
            connection.close()


def leaderboard(variant: Variant) -> list[Rating]:
    """The variant's ladder ratings, best conservative rating first."""
    return list(
        Rating.objects.filter(variant=variant, pool=Rating.Pool.LADDER)
        .select_related("version__bot")
        .order_by("-conservative", "key")
    )
