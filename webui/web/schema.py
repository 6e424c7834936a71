"""JSON Schema in a few words, for the OpenAPI document: the API's routes
(:mod:`webui.web.api`, :mod:`webui.web.ladder_api`) and the pages (:mod:`webui.web.pages`)
describe their bodies and answers with these; :mod:`webui.web.openapi` joins them."""

from __future__ import annotations

import re
from typing import Any


def obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """An object with these properties (and these required)."""
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out


S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741
N = {"type": "number"}
B = {"type": "boolean"}
ANY: dict[str, Any] = {}


def ref(name: str) -> dict[str, str]:
    """The schema of that name in the document's components."""
    return {"$ref": f"#/components/schemas/{name}"}


def array(item: dict[str, Any]) -> dict[str, Any]:
    """An array of ``item``."""
    return {"type": "array", "items": item}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


PATH_SCHEMAS: dict[str, dict[str, Any]] = {
    "id": {"type": "integer", "minimum": 0, "maximum": 10**18 - 1},
    "num": {"type": "integer", "minimum": 0, "maximum": 10**9 - 1},
    "int": {"type": "integer", "minimum": 0},
    "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
}
"""What each path converter matches (anything else is no route: a 404)."""


def openapi_path(django_path: str, prefix: str = "/api/") -> tuple[str, list[dict[str, Any]]]:
    """A Django path as an OpenAPI path (``{name}``), with its path parameters' schemas."""
    params = []
    out = prefix + django_path

    def repl(m: re.Match[str]) -> str:
        kind, name = m.group(1), m.group(2)
        params.append(
            {
                "name": name,
                "in": "path",
                "required": True,
                "schema": dict(PATH_SCHEMAS.get(kind, {"type": "string"})),
            }
        )
        return "{" + name + "}"

    out = re.sub(r"<(\w+):(\w+)>", repl, out)
    return out, params
