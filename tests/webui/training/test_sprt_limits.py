"""Work limits of version tests: running tests per user and per bot, pairs per test and pairs
waiting per user. The test past a limit is a 429 naming it, and nothing is written."""

from __future__ import annotations

import html
from typing import Any

import pytest
from sample_versions import sample_versions

pytestmark = pytest.mark.django_db


@pytest.fixture
def three_bots(settings: Any) -> dict[str, Any]:
    """User ``author`` with bots ``one``, ``two`` and ``three``, each with version 1 on the
    ladder and version 2 ready to be tested."""
    from django.contrib.auth.models import User

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ARENA_LADDER_VARIANTS = ["scopa:target=1"]
    author = User.objects.create_user("author", password="author-pass-123")
    bots = {
        name: sample_versions(author, name, ("random", "greedy"))[0]
        for name in ("one", "two", "three")
    }
    return {"author": author, **bots}


def _tests() -> list[tuple[int, int]]:
    from webui.training.models import SprtTest

    return list(SprtTest.objects.order_by("pk").values_list("bot_id", "max_pairs"))


def test_it_refuses_the_test_past_the_users_running_tests(
    three_bots: dict[str, Any], settings: Any, client: Any
) -> None:
    from webui.training import sprt_tests

    settings.ARENA_SPRT_TESTS_PER_USER = 2
    sprt_tests.create_test(three_bots["author"], three_bots["one"], 2, max_pairs=10)
    sprt_tests.create_test(three_bots["author"], three_bots["two"], 2, max_pairs=10)
    before = _tests()
    client.force_login(three_bots["author"])
    response = client.post("/bots/three/tests/", {"version": "2", "max_pairs": "10"})
    assert response.status_code == 429
    page = html.unescape(response.content.decode())
    assert "you have 2 version tests running" in page
    assert "ARENA_SPRT_TESTS_PER_USER = 2" in page
    assert _tests() == before


def test_the_page_states_the_limits(three_bots: dict[str, Any], settings: Any, client: Any) -> None:
    settings.ARENA_SPRT_TESTS_PER_USER = 4
    settings.ARENA_SPRT_PAIRS_PER_USER = 1234
    client.force_login(three_bots["author"])
    page = client.get("/bots/one/tests/").content.decode()
    assert "You may have 4 tests running at once, 1 per bot" in page
    assert "at most 1234 pairs still to play" in page


def test_a_stopped_test_frees_its_place(three_bots: dict[str, Any], settings: Any) -> None:
    from webui.training import sprt_tests

    settings.ARENA_SPRT_TESTS_PER_USER = 1
    first = sprt_tests.create_test(three_bots["author"], three_bots["one"], 2, max_pairs=10)
    with pytest.raises(sprt_tests.TestError) as refused:
        sprt_tests.create_test(three_bots["author"], three_bots["two"], 2, max_pairs=10)
    assert refused.value.status == 429
    sprt_tests.stop_test(three_bots["author"], first)
    assert sprt_tests.create_test(three_bots["author"], three_bots["two"], 2, max_pairs=10)


def test_it_refuses_a_second_running_test_of_one_bot(
    three_bots: dict[str, Any], settings: Any
) -> None:
    from webui.training import sprt_tests

    settings.ARENA_SPRT_TESTS_PER_BOT = 1
    sprt_tests.create_test(three_bots["author"], three_bots["one"], 2, max_pairs=10)
    before = _tests()
    with pytest.raises(sprt_tests.TestError) as refused:
        sprt_tests.create_test(three_bots["author"], three_bots["one"], 2, max_pairs=10)
    assert refused.value.status == 429
    assert "bot 'one' has 1 version tests running" in refused.value.message
    assert "ARENA_SPRT_TESTS_PER_BOT = 1" in refused.value.message
    assert _tests() == before


def test_it_refuses_pairs_past_the_users_waiting_pairs(
    three_bots: dict[str, Any], settings: Any
) -> None:
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    settings.ARENA_SPRT_PAIRS_PER_USER = 100
    first = sprt_tests.create_test(three_bots["author"], three_bots["one"], 2, max_pairs=60)
    before = _tests()
    with pytest.raises(sprt_tests.TestError) as refused:
        sprt_tests.create_test(three_bots["author"], three_bots["two"], 2, max_pairs=41)
    assert refused.value.status == 429 and refused.value.field == "max_pairs"
    assert "60 pairs still to play" in refused.value.message
    assert "ARENA_SPRT_PAIRS_PER_USER = 100" in refused.value.message
    assert _tests() == before
    # Pairs started are no longer waiting: 20 of the first test's leave room for 41 more.
    SprtTest.objects.filter(pk=first.pk).update(pairs_started=20)
    assert sprt_tests.create_test(three_bots["author"], three_bots["two"], 2, max_pairs=41)


def test_it_refuses_more_pairs_than_one_test_may_ask(
    three_bots: dict[str, Any], settings: Any, client: Any
) -> None:
    settings.ARENA_SPRT_PAIRS_PER_TEST = 50
    client.force_login(three_bots["author"])
    response = client.post("/bots/one/tests/", {"version": "2", "max_pairs": "51"})
    assert response.status_code == 400
    assert "max_pairs must be a whole number from 1 to 50" in html.unescape(
        response.content.decode()
    )
    assert _tests() == []
