"""JSON Schema in a few words, for the OpenAPI document: the API's routes
(:mod:`webui.web.api`, :mod:`webui.web.ladder_api`) and the pages (:mod:`webui.web.pages`)
describe their bodies and answers with these; :mod:`webui.web.openapi` joins them."""

from __future__ import annotations

import re
from types import UnionType
from typing import (
    Any,
    Literal,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)


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


def schema_of(shape: Any, named: dict[str, type] | None = None) -> dict[str, Any]:
    """The JSON Schema of a type of :mod:`webui.web.shapes`: a typed dict is an object whose
    required properties are its required keys; ``X | None`` is nullable; lists are arrays;
    ``dict[str, X]`` an object; ``Literal`` an enum; ``Any`` any value. A typed dict among
    ``named``'s values (other than ``shape`` itself) is a reference to its component."""
    refs = {t: name for name, t in (named or {}).items()}
    return _schema(shape, refs, top=shape)


def _schema(tp: Any, refs: dict[Any, str], top: Any) -> dict[str, Any]:
    if tp is not top and tp in refs:
        return ref(refs[tp])
    if is_typeddict(tp):
        hints = get_type_hints(tp)
        out = obj({key: _schema(hint, refs, top) for key, hint in hints.items()})
        required = sorted(tp.__required_keys__)
        if required:
            out["required"] = required
        return out
    if tp is Any:
        return dict(ANY)
    simple = {str: S, int: I, float: N, bool: B, type(None): {"type": "null"}}
    if tp in simple:
        return dict(simple[tp])
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, UnionType):
        members = [a for a in args if a is not type(None)]
        inner = (
            _schema(members[0], refs, top)
            if len(members) == 1
            else {"anyOf": [_schema(a, refs, top) for a in members]}
        )
        return nullable(inner) if len(members) < len(args) else inner
    if origin is list:
        return array(_schema(args[0], refs, top))
    if origin is dict:
        return {"type": "object"}
    if origin is Literal:
        return {"enum": list(args)}
    raise TypeError(f"no JSON Schema for {tp!r}")
