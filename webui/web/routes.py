"""The API's routes: what a route is, who is asking, and how a route answers.

A :class:`Route` declares a path, its handlers per method and its description; each API module
(:mod:`webui.web.api`, :mod:`webui.web.ladder_api`) keeps a table of them, and
:mod:`webui.web.openapi` joins the tables into the URL patterns and the OpenAPI document.
:func:`dispatch` turns a route into a view: JSON answers, ``{"error": "one line"}`` with a 4xx
for bad input (:class:`~webui.web.api_input.ApiError`) and for what the league refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import wraps
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, JsonResponse
from django.http.response import HttpResponseBase
from django.urls import URLPattern, path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from webui.league import errors

from .api_input import ApiError, check_query
from .models import ApiToken, hash_token
from .page_cache import Scopes, shared_page
from .submission import SubmissionError


def request_user(request: HttpRequest) -> Any:
    """The user of a bearer token, else the session's user (for reads)."""
    header = request.headers.get("Authorization", "")
    scheme, _, key = header.partition(" ")
    if scheme.lower() in {"bearer", "token"} and key.strip():
        token = (
            ApiToken.objects.select_related("user").filter(key_hash=hash_token(key.strip())).first()
        )
        if token is None or not token.user.is_active:
            raise ApiError(401, "the API token is not valid")
        ApiToken.objects.filter(pk=token.pk).update(last_used=timezone.now())
        return token.user
    if header:
        raise ApiError(401, "use 'Authorization: Bearer <token>'")
    return getattr(request, "user", AnonymousUser())


def token_user(request: HttpRequest) -> Any:
    """The user of the request's bearer token; writes accept nothing else."""
    if not request.headers.get("Authorization"):
        raise ApiError(401, "this needs an API token: 'Authorization: Bearer <token>'")
    return request_user(request)


Handler = Callable[..., Any]


@dataclass(frozen=True)
class Route:
    """One API route: its path (Django syntax), handlers per method and its description."""

    path: str
    name: str
    methods: dict[str, Handler]
    summary: str
    responses: dict[str, str] = dataclass_field(default_factory=dict)  # method -> schema
    request: dict[str, str] = dataclass_field(default_factory=dict)  # method -> schema
    auth: frozenset[str] = frozenset()  # methods that need a token
    tag: str = "read"
    params: dict[str, str] = dataclass_field(default_factory=dict)  # query parameter -> text
    # What its GET shows (webui.web.shared_reads): then the answers to readers without a
    # session or token are kept under those scopes' versions (webui.web.page_cache).
    shared: Scopes | None = None


def dispatch(route: Route) -> Callable[..., HttpResponseBase]:
    """The view of ``route``: its method's handler, answered as JSON."""

    @csrf_exempt
    @wraps(next(iter(route.methods.values())))
    def view(request: HttpRequest, **kwargs: Any) -> HttpResponseBase:
        handler = route.methods.get(request.method or "GET")
        if handler is None:
            response = JsonResponse(
                {"error": f"method {request.method} is not allowed here"}, status=405
            )
            response["Allow"] = ", ".join(route.methods)
            return response
        try:
            check_query(request.GET, route.params)
            result = handler(request, **kwargs)
        except ApiError as exc:
            return JsonResponse({"error": exc.message}, status=exc.status)
        except Http404:
            return JsonResponse({"error": f"nothing at {request.path}"}, status=404)
        except RequestDataTooBig:
            return JsonResponse({"error": "the request body is too large"}, status=413)
        except (SubmissionError, errors.LeagueError) as exc:
            return JsonResponse({"error": str(exc)}, status=400)
        if isinstance(result, HttpResponseBase):  # streamed answers too
            return result
        status = 201 if request.method == "POST" and route.tag == "create" else 200
        return JsonResponse(
            result, status=status, safe=False, json_dumps_params={"ensure_ascii": False}
        )

    if route.shared is not None:
        return shared_page(route.shared, params=route.params)(view)
    return view


def urlpatterns(routes: list[Route]) -> list[URLPattern]:
    """The URL patterns of ``routes`` (mounted under ``api/``)."""
    return [path(r.path, dispatch(r), name="api-" + r.name) for r in routes]
