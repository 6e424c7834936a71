"""Version tests' pages without workers: who may see, start, stop and promote a test, and
what bad input is told. (The test played to a decision on real workers is in
``tests/workers/test_sprt_on_workers.py``.)"""

from __future__ import annotations

import html
from typing import Any

import pytest
from sample_versions import sample_versions

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_versions(settings: Any) -> dict[str, Any]:
    """Bot ``mine`` of user ``author``: version 1 (random) on the ladder, version 2 (greedy)
    ready; and another user."""
    from django.contrib.auth.models import User

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.ARENA_LADDER_VARIANTS = ["scopa:target=1"]
    author = User.objects.create_user("author", password="author-pass-123")
    other = User.objects.create_user("other", password="other-pass-123")
    bot, made = sample_versions(author, "mine", ("random", "greedy"))
    return {"author": author, "other": other, "bot": bot, "old": made[0], "new": made[1]}


def test_it_shows_the_tests_to_the_owner_and_refuses_others(
    two_versions: dict[str, Any], client: Any
) -> None:
    client.force_login(two_versions["other"])
    assert client.get("/bots/mine/tests/").status_code == 403
    refused = client.post("/bots/mine/tests/", {"version": "2"})
    assert refused.status_code == 403
    from webui.training.models import SprtTest

    assert not SprtTest.objects.exists()
    client.force_login(two_versions["author"])
    page = client.get("/bots/mine/tests/")
    assert page.status_code == 200 and b"mine@2" in page.content and b"sprt-form" in page.content


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"version": "x"}, "version:"),
        ({"version": "9"}, "version: bot 'mine' has no version 9"),
        ({"version": "1"}, "is the ladder version already"),
        ({"version": "2", "elo1": "-5"}, "elo1"),
        ({"version": "2", "alpha": "two"}, "alpha:"),
        ({"version": "2", "max_pairs": "0"}, "max_pairs"),
    ],
)
def test_it_rejects_a_bad_test_naming_the_field(
    two_versions: dict[str, Any], client: Any, form: dict[str, str], words: str
) -> None:
    from webui.training.models import SprtTest

    client.force_login(two_versions["author"])
    response = client.post("/bots/mine/tests/", form)
    assert response.status_code == 400
    assert words in html.unescape(response.content.decode())
    assert not SprtTest.objects.exists()


def test_only_the_owner_promotes_and_only_after_h1(
    two_versions: dict[str, Any], client: Any
) -> None:
    from django.test import Client

    from webui.league.models import LadderEntry
    from webui.training import sprt_tests
    from webui.training.models import SprtTest

    test = sprt_tests.create_test(two_versions["author"], two_versions["bot"], 2, elo1=20)
    assert test.status == SprtTest.Status.RUNNING and test.old_version_id == two_versions["old"].pk
    url = f"/bots/mine/tests/{test.pk}/promote/"
    client.force_login(two_versions["author"])
    early = client.post(url)
    assert early.status_code == 302
    assert LadderEntry.objects.get(bot=two_versions["bot"]).version_id == two_versions["old"].pk
    SprtTest.objects.filter(pk=test.pk).update(status=SprtTest.Status.H1)
    client.force_login(two_versions["other"])
    assert client.post(url).status_code == 403
    assert LadderEntry.objects.get(bot=two_versions["bot"]).version_id == two_versions["old"].pk
    guarded = Client(enforce_csrf_checks=True)
    guarded.force_login(two_versions["author"])
    assert guarded.post(url).status_code == 403  # no CSRF token
    assert LadderEntry.objects.get(bot=two_versions["bot"]).version_id == two_versions["old"].pk
    client.force_login(two_versions["author"])
    page = client.get(f"/bots/mine/tests/{test.pk}/")
    assert b"promote-form" in page.content and b"<svg" in page.content
    assert client.post(url).status_code == 302
    assert LadderEntry.objects.get(bot=two_versions["bot"]).version_id == two_versions["new"].pk
    assert SprtTest.objects.get(pk=test.pk).promoted is not None


def test_a_pair_is_counted_once_and_the_test_decides(two_versions: dict[str, Any]) -> None:
    from webui.training import sprt_tests
    from webui.training.models import SprtPair, SprtTest

    test = sprt_tests.create_test(
        two_versions["author"], two_versions["bot"], 2, elo0=0, elo1=200, max_pairs=100
    )
    assert sprt_tests.claim_pair(test.pk) == 0
    assert sprt_tests.record_pair(test.pk, 0, [1.0, 1.0], [])
    assert not sprt_tests.record_pair(test.pk, 0, [1.0, 1.0], [])  # run it twice, count once
    assert SprtTest.objects.get(pk=test.pk).counts == [0, 0, 0, 0, 1]
    index = 1
    while SprtTest.objects.get(pk=test.pk).status == SprtTest.Status.RUNNING:
        sprt_tests.record_pair(test.pk, index, [1.0, 1.0], [])
        index += 1
        assert index < 100
    done = SprtTest.objects.get(pk=test.pk)
    assert done.status == SprtTest.Status.H1 and done.llr >= sprt_tests.Sprt(elo0=0, elo1=200).upper
    assert len(done.history) == SprtPair.objects.filter(test=done).count()
    assert sprt_tests.claim_pair(test.pk) is None
