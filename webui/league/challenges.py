"""Challenges: an owner's bot against any active bot, a short match queued before the ladder's.

A challenge is a :class:`Match` of kind ``challenge`` (no season) played by the workers like
any other. It goes before ladder matches by ordering in the scheduler: the ladder keeps at most
``ARENA_LADDER_BACKLOG`` matches queued and adds none while a challenge of the variant waits,
so a challenge waits behind that many matches at most. (Broker priorities would need one queue
per priority on Redis and do not exist on the embedded broker; seasons share the queue too.)

Unrated by default; a rated challenge moves ladder ratings, and is allowed only between two
ladder-active versions in a ladder variant. Each user may ask for
``ARENA_CHALLENGES_PER_HOUR`` challenges an hour, and a bot plays in at most
``ARENA_CHALLENGES_OPEN_PER_BOT`` challenges waiting or under way at once, as challenger or
opponent (so many accounts cannot queue a crowd of challenges against one bot). The result is
the score from the challenger's side with the Elo difference, its 95 % error and the LOS, as
``arena match`` prints them (:class:`arena.runner.stats.EloEstimate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from arena.runner.stats import EloEstimate, finite_or_none, format_elo

from . import inputs, ladder
from .errors import LeagueError
from .matches import create_open_match
from .models import Bot, BotVersion, Game, LadderEntry, Match, Variant
from .variants import get_variant, variant_of

MAX_DEALS = 10
"""Duplicate deals a challenge may ask for (two games each, seats swapped)."""
DEFAULT_DEALS = 2
PRIORITY = 1
NAME_MAX = inputs.column_max(Bot, "name")
VARIANT_MAX = inputs.column_max(Variant, "label")
"""The longest variant a challenge may name (``scopa:target=21,napoli=true``)."""


class ChallengeError(ValueError):
    """A challenge refused: the field at fault, an HTTP status, one line; nothing is queued."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.status = status


def playing_version(bot: Bot) -> BotVersion | None:
    """The version a challenge plays for ``bot``: its ladder version, else its newest ready."""
    entry = LadderEntry.objects.filter(bot=bot).select_related("version__bot").first()
    if entry is not None:
        return entry.version
    return bot.latest_ready_version()


def _opponent(name: str) -> BotVersion:
    bot = Bot.objects.filter(name=name).first()
    if bot is None:
        raise ChallengeError("opponent", f"no bot named {name!r}", 404)
    entry = LadderEntry.objects.filter(bot=bot).first()
    if entry is not None and entry.status == LadderEntry.Status.RETIRED:
        raise ChallengeError("opponent", f"bot {name!r} is retired")
    version = playing_version(bot)
    if version is None:
        raise ChallengeError("opponent", f"bot {name!r} has no version that passed validation")
    return version


def _challenger(user: Any, name: str) -> BotVersion:
    bot = Bot.objects.filter(name=name).first()
    if bot is None:
        raise ChallengeError("bot", f"no bot named {name!r}", 404)
    if bot.owner_id != getattr(user, "pk", None):
        raise ChallengeError("bot", f"bot {name!r} is not yours", 403)
    entry = LadderEntry.objects.filter(bot=bot).first()
    if entry is not None and entry.status == LadderEntry.Status.RETIRED:
        raise ChallengeError("bot", f"your bot {name!r} is retired")
    version = playing_version(bot)
    if version is None:
        raise ChallengeError("bot", f"your bot {name!r} has no version that passed validation")
    return version


def _variant(name: str) -> Variant:
    """The variant asked for, checked; not stored yet (:func:`create_challenge` stores it
    with the match, so a refused challenge leaves no variant behind)."""
    try:
        variant = variant_of(*ladder.parse_variant(name))  # "scopa" or "scopa:target=21"
    except LeagueError as error:
        raise ChallengeError("variant", f"variant {name!r}: {error}") from None
    if variant.sides != 2:
        raise ChallengeError(
            "variant",
            f"variant {name!r} has {variant.sides} sides; challenges are between two bots",
        )
    return variant


