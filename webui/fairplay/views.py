"""The fair-play page of a bot, for staff only: its audits' statistics, the decisions that weigh
most with their cards, links to replay the games, and the button that queues an audit.

Anyone else, the bot's owner included, gets a 404: the page's existence is not theirs to know.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from webui.league.models import Bot

from . import audits
from .models import FairPlayAudit


def _staff_bot(request: HttpRequest, name: str) -> Bot:
    """The bot ``name`` for staff; 404 for everyone else (owner included)."""
    if not (request.user.is_authenticated and request.user.is_staff):
        raise Http404("no such page")
    return get_object_or_404(Bot, name=name)


@require_GET
def bot_fairplay(request: HttpRequest, name: str) -> HttpResponse:
    bot = _staff_bot(request, name)
    history = list(FairPlayAudit.objects.filter(bot=bot)[:20])
    latest = next((a for a in history if a.status == FairPlayAudit.Status.DONE), None)
    tests = []
    if latest is not None:
        for test_name in audits.TESTS:
            figures = latest.tests.get(test_name)
            if figures:
                tests.append({"name": test_name, **figures})
    return render(
        request,
        "fairplay/bot.html",
        {"bot": bot, "latest": latest, "tests": tests, "history": history},
    )


@require_POST
def request_audit(request: HttpRequest, name: str) -> HttpResponse:
    bot = _staff_bot(request, name)
    audit = audits.request_audit(bot, request.user)
    messages.success(request, f"Audit {audit.pk} queued: a worker on the audit queue runs it.")
    return redirect("fairplay", name=bot.name)
