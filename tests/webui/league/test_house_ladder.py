"""The demo's house matches: its sample bots (one owner's, which the ladder's pairing never
sets against each other) play each other on an idle ladder, a match at a time, after a pause,
taking turns, and without using up the cap that keeps them free for a visitor's bot
(PostgreSQL)."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
from league_helpers import SAMPLES

pytestmark = pytest.mark.django_db


@pytest.fixture
def house(settings: Any) -> dict[str, Any]:
    """The three sample bots, all the house account's, on the scopa ladder."""
    from django.contrib.auth.models import User

    from webui.league import ladder, variants, versions

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    settings.ARENA_LADDER_BACKLOG = 2
    settings.ARENA_LADDER_CAP_PER_HOUR = 3
    owner = User.objects.create_user("arena", is_staff=True)
    samples = [
        versions.register_folder_bot(owner, SAMPLES / name, validate=False)
        for name in ("random", "greedy", "ismcts")
    ]
    for version in samples:
        ladder.enter_version(version)
    return {"owner": owner, "samples": samples, "variant": variants.get_variant("scopa")}


def finish(match_id: int, ago_s: float = 3600.0) -> None:
    """Marks a match played, ``ago_s`` seconds ago."""
    from django.utils import timezone

    from webui.league.models import Match

    Match.objects.filter(pk=match_id).update(
        status=Match.Status.DONE, finished=timezone.now() - timedelta(seconds=ago_s)
    )


def entrants(match_id: int) -> set[str]:
    from webui.league.models import MatchSeat

    return set(
        MatchSeat.objects.filter(match_id=match_id).values_list("version__bot__name", flat=True)
    )


def test_the_ladder_never_pairs_the_house_bots_but_a_house_match_fills_it_when_idle(
    house: dict[str, Any],
) -> None:
    from webui.league import ladder
    from webui.league.models import Match

    assert ladder.schedule() == []  # one owner's bots: the pairing sets none against another
    first = ladder.house_match(house["owner"], house["variant"], pause_s=5)
    assert first is not None
    match = Match.objects.get(pk=first)
    assert match.kind == Match.Kind.LADDER and match.rated and match.games_planned == 2
    assert len(entrants(first)) == 2
    # One at a time: nothing more while it is open, scheduled or running.
    assert ladder.house_match(house["owner"], house["variant"], pause_s=5) is None
    Match.objects.filter(pk=first).update(status=Match.Status.RUNNING)
    assert ladder.house_match(house["owner"], house["variant"], pause_s=5) is None
    # Just finished: the pause first, then the next.
    finish(first, ago_s=1)
    assert ladder.house_match(house["owner"], house["variant"], pause_s=5) is None
    finish(first, ago_s=6)
    assert ladder.house_match(house["owner"], house["variant"], pause_s=5) is not None


def test_the_three_samples_take_turns_and_play_past_the_cap(house: dict[str, Any]) -> None:
    """Twelve house matches in a row, four times the cap of three an hour: every pair meets,
    none sits out twice in a row, and the ladder keeps playing."""
    from webui.league import ladder

    pairs = []
    for _ in range(12):
        match_id = ladder.house_match(house["owner"], house["variant"], pause_s=0)
        assert match_id is not None
        pairs.append(frozenset(entrants(match_id)))
        finish(match_id)
    assert set(pairs) == {
        frozenset({"random", "greedy"}),
        frozenset({"random", "ismcts"}),
        frozenset({"greedy", "ismcts"}),
    }
    for before, after in itertools.pairwise(pairs):
        assert before != after, pairs


def test_a_visitors_bot_goes_first_and_house_matches_leave_its_opponents_free(
    house: dict[str, Any],
) -> None:
    """House matches do not count towards the cap: after many, a visitor's new bot still
    finds the samples free, and is scheduled before any house match."""
    from django.contrib.auth.models import User

    from webui.league import ladder, versions
    from webui.league.models import Match

    for _ in range(6):  # twice the cap for each sample
        match_id = ladder.house_match(house["owner"], house["variant"], pause_s=0)
        assert match_id is not None
        finish(match_id, ago_s=60)
    visitor = User.objects.create_user("visitor")
    bot = versions.create_bot(visitor, "mine")
    mine, _ = versions.register_version(
        bot,
        sha256="a" * 64,
        manifest={"name": "mine", "variants": ["scopa"]},
        source_dir=str(SAMPLES / "random"),
    )
    versions.finish_validation(mine.pk, True)  # it enters the ladder
    new = ladder.schedule()
    assert len(new) == 1 and "mine" in entrants(new[0])
    # The visitor's match is open: no house match beside it.
    assert ladder.house_match(house["owner"], house["variant"], pause_s=0) is None
    Match.objects.filter(pk=new[0]).update(status=Match.Status.DONE)


@pytest.mark.parametrize("raw", ["abc", "-1", "nan", "3601", "1e400"])
def test_it_rejects_a_pause_that_is_not_seconds_quoting_it(
    raw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webui.commands.demo import PAUSE_ENV, house_pause_s

    monkeypatch.setenv(PAUSE_ENV, raw)
    with pytest.raises(ValueError, match=f"{PAUSE_ENV}='{raw}'"):
        house_pause_s()


def test_the_pause_defaults_to_five_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    from webui.commands.demo import PAUSE_ENV, house_pause_s

    monkeypatch.delenv(PAUSE_ENV, raising=False)
    assert house_pause_s() == 5.0
    monkeypatch.setenv(PAUSE_ENV, "0.5")
    assert house_pause_s() == 0.5
