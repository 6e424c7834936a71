"""The pages a newcomer looks for: the rules, how to write a bot (with the starter kit to
download), the variants, the challenges, an author's bots, notifications and a password change.

Thin views over :mod:`reads`, the engine's variant table (:data:`arena.engine.VARIANTS`) and
the SDK's bot templates (:mod:`arena.sdk.scaffold`, the same folder ``arena bot new`` writes).
They read; the only writes are a user's own password and how far they read their notifications.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse_lazy
from django.views.decorators.cache import cache_control

from arena.engine import VARIANTS
from webui.league import challenges, ladder
from webui.league.models import Bot, Match, Rating

from . import notifications, reads, sdk

STARTER_NAME = "my-bot"
LANGUAGES = {"python": "Starter kit: Python (.zip)", "javascript": "Starter kit: JavaScript (.zip)"}


def rules(request: HttpRequest) -> HttpResponse:
    rows = []
    for name, r in VARIANTS.items():
        extras = []
        if r.target != 11:
            extras.append(f"to {r.target} points")
        for flag, text in (
            ("assi", "aces sweep the table"),
            ("quindici", "captures make 15"),
            ("re_bello", "re bello"),
            ("napoli", "napoli"),
            ("sette_tutti", "all four sevens"),
            ("cappotto", "cappotto wins"),
            ("last_play_scopa", "a sweep with the last card counts"),
        ):
            if getattr(r, flag, False):
                extras.append(text)
        if getattr(r, "primiera_method", "sum") == "count":
            extras.append("primiera by counting sevens")
        rows.append(
            {
                "name": name,
                "players": r.players,
                "partners": r.partners,
                "layout": r.layout,
                "extras": extras,
            }
        )
    return render(request, "web/rules.html", {"variants": rows})


def write_bot(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "web/write_bot.html",
        {
            "languages": LANGUAGES,
            "server": f"{request.scheme}://{request.get_host()}",
            "sdk_url": sdk.wheel_url(request),
            "ladder_variants": [v.slug for v in ladder.ladder_variants()],
        },
    )


@cache_control(max_age=3600)
def starter_kit(request: HttpRequest, lang: str) -> HttpResponse:
    """``/write-a-bot/starter-kit-<lang>.zip``: the folder ``arena bot new my-bot`` writes,
    its README naming this site's SDK wheel (so the kit needs no checkout)."""
    from arena.sdk.scaffold import new_bot, site_install

    if lang not in LANGUAGES:
        raise Http404(f"no starter kit in {lang!r} (there are: {', '.join(LANGUAGES)})")
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / STARTER_NAME
        new_bot(folder, STARTER_NAME, lang, "", install=site_install(sdk.wheel_url(request)))
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(folder.rglob("*")):
                if path.is_file():
                    archive.write(path, f"{STARTER_NAME}/{path.relative_to(folder)}")
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{STARTER_NAME}-{lang}.zip"'
    return response


def variants(request: HttpRequest) -> HttpResponse:
    return render(request, "web/variants.html", {"variants": reads.variants_overview()})


CHALLENGES_SHOWN = 50


def challenge_list(request: HttpRequest) -> HttpResponse:
    recent = list(
        Match.objects.filter(kind=Match.Kind.CHALLENGE)
        .select_related("variant")
        .order_by("-id")[:CHALLENGES_SHOWN]
    )
    rows = []
    for match in recent:
        seats = list(match.seats.select_related("version__bot").order_by("index"))
        outcome = challenges.result(match).as_dict() if match.status == Match.Status.DONE else None
        rows.append(
            {
                "id": match.pk,
                "status": match.status,
                "created": match.created,
                "variant": match.play_variant().slug,
                "rated": match.rated,
                "players": [s.version.label for s in seats],
                "result": outcome,
            }
        )
    return render(request, "web/challenges.html", {"challenges": rows})


def author(request: HttpRequest, username: str) -> HttpResponse:
    person = get_object_or_404(User, username=username, is_active=True)
    bots = list(
        Bot.objects.filter(owner=person)
        .annotate(n_versions=Count("versions"), last_version=Max("versions__created"))
        .order_by("name")
    )
    best: dict[int, Rating] = {}
    for rating in (
        Rating.objects.filter(version__bot__in=bots)
        .select_related("variant", "version")
        .order_by("-conservative")
    ):
        best.setdefault(rating.version.bot_id, rating)
    rows = [
        {
            "name": b.name,
            "description": b.description,
            "versions": b.n_versions,
            "last_version": b.last_version,
            "created": b.created,
            "best": best.get(b.pk),
        }
        for b in bots
    ]
    return render(request, "web/author.html", {"person": person, "bots": rows})


@login_required
def notification_list(request: HttpRequest) -> HttpResponse:
    items, seen_until = notifications.read_all(request.user)
    return render(
        request,
        "web/notifications.html",
        {"items": items, "seen_until": seen_until, "days": notifications.WINDOW.days},
    )


class PasswordChangeView(auth_views.PasswordChangeView):
    """``/accounts/password/``: a logged-in user changes their own password (the old one
    asked first); the other sessions of the account end, this one stays logged in."""

    template_name = "web/password_change.html"  # not the admin's, which wins that name
    success_url = reverse_lazy("account")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(self.request, "Password changed; your other sessions have ended.")
        return response

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        response.status_code = 400
        return response
