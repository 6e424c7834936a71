"""A fuzzer no one here wrote, schemathesis, against the site's own OpenAPI document: every
route it describes (the API, the pages and their forms, the Play page; the document describes
every route the site answers, ``test_pages.py`` checks that) gets generated input, valid and
invalid, on PostgreSQL, through the whole Django stack (middleware, sessions, CSRF, the
throttles). No answer may be a server error.

Seeded and bounded: Hypothesis derandomized, a fixed number of examples per operation, no
shrinking (a failure is reported with the request that caused it). A signed-in staff user with
an API token and a session sends everything, so that the forms and writes are reached; the path
parameters name the objects of a played season, so that pages exist to be fuzzed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

EXAMPLES = 25
"""Examples per operation, valid and not (about 1,500 requests in all: routes without
parameters get one)."""


def pinned(spec: dict[str, Any], known: dict[str, list[Any]]) -> dict[str, Any]:
    """The document with each path parameter limited to the objects that exist."""
    out = json.loads(json.dumps(spec))
    for item in out["paths"].values():
        for op in item.values():
            for param in op.get("parameters", []):
                if param["in"] == "path" and param["name"] in known:
                    param["schema"] = {"enum": known[param["name"]]}
    return out


def signed_in(staff: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Fresh credentials of ``staff`` (a fuzzed request may log out or revoke a token): the
    bearer token and a CSRF token (headers), the session and the CSRF cookies."""
    from django.test import Client
    from django.utils.crypto import get_random_string

    from webui.web.models import ApiToken

    client = Client()
    client.force_login(staff)
    csrf = get_random_string(32)
    headers = {"Authorization": "Bearer " + ApiToken.issue(staff, "fuzz")[1], "X-CSRFToken": csrf}
    return headers, {"sessionid": client.cookies["sessionid"].value, "csrftoken": csrf}


def fuzz(
    operation: Any,
    app: Any,
    credentials: tuple[dict[str, str], dict[str, str]],
    failures: list[str],
) -> None:
    """Sends one operation its examples, valid and not; a server error is noted with its
    request."""
    from schemathesis import GenerationMode

    strategy = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )

    @hypothesis_settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def send(case: Any) -> None:
        headers, cookies = credentials
        response = case.call(app=app, headers=headers, cookies=cookies)
        if response.status_code >= 500:
            failures.append(f"{response.status_code} from {case.as_curl_command()}")

    send()


def test_no_route_answers_a_server_error(
    played_season: Any, users: dict[str, Any], settings: Any
) -> None:
    import schemathesis
    from django.core import signals
    from django.core.wsgi import get_wsgi_application
    from django.db import close_old_connections
    from django.utils import timezone

    from webui.league import variants
    from webui.league.models import Bot, BotVersion, Game, Match, Variant
    from webui.play.models import PlayGame
    from webui.web.openapi import openapi

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    staff = users["staff"]
    greedy = BotVersion.objects.get(bot__name="greedy")
    play = PlayGame.objects.create(
        user=staff,
        version=greedy,
        variant=variants.get_variant("scopa"),
        move_time_ms=60_000,
        bank_ms=600_000,
        status="playing",
        turn=1,
        awaiting=True,
        legal=["1d", "7c:3b+4d"],
        deadline=timezone.now() + timezone.timedelta(minutes=30),
        seen=timezone.now(),
    )
    known = {
        "name": list(Bot.objects.values_list("name", flat=True)),
        "number": [1, 2],
        "slug": list(Variant.objects.values_list("slug", flat=True)),
        "season_id": [played_season.pk],
        "match_id": list(Match.objects.values_list("pk", flat=True)[:3]),
        "game_id": [*Game.objects.values_list("pk", flat=True)[:3], play.pk],
    }
    schema = schemathesis.openapi.from_dict(pinned(openapi(), known))
    app = get_wsgi_application()
    failures: list[str] = []
    operations = 0
    # As Django's test client does: the test's transaction holds the connection, which the end
    # of each request would otherwise close.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        for result in schema.get_all_operations():
            operation = result.ok()
            operations += 1
            fuzz(operation, app, signed_in(staff), failures)
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
    assert operations > 70, operations  # every route: the API's, the pages', the forms'
    assert not failures, "\n".join(failures[:20])
