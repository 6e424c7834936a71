"""The site's pages. Thin views: one access helper per object, the data from :mod:`reads`.

Pages never play matches: starting a season goes through the league
(:mod:`webui.league.seasons`), which enqueues tasks by name once the transaction commits; the
pages read what the workers wrote.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from webui.league import errors, ladder, read_models, variants, versions
from webui.league.formats import format_of
from webui.league.models import Bot, BotVersion, Game, LadderEntry, Season, Variant
from webui.league.seasons import create_season, start_season

from . import game_lists, game_logs, live_progress, live_tv, match_lists, reads, shared_reads
from .api import bot_page_data
from .api_input import ApiError
from .charts import rating_chart
from .client_ip import client_ip
from .forms import (
    BotForm,
    DescriptionForm,
    LoginForm,
    SeasonForm,
    SignupForm,
    TokenForm,
    VersionForm,
)
from .models import ApiToken
from .openapi import openapi
from .page_cache import shared_page
from .rank_changes import since
from .read_cache import cached
from .replay_frames import card_label
from .submission import (
    SubmissionError,
    add_version,
    create_bot_with_version,
    identical_code_warning,
)
from .upload_limits import upload_refusal


def _owned_bot(request: HttpRequest, name: str) -> Bot:
    """The bot ``name`` if the request's user owns it; 403 for anyone else (staff included)."""
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    if not request.user.is_authenticated or bot.owner_id != request.user.pk:
        raise PermissionDenied(f"only the owner of bot {bot.name!r} may change it")
    return bot


def _staff(request: HttpRequest) -> None:
    if not (request.user.is_authenticated and request.user.is_staff):
        raise PermissionDenied("only staff may create and run seasons")


@shared_page(shared_reads.home)
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "web/home.html",
        {
            **reads.home_overview(),
            "hero_cards": ["7d", "1s", "10c", "3b"],
            # Who played when the page was drawn: kept until a result, the card's first
            # poll of /api/tv (at once) brings it up to date.
            "featured": live_tv.featured(),
            "poll_ms": live_progress.POLL_MS,
        },
    )


@shared_page(shared_reads.tv)
def tv(request: HttpRequest) -> HttpResponse:
    """The game being played now, followed live; when its match ends, the next one."""
    return render(
        request,
        "web/tv.html",
        {"featured": live_tv.featured(), "poll_ms": live_progress.POLL_MS},
    )


@shared_page(shared_reads.variant, params=("ladder",))
def variant(request: HttpRequest, slug: str) -> HttpResponse:
    v = get_object_or_404(Variant, slug=slug)
    ladders = reads.variant_pools(v)
    ladder = request.GET.get("ladder") or ladders[0]
    if ladder not in ladders:
        raise Http404(f"{v.slug} has no {ladder!r} ladder")
    return render(
        request,
        "web/leaderboard.html",
        {
            "variant": reads.variant_json(v),
            "ladder": ladder,
            "ladders": [
                {"name": name, "text": reads.POOLS[name], "current": name == ladder}
                for name in ladders
            ],
            "table": _leaderboard_table(v, ladder),
            "games": reads.recent_games(10, v),
        },
    )


def _leaderboard_table(v: Variant, ladder: str) -> str:
    """The leaderboard's table as HTML, drawn once per version of the leaderboard (and hour
    of its rank changes) and shared by every web process (:mod:`read_cache`)."""
    hour = since().strftime("%Y%m%d%H")
    return cached(
        f"html:board:{v.pk}:{ladder}:{hour}",
        [read_models.board_scope(v.pk, ladder)],
        lambda: render_to_string(
            "web/_leaderboard_table.html", {"ratings": reads.leaderboard(v, ladder)}
        ),
    )


def bots(request: HttpRequest) -> HttpResponse:
    return render(request, "web/bots.html", {"bots": reads.bots()})


@shared_page(shared_reads.bot, params=("variant", "opponent", "result", "after", "before", "limit"))
def bot(request: HttpRequest, name: str) -> HttpResponse:
    b = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    is_owner = request.user.is_authenticated and request.user.pk == b.owner_id
    data = bot_page_data(b, is_owner or bool(request.user.is_staff))
    charts = [dict(chart, svg=rating_chart(chart["series"])) for chart in data["charts"]]
    data = dict(data, charts=charts)
    # The bots it played are those of its head-to-head records (cached with its ratings).
    played = sorted(h["opponent"] for h in data["head_to_head"])
    games, status = _game_list(request, b, None, played)
    return render(
        request,
        "web/bot.html",
        {
            **data,
            **games,
            "is_owner": is_owner,
            "promotion": _promotion(b) if is_owner else None,
            "upload_form": VersionForm() if is_owner else None,
            "description_form": DescriptionForm(initial={"description": b.description})
            if is_owner
            else None,
        },
        status=status,
    )


