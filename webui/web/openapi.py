"""The API in one place: every module's route table joined, the URL patterns and the OpenAPI
document built from them, so nothing is served undescribed.

The tables: :data:`webui.web.api.ROUTES` (variants, bots, versions, seasons, matches, games,
replays), :data:`webui.web.export_api.ROUTES` (the games as a data set) and
:data:`webui.web.ladder_api.ROUTES` (the ladder, challenges), with their schemas;
the pages and forms (:data:`webui.web.pages.PAGES`) are described beside them.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import URLPattern

from . import api, export_api, ladder_api, routes
from .pages import PAGES, operations
from .routes import Route
from .schema import I, S, obj, openapi_path, ref


def get_openapi(request: HttpRequest) -> Any:
    return openapi()


ROUTES: list[Route] = [
    Route(
        "openapi.json",
        "openapi",
        {"GET": get_openapi},
        "This description (OpenAPI 3.1).",
        {"GET": "OpenAPI"},
    ),
    *api.ROUTES,
    *export_api.ROUTES,
    *ladder_api.ROUTES,
]
"""Every route of the API, in the order of the document."""

SCHEMAS: dict[str, dict[str, Any]] = {
    "Error": obj({"error": S}, ["error"]),  # every refusal: a route's and a page's
    "OpenAPI": obj({"openapi": S, "paths": {"type": "object"}}),
    **api.SCHEMAS,
    **export_api.SCHEMAS,
    **ladder_api.SCHEMAS,
}


MEDIA = {"GameExport": "application/gzip", "GameLogsText": "text/plain"}
"""The answers that are not JSON: their media type, by schema."""


def urlpatterns() -> list[URLPattern]:
    """The API's URL patterns (mounted under ``api/``)."""
    return routes.urlpatterns(ROUTES)


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 description of every route the site answers: the API's
    (:data:`ROUTES`) and the pages and forms (:data:`webui.web.pages.PAGES`, tag ``page``)."""
    paths: dict[str, Any] = {}
    for route in ROUTES:
        url, params = openapi_path(route.path)
        item: dict[str, Any] = {}
        for method in route.methods:
            op: dict[str, Any] = {
                "operationId": f"{method.lower()}_{route.name.replace('-', '_')}",
                "summary": route.summary,
                "tags": ["write" if method in route.auth else "read"],
                "responses": {
                    "200" if method == "GET" else "201" if route.tag == "create" else "200": {
                        "description": "success",
                        "content": {
                            MEDIA.get(route.responses.get(method, ""), "application/json"): {
                                "schema": ref(route.responses.get(method, "Error"))
                            }
                        },
                    },
                    "400": {
                        "description": "bad input",
                        "content": {"application/json": {"schema": ref("Error")}},
                    },
                    "404": {
                        "description": "not found",
                        "content": {"application/json": {"schema": ref("Error")}},
                    },
                },
            }
            query = (
                [
                    {
                        "name": name,
                        "in": "query",
                        "required": False,
                        "description": about,
                        "schema": I if name in {"limit", "page", "after"} else S,
                    }
                    for name, about in route.params.items()
                ]
                if method == "GET"
                else []
            )
            if params or query:
                op["parameters"] = params + query
            if method in route.request:
                schema_name = route.request[method]
                if schema_name == "Archive":
                    op["requestBody"] = {
                        "required": True,
                        "content": {
                            "multipart/form-data": {
                                "schema": obj({"archive": ref("Archive")}, ["archive"])
                            },
                            "application/zip": {"schema": ref("Archive")},
                            "application/gzip": {"schema": ref("Archive")},
                        },
                    }
                else:
                    op["requestBody"] = {
                        "required": True,
                        "content": {"application/json": {"schema": ref(schema_name)}},
                    }
            if method in route.auth:
                op["security"] = [{"token": []}]
                op["responses"]["401"] = {"description": "no valid token"}
                op["responses"]["403"] = {"description": "not allowed for this user"}
            item[method.lower()] = op
        paths[url] = item
    for page in PAGES:
        url, params = openapi_path(page.path, "/")
        paths[url] = operations(page, params)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Scopa Arena API",
            "version": "1",
            "description": "Bots, seasons, ratings and replays of Scopa Arena. Reads are "
            "public; writes need 'Authorization: Bearer <token>' from the "
            "account page. The site's pages and forms (tag 'page') are "
            "described too: forms need the session cookie and Django's CSRF "
            "token.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": {**SCHEMAS, **api.season_schemas()},
            "securitySchemes": {
                "token": {"type": "http", "scheme": "bearer"},
                "session": {"type": "apiKey", "in": "cookie", "name": "sessionid"},
            },
        },
    }