def create_challenge(
    user: Any,
    *,
    bot: str,
    opponent: str,
    variant: str = "scopa",
    deals: int = DEFAULT_DEALS,
    rated: bool = False,
) -> Match:
    """Queues a challenge of the user's ``bot`` against ``opponent``; everything is checked
    before anything is written (:class:`ChallengeError`)."""
    if not getattr(user, "is_authenticated", False):
        raise ChallengeError("bot", "log in to challenge", 401)
    for field, value, most in (
        ("bot", bot, NAME_MAX),
        ("opponent", opponent, NAME_MAX),
        ("variant", variant, VARIANT_MAX),
    ):
        try:
            inputs.check_text(field, value, most, blank=False, name=True)
        except inputs.InputError as error:
            raise ChallengeError(field, f"{field} {error.reason}") from None
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ChallengeError(
            "deals", f"deals must be a whole number from 1 to {MAX_DEALS}, not {deals!r}"
        )
    mine = _challenger(user, bot)
    theirs = _opponent(opponent)
    if mine.bot_id == theirs.bot_id:
        raise ChallengeError("opponent", "a bot cannot challenge itself")
    played = _variant(variant)
    for version in (mine, theirs):
        if not ladder.plays(version, played):
            raise ChallengeError(
                "variant", f"{version.label} does not play {played.slug} (its bot.toml's variants)"
            )
    if rated:
        if played.slug not in {v.slug for v in ladder.ladder_variants()}:
            raise ChallengeError(
                "rated",
                f"{played.slug} has no ladder: a rated challenge is played in a ladder variant",
            )
        for version in (mine, theirs):
            if not ladder.is_ladder_active(version):
                raise ChallengeError(
                    "rated",
                    f"{version.label} is not active on the ladder: "
                    "only challenges between ladder-active bots "
                    "are rated",
                )
    with transaction.atomic():
        # The user's row serializes their requests: two at once cannot both pass the limit.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        since = timezone.now() - timedelta(hours=1)
        asked = Match.objects.filter(
            kind=Match.Kind.CHALLENGE, requested_by=user, created__gte=since
        ).count()
        if asked >= settings.ARENA_CHALLENGES_PER_HOUR:
            raise ChallengeError(
                "bot",
                f"{asked} challenges in the last hour: at most "
                f"{settings.ARENA_CHALLENGES_PER_HOUR}; try later",
                429,
            )
        # The bots' rows serialize the challenges of one bot from different users.
        pair = sorted({mine.bot_id, theirs.bot_id})
        list(Bot.objects.select_for_update().filter(pk__in=pair).order_by("pk").values("pk"))
        most = int(settings.ARENA_CHALLENGES_OPEN_PER_BOT)
        for version, field in ((mine, "bot"), (theirs, "opponent")):
            waiting = (
                Match.objects.filter(
                    kind=Match.Kind.CHALLENGE,
                    status__in=[Match.Status.SCHEDULED, Match.Status.RUNNING],
                    seats__version__bot_id=version.bot_id,
                )
                .distinct()
                .count()
            )
            if waiting >= most:
                raise ChallengeError(
                    field,
                    f"bot {version.bot.name!r} has {waiting} challenges waiting or under way, "
                    f"the most one bot may have at once (ARENA_CHALLENGES_OPEN_PER_BOT = "
                    f"{most}); try when one has been played",
                    429,
                )
        played = get_variant(played.name, dict(played.options))
        return create_open_match(
            Match.Kind.CHALLENGE,
            played,
            [mine, theirs],
            games=2 * deals,
            rated=rated,
            priority=PRIORITY,
            requested_by=user,
        )


@dataclass(frozen=True)
class Result:
    """A challenge's score from the challenger's side (entrant 0)."""

    wins: int
    draws: int
    losses: int
    void: int
    estimate: EloEstimate

    def as_dict(self) -> dict[str, Any]:
        e = self.estimate
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "void": self.void,
            "score": round(e.score, 4),
            "elo": finite_or_none(e.elo),
            "error": finite_or_none(e.error),
            "los": round(e.los, 4),
            "elo_text": format_elo(e.elo),
            "error_text": format_elo(e.error, sign=False),
            "los_percent": f"{100.0 * e.los:.1f}",
            "describe": e.describe(),
            "elo_summary": e.summary().replace("+/-", "±"),
        }


def result(match: Match) -> Result:
    """Wins, draws and losses of the challenger (entrant 0), and the Elo estimate."""
    wins = draws = losses = void = 0
    for game in Game.objects.filter(match=match).only("void", "winner_entrant", "winner_side"):
        if game.void:
            void += 1
        elif game.winner_side is None:
            draws += 1
        elif game.winner_entrant == 0:
            wins += 1
        else:
            losses += 1
    return Result(wins, draws, losses, void, EloEstimate.from_counts(wins, losses, draws))


def detail(match: Match) -> dict[str, Any]:
    """A challenge as its page and the API show it."""
    entrants = match.entrants()
    return {
        "id": match.pk,
        "status": match.status,
        "variant": match.play_variant().slug,
        "rated": match.rated,
        "deals": match.games_planned // 2,
        "games_planned": match.games_planned,
        "challenger": {"label": entrants[0].label, "bot": entrants[0].bot.name},
        "opponent": {"label": entrants[1].label, "bot": entrants[1].bot.name},
        "requested_by": match.requested_by.username if match.requested_by else None,
        "created": match.created.isoformat(),
        "finished": match.finished.isoformat() if match.finished else None,
        "error": match.error or None,
        "result": result(match).as_dict() if match.status == Match.Status.DONE else None,
    }
