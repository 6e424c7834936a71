"""Bad numbers, texts, filters and paths get a 4xx naming what is wrong and change nothing.

Every API write and form of the site, every query parameter, and paths whose numbers do not
fit their columns. Under /api/ every answer is JSON, missing routes and failures included.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webui.league.models import Bot, Season
from webui.web.models import ApiToken

pytestmark = pytest.mark.django_db

BIG = 2**63
SEED_RANGE = "between 0 and 9223372036854775807"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('{"name": ' + "9" * 5000 + "}", "digits"),  # past int's digit limit: a ValueError
        ("[" * 100_000 + "]" * 100_000, "not JSON"),  # past the parser's recursion
        (
            json.dumps(
                {
                    "name": "s",
                    "options": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
                }
            ),
            "nested more than 32",
        ),
    ],
)
def test_it_refuses_a_body_too_costly_to_parse_with_a_400(
    body: str, words: str, client: Any, tokens: dict[str, str]
) -> None:
    response = post_json(client, "/api/seasons", body, tokens["staff"])
    assert response.status_code == 400
    assert words in error_of(response)
    assert not Season.objects.exists()


def season_body(versions: list[Any], **change: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": "Spring",
        "variant": "scopa",
        "entrants": [v.label for v in versions],
    }
    body.update(change)
    return body


def post_json(client: Any, url: str, body: Any, token: str, method: str = "post") -> Any:
    text = body if isinstance(body, str) else json.dumps(body)
    return getattr(client, method)(
        url, text, content_type="application/json", HTTP_AUTHORIZATION=token
    )


def error_of(response: Any) -> str:
    """The one-line JSON error of a 4xx answer."""
    assert 400 <= response.status_code < 500, response.status_code
    assert response["Content-Type"] == "application/json"
    message = response.json()["error"]
    assert isinstance(message, str) and "\n" not in message
    return message


# ---- seasons over the API -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seed": BIG}, f"field 'seed' must be {SEED_RANGE}, not {BIG}"),
        ({"seed": 10**30}, f"field 'seed' must be {SEED_RANGE}"),
        ({"seed": -1}, f"field 'seed' must be {SEED_RANGE}, not -1"),
        ({"seed": "7"}, "field 'seed' must be an integer, not '7'"),
        (
            {"bank_ms": 0, "move_time_ms": 1},
            "field 'bank_ms' must be between 1 and 36000000, not 0",
        ),
        (
            {"bank_ms": 500, "move_time_ms": 1000},
            "field 'bank_ms' must be at least field 'move_time_ms' (1000), not 500",
        ),
        ({"bank_ms": 36_000_001}, "field 'bank_ms' must be between 1 and 36000000"),
        ({"move_time_ms": 0}, "field 'move_time_ms' must be between 1 and 600000, not 0"),
        ({"move_time_ms": 1.5}, "field 'move_time_ms' must be an integer, not 1.5"),
        ({"move_time_ms": True}, "field 'move_time_ms' must be an integer, not True"),
        ({"games_per_pairing": 101}, "field 'games_per_pairing' must be between 1 and 100"),
        ({"games_per_pairing": 0}, "between 1 and 100"),
        ({"knockout_size": -1}, "field 'knockout_size' must be between 0 and 64, not -1"),
        ({"knockout_size": 65}, "field 'knockout_size' must be between 0 and 64, not 65"),
        ({"knockout_size": 9}, "knockout size 9: between 2 and 2, or 0"),
        ({"name": "x" * 101}, "field 'name' must be at most 100 characters, not 101"),
        ({"name": ""}, "needs a name"),
        ({"name": 5}, "field 'name' must be a str, not 5"),
        ({"variant": "poker"}, "poker"),
        ({"variant": ["scopa"]}, "field 'variant' must be a str"),
        ({"options": {"target": 10**30}}, "target"),
        ({"options": {"target": [1]}}, "target"),
        ({"options": "target=21"}, "field 'options' must be a dict"),
        ({"entrants": ["random@99999999999"]}, "entrant 'random@99999999999': no such bot version"),
        ({"entrants": ["random@٣"]}, "no such bot version"),
        ({"entrants": [BIG]}, f"entrant {BIG}: no such bot version"),
        ({"entrants": [True]}, "entrant True: no such bot version"),
        ({"entrants": ["x@1"] * 257}, "field 'entrants' must list at most 256 versions, not 257"),
        ({"entrants": "random@1"}, "field 'entrants' must be a list"),
        ({"double_round_robin": "yes"}, "field 'double_round_robin' must be a bool"),
        ({"start": 1}, "field 'start' must be a bool, not 1"),
        ({"move_time": 500}, "unknown field 'move_time' (this takes: bank_ms, double_round_robin,"),
    ],
)
def test_it_rejects_a_bad_season_field_naming_it(
    change: dict[str, Any],
    words: str,
    client: Any,
    tokens: dict[str, str],
    ready_versions: list[Any],
) -> None:
    response = post_json(
        client, "/api/seasons", season_body(ready_versions, **change), tokens["staff"]
    )
    assert response.status_code == 400
    assert words in error_of(response)
    assert not Season.objects.exists()


@pytest.mark.parametrize("actor", ["owner", "other"])
def test_it_tells_a_user_that_seasons_are_for_staff_whatever_the_numbers(
    actor: str,
    client: Any,
    tokens: dict[str, str],
    ready_versions: list[Any],
) -> None:
    response = post_json(
        client, "/api/seasons", season_body(ready_versions, seed=BIG), tokens[actor]
    )
    assert response.status_code == 403
    assert "only staff" in error_of(response)
    assert not Season.objects.exists()


def test_the_largest_seed_and_the_tightest_bank_are_accepted(
    client: Any,
    tokens: dict[str, str],
    ready_versions: list[Any],
) -> None:
    response = post_json(
        client,
        "/api/seasons",
        season_body(ready_versions, seed=BIG - 1, move_time_ms=700, bank_ms=700),
        tokens["staff"],
    )
    assert response.status_code == 201, response.content
    season = Season.objects.get()
    assert (season.seed, season.move_time_ms, season.bank_ms) == (BIG - 1, 700, 700)


def test_it_refuses_a_body_over_its_limit(client: Any, tokens: dict[str, str]) -> None:
    body = json.dumps({"name": "x" * (2 * 1024 * 1024)})
    response = post_json(client, "/api/seasons", body, tokens["staff"])
    assert response.status_code == 413
    assert "larger than" in error_of(response)
    assert not Season.objects.exists()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)
SEASON_KEYS = [
    "name",
    "variant",
    "options",
    "entrants",
    "knockout_size",
    "double_round_robin",
    "games_per_pairing",
    "move_time_ms",
    "bank_ms",
    "seed",
    "start",
]


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(change=st.dictionaries(st.sampled_from(SEASON_KEYS), JSON_VALUES, max_size=4))
def test_any_json_for_a_season_is_answered_in_json_and_a_refusal_creates_nothing(
    change: dict[str, Any],
    client: Any,
    tokens: dict[str, str],
    ready_versions: list[Any],
) -> None:
    before = Season.objects.count()
    body = season_body(ready_versions, name=f"Season {before}")
    body.update(change)
    response = post_json(client, "/api/seasons", body, tokens["staff"])
    assert response.status_code in {201, 400}, (body, response.content[:300])
    if response.status_code == 400:
        error_of(response)
        assert Season.objects.count() == before
    else:
        assert Season.objects.count() == before + 1


# ---- bots and versions over the API ---------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (
            {"name": "new-bot", "description": "d" * 2001},
            "field 'description' must be at most 2000 characters, not 2001",
        ),
        (
            {"name": "new-bot", "owner": "staff"},
            "unknown field 'owner' (this takes: description, name)",
        ),
        ({"name": "x" * 41}, "field 'name' must be at most 40 characters, not 41"),
        ({"name": "No Caps"}, "use 1 to 40 of a-z"),
        ({"name": None}, "field 'name' must be a str, not None"),
    ],
)
def test_it_rejects_a_bad_new_bot_naming_the_field(
    body: dict[str, Any],
    words: str,
    client: Any,
    tokens: dict[str, str],
) -> None:
    response = post_json(client, "/api/bots", body, tokens["other"])
    assert response.status_code == 400
    assert words in error_of(response)
    assert list(Bot.objects.values_list("name", flat=True)) == ["my-bot"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"description": "d" * 2001}, "field 'description' must be at most 2000 characters"),
        ({"description": 7}, "field 'description' must be a str"),
        ({"name": "renamed"}, "unknown field 'name' (this takes: description)"),
        ({}, "missing field 'description'"),
    ],
)
def test_the_owner_gets_a_bad_description_change_refused(
    body: dict[str, Any],
    words: str,
    client: Any,
    tokens: dict[str, str],
) -> None:
    response = post_json(client, "/api/bots/my-bot", body, tokens["owner"], method="patch")
    assert response.status_code == 400
    assert words in error_of(response)
    assert Bot.objects.get(name="my-bot").description == "the owner's bot"


def test_another_user_is_refused_before_the_body_is_read(
    client: Any,
    tokens: dict[str, str],
) -> None:
    response = post_json(
        client, "/api/bots/my-bot", {"description": "d" * 5000}, tokens["other"], method="patch"
    )
    assert response.status_code == 403
    assert "only the owner" in error_of(response)


# ---- query parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("variant=nosuch", "query parameter 'variant': 'nosuch' is not one of: scopa"),
        ("limit=0", "query parameter 'limit' must be a whole number from 1 to 100, not '0'"),
        ("limit=101", "from 1 to 100, not '101'"),
        ("limit=ten", "from 1 to 100, not 'ten'"),
        ("limit=1e3", "from 1 to 100, not '1e3'"),
        ("limit=٣", "from 1 to 100, not '٣'"),
        ("limit=99999999999999999999999", "from 1 to 100"),
        (
            "varient=scopa",
            "unknown query parameter 'varient' (this takes: after, before, limit, variant)",
        ),
        ("limit=5&limit=6", "query parameter 'limit' is given more than once"),
    ],
)
def test_games_reject_a_bad_filter_naming_it_and_what_is_allowed(
    query: str,
    words: str,
    client: Any,
    played_season: Any,
) -> None:
    response = client.get(f"/api/games?{query}")
    assert response.status_code == 400
    assert words in error_of(response)


def test_games_take_their_filters(client: Any, played_season: Any) -> None:
    games = client.get("/api/games?variant=scopa&limit=3").json()["games"]
    assert len(games) == 3 and {g["variant"] for g in games} == {"scopa"}


@pytest.mark.parametrize(
    ("url", "words"),
    [
        (
            "/api/seasons?status=paused",
            "query parameter 'status': 'paused' is not one of: draft, finished, running",
        ),
        ("/api/bots?sort=name", "unknown query parameter 'sort' (this takes: none)"),
        ("/api/variants/scopa/leaderboard?page=2", "unknown query parameter 'page'"),
    ],
)
def test_other_routes_reject_unknown_or_bad_parameters(url: str, words: str, client: Any) -> None:
    response = client.get(url)
    assert response.status_code == 400
    assert words in error_of(response)


# ---- paths ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/api/games/99999999999999999999",
        "/api/games/99999999999999999999/frames",
        "/api/seasons/9223372036854775808",
        "/api/matches/123456789012345678901234567890",
        "/api/bots/my-bot/versions/99999999999",
        "/api/bots/my-bot/versions/4294967296/validation/frames",
        "/api/no-such-route",
        "/api/games/",
    ],
)
def test_paths_that_name_nothing_are_a_json_404(url: str, client: Any, users: Any) -> None:
    response = client.get(url)
    assert response.status_code == 404
    assert "nothing at" in error_of(response)


@pytest.mark.parametrize(
    "url",
    [
        "/games/99999999999999999999/",
        "/seasons/9223372036854775808/",
        "/matches/123456789012345678901234567890/",
        "/bots/my-bot/v99999999999/",
    ],
)
def test_pages_whose_numbers_do_not_fit_are_a_404_page(url: str, client: Any, users: Any) -> None:
    response = client.get(url)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_wrong_method_is_a_json_405(client: Any, tokens: dict[str, str]) -> None:
    response = client.delete("/api/bots/my-bot", HTTP_AUTHORIZATION=tokens["owner"])
    assert response.status_code == 405
    assert error_of(response) == "method DELETE is not allowed here"
    assert response["Allow"] == "GET, PATCH"
    assert Bot.objects.filter(name="my-bot").exists()


def test_a_failure_under_the_api_is_a_json_500_and_elsewhere_the_error_page(rf: Any) -> None:
    from django.urls import get_resolver

    from webui.web import errors

    assert get_resolver().resolve_error_handler(500) is errors.server_error
    api = errors.server_error(rf.get("/api/games"))
    assert api.status_code == 500 and api["Content-Type"] == "application/json"
    assert "nothing was changed" in json.loads(api.content)["error"]
    page = errors.server_error(rf.get("/games/"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")


def test_a_host_the_site_does_not_serve_is_a_json_400_under_the_api(client: Any) -> None:
    response = client.get("/api/variants", HTTP_HOST="evil.example")
    assert response.status_code == 400
    assert error_of(response) == "bad request"


# ---- forms ----------------------------------------------------------------------------------


def season_form(versions: list[Any], **change: Any) -> dict[str, Any]:
    form: dict[str, Any] = {
        "name": "Spring",
        "variant": "scopa",
        "entrants": [v.pk for v in versions],
        "games_per_pairing": 2,
        "knockout_size": 0,
        "move_time_ms": 1000,
        "bank_ms": 30000,
    }
    form.update(change)
    return form


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"bank_ms": 500}, "the time bank must be at least the time per move (1000), not 500"),
        ({"bank_ms": 0}, "greater than or equal to 1"),
        ({"move_time_ms": 600_001}, "less than or equal to 600000"),
        ({"games_per_pairing": 101}, "less than or equal to 100"),
        ({"knockout_size": 65}, "less than or equal to 64"),
        ({"entrants": [str(BIG * 1000)]}, "Select a valid choice"),
        ({"name": "x" * 101}, "at most 100 characters"),
    ],
)
def test_the_season_form_names_a_bad_number_and_creates_nothing(
    change: dict[str, Any],
    words: str,
    client: Any,
    users: dict[str, Any],
    ready_versions: list[Any],
) -> None:
    client.force_login(users["staff"])
    response = client.post("/seasons/new/", season_form(ready_versions, **change))
    assert response.status_code == 400
    assert words in response.content.decode()
    assert not Season.objects.exists()


def test_the_account_page_refuses_a_token_name_too_long(client: Any, users: dict[str, Any]) -> None:
    client.force_login(users["other"])
    response = client.post("/accounts/", {"action": "create", "name": "t" * 61})
    assert response.status_code == 400
    assert "at most 60 characters" in response.content.decode()
    assert not ApiToken.objects.filter(user=users["other"]).exists()


@pytest.mark.parametrize("token", ["99999999999999999999999", "-1", "abc", ""])
def test_revoking_a_token_that_is_no_token_changes_nothing(
    token: str, client: Any, users: dict[str, Any]
) -> None:
    ApiToken.issue(users["other"], "keep")
    client.force_login(users["other"])
    response = client.post("/accounts/", {"action": "revoke", "token": token}, follow=True)
    assert response.status_code == 200
    assert "No such token of yours." in response.content.decode()
    assert ApiToken.objects.filter(user=users["other"]).count() == 1


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    query=st.dictionaries(
        st.sampled_from(["variant", "limit", "status", "x"]), st.text(max_size=12), max_size=3
    )
)
def test_any_query_of_the_games_list_is_answered_in_json(
    query: dict[str, str], client: Any, users: Any
) -> None:
    response = client.get("/api/games", query)
    assert response.status_code in {200, 400}, (query, response.content[:300])
    if response.status_code == 400:
        error_of(response)
    else:
        assert isinstance(response.json()["games"], list)


@pytest.mark.parametrize("body", ["[" * 100_000, "{" * 50_000, '{"a": ' * 30_000])
def test_a_replay_nested_beyond_reason_is_refused_in_one_line(body: str, client: Any) -> None:
    response = client.post("/api/replays/frames", body, content_type="application/json")
    assert response.status_code == 400
    error_of(response)


@pytest.mark.parametrize("body", ["[" * 100_000, '{"name": ' * 30_000])
def test_a_body_nested_beyond_reason_is_refused_in_one_line(
    body: str,
    client: Any,
    tokens: dict[str, str],
) -> None:
    response = post_json(client, "/api/bots", body, tokens["other"])
    assert response.status_code == 400
    assert "the body is not JSON" in error_of(response)
    assert Bot.objects.count() == 1
