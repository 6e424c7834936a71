"""The newcomer's pages: the starter kit, the author's page, notifications read from what the
league records, rank changes over 24 hours, the password change."""

from __future__ import annotations

import io
import zipfile
from datetime import timedelta
from typing import Any

import pytest
from archive_samples import manifest

pytestmark = pytest.mark.django_db


def test_the_starter_kit_is_the_folder_arena_bot_new_writes(client: Any) -> None:
    response = client.get("/write-a-bot/starter-kit-python.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = set(zipfile.ZipFile(io.BytesIO(response.content)).namelist())
    assert {"my-bot/bot.toml", "my-bot/bot.py", "my-bot/test_bot.py"} <= names
    kit = zipfile.ZipFile(io.BytesIO(client.get("/write-a-bot/starter-kit-javascript.zip").content))
    assert "my-bot/bot.js" in kit.namelist() and "my-bot/package.json" in kit.namelist()
    assert client.get("/write-a-bot/starter-kit-cobol.zip").status_code == 404
    page = client.get("/write-a-bot/").content.decode()
    assert 'href="/write-a-bot/starter-kit-python.zip"' in page
    assert "arena bot status my-bot --follow" in page
    rules = client.get("/rules/").content.decode()
    assert "Settebello" in rules and "scopone-21" in rules and "to 21 points" in rules


def test_an_authors_page_lists_their_bots(
    client: Any, users: dict[str, Any], played_season: Any
) -> None:
    page = client.get("/authors/owner/").content.decode()
    assert 'href="/bots/my-bot/"' in page and 'href="/bots/third/"' in page
    assert 'href="/bots/greedy/"' not in page
    assert client.get("/authors/nobody/").status_code == 404
    assert 'href="/authors/staff/"' in client.get("/bots/greedy/").content.decode()
    assert client.get("/variants/").status_code == 200
    assert client.get("/challenges/").status_code == 200


def test_notifications_come_from_what_the_league_records_and_are_read_once(
    client: Any,
    users: dict[str, Any],
    ready_versions: list[Any],
    settings: Any,
) -> None:
    from django.core.cache import cache
    from django.utils import timezone

    from webui.league import challenges, versions
    from webui.league.models import Game, LadderEntry, Match
    from webui.web import notifications

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    cache.clear()
    owner, other = users["owner"], users["other"]
    bot = owner.bots.get(name="my-bot")
    one, _ = versions.register_version(
        bot, sha256="1" * 64, manifest={"name": "my-bot"}, source_dir="bots/x"
    )
    versions.finish_validation(one.pk, False, "crash: exit status 1")
    two, _ = versions.register_version(
        bot, sha256="2" * 64, manifest={"name": "my-bot"}, source_dir="bots/y"
    )
    versions.finish_validation(two.pk, True)
    theirs = versions.create_bot(other, "theirs")
    version, _ = versions.register_version(
        theirs, sha256="3" * 64, manifest={"name": "theirs"}, source_dir="bots/z"
    )
    versions.finish_validation(version.pk, True)
    match = challenges.create_challenge(other, bot="theirs", opponent="my-bot", deals=1)
    texts = [n.text for n in notifications.notices(owner)]
    assert "my-bot@2 passed validation and is on the ladder." in texts
    assert "my-bot@1 was refused: crash: exit status 1" in texts
    assert "other challenged my-bot@2 with theirs@1 (1 duplicate deal)." in texts
    assert notifications.unread(owner) == 3

    # The page shows them as new once, then they are read.
    client.force_login(owner)
    page = client.get("/notifications/").content.decode()
    assert page.count('class="badge new"') == 3 and "was refused" in page
    assert notifications.unread(owner) == 0
    assert 'class="badge new"' not in client.get("/notifications/").content.decode()

    # The challenge's result, and three games in a row with a fault of its own.
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE, finished=timezone.now())
    assert LadderEntry.objects.get(bot=bot).status == "active"  # validated: on the ladder
    mine = two.pk
    for index in range(3):
        Game.objects.create(
            match=match,
            index=index,
            variant=match.play_variant(),
            replay={},
            seats=[0, 1],
            players=[version.pk, mine],
            faults=[
                {"seat": 1, "kind": "timeout", "deal": 0, "move": 1},
                {"seat": 0, "kind": "fallback", "deal": 0, "move": 2},
            ],
        )
    cache.clear()
    texts = [n.text for n in notifications.notices(owner)]
    assert any(t.startswith("The challenge theirs@1 v my-bot@2 is over:") for t in texts)
    assert "my-bot@2 faulted in each of its last 3 games (timeout): see its games and log." in texts
    assert notifications.unread(owner) == 2
    # The other side's faults are not the owner's: theirs@1 only fell back (a note).
    assert not any("faulted" in n.text for n in notifications.notices(other))
    assert 'Notifications <span class="count">2</span>' in client.get("/").content.decode()
    # An hour later nothing new.
    later = timezone.now() + timedelta(hours=1)
    assert [n for n in notifications.notices(owner, later) if n.at > later] == []


def test_rank_changes_compare_with_the_ranking_of_24_hours_ago(
    played_season: Any,
    client: Any,
) -> None:
    from django.core.cache import cache
    from django.utils import timezone

    from webui.league import read_models
    from webui.league.models import Rating, RatingHistory, Variant
    from webui.web import reads

    cache.clear()
    variant = Variant.objects.get(slug="scopa")
    rows = reads.leaderboard(variant)
    assert rows and all(r["rank_change"] is None for r in rows)  # all rated today: new
    # Each rating's first point two days old: its rank then is by those first values.
    firsts = {}
    for rating in Rating.objects.filter(variant=variant, pool="solo"):
        first = RatingHistory.objects.filter(rating=rating).order_by("seq").first()
        assert first is not None
        RatingHistory.objects.filter(pk=first.pk).update(created=timezone.now() - timedelta(days=2))
        firsts[rating.pk] = first.conservative
    # History rewritten by hand, not through the league: the cached reads are rebuilt as an
    # operator would after editing the database (``arena season recompute-reads``).
    cache.clear()
    read_models.recompute_reads()
    then = sorted(firsts, key=lambda pk: (-firsts[pk], pk))
    for row in reads.leaderboard(variant):
        was = then.index(row["rating_id"]) + 1
        assert row["rank_before"] == was and row["rank_change"] == was - row["rank"]
    page = client.get("/variants/scopa/").content.decode()
    assert "24 h" in page and (
        'class="up"' in page or 'class="down"' in page or "The same rank as 24 hours ago" in page
    )


def test_a_user_changes_their_password_with_the_old_one(client: Any, users: dict[str, Any]) -> None:
    owner = users["owner"]
    client.force_login(owner)
    wrong = client.post(
        "/accounts/password/",
        {
            "old_password": "nope",
            "new_password1": "a new secret 1",
            "new_password2": "a new secret 1",
        },
    )
    assert (
        wrong.status_code == 400
        and "old password was entered incorrectly" in wrong.content.decode()
    )
    done = client.post(
        "/accounts/password/",
        {
            "old_password": "owner-pass-123",
            "new_password1": "a new secret 1",
            "new_password2": "a new secret 1",
        },
    )
    assert done.status_code == 302 and done["Location"] == "/accounts/"
    owner.refresh_from_db()
    assert owner.check_password("a new secret 1")
    assert client.get("/accounts/").status_code == 200  # this session stays logged in
    assert manifest()  # the helpers module is the web tests' own