def _promotion(b: Bot) -> dict[str, Any] | None:
    """What the owner's promote box shows: the candidate, the ladder version, identical code."""
    new = ladder.candidate(b)
    entry = LadderEntry.objects.filter(bot=b).select_related("version").first()
    if new is None or entry is None:
        return None
    same = versions.same_code(new)
    return {
        "candidate": new,
        "ladder": entry.version,
        "same_code": same.label if same is not None else "",
        "promote_on_pass": new.promote_on_pass,
    }


def _game_list(
    request: HttpRequest, b: Bot, v: BotVersion | None, played: list[str] | None = None
) -> tuple[dict[str, Any], int]:
    """The page's game list (:mod:`game_lists`) and the page's status: 400 for a bad filter.

    ``played``: the bots it played, when the page knows them already.
    """
    choices = game_lists.choices(b, v, played)
    subject = v.label if v is not None else b.name
    context: dict[str, Any] = {
        "choices": choices,
        "subject": f"{subject}'s result",
        "subject_name": subject,
    }
    try:
        filters = game_lists.parse(request.GET, b, v)
        page = game_lists.game_list(b, v, filters)
    except ApiError as exc:
        empty: dict[str, Any] = {"games": [], "next": None, "prev": None, "filters": {}}
        return {**context, "list": empty, "list_error": exc.message}, 400
    return {
        **context,
        "list": page,
        "filters_active": filters.active,
        "prev_query": filters.query(before=page["prev"]) if page["prev"] else None,
        "next_query": filters.query(after=page["next"]) if page["next"] else None,
        "newest_query": filters.query() if page["prev"] else None,
    }, 200


def version(request: HttpRequest, name: str, number: int) -> HttpResponse:
    v = get_object_or_404(
        BotVersion.objects.select_related("bot__owner"), bot__name=name, number=number
    )
    private = request.user.is_authenticated and (
        request.user.pk == v.bot.owner_id or request.user.is_staff
    )
    games, status = _game_list(request, v.bot, v)
    return render(
        request,
        "web/version.html",
        {
            "version": reads.version_json(v, bool(private)),
            "bot": v.bot,
            "private": private,
            "validation_game": v.validation_replay is not None,
            **games,
        },
        status=status,
    )


