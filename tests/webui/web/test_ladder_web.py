"""The ladder and challenges over the API and the pages: reads, the owner's choices, challenges,
and every refusal a JSON 4xx (or a page message) that names the field and changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from webui.league.models import LadderEntry, Match

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder_world(users: dict[str, Any], ready_versions: list[Any], settings: Any) -> Any:
    """random and greedy (staff's) on the ladder; owner's ``my-bot`` with a ready version 1
    on it and a failed version 2."""
    from webui.league import ladder, versions

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    for version in ready_versions:
        ladder.enter_version(version)
    bot = users["owner"].bots.get(name="my-bot")
    one, _ = versions.register_version(
        bot, sha256="1" * 64, manifest={"name": "my-bot"}, source_dir="bots/x"
    )
    two, _ = versions.register_version(
        bot, sha256="2" * 64, manifest={"name": "my-bot"}, source_dir="bots/y"
    )
    versions.finish_validation(one.pk, True)
    versions.finish_validation(two.pk, False, "crash: exit status 1 before the first move")
    return bot


def api(client: Any, method: str, url: str, body: Any, token: str) -> Any:
    return getattr(client, method)(
        url, json.dumps(body), content_type="application/json", HTTP_AUTHORIZATION=token
    )


def error_of(response: Any, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"] == "application/json"
    message = response.json()["error"]
    assert isinstance(message, str) and "\n" not in message
    return message


def test_the_ladder_reads_and_the_owner_sees_why_a_version_was_refused(
    client: Any,
    ladder_world: Any,
) -> None:
    data = client.get("/api/ladder/scopa").json()
    assert set(data["active"]) == {"random@1", "greedy@1", "my-bot@1"}
    assert data["ratings"] == [] and data["open_challenges"] == 0
    entry = client.get("/api/bots/my-bot/ladder").json()
    assert entry["entry"]["label"] == "my-bot@1" and entry["entry"]["status"] == "active"
    assert entry["versions"][0]["status_reason"] == "crash: exit status 1 before the first move"
    assert "no ladder" in error_of(client.get("/api/ladder/scopone"), 404)
    page = client.get("/ladder/scopa/")
    assert page.status_code == 200 and b"Nobody is rated on this ladder yet" in page.content
    assert b"/ladder/scopa/" in client.get("/ladder/").content


@pytest.mark.parametrize(
    ("body", "who", "status", "words"),
    [
        (
            {"version": 2},
            "owner",
            400,
            "field 'version': version my-bot@2 is failed, not ready: crash: exit status 1",
        ),
        ({"version": 9}, "owner", 400, "field 'version': bot 'my-bot' has no version 9"),
        ({"status": "sleeping"}, "owner", 400, "field 'status': 'sleeping' is not one of"),
        ({"version": "1"}, "owner", 400, "field 'version' must be an integer"),
        ({}, "owner", 400, "give field 'version'"),
        ({"colour": 1}, "owner", 400, "unknown field 'colour'"),
        ({"status": "paused"}, "other", 403, "only the owner of bot 'my-bot'"),
    ],
)
def test_bad_ladder_choices_are_refused_and_change_nothing(
    client: Any,
    ladder_world: Any,
    tokens: dict[str, str],
    body: dict[str, Any],
    who: str,
    status: int,
    words: str,
) -> None:
    before = list(LadderEntry.objects.values_list("bot_id", "version_id", "status"))
    message = error_of(api(client, "patch", "/api/bots/my-bot/ladder", body, tokens[who]), status)
    assert words in message
    assert list(LadderEntry.objects.values_list("bot_id", "version_id", "status")) == before


def test_the_owner_pauses_and_retires_over_the_api(
    client: Any, ladder_world: Any, tokens: dict[str, str]
) -> None:
    response = api(
        client, "patch", "/api/bots/my-bot/ladder", {"status": "paused"}, tokens["owner"]
    )
    assert response.status_code == 200 and response.json()["entry"]["status"] == "paused"
    assert "my-bot@1" not in client.get("/api/ladder/scopa").json()["active"]
    api(client, "patch", "/api/bots/my-bot/ladder", {"status": "retired"}, tokens["owner"])
    message = error_of(
        api(client, "patch", "/api/bots/my-bot/ladder", {"status": "active"}, tokens["owner"]), 409
    )
    assert "retired" in message
    assert LadderEntry.objects.get(bot=ladder_world).status == "retired"


@pytest.mark.parametrize(
    ("change", "status", "words"),
    [
        ({"opponent": "nobody"}, 404, "field 'opponent': no bot named 'nobody'"),
        ({"deals": 11}, 400, "field 'deals': deals must be a whole number from 1 to 10"),
        ({"deals": "2"}, 400, "field 'deals' must be an integer"),
        ({"variant": "scopa-3"}, 400, "field 'variant'"),
        ({"bot": "random"}, 403, "field 'bot': bot 'random' is not yours"),
        ({"rated": "yes"}, 400, "field 'rated' must be a bool"),
        ({"speed": 3}, 400, "unknown field 'speed'"),
    ],
)
def test_bad_challenges_over_the_api_queue_nothing(
    client: Any,
    ladder_world: Any,
    tokens: dict[str, str],
    change: dict[str, Any],
    status: int,
    words: str,
) -> None:
    body = {"bot": "my-bot", "opponent": "greedy", **change}
    assert words in error_of(api(client, "post", "/api/challenges", body, tokens["owner"]), status)
    assert not Match.objects.exists()


def test_a_challenge_against_a_retired_bot_or_without_a_token_is_refused(
    client: Any,
    ladder_world: Any,
    tokens: dict[str, str],
    users: dict[str, Any],
) -> None:
    from webui.league import ladder

    ladder.choose(users["staff"], LadderEntry.objects.get(bot__name="greedy").bot, status="retired")
    body = {"bot": "my-bot", "opponent": "greedy"}
    assert "is retired" in error_of(
        api(client, "post", "/api/challenges", body, tokens["owner"]), 400
    )
    assert "API token" in error_of(
        client.post("/api/challenges", json.dumps(body), content_type="application/json"), 401
    )
    assert not Match.objects.exists()


def test_a_played_challenge_shows_score_elo_and_los(
    client: Any, ladder_world: Any, tokens: dict[str, str]
) -> None:
    from arena.runner.stats import EloEstimate
    from webui.league import matches
    from webui.web.sampledata import match_report

    response = api(
        client,
        "post",
        "/api/challenges",
        {"bot": "my-bot", "opponent": "random", "deals": 2},
        tokens["owner"],
    )
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["status"] == "scheduled" and not created["rated"]
    assert created["games_planned"] == 4 and created["result"] is None
    match = Match.objects.get(pk=created["id"])
    assert match.kind == "challenge" and match.priority == 1
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    matches.record_result(claim, match_report(match, greedy_entrant=0))
    result = client.get(f"/api/challenges/{match.pk}").json()["result"]
    assert result["wins"] + result["draws"] + result["losses"] == 4
    expected = EloEstimate.from_counts(result["wins"], result["losses"], result["draws"])
    assert result["describe"] == expected.describe()
    assert result["los"] == round(expected.los, 4)
    page = client.get(f"/challenges/{match.pk}/").content.decode()
    assert expected.describe() in page
    assert f"{100 * expected.los:.1f} %" in page
    assert client.get(f"/api/challenges/{match.pk + 1000}").status_code == 404


def test_the_challenge_form_names_the_problem_and_queues_nothing(
    client: Any,
    ladder_world: Any,
    users: dict[str, Any],
) -> None:
    client.force_login(users["owner"])
    page = client.post(
        "/challenges/new/",
        {"bot": "my-bot", "opponent": "greedy", "variant": "scopa", "deals": "50"},
    )
    assert page.status_code == 400
    assert b"deals: deals must be a whole number from 1 to 10" in page.content
    assert not Match.objects.exists()
    done = client.post(
        "/challenges/new/",
        {"bot": "my-bot", "opponent": "greedy", "variant": "scopa", "deals": "1"},
    )
    assert done.status_code == 302 and Match.objects.filter(kind="challenge").count() == 1


def test_the_owner_chooses_on_the_bot_ladder_page(
    client: Any, ladder_world: Any, users: dict[str, Any]
) -> None:
    client.force_login(users["other"])
    refused = client.post("/bots/my-bot/ladder/", {"version": "1", "status": "paused"})
    assert refused.status_code == 403 and b"only the owner" in refused.content
    client.force_login(users["owner"])
    bad = client.post("/bots/my-bot/ladder/", {"version": "2", "status": "active"})
    assert bad.status_code == 400 and b"crash: exit status 1" in bad.content
    assert LadderEntry.objects.get(bot=ladder_world).status == "active"
    ok = client.post("/bots/my-bot/ladder/", {"version": "1", "status": "paused"})
    assert ok.status_code == 302
    assert LadderEntry.objects.get(bot=ladder_world).status == "paused"


def test_refused_challenges_store_no_variant_and_lists_show_only_variants_in_use(
    client: Any,
    ladder_world: Any,
    tokens: dict[str, str],
    settings: Any,
) -> None:
    from webui.league.models import Variant

    settings.ARENA_CHALLENGES_PER_HOUR = 1
    body = {"bot": "my-bot", "opponent": "greedy", "variant": "scopa"}
    assert api(client, "post", "/api/challenges", body, tokens["owner"]).status_code == 201
    before = (set(Variant.objects.values_list("slug", flat=True)), Match.objects.count())
    # Over the hour's limit: each spelling of options refused, and none of them stored.
    for target in range(12, 52):
        refused = api(
            client,
            "post",
            "/api/challenges",
            {**body, "variant": f"scopa:target={target},napoli=true"},
            tokens["owner"],
        )
        assert refused.status_code == 429, refused.content
    # Refused for another reason: a variant the opponent does not play, made of options.
    error_of(
        api(
            client,
            "post",
            "/api/challenges",
            {**body, "variant": "scopa-3:target=21"},
            tokens["owner"],
        ),
        400,
    )
    assert (set(Variant.objects.values_list("slug", flat=True)), Match.objects.count()) == before
    # Lists show the variants with games, a season or a ladder: not every one ever stored.
    Variant.objects.create(slug="scopa--unused", name="scopa", label="scopa (unused)")
    shown = {v["slug"] for v in client.get("/api/variants").json()["variants"]}
    assert "scopa" in shown and "scopa--unused" not in shown
    assert b"scopa (unused)" not in client.get("/").content
    assert "scopa--unused" not in client.get("/api/games?variant=nosuch").json()["error"]
