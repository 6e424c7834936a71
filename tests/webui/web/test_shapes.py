"""The reads' shapes and the API's schemas are one description (:mod:`webui.web.shapes`).

The schemas of the read shapes are generated from the typed dicts the reads return; here every
JSON answer of the API's reads, on a played season, is validated against the schema the OpenAPI
document gives for it (by jsonschema, with each shape's required keys), so that a read and its
description cannot drift apart.
"""

# No ``from __future__ import annotations``: Python 3.11 reads NotRequired only in annotations
# it evaluates (as in webui.web.shapes).
from typing import Any, Literal, NotRequired, TypedDict

import pytest

from webui.web.schema import schema_of


class _Inner(TypedDict):
    n: int


class _Outer(TypedDict):
    name: str
    score: float | None
    inner: _Inner
    many: list[_Inner]
    kind: Literal["a", "b"]
    extra: NotRequired[dict[str, Any]]
    anything: Any


def test_a_typed_dict_becomes_an_object_with_its_required_keys() -> None:
    schema = schema_of(_Outer)
    assert schema["type"] == "object"
    assert schema["required"] == ["anything", "inner", "kind", "many", "name", "score"]
    props = schema["properties"]
    assert props["name"] == {"type": "string"}
    assert props["score"] == {"anyOf": [{"type": "number"}, {"type": "null"}]}
    assert props["inner"] == {
        "type": "object",
        "properties": {"n": {"type": "integer"}},
        "required": ["n"],
    }
    assert props["many"]["type"] == "array"
    assert props["kind"] == {"enum": ["a", "b"]}
    assert props["extra"] == {"type": "object"}
    assert props["anything"] == {}


def test_a_named_shape_inside_another_is_a_reference() -> None:
    schema = schema_of(_Outer, {"Inner": _Inner, "Outer": _Outer})
    assert schema["properties"]["inner"] == {"$ref": "#/components/schemas/Inner"}
    assert schema["properties"]["many"]["items"] == {"$ref": "#/components/schemas/Inner"}
    # A shape is never a reference to itself.
    assert schema_of(_Inner, {"Inner": _Inner})["type"] == "object"


def test_a_type_with_no_schema_is_refused() -> None:
    with pytest.raises(TypeError, match="no JSON Schema"):
        schema_of(set[int])


def test_every_shape_of_the_document_is_a_component() -> None:
    from webui.web import shapes
    from webui.web.openapi import openapi

    components = openapi()["components"]["schemas"]
    for name in shapes.NAMED:
        assert components[name]["type"] == "object"
        assert components[name].get("required"), name


@pytest.mark.django_db
def test_every_read_of_the_api_answers_as_its_schema_says(
    client: Any, played_season: Any, users: dict[str, Any]
) -> None:
    import jsonschema

    from webui.league.models import Bot, Game, Match
    from webui.web.openapi import openapi

    doc = openapi()
    values = {
        "name": "greedy",
        "number": "1",
        "slug": "scopa",
        "season_id": str(played_season.pk),
        "match_id": str(Match.objects.filter(season=played_season).order_by("pk")[0].pk),
        "game_id": str(Game.objects.order_by("pk")[0].pk),
    }
    assert Bot.objects.filter(name="greedy").exists()
    client.force_login(users["staff"])
    checked = []
    for path, item in doc["paths"].items():
        op = item.get("get")
        if not path.startswith("/api/") or op is None:
            continue
        content = op["responses"]["200"]["content"]
        if "application/json" not in content:
            continue
        url = path
        for name, value in values.items():
            url = url.replace("{" + name + "}", value)
        if "{" in url:  # a parameter this season does not name
            continue
        response = client.get(url)
        if response.status_code != 200:  # e.g. a version's frames the season has none of
            assert response.status_code in (404, 410), (url, response.status_code)
            continue
        schema = {**content["application/json"]["schema"], "components": doc["components"]}
        try:
            jsonschema.validate(response.json(), schema)
        except jsonschema.ValidationError as error:
            raise AssertionError(f"{url}: {error.message} at {list(error.absolute_path)}") from None
        checked.append(path)
    # The reads of every kind were answered and checked.
    for wanted in (
        "/api/variants",
        "/api/bots",
        "/api/bots/{name}",
        "/api/seasons",
        "/api/seasons/{season_id}",
        "/api/matches/{match_id}",
        "/api/games/{game_id}",
    ):
        assert any(p.rstrip("/") == wanted for p in checked), (wanted, checked)
