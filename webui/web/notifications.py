"""Notifications: what happened to a user's bots, read from what the league already records.

Nothing is written when something happens: a version's validation (``BotVersion.validated``,
its status and reason), a challenge received or finished (``Match`` of kind ``challenge``, its
``created``, ``finished`` and ``requested_by``) and a streak of faults (the ``faults`` of a
version's latest games) are all in the league's tables already. A user's
:class:`~webui.web.models.NotificationMark` says how far they have read: what happened after it
is new. So the league's write paths know nothing of notifications, and a notification can never
be lost or doubled by a retried task.

Every query is bounded: the last :data:`WINDOW` only, at most :data:`LIMIT` rows of each kind,
the fault check over the user's ladder-active versions (a few) and their last
:data:`FAULT_STREAK` games each. The count in the menu is cached per user for
:data:`COUNT_CACHE_S` seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db.models import Q
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone

from webui.league.models import BotVersion, Game, LadderEntry, Match

from .models import NotificationMark

WINDOW = timedelta(days=30)
LIMIT = 30
FAULT_STREAK = 3
"""A version whose last this many games each had a fault of its own is reported."""
COUNT_CACHE_S = 30
NOT_FAULTS = {"fallback", "output"}
"""Notes rather than faults: the SDK answered for the bot, or its log was cut."""


@dataclass(frozen=True)
class Notice:
    """One thing that happened to a user's bot."""

    at: datetime
    kind: str  # validated, refused, challenged, challenge-result, faults
    text: str
    url: str


def _versions(user: Any, since: datetime) -> list[Notice]:
    out = []
    for v in (
        BotVersion.objects.filter(bot__owner=user, validated__gte=since)
        .exclude(validated=None)
        .select_related("bot")
        .order_by("-validated")[:LIMIT]
    ):
        url = reverse("version", args=[v.bot.name, v.number])
        assert v.validated is not None
        if v.status == BotVersion.Status.READY:
            out.append(
                Notice(
                    v.validated,
                    "validated",
                    f"{v.label} passed validation and is on the ladder.",
                    url,
                )
            )
        elif v.status == BotVersion.Status.FAILED:
            why = f": {v.status_reason}" if v.status_reason else ""
            out.append(Notice(v.validated, "refused", f"{v.label} was refused{why}", url))
    return out


def _labels(match: Match) -> list[str]:
    return [s.version.label for s in match.seats.all()]


def _deals(n: int) -> str:
    return f"{n} duplicate deal{'s' if n != 1 else ''}"


def _challenges(user: Any, since: datetime) -> list[Notice]:
    out = []
    mine = Q(seats__version__bot__owner=user)
    received = (
        Match.objects.filter(mine, kind=Match.Kind.CHALLENGE, created__gte=since)
        .exclude(requested_by=user)
        .select_related("requested_by")
        .prefetch_related("seats__version__bot")
        .distinct()
        .order_by("-id")[:LIMIT]
    )
    for match in received:
        players = _labels(match)
        who = match.requested_by.username if match.requested_by else "someone"
        out.append(
            Notice(
                match.created,
                "challenged",
                f"{who} challenged {players[1] if len(players) > 1 else 'your bot'} "
                f"with {players[0]} ({_deals(match.games_planned // 2)}).",
                reverse("challenge", args=[match.pk]),
            )
        )
    finished = (
        Match.objects.filter(
            mine | Q(requested_by=user),
            kind=Match.Kind.CHALLENGE,
            finished__gte=since,
            status__in=[Match.Status.DONE, Match.Status.VOID],
        )
        .prefetch_related("seats__version__bot")
        .distinct()
        .order_by("-id")[:LIMIT]
    )
    from webui.league.challenges import result

    for match in finished:
        players = _labels(match)
        assert match.finished is not None
        if match.status == Match.Status.VOID:
            text = f"The challenge {' v '.join(players)} is void: {match.error or 'not played'}."
        else:
            r = result(match)
            text = (
                f"The challenge {' v '.join(players)} is over: {players[0]} won {r.wins}, "
                f"drew {r.draws} and lost {r.losses} of its games."
            )
        out.append(
            Notice(match.finished, "challenge-result", text, reverse("challenge", args=[match.pk]))
        )
    return out


def _faults(user: Any, since: datetime) -> list[Notice]:
    out = []
    entries = LadderEntry.objects.filter(
        bot__owner=user, status=LadderEntry.Status.ACTIVE
    ).select_related("version__bot")[:LIMIT]
    for entry in entries:
        version = entry.version
        games = list(
            Game.objects.filter(match__seats__version=version, created__gte=since)
            .only("id", "created", "faults", "players")
            .order_by("-created")[:FAULT_STREAK]
        )
        if len(games) < FAULT_STREAK:
            continue
        kinds: list[str] = []
        for game in games:
            own = [
                f.get("kind", "?")
                for f in (game.faults or [])
                if isinstance(f, dict)
                and f.get("kind") not in NOT_FAULTS
                and _seat_is(game, f.get("seat"), version.pk)
            ]
            if not own:
                break
            kinds += own
        else:
            what = ", ".join(sorted(set(kinds)))
            out.append(
                Notice(
                    games[0].created,
                    "faults",
                    f"{version.label} faulted in each of its last {FAULT_STREAK} "
                    f"games ({what}): see its games and log.",
                    reverse("version", args=[version.bot.name, version.number]),
                )
            )
    return out


def _seat_is(game: Game, seat: Any, version_id: int) -> bool:
    players = game.players or []
    return isinstance(seat, int) and 0 <= seat < len(players) and players[seat] == version_id


def notices(user: Any, now: datetime | None = None) -> list[Notice]:
    """Everything of the last :data:`WINDOW` for ``user``, newest first."""
    since = (now or timezone.now()) - WINDOW
    found = _versions(user, since) + _challenges(user, since) + _faults(user, since)
    return sorted(found, key=lambda n: n.at, reverse=True)


def seen_until(user: Any) -> datetime:
    """How far ``user`` has read (at first: when the account was made)."""
    mark = NotificationMark.objects.filter(user=user).values_list("seen_until", flat=True)
    return mark.first() or user.date_joined


def _count_key(user_id: int) -> str:
    return f"notices:unread:{user_id}"


def unread(user: Any) -> int:
    """How many notices ``user`` has not read (cached a few seconds)."""
    key = _count_key(user.pk)
    count = cache.get(key)
    if isinstance(count, int):
        return count
    mark = seen_until(user)
    count = sum(1 for n in notices(user) if n.at > mark)
    cache.set(key, count, COUNT_CACHE_S)
    return count


def read_all(user: Any) -> tuple[list[dict[str, Any]], datetime]:
    """Every notice with whether it is new, and marks them all read (for the page)."""
    mark = seen_until(user)
    now = timezone.now()
    items = [
        {"at": n.at, "kind": n.kind, "text": n.text, "url": n.url, "new": n.at > mark}
        for n in notices(user, now)
    ]
    NotificationMark.objects.update_or_create(user=user, defaults={"seen_until": now})
    cache.delete(_count_key(user.pk))
    return items, mark


def context(request: HttpRequest) -> dict[str, Any]:
    """Template context: ``unread_notices`` for the menu, for a logged-in user."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    try:
        return {"unread_notices": unread(user)}
    except Exception:  # the menu must never break a page (a database being migrated)
        return {}
