"""Whole pages for readers without a session, drawn once per version of what they show.

A reader with no cookie but the CSRF one sees the same page as every other such reader: the
page's HTML is kept in the shared ``reads`` cache (:mod:`read_cache`) under the request's path
and the versions of the scopes the page shows (:mod:`webui.league.read_models`), so a crowd of
readers costs one version query and one cache read each, and the first reader after a write
draws the page again (single-flight). A page is kept only when it is a plain 200 that set no
cookie and used no CSRF token; a reader with a session (logged in, or carrying messages) always
gets the page drawn for them. Only the query parameters a page names are kept apart; a request
with any other is drawn and not kept, so made-up URLs cannot fill the cache.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Collection
from typing import Any, TypedDict

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers

from .read_cache import cached

View = Callable[..., HttpResponseBase]
Scopes = Callable[..., "tuple[str, list[str]] | None"]
"""What a page shows: ``(a name for its key, the scopes it shows)``, or None: draw it."""


class _Page(TypedDict):
    content: bytes
    headers: list[tuple[str, str]]


_NOT_KEPT = {"set-cookie", "vary", "content-length"}
"""Headers a kept page does not carry over (the others, an ETag, a Content-Disposition, the
view's Cache-Control, go with it)."""


def shareable_request(request: HttpRequest) -> bool:
    """A GET from a reader with no session, no messages, nothing but the CSRF cookie, and
    no API token."""
    return (
        request.method == "GET"
        and set(request.COOKIES) <= {settings.CSRF_COOKIE_NAME}
        and "Authorization" not in request.headers
    )


def _shareable_response(request: HttpRequest, response: HttpResponseBase) -> bool:
    return (
        isinstance(response, HttpResponse)
        and response.status_code == 200
        and not response.cookies
        and not request.META.get("CSRF_COOKIE_NEEDS_UPDATE")
        and "no-store" not in response.get("Cache-Control", "")
        and "private" not in response.get("Cache-Control", "")
    )


def shared_page(scopes: Scopes, params: Collection[str] = ()) -> Callable[[View], View]:
    """Serves the view's page to readers without a session from the shared cache, keyed by
    its path, the query parameters in ``params`` and the versions of ``scopes(request,
    **kwargs)``."""

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not shareable_request(request) or not set(request.GET) <= set(params):
                return view(request, *args, **kwargs)
            found = scopes(request, *args, **kwargs)
            if found is None:
                return view(request, *args, **kwargs)
            name, page_scopes = found
            drawn: list[HttpResponseBase] = []

            def draw() -> _Page | None:
                response = view(request, *args, **kwargs)
                drawn.append(response)
                if not isinstance(response, HttpResponse) or not _shareable_response(
                    request, response
                ):
                    return None
                return {
                    "content": response.content,
                    "headers": [
                        (name, value)
                        for name, value in response.items()
                        if name.lower() not in _NOT_KEPT
                    ],
                }

            query = request.GET.urlencode()
            key = hashlib.sha256(f"{request.path}?{query}".encode()).hexdigest()[:32]
            page = cached(f"page2:{name}:{key}", page_scopes, draw)  # 2: with headers
            if drawn:  # drawn here: this reader's own response, whatever was kept
                return drawn[0]
            if page is None:  # kept as not shareable
                return view(request, *args, **kwargs)
            response = HttpResponse(page["content"])
            for name, value in page["headers"]:
                response[name] = value
            patch_vary_headers(response, ("Cookie",))
            return response

        return wrapper

    return decorate
