"""The pages of the continuous ladder and of challenges.

``/ladder/`` (every ladder), ``/ladder/<variant>/`` (its leaderboard, who plays, what is queued,
the challenge form), ``/bots/<name>/ladder/`` (the owner chooses the active version, pauses or
retires the bot, and sees why a version was refused), ``/bots/<name>/promote/`` (the bot page's
button: the owner makes the candidate the ladder version), ``/challenges/new/`` and
``/challenges/<id>/`` (score, Elo +- error and LOS). Pages never play: they write through
:mod:`webui.league.ladder` and :mod:`webui.league.challenges`, which enqueue after commit.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from webui.league import challenges, ladder
from webui.league.models import Bot, LadderEntry, Match

from . import reads, shared_reads
from .ladder_api import entry_json, ladder_json
from .page_cache import shared_page


def _challenge_context(request: HttpRequest) -> dict[str, Any]:
    """What the challenge form offers: the user's bots, the bots to challenge, the variants."""
    from arena.engine import VARIANTS

    retired = set(
        LadderEntry.objects.filter(status=LadderEntry.Status.RETIRED).values_list(
            "bot_id", flat=True
        )
    )
    ready = [
        b
        for b in Bot.objects.filter(versions__status="ready").distinct().order_by("name")
        if b.pk not in retired
    ]
    user_id = request.user.pk if request.user.is_authenticated else None
    # The form offers only what it would accept: your validated bots against another
    # author's, so its defaults make a challenge that is not refused.
    mine = [b.name for b in ready if b.owner_id == user_id]
    targets = [b.name for b in ready if b.owner_id != user_id]
    ladders = [v.slug for v in ladder.ladder_variants()]
    two_sided = [name for name, rules in VARIANTS.items() if rules.num_sides == 2]
    return {
        "my_bots": mine,
        "targets": targets,
        "max_deals": challenges.MAX_DEALS,
        "ladder_variants": ladders,
        "variant_choices": ladders + [v for v in two_sided if v not in ladders],
        "default_deals": challenges.DEFAULT_DEALS,
    }


@shared_page(shared_reads.ladders)
def ladders(request: HttpRequest) -> HttpResponse:
    variants = ladder.ladder_variants()
    return render(
        request,
        "web/ladder.html",
        {
            "ladders": [ladder_json(v) for v in variants],
            "single": False,
            **_challenge_context(request),
        },
    )


@shared_page(shared_reads.ladders)
def ladder_variant(request: HttpRequest, slug: str) -> HttpResponse:
    variant = next((v for v in ladder.ladder_variants() if v.slug == slug), None)
    if variant is None:
        raise Http404(f"{slug!r} has no ladder")
    return render(
        request,
        "web/ladder.html",
        {
            "ladders": [ladder_json(variant)],
            "single": True,
            "recent": reads.recent_open_matches(variant),
            **_challenge_context(request),
        },
    )


@login_required
@require_http_methods(["GET", "POST"])
def bot_ladder(request: HttpRequest, name: str) -> HttpResponse:
    bot = get_object_or_404(Bot, name=name)
    is_owner = request.user.pk == bot.owner_id
    status = 200
    if request.method == "POST":
        if not is_owner:
            messages.error(
                request, f"only the owner of bot {bot.name!r} may change its ladder entry"
            )
            status = 403
        else:
            raw_version = request.POST.get("version") or ""
            action = request.POST.get("status") or None
            try:
                number = int(raw_version) if raw_version else None
            except ValueError:
                messages.error(request, f"version {raw_version!r}: not a version number")
                status = 400
            else:
                try:
                    ladder.choose(request.user, bot, number, action)
                except ladder.LadderError as error:
                    messages.error(request, str(error))
                    status = error.status
                else:
                    messages.success(request, "Ladder entry saved.")
                    return redirect("bot-ladder", name=bot.name)
    return render(
        request,
        "web/bot_ladder.html",
        {
            "bot": bot,
            "is_owner": is_owner,
            "data": entry_json(bot),
            "statuses": LadderEntry.Status.values,
        },
        status=status,
    )


@login_required
@require_POST
def bot_promote(request: HttpRequest, name: str) -> HttpResponse:
    bot = get_object_or_404(Bot, name=name)
    raw = (request.POST.get("version") or "").strip()
    if request.user.pk != bot.owner_id:
        messages.error(request, f"only the owner of bot {bot.name!r} may promote its versions")
        return redirect("bot", name=bot.name)
    if not raw.isdigit() or len(raw) > 9:
        messages.error(request, f"version {raw[:40]!r}: not a version number")
        return redirect("bot", name=bot.name)
    try:
        entry = ladder.promote(request.user, bot, int(raw))
    except ladder.LadderError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"{entry.version.label} is the ladder version now.")
    return redirect("bot", name=bot.name)


@login_required
@require_http_methods(["GET", "POST"])
def challenge_new(request: HttpRequest) -> HttpResponse:
    context = _challenge_context(request)
    values = {
        "bot": request.GET.get("bot", ""),
        "opponent": request.GET.get("opponent", ""),
        "variant": request.GET.get("variant", "scopa"),
        "deals": str(challenges.DEFAULT_DEALS),
        "rated": False,
    }
    error = None
    if request.method == "POST":
        posted = {key: request.POST.get(key, "") for key in ("bot", "opponent", "variant", "deals")}
        values = {**posted, "rated": request.POST.get("rated") == "on"}
        try:
            deals = int(posted["deals"])
        except ValueError:
            error = f"deals: {posted['deals']!r} is not a whole number"
        else:
            try:
                match = challenges.create_challenge(
                    request.user,
                    bot=posted["bot"],
                    opponent=posted["opponent"],
                    variant=posted["variant"] or "scopa",
                    deals=deals,
                    rated=bool(values["rated"]),
                )
            except challenges.ChallengeError as exc:
                error = f"{exc.field}: {exc.message}"
            else:
                messages.success(
                    request, "Challenge queued: it is played before the ladder's matches."
                )
                return redirect("challenge", match_id=match.pk)
    return render(
        request,
        "web/challenge_new.html",
        {**context, "values": values, "error": error},
        status=400 if error else 200,
    )


def challenge(request: HttpRequest, match_id: int) -> HttpResponse:
    match = get_object_or_404(
        Match.objects.select_related("variant", "requested_by"),
        pk=match_id,
        kind=Match.Kind.CHALLENGE,
    )
    detail = challenges.detail(match)
    games = list(match.games.select_related("variant", "match").defer("replay"))
    refs = reads.version_refs([p for g in games for p in (g.players or [])])
    return render(
        request,
        "web/challenge.html",
        {
            "c": detail,
            "games": [reads.game_row(g, refs) for g in games],
            "finished": match.is_finished,
        },
    )
