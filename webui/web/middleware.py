"""The site's edge: every query string and form field of every route is checked before a view.

:class:`InputCheckMiddleware` refuses a request whose query parameters (names and values) or
form fields hold what no database text can (a NUL, a lone surrogate:
:mod:`webui.league.inputs`), and control characters in query parameters, which on this site
are all names, numbers or choices. The answer is a 400 naming the parameter or field: JSON
under ``/api/``, a page elsewhere. Nothing is read from or written to the database first.

JSON bodies are checked where they are parsed (:func:`webui.web.api_input.json_body`), uploads
by the archive checks; lengths by the views, against their columns.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render

from webui.league import inputs

from .errors import is_api

FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def refusal(query: QueryDict, kind: str, *, names: bool) -> str | None:
    """Why a query string or form is refused (one line), or None."""
    for key, values in query.lists():
        problem = inputs.bad_character(key, name=True)
        if problem:
            return f"a {kind} name holds {problem}"
        for value in values:
            problem = inputs.bad_character(value, name=names)
            if problem:
                return f"{kind} {key!r} holds {problem}"
    return None


class InputCheckMiddleware:
    """Refuses bad characters in query strings and form fields (see the module)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        problem = refusal(request.GET, "query parameter", names=True)
        if (
            problem is None
            and request.method == "POST"
            and not is_api(request)
            and (request.content_type in FORM_TYPES)
        ):
            # The API reads JSON or an archive, never form fields; it checks them itself.
            problem = refusal(request.POST, "form field", names=False)
        if problem is None:
            return self.get_response(request)
        if is_api(request):
            return JsonResponse({"error": problem}, status=400)
        return render(request, "web/bad_request.html", {"message": problem}, status=400)
