"""Text the database cannot hold is refused at the edge of every route that takes text: a NUL,
a lone surrogate (in JSON), a control character in a name, and a string longer than its
column each get a 400 naming the field, and change nothing; the same request with good text
is accepted. On PostgreSQL, which (unlike SQLite) refuses NUL bytes and over-long strings.

Every query parameter of every route is checked too (``InputCheckMiddleware``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"

NUL = "a\x00b"
SURROGATE = "a\ud800b"
CONTROL = "a\x1bb"


@dataclass
class Route:
    """A route that takes text: who calls it, how, a good payload, and its text fields with
    the most characters each may hold (None: bounded by other checks only) and whether it is a
    name (no control characters)."""

    name: str
    actor: str | None
    method: str
    url: str | Callable[[dict[str, Any]], str]
    kind: str  # "json" or "form"
    good: dict[str, Any]
    fields: dict[str, tuple[int | None, bool]]
    accepted: set[int] = field(default_factory=lambda: {200, 201, 302})


ROUTES = [
    Route(
        "new bot (API)",
        "other",
        "post",
        "/api/bots",
        "json",
        {"name": "fresh", "description": "mine"},
        {"name": (40, True), "description": (2000, False)},
    ),
    Route(
        "bot description (API)",
        "owner",
        "patch",
        "/api/bots/my-bot",
        "json",
        {"description": "better"},
        {"description": (2000, False)},
    ),
    Route(
        "season (API)",
        "staff",
        "post",
        "/api/seasons",
        "json",
        {
            "name": "Spring",
            "variant": "scopa",
            "entrants": ["random@1", "greedy@1"],
            "format": "round-robin",
        },
        {
            "name": (100, True),
            "variant": (40, True),
            "format": (None, True),
            "entrants.0": (None, True),
            "options.key": (None, True),
        },
    ),
    Route(
        "ladder entry (API)",
        "owner",
        "patch",
        "/api/bots/random/ladder",
        "json",
        {"status": "paused"},
        {"status": (None, True)},
    ),
    Route(
        "challenge (API)",
        "owner",
        "post",
        "/api/challenges",
        "json",
        {"bot": "random", "opponent": "greedy", "variant": "scopa"},
        {"bot": (40, True), "opponent": (40, True), "variant": (500, True)},
    ),
    Route(
        "replay frames (API)",
        None,
        "post",
        "/api/replays/frames",
        "json",
        {},
        {"players.0": (None, False)},
    ),
    Route(
        "play move",
        "other",
        "post",
        lambda w: f"/play/{w['game']}/move",
        "json",
        {"turn": 1, "move": "1d"},
        {"move": (None, False)},
    ),
    Route(
        "signup",
        None,
        "post",
        "/accounts/signup/",
        "form",
        {"username": "newcomer", "password1": "a-long-pass-4821", "password2": "a-long-pass-4821"},
        {"username": (150, True), "password1": (None, False)},
    ),
    Route(
        "log in",
        None,
        "post",
        "/accounts/login/",
        "form",
        {"username": "other", "password": "other-pass-123"},
        {"username": (150, True), "password": (None, False)},
    ),
    Route(
        "admin log in",
        None,
        "post",
        "/admin/login/",
        "form",
        {"username": "staff", "password": "staff-pass-123"},
        {"username": (150, True), "password": (None, False)},
    ),
    Route(
        "new token",
        "other",
        "post",
        "/accounts/",
        "form",
        {"action": "create", "name": "laptop"},
        {"name": (60, True)},
    ),
    Route(
        "new bot (page)",
        "other",
        "post",
        "/bots/new/",
        "form",
        {"name": "fresh", "description": "mine"},
        {"name": (40, True), "description": (2000, False)},
    ),
    Route(
        "bot description (page)",
        "owner",
        "post",
        "/bots/my-bot/edit/",
        "form",
        {"description": "better"},
        {"description": (2000, False)},
    ),
    Route(
        "ladder entry (page)",
        "owner",
        "post",
        "/bots/random/ladder/",
        "form",
        {"status": "paused"},
        {"status": (None, True), "version": (None, True)},
    ),
    Route(
        "challenge (page)",
        "owner",
        "post",
        "/challenges/new/",
        "form",
        {"bot": "random", "opponent": "greedy", "variant": "scopa", "deals": "1"},
        {"bot": (40, True), "opponent": (40, True), "variant": (500, True), "deals": (None, True)},
    ),
    Route(
        "season (page)",
        "staff",
        "post",
        "/seasons/new/",
        "form",
        {
            "name": "Spring",
            "variant": "scopa",
            "entrants": ["{random}", "{greedy}"],
            "format": "auto",
            "games_per_pairing": "2",
            "knockout_size": "0",
            "move_time_ms": "1000",
            "bank_ms": "30000",
        },
        {"name": (100, True), "variant": (None, True)},
    ),
    Route(
        "play (page)",
        "other",
        "post",
        "/play/",
        "form",
        {"variant": "scopa", "bot": "random", "seat": "first"},
        {"variant": (40, True), "bot": (40, True), "seat": (None, True)},
    ),
]


@pytest.fixture
def world(users: dict[str, Any], tokens: dict[str, str], settings: Any) -> dict[str, Any]:
    """The owner's ``random`` and the other user's ``greedy`` (ready, on the ladder), and a
    Play game of the other user's at its first turn."""
    from django.utils import timezone

    from webui.league import ladder, variants, versions
    from webui.play.models import PlayGame

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    random = versions.register_folder_bot(users["owner"], SAMPLES / "random", validate=False)
    greedy = versions.register_folder_bot(users["other"], SAMPLES / "greedy", validate=False)
    for version in (random, greedy):
        ladder.enter_version(version)
    game = PlayGame.objects.create(
        user=users["other"],
        version=greedy,
        variant=variants.get_variant("scopa"),
        move_time_ms=60_000,
        bank_ms=600_000,
        status="playing",
        turn=1,
        awaiting=True,
        legal=["1d"],
        deadline=timezone.now() + timezone.timedelta(minutes=5),
        seen=timezone.now(),
    )
    return {
        "users": users,
        "tokens": tokens,
        "game": game.pk,
        "ids": {"{random}": str(random.pk), "{greedy}": str(greedy.pk)},
    }


