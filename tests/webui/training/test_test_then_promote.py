"""Version tests in the test-then-promote flow: the form's default is the candidate against
the ladder version, identical code is refused, a running test estimates the pairs left, and a
version uploaded with ``test_then_promote`` is promoted by the test that accepts H1."""

from __future__ import annotations

import html
from typing import Any

import pytest
from sample_versions import sample_versions

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_versions(settings: Any) -> dict[str, Any]:
    """Bot ``mine`` of ``author``: version 1 (random) on the ladder, 2 (greedy) and 3 (random
    again, another folder hash) ready; and another user."""
    from django.contrib.auth.models import User

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ARENA_LADDER_VARIANTS = ["scopa:target=1"]
    author = User.objects.create_user("author", password="author-pass-123")
    other = User.objects.create_user("other", password="other-pass-123")
    bot, made = sample_versions(author, "mine", ("random", "greedy"))
    return {"author": author, "other": other, "bot": bot, "old": made[0], "new": made[1]}


def win_until_decided(test_id: int) -> None:
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    index = 0
    while SprtTest.objects.get(pk=test_id).status == SprtTest.Status.RUNNING:
        assert sprt_tests.record_pair(test_id, index, [1.0, 1.0], [])
        index += 1
        assert index < 100


def ladder_version_id(bot: Any) -> int:
    from webui.league.models import LadderEntry

    return int(LadderEntry.objects.get(bot=bot).version_id)


def test_the_form_defaults_to_the_newest_candidate_against_the_ladder_version(
    three_versions: dict[str, Any], client: Any
) -> None:
    from webui.league.models import BotVersion

    newer = BotVersion.objects.create(
        bot=three_versions["bot"],
        number=3,
        sha256="c" * 64,
        manifest=three_versions["new"].manifest,
        source_dir=three_versions["new"].source_dir,
        status=BotVersion.Status.READY,
    )
    client.force_login(three_versions["author"])
    page = html.unescape(client.get("/bots/mine/tests/").content.decode())
    assert '<option value="3" selected>mine@3 (newest)</option>' in page
    assert '<option value="2">mine@2</option>' in page
    assert "against the ladder version mine@1" in page
    assert newer.number == 3


def test_it_refuses_a_test_of_identical_code_saying_why(
    three_versions: dict[str, Any], client: Any
) -> None:
    from webui.league.models import BotVersion
    from webui.training.models import SprtTest

    BotVersion.objects.filter(bot=three_versions["bot"]).update(code_sha256="d" * 64)
    client.force_login(three_versions["author"])
    page = html.unescape(client.get("/bots/mine/tests/").content.decode())
    assert "mine@2 (newest): same code as mine@1" in page and 'id="same-code"' in page
    refused = client.post("/bots/mine/tests/", {"version": "2"})
    assert refused.status_code == 400
    assert (
        "version: mine@2 has the same code as the ladder version mine@1: a test of identical "
        "code can only measure noise" in html.unescape(refused.content.decode())
    )
    assert not SprtTest.objects.exists()


def test_a_running_test_estimates_the_pairs_left(
    three_versions: dict[str, Any], client: Any
) -> None:
    from webui.training import sprt_tests

    test = sprt_tests.create_test(three_versions["author"], three_versions["bot"], 2, elo1=20)
    client.force_login(three_versions["author"])
    first = html.unescape(client.get(f"/bots/mine/tests/{test.pk}/").content.decode())
    assert "Pairs left: estimated after the first pairs move the LLR." in first
    for index, scores in enumerate([[1.0, 1.0], [1.0, 0.5], [0.5, 0.5]]):
        sprt_tests.record_pair(test.pk, index, scores, [])
    test.refresh_from_db()
    data = sprt_tests.summary(test)
    assert isinstance(data["pairs_left"], int) and data["pairs_left"] > 0
    assert data["pairs_left"] <= test.max_pairs - 3 and data["seconds_left"] is not None
    page = html.unescape(client.get(f"/bots/mine/tests/{test.pk}/").content.decode())
    assert f"About {data['pairs_left']} pairs left" in page


def test_a_version_uploaded_to_test_then_promote_is_promoted_when_h1_is_accepted(
    three_versions: dict[str, Any], client: Any
) -> None:
    from webui.league.models import BotVersion
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    BotVersion.objects.filter(pk=three_versions["new"].pk).update(promote_on_pass=True)
    test = sprt_tests.create_test(three_versions["author"], three_versions["bot"], 2, elo1=200)
    client.force_login(three_versions["author"])
    page = client.get(f"/bots/mine/tests/{test.pk}/").content.decode()
    assert "it becomes the ladder version by itself if this test accepts H1" in page
    win_until_decided(test.pk)
    done = SprtTest.objects.get(pk=test.pk)
    assert done.status == SprtTest.Status.H1 and done.promoted is not None
    page = client.get(f"/bots/mine/tests/{test.pk}/").content.decode()
    assert "mine@2 was made the ladder version." in page
    assert ladder_version_id(three_versions["bot"]) == three_versions["new"].pk


def test_without_the_request_h1_leaves_the_ladder_version_to_the_owner(
    three_versions: dict[str, Any],
) -> None:
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    test = sprt_tests.create_test(three_versions["author"], three_versions["bot"], 2, elo1=200)
    win_until_decided(test.pk)
    done = SprtTest.objects.get(pk=test.pk)
    assert done.status == SprtTest.Status.H1 and done.promoted is None
    assert ladder_version_id(three_versions["bot"]) == three_versions["old"].pk


def test_h0_never_promotes_even_when_asked(three_versions: dict[str, Any]) -> None:
    from webui.league.models import BotVersion
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    BotVersion.objects.filter(pk=three_versions["new"].pk).update(promote_on_pass=True)
    test = sprt_tests.create_test(three_versions["author"], three_versions["bot"], 2, elo1=200)
    index = 0
    while SprtTest.objects.get(pk=test.pk).status == SprtTest.Status.RUNNING:
        sprt_tests.record_pair(test.pk, index, [0.0, 0.0], [])
        index += 1
    assert SprtTest.objects.get(pk=test.pk).status == SprtTest.Status.H0
    assert ladder_version_id(three_versions["bot"]) == three_versions["old"].pk


def test_a_ladder_version_the_owner_changed_meanwhile_stands(
    three_versions: dict[str, Any],
) -> None:
    from webui.league import ladder
    from webui.league.models import BotVersion
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    BotVersion.objects.filter(pk=three_versions["new"].pk).update(promote_on_pass=True)
    third = BotVersion.objects.create(
        bot=three_versions["bot"],
        number=3,
        sha256="e" * 64,
        manifest=three_versions["old"].manifest,
        source_dir=three_versions["old"].source_dir,
        status=BotVersion.Status.READY,
    )
    test = sprt_tests.create_test(three_versions["author"], three_versions["bot"], 2, elo1=200)
    ladder.promote(three_versions["author"], three_versions["bot"], 3)
    win_until_decided(test.pk)
    assert SprtTest.objects.get(pk=test.pk).promoted is None
    assert ladder_version_id(three_versions["bot"]) == third.pk
