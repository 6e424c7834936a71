"""What a bot author takes from the site without a checkout: the SDK's wheel under ``/sdk/``
and the data set page (``/data/``), the games export's download command for this site.

The wheel is built (:func:`arena.sdk.wheel.build_wheel`) on the first request that needs it
and kept in ``ARENA_DATA_DIR/sdk/``; a changed library has a new file name, so a kept wheel
is never stale. The data set page only shows commands and links: the download itself is
``/api/games/export`` (:mod:`export_api`) or ``arena games download``.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.cache import cache_control

from arena.sdk.wheel import build_wheel
from webui.league.models import Bot, Variant


def bad_request(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "web/bad_request.html", {"message": message}, status=400)


def sdk_folder() -> Path:
    return Path(settings.DATA_DIR) / "sdk"


_built: list[Path] = []  # this process's wheel, once built (the library does not change under it)


def sdk_wheel() -> Path:
    """The SDK's wheel for the library this site runs, built the first time it is asked."""
    if not _built or not _built[0].is_file():
        _built[:] = [build_wheel(sdk_folder())]
    return _built[0]


def site_url(request: HttpRequest) -> str:
    """This site's address as its visitor reached it, without a trailing slash."""
    return request.build_absolute_uri("/").rstrip("/")


def wheel_url(request: HttpRequest) -> str:
    """The address of the SDK's wheel on this site."""
    return request.build_absolute_uri(reverse("sdk-file", args=[sdk_wheel().name]))


def index(request: HttpRequest) -> HttpResponse:
    """``/sdk/``: the wheel, its install command; pip's ``--find-links`` reads it too."""
    wheel = sdk_wheel()
    return render(
        request,
        "web/sdk.html",
        {"wheel": wheel.name, "size": wheel.stat().st_size, "url": wheel_url(request)},
    )


@cache_control(max_age=3600)
def wheel_file(request: HttpRequest, filename: str) -> FileResponse:
    """``/sdk/<file>``: the wheel itself (only the current one: its name holds its hash)."""
    wheel = sdk_wheel()
    if filename != wheel.name:
        raise Http404(f"no file {filename!r} in /sdk/ (the SDK's wheel is {wheel.name})")
    return FileResponse(
        wheel.open("rb"),
        as_attachment=True,
        filename=wheel.name,
        content_type="application/zip",
    )


def dataset(request: HttpRequest) -> HttpResponse:
    """``/data/``: the games as a data set: the download command for this site, optionally
    for one bot or variant, and the link to the export's first page."""
    bot = request.GET.get("bot", "").strip()
    variant = request.GET.get("variant", "").strip()
    if bot and not Bot.objects.filter(name=bot).exists():
        return bad_request(request, f"bot {bot!r}: no bot of that name")
    played = list(Variant.objects.order_by("slug").values_list("slug", flat=True))
    if variant and variant not in played:
        return bad_request(
            request, f"variant {variant!r}: one of {', '.join(played) or 'none yet'}"
        )
    server = site_url(request)
    filters: list[tuple[str, str]] = []
    if variant:
        filters.append(("variant", variant))
    if bot:
        filters.append(("bot", bot))
    output = f"{bot or variant or 'games'}.jsonl.gz"
    command = shlex.join(
        ["arena", "games", "download", server]
        + [part for key, value in filters for part in (f"--{key}", value)]
        + ["-o", output]
    )
    return render(
        request,
        "web/dataset.html",
        {
            "server": server,
            "bot": bot,
            "variant": variant,
            "variants": played,
            "command": command,
            "output": output,
            "first_page": reverse("api-games-export")
            + ("?" + urlencode(filters) if filters else ""),
        },
    )
