"""Running fair-play audits: which games, the three tests, what is kept for the staff page.

An audit reads a bot's most recent rated games (their replays hold every hand, docs/REPLAY.md)
and runs :mod:`arena.audit` on every decision of the bot's seats: ``hidden`` (does it choose
as if it saw any hidden card?), ``partner`` in partnership variants (its partner's hand?) and
``second_game`` on the second game of each duplicate set (the first game's deal again, seats
swapped: does it remember it?).  Each test is an e-process at ``alpha / 3``, so the audit's
chance of a false flag is at most ``alpha``.  Audits are queued by staff (the bot's page, or
``manage.py fairplay_audit``) and periodically for bots with new rated games; a worker on the
audit queue runs them (:mod:`workers.fairplay`).
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from arena.audit import AuditConfig, AuditError, EProcess, audit_replay
from webui.league import queue
from webui.league.models import Bot, Game

from .models import FairPlayAudit

TESTS = ("hidden", "partner", "second_game")
TOP = 12
"""Decisions kept per audit for the page: those that raised the evidence most."""
TASK = "arena.fairplay_audit"


def recent_games(bot: Bot, limit: int) -> list[Game]:
    """The bot's ``limit`` most recent rated, not void games, newest first."""
    return list(
        Game.objects.filter(match__rated=True, match__seats__version__bot=bot, void="")
        .select_related("variant")
        .order_by("-created", "-id")
        .distinct()[:limit]
    )


def request_audit(bot: Bot, user: Any = None, max_games: int | None = None) -> FairPlayAudit:
    """A queued audit of ``bot`` (the one already queued, if any), sent to the audit queue
    once the transaction commits."""
    with transaction.atomic():
        waiting = FairPlayAudit.objects.filter(bot=bot, status=FairPlayAudit.Status.QUEUED).first()
        if waiting is not None:
            return waiting
        audit = FairPlayAudit.objects.create(
            bot=bot,
            requested_by=user if user is not None and user.is_authenticated else None,
            max_games=max_games or settings.ARENA_FAIRPLAY_GAMES,
            alpha=settings.ARENA_FAIRPLAY_ALPHA,
            samples=settings.ARENA_FAIRPLAY_SAMPLES,
        )
        queue.enqueue(TASK, audit.pk)
    return audit


def due_bots() -> list[Bot]:
    """Bots with a rated game newer than their last audit (or never audited)."""
    latest = Game.objects.filter(match__rated=True, void="").values("match__seats__version__bot")
    newest = {
        row["match__seats__version__bot"]: row["newest"]
        for row in latest.annotate(newest=Max("created"))
    }
    audited = {
        row["bot"]: row["last"]
        for row in FairPlayAudit.objects.values("bot").annotate(last=Max("created"))
    }
    due = [
        b for b, when in newest.items() if b is not None and (b not in audited or when > audited[b])
    ]
    return list(Bot.objects.filter(pk__in=due))


def queue_due() -> int:
    """Queues an audit of every bot due one; returns how many."""
    bots = due_bots()
    for bot in bots:
        request_audit(bot)
    return len(bots)


def claim(audit_id: int) -> bool:
    """Takes a queued audit (once: a conditional update)."""
    return (
        FairPlayAudit.objects.filter(pk=audit_id, status=FairPlayAudit.Status.QUEUED).update(
            status=FairPlayAudit.Status.RUNNING, started=timezone.now()
        )
        == 1
    )


def run_audit(audit_id: int) -> FairPlayAudit | None:
    """Runs a queued audit and records it; None if it was not queued (run once)."""
    if not claim(audit_id):
        return None
    audit = FairPlayAudit.objects.select_related("bot").get(pk=audit_id)
    began = time.process_time()
    try:
        figures = audit_games(audit.bot, audit.max_games, audit.alpha, audit.samples)
    except Exception as error:  # a replay the audit cannot read: recorded, not retried
        FairPlayAudit.objects.filter(pk=audit_id).update(
            status=FairPlayAudit.Status.FAILED, finished=timezone.now(), error=str(error)[:2000]
        )
        raise
    FairPlayAudit.objects.filter(pk=audit_id).update(
        status=FairPlayAudit.Status.DONE,
        finished=timezone.now(),
        cpu_seconds=time.process_time() - began,
        **figures,
    )
    return FairPlayAudit.objects.get(pk=audit_id)


def audit_games(bot: Bot, max_games: int, alpha: float, samples: int) -> dict[str, Any]:
    """The three tests over the bot's recent rated games, oldest first: the audit's fields."""
    versions = set(bot.versions.values_list("id", flat=True))
    games = recent_games(bot, max_games)
    config = AuditConfig(samples=samples)
    tests = {name: EProcess(alpha=alpha / len(TESTS)) for name in TESTS}
    flagged_game: dict[str, int] = {}
    top: list[tuple[float, int, dict[str, Any]]] = []
    order = itertools.count()  # breaks ties between equal weights (rows never compare)
    decisions = 0
    exact = dict.fromkeys(TESTS, 0)
    for game in reversed(games):
        seats = [s for s, v in enumerate(game.players) if v in versions]
        if not seats:
            continue
        kinds = ["hidden"] + (["partner"] if int(game.variant.players) == 4 else [])
        for kind in kinds:
            try:
                audits = audit_replay(game.replay, seats, kind, config)
            except AuditError:
                continue  # a replay cut short in a way the walk refuses: nothing to read
            for a in audits:
                names = [kind] + (["second_game"] if kind == "hidden" and game.index == 1 else [])
                for name in names:
                    weight = tests[name].observe(a.share, a.seen, a.slack, a.scale, a.exact)
                    exact[name] += a.exact
                    if tests[name].flagged and name not in flagged_game:
                        flagged_game[name] = game.pk
                    if weight > 0:
                        row = {**a.to_json(), "game": game.pk, "test": name, "weight": weight}
                        item = (weight, next(order), row)
                        if len(top) < TOP:
                            heapq.heappush(top, item)
                        else:
                            heapq.heappushpop(top, item)
                decisions += kind == "hidden"
    return {
        "games": [g.pk for g in games],
        "decisions": decisions,
        "tests": {
            name: {
                "decisions": test.decisions,
                "exact": exact[name],
                "matches": round(test.matches, 3),
                "expected": round(test.expected, 3),
                "excess": round(test.excess, 4),
                "log10_e": round(test.log_e / math.log(10), 3),
                "threshold": round(-math.log10(test.alpha), 3),
                "flagged": test.flagged,
                "flagged_game": flagged_game.get(name),
            }
            for name, test in tests.items()
            if test.decisions
        },
        "top": [row for _, _, row in sorted(top, key=lambda t: -t[0])],
        "flagged": any(t.flagged for t in tests.values()),
    }