def replay_body() -> dict[str, Any]:
    from arena.engine import random_game_replay, rules_for

    return random_game_replay(rules_for("scopa", {"target": 1}), seed=3)


def snapshot() -> dict[str, Any]:
    """Every row the site writes, but the bookkeeping of sessions, tokens' last use and
    logins."""
    from django.apps import apps

    out: dict[str, Any] = {}
    for model in apps.get_models():
        label = model._meta.label
        if label in {"sessions.Session", "admin.LogEntry"} or label.startswith("contenttypes"):
            continue
        rows = []
        for row in model.objects.all().values():
            row.pop("last_used", None)
            row.pop("last_login", None)
            rows.append(json.dumps(row, default=str, sort_keys=True))
        out[label] = sorted(rows)
    return out


def put(payload: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``payload`` with ``value`` at ``path`` (``name``, ``entrants.0``, ``options.key``: a
    key of an object)."""
    out = json.loads(json.dumps(payload))
    head, _, rest = path.partition(".")
    if not rest:
        out[head] = value
    elif rest == "key":
        out[head] = {value: 1}
    else:
        items = list(out.get(head) or [])
        index = int(rest)
        items[index : index + 1] = [value]
        out[head] = items
    return out


def send(client: Any, route: Route, world: dict[str, Any], payload: dict[str, Any]) -> Any:
    from django.test import Client

    url = route.url(world) if callable(route.url) else route.url
    if route.kind == "form":  # the season form names its entrants by id
        payload = {
            k: [world["ids"].get(v, v) for v in value] if isinstance(value, list) else value
            for k, value in payload.items()
        }
    caller = Client()
    headers: dict[str, str] = {}
    if route.actor is not None:
        user = world["users"][route.actor]
        if route.kind == "json" and url.startswith("/api/"):
            headers["HTTP_AUTHORIZATION"] = world["tokens"][route.actor]
        else:
            caller.force_login(user)
    if route.kind == "json":
        body = json.dumps(payload)  # a lone surrogate goes as "\\ud800", as JSON allows
        return getattr(caller, route.method)(url, body, content_type="application/json", **headers)
    return getattr(caller, route.method)(url, payload, **headers)


def bad_values(route: Route, path: str) -> list[tuple[str, str]]:
    most, is_name = route.fields[path]
    values = [("NUL", NUL)]
    if route.kind == "json":
        values.append(("lone surrogate", SURROGATE))
    if is_name:
        values.append(("control character", CONTROL))
    if most is not None:
        values.append(("over-long", "x" * (most + 1)))
    return values


def message_of(response: Any) -> str:
    if response["Content-Type"].startswith("application/json"):
        return str(response.json()["error"])
    import html

    return html.unescape(response.content.decode())


@pytest.mark.parametrize("route", ROUTES, ids=[r.name for r in ROUTES])
def test_bad_text_is_refused_naming_its_field_and_changes_nothing(
    route: Route,
    world: dict[str, Any],
    client: Any,
) -> None:
    good = replay_body() if route.name.startswith("replay") else route.good
    before = snapshot()
    for path in route.fields:
        for what, value in bad_values(route, path):
            response = send(client, route, world, put(good, path, value))
            assert response.status_code == 400, (
                route.name,
                path,
                what,
                response.status_code,
                response.content[:300],
            )
            if what != "over-long" or route.kind == "json":
                shown = path.split(".")[0]
                assert shown in message_of(response), (route.name, path, what)
            assert snapshot() == before, (route.name, path, what)
    accepted = send(client, route, world, good)
    assert accepted.status_code in route.accepted, (
        route.name,
        accepted.status_code,
        accepted.content[:300],
    )


def test_every_query_parameter_of_every_route_is_checked(
    world: dict[str, Any],
    client: Any,
) -> None:
    from django.urls import URLPattern, URLResolver, get_resolver

    def walk(patterns: list[Any], prefix: str = "") -> list[str]:
        out = []
        for entry in patterns:
            if isinstance(entry, URLResolver):
                out += walk(entry.url_patterns, prefix + str(entry.pattern))
            elif isinstance(entry, URLPattern):
                out.append(prefix + str(entry.pattern))
        return out

    values = {
        "name": "random",
        "number": "1",
        "slug": "scopa",
        "game_id": "1",
        "match_id": "1",
        "season_id": "1",
        "id": "1",
        "path": "x",
        "object_id": "1",
        "app_label": "league",
        "content_type_id": "1",
        "url": "x",
        "user_id": "1",
    }
    import re

    urls = set()
    for pattern in walk(get_resolver().url_patterns):
        if pattern.startswith("^") or "(?P" in pattern:
            pattern = re.sub(r"\(\?P<(\w+)>[^)]*\)", r"<\1>", pattern).strip("^$")
        url = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values.get(m.group(1), "1"), pattern)
        urls.add(url.replace("\\", ""))
    assert len(urls) > 60  # the site's pages, its API, the Play pages and the admin's
    before = snapshot()
    for url in sorted(urls):
        for query in ("q=a%00b", "opponent=%00", "x%00=1", "status=a%1Bb"):
            response = client.get(f"{url}?{query}")
            assert response.status_code == 400, (url, query, response.status_code)
            assert "holds a" in message_of(response), (url, query)
    assert snapshot() == before
