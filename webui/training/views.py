"""The pages of version tests: a bot's tests with the form that starts one, a test with its
LLR chart, and the one-click promotion (forms: the session and Django's CSRF token).

The bot's owner and staff see them; only the owner starts, stops and promotes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from webui.league.models import Bot, BotVersion, LadderEntry
from webui.web.charts import llr_chart

from . import sprt_tests
from .models import SprtTest

FLOATS = ("elo0", "elo1", "alpha", "beta")


def _visible_bot(request: HttpRequest, name: str) -> tuple[Bot, bool]:
    bot = get_object_or_404(Bot.objects.select_related("owner"), name=name)
    is_owner = request.user.pk == bot.owner_id
    return bot, is_owner


def _forbidden(request: HttpRequest, bot: Bot) -> HttpResponse:
    return render(request, "training/forbidden.html", {"bot": bot}, status=403)


def _form_values(post: Any) -> tuple[dict[str, Any], str | None]:
    """The form's numbers, checked (the error names the field)."""
    values: dict[str, Any] = {}
    raw_version = (post.get("version") or "").strip()
    if not raw_version.isdigit() or len(raw_version) > 9:
        return values, f"version: {raw_version[:40]!r} is not a version number"
    values["number"] = int(raw_version)
    for name in FLOATS:
        raw = (post.get(name) or "").strip()
        if raw:
            try:
                values[name] = float(raw)
            except ValueError:
                return values, f"{name}: {raw[:40]!r} is not a number"
    raw_max = (post.get("max_pairs") or "").strip()
    if raw_max:
        if not raw_max.isdigit() or len(raw_max) > 9:
            return values, f"max_pairs: {raw_max[:40]!r} is not a whole number"
        values["max_pairs"] = int(raw_max)
    return values, None


@login_required
@require_http_methods(["GET", "POST"])
def bot_tests(request: HttpRequest, name: str) -> HttpResponse:
    bot, is_owner = _visible_bot(request, name)
    if not (is_owner or request.user.is_staff):
        return _forbidden(request, bot)
    status = 200
    if request.method == "POST":
        if not is_owner:
            return _forbidden(request, bot)
        values, error = _form_values(request.POST)
        if error is None:
            number = values.pop("number")
            try:
                test = sprt_tests.create_test(request.user, bot, number, **values)
            except sprt_tests.TestError as refused:
                error, status = f"{refused.field}: {refused.message}", refused.status
            else:
                messages.success(request, "Test started: pairs are played as workers are free.")
                return redirect("sprt-test", name=bot.name, test_id=test.pk)
        else:
            status = 400
        messages.error(request, error)
    entry = LadderEntry.objects.filter(bot=bot).select_related("version").first()
    # Newest first: the candidate (newest ready, newer than the ladder version) comes first.
    candidates = [
        {
            "number": v.number,
            "label": v.label,
            "same_code": entry is not None and sprt_tests.is_same_code(v, entry.version),
        }
        for v in bot.versions.filter(status=BotVersion.Status.READY).order_by("-number")
        if entry is None or v.pk != entry.version_id
    ]
    chosen = request.POST.get("version", "") if request.method == "POST" else ""
    tests = [
        sprt_tests.summary(t)
        for t in SprtTest.objects.filter(bot=bot).select_related(
            "bot", "new_version__bot", "old_version__bot", "variant"
        )[:50]
    ]
    return render(
        request,
        "training/tests.html",
        {
            "bot": bot,
            "is_owner": is_owner,
            "entry": entry,
            "candidates": candidates,
            "chosen": chosen,
            "tests": tests,
            "max_pairs": sprt_tests.max_pairs_per_test(),
            "default_max_pairs": sprt_tests.DEFAULT_MAX_PAIRS,
            "limits": {
                "per_user": settings.ARENA_SPRT_TESTS_PER_USER,
                "per_bot": settings.ARENA_SPRT_TESTS_PER_BOT,
                "pairs_per_user": settings.ARENA_SPRT_PAIRS_PER_USER,
            },
        },
        status=status,
    )


def _test(name: str, test_id: int) -> SprtTest:
    return get_object_or_404(
        SprtTest.objects.select_related("bot", "new_version__bot", "old_version__bot", "variant"),
        pk=test_id,
        bot__name=name,
    )


@login_required
@require_http_methods(["GET"])
def test_page(request: HttpRequest, name: str, test_id: int) -> HttpResponse:
    test = _test(name, test_id)
    is_owner = request.user.pk == test.bot.owner_id
    if not (is_owner or request.user.is_staff):
        return _forbidden(request, test.bot)
    data = sprt_tests.summary(test)
    return render(
        request,
        "training/test.html",
        {
            "bot": test.bot,
            "test": data,
            "is_owner": is_owner,
            "chart": llr_chart(data["history"], data["lower"], data["upper"]),
            "running": test.status == SprtTest.Status.RUNNING,
            "can_promote": is_owner and test.status == SprtTest.Status.H1 and not test.promoted,
        },
    )


@login_required
@require_POST
def promote(request: HttpRequest, name: str, test_id: int) -> HttpResponse:
    test = _test(name, test_id)
    try:
        sprt_tests.promote(request.user, test)
    except sprt_tests.TestError as refused:
        if refused.status == 403:
            return _forbidden(request, test.bot)
        messages.error(request, refused.message)
        return redirect("sprt-test", name=test.bot.name, test_id=test.pk)
    messages.success(request, f"{test.new_version.label} is the ladder version now.")
    return redirect("sprt-test", name=test.bot.name, test_id=test.pk)


@login_required
@require_POST
def stop(request: HttpRequest, name: str, test_id: int) -> HttpResponse:
    test = _test(name, test_id)
    try:
        sprt_tests.stop_test(request.user, test)
    except sprt_tests.TestError:
        return _forbidden(request, test.bot)
    return redirect("sprt-test", name=test.bot.name, test_id=test.pk)