@login_required
@require_http_methods(["GET", "POST"])
def bot_new(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        archive = form.cleaned_data.get("archive")
        refusal = upload_refusal(request, request.user) if archive else None
        if refusal is not None:
            form.add_error("archive", refusal)
            return render(request, "web/bot_new.html", {"form": form}, status=429)
        try:
            b, v = create_bot_with_version(
                request.user,
                form.cleaned_data["name"],
                form.cleaned_data["description"],
                archive.read() if archive else None,
            )
        except SubmissionError as exc:
            form.add_error(
                "archive" if archive and "bot name" not in str(exc) else "name", str(exc)
            )
        else:
            messages.success(
                request,
                f"Bot {b.name} created"
                + (f"; version {v.number} is being validated." if v else "."),
            )
            return redirect("bot", name=b.name)
    return render(request, "web/bot_new.html", {"form": form}, status=400 if form.errors else 200)


@login_required
@require_POST
def bot_upload(request: HttpRequest, name: str) -> HttpResponse:
    b = _owned_bot(request, name)
    form = VersionForm(request.POST, request.FILES)
    if form.is_valid():
        refusal = upload_refusal(request, request.user)
        if refusal is not None:
            form.add_error("archive", refusal)
            return render(request, "web/upload_failed.html", {"bot": b, "form": form}, status=429)
        try:
            v, created = add_version(
                b,
                form.cleaned_data["archive"].read(),
                promote_on_pass=bool(form.cleaned_data.get("test_then_promote")),
            )
        except SubmissionError as exc:
            form.add_error("archive", str(exc))
        else:
            warning = identical_code_warning(v, created)
            if created:
                messages.success(
                    request,
                    f"Version {v.number} uploaded; a worker is "
                    "validating it against the random bot.",
                )
                if warning:
                    messages.warning(request, warning[0].upper() + warning[1:] + ".")
            else:
                messages.info(request, f"This archive is already version {v.number}.")
            return redirect("version", name=b.name, number=v.number)
    return render(request, "web/upload_failed.html", {"bot": b, "form": form}, status=400)


@login_required
@require_POST
def bot_edit(request: HttpRequest, name: str) -> HttpResponse:
    b = _owned_bot(request, name)
    form = DescriptionForm(request.POST)
    if not form.is_valid():
        problem = " ".join(str(e) for e in form.errors.get("description", ["is not valid"]))
        return render(
            request, "web/bad_request.html", {"message": f"The description: {problem}"}, status=400
        )
    Bot.objects.filter(pk=b.pk).update(description=form.cleaned_data["description"])
    read_models.bot_changed([b.pk])
    messages.success(request, "Description saved.")
    return redirect("bot", name=b.name)


def seasons(request: HttpRequest) -> HttpResponse:
    return render(request, "web/seasons.html", {"seasons": reads.seasons()})


@login_required
@require_http_methods(["GET", "POST"])
def season_new(request: HttpRequest) -> HttpResponse:
    _staff(request)
    form = SeasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            with transaction.atomic():
                s = create_season(
                    name=d["name"],
                    variant=variants.get_variant(d["variant"]),
                    entrants=list(d["entrants"]),
                    games_per_pairing=d["games_per_pairing"],
                    move_time_ms=d["move_time_ms"],
                    bank_ms=d["bank_ms"],
                    created_by=request.user,
                    format=d["format"],
                    seat_limits=form.seat_limits(),
                    format_options=form.format_options(),
                )
                if d["start"]:
                    start_season(s)
        except errors.LeagueError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(
                request, f"Season {s.name} created" + (" and started." if d["start"] else ".")
            )
            return redirect("season", season_id=s.pk)
    return render(
        request, "web/season_new.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
@require_POST
def season_start(request: HttpRequest, season_id: int) -> HttpResponse:
    _staff(request)
    s = get_object_or_404(Season, pk=season_id)
    if start_season(s):
        messages.success(request, f"Season {s.name} started: its first round is scheduled.")
    else:
        messages.error(request, f"Season {s.name} is {s.status}; only a draft can start.")
    return redirect("season", season_id=s.pk)


@shared_page(shared_reads.season, params=("matches_after", "matches_before"))
def season(request: HttpRequest, season_id: int) -> HttpResponse:
    s = get_object_or_404(Season.objects.select_related("variant"), pk=season_id)
    try:
        match_page = match_lists.season_match_page(s, request.GET)
    except ApiError as exc:
        return render(request, "web/bad_request.html", {"message": exc.message}, status=400)
    # The league's matches are listed a page at a time (match_page); the knockout's are all
    # kept, for the bracket.
    data = reads.season_detail(s, match_limit=0)
    labels = {e["number"]: e["version"]["label"] for e in data["entrants"]}
    cross = []
    if data["crosstable"]:
        order = data["crosstable"]["order"]
        by_pair = {
            (row["entrant"], other): cell
            for row in data["crosstable"]["rows"]
            for other, cell in zip(order, row["cells"], strict=True)
        }
        cross = [
            {
                "entrant": row["entrant"],
                "label": labels.get(row["entrant"], "?"),
                "cells": [
                    {
                        "self": row["entrant"] == other,
                        "score": cell,
                        "cls": _cross_class(cell, by_pair.get((other, row["entrant"]))),
                    }
                    for other, cell in zip(order, row["cells"], strict=True)
                ],
            }
            for row in data["crosstable"]["rows"]
        ]
    done, total = data["season"]["matches_done"], data["season"]["matches_total"]
    season_format = format_of(s)
    return render(
        request,
        "web/season.html",
        {
            **data,
            "cross": cross,
            "obj": s,
            "match_page": match_page,
            # The format's own part of the page: its standings and schedule, its words.
            "format_template": f"web/formats/{season_format.key}.html",
            "format_headline": season_format.headline(data["format"]),
            "cross_table_note": season_format.cross_table_note,
            "percent": int(100 * done / total) if total else 0,
            # Before any game the standings are the order of entry: no rank is shown.
            "no_games": not any(row["played"] for row in data["standings"]),
            "poll_ms": live_progress.POLL_MS,
            "can_start": request.user.is_authenticated
            and request.user.is_staff
            and s.status == Season.Status.DRAFT,
        },
    )


def _cross_class(cell: float | None, mirror: float | None) -> str:
    """``win`` when the row did better against the column than the column against it."""
    if cell is None or mirror is None:
        return ""
    return "win" if cell > mirror else "loss" if cell < mirror else ""


def match(request: HttpRequest, match_id: int) -> HttpResponse:
    # Its rows from the shared cache (until a match's state changes), its game from the
    # live cache: a live board read by many costs what a kept page does.
    rows = live_progress.match_rows(match_id)
    if rows is None:
        raise Http404(f"no match {match_id}")
    return render(
        request,
        "web/match.html",
        {
            "m": rows["detail"],
            "live": live_progress.live_of(match_id, rows),
            "poll_ms": live_progress.POLL_MS,
        },
    )


@shared_page(shared_reads.game)
def game(request: HttpRequest, game_id: int) -> HttpResponse:
    g = get_object_or_404(
        Game.objects.select_related("variant", "match__season").defer("replay"), pk=game_id
    )
    # The bots' own logs of the game: a panel for their owners (and staff) only; the shared
    # page (readers without a session) never has it.
    own_logs = game_logs.readable_logs(request.user, g.pk).exists()
    return render(request, "web/game.html", {"g": reads.game_detail(g), "own_logs": own_logs})


def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers: 200 ``ok`` when the database answers."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok\n", content_type="text/plain")


def replay_open(request: HttpRequest) -> HttpResponse:
    return render(request, "web/replay_open.html")


def cards(request: HttpRequest) -> HttpResponse:
    suits = []
    for suit, name in (("d", "denari"), ("c", "coppe"), ("b", "bastoni"), ("s", "spade")):
        suits.append({"name": name, "cards": " ".join(f"{r}{suit}" for r in range(1, 11))})
    return render(
        request,
        "web/cards.html",
        {
            "suits": suits,
            "examples": [(c, card_label(c)) for c in ("7d", "10d", "1s", "8c", "9b")],
        },
    )


def api_docs(request: HttpRequest) -> HttpResponse:
    spec = openapi()
    ops = []
    for url, item in spec["paths"].items():
        if not url.startswith("/api/"):
            continue  # the pages: described in the document, not listed here
        for method, op in item.items():
            ops.append(
                {
                    "method": method.upper(),
                    "path": url,
                    "summary": op["summary"],
                    "auth": "security" in op,
                }
            )
    return render(request, "web/api_docs.html", {"ops": ops})


# ---------------------------------------------------------------------------------------------
# Accounts


def _bad_username(response: HttpResponse) -> HttpResponse:
    """A login page that refused a malformed user name says so with a 400 (a wrong password
    stays a 200, as Django answers it)."""
    form = (getattr(response, "context_data", None) or {}).get("form")
    errors = form.errors.as_data().get("username", []) if form is not None else []
    if any(error.code == "bad_text" for error in errors):
        response.status_code = 400
    return response


class LoginView(auth_views.LoginView):
    """``/accounts/login/``: Django's login with :class:`LoginForm` (django-axes counts its
    failures)."""

    authentication_form = LoginForm

    def form_invalid(self, form: Any) -> HttpResponse:
        return _bad_username(super().form_invalid(form))


def admin_login(request: HttpRequest) -> HttpResponse:
    """``/admin/login/``: the admin's own login (with :class:`AdminLoginForm`), a 400 for a
    malformed user name."""
    from django.contrib import admin

    return _bad_username(admin.site.login(request))


def _signups(request: HttpRequest, count: bool = False) -> int:
    """Accounts made from the request's client address in this hour (django-ratelimit's
    counter in the shared ``limits`` cache); ``count``: one more was just made."""
    from django.conf import settings
    from django_ratelimit.core import get_usage

    usage = get_usage(
        request,
        group="signup",
        key=lambda _group, req: client_ip(req) or "-",
        rate=f"{settings.ARENA_SIGNUPS_PER_HOUR}/h",
        method="POST",
        increment=count,
    )
    return int(usage["count"]) if usage else 0


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    from django.conf import settings

    if request.user.is_authenticated:
        return redirect("account")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        most = settings.ARENA_SIGNUPS_PER_HOUR
        if _signups(request) >= most:
            form.add_error(
                None,
                f"{most} accounts were made from your address this hour, the "
                "most allowed: try again later",
            )
            return render(request, "registration/signup.html", {"form": form}, status=429)
        if form.is_valid():
            user = form.save()
            _signups(request, count=True)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.get_username()}! Submit your first bot.")
            return redirect("bot-new")
    return render(
        request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
@require_http_methods(["GET", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    new_key = None
    token_error = ""
    user_id = int(request.user.pk or 0)  # login_required: always a real user here
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create":
            form = TokenForm(request.POST)
            if form.is_valid():
                _, new_key = ApiToken.issue(request.user, form.cleaned_data["name"] or "token")
            else:
                token_error = "Token name: " + " ".join(str(e) for e in form.errors["name"])
        elif action == "revoke":
            token_id = request.POST.get("token", "")
            # An id too long for its column names no token (and never reaches a query).
            known = token_id.isascii() and token_id.isdigit() and len(token_id) <= 18
            deleted, _ = ApiToken.objects.filter(
                user_id=user_id, pk=int(token_id) if known else -1
            ).delete()
            if deleted:
                messages.success(request, "Token revoked.")
            else:
                messages.error(request, "No such token of yours.")
            return HttpResponseRedirect(reverse("account"))
    context: dict[str, Any] = {
        "tokens": ApiToken.objects.filter(user_id=user_id),
        "new_key": new_key,
        "token_error": token_error,
        "my_bots": Bot.objects.filter(owner_id=user_id).order_by("name"),
    }
    return render(request, "web/account.html", context, status=400 if token_error else 200)
