"""The site's error answers: JSON under ``/api/``, the usual pages elsewhere.

Django answers a URL no route matches, a refused host header and an unexpected exception with
its own HTML pages; an API client gets ``{"error": "..."}`` with the same status instead.
Installed as ``handler400``, ``handler403``, ``handler404`` and ``handler500`` in
:mod:`webui.urls`.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults


def is_api(request: HttpRequest) -> bool:
    """Whether the request is for the JSON API."""
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"error": "bad request"}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if is_api(request):
        reason = str(exception) if exception and str(exception) else "not allowed"
        return JsonResponse({"error": reason}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Any = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse(
            {"error": f"nothing at {request.path} (the routes are listed at /api/openapi.json)"},
            status=404,
        )
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return JsonResponse(
            {
                "error": "the server failed to answer this request; it is "
                "logged, and nothing was changed"
            },
            status=500,
        )
    return defaults.server_error(request)
