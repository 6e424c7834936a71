"""The continuous ladder: pairing (pure, with hypothesis), entries, scheduling, ladder ratings
apart from season ratings, and challenges with their refusals (PostgreSQL)."""

from __future__ import annotations

import itertools
import math
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from league_helpers import SAMPLES

from arena.ladder import Candidate, pair, urgency

CAP = 3
STARVE = 600.0


candidates_st = st.lists(
    st.builds(
        Candidate,
        version_id=st.integers(1, 10_000),
        owner_id=st.integers(1, 8),
        sigma=st.floats(0.5, 9.0),
        conservative=st.floats(-5.0, 40.0),
        recent=st.integers(0, CAP + 1),
        busy=st.booleans(),
        waited_s=st.one_of(st.just(math.inf), st.floats(0.0, 3000.0)),
    ),
    max_size=14,
    unique_by=lambda c: c.version_id,
)


@settings(max_examples=150, deadline=None)
@given(candidates_st, st.integers(0, 6))
def test_pairs_respect_the_cap_and_never_pair_a_bot_twice_or_with_itself(
    candidates: list[Candidate], slots: int
) -> None:
    by_id = {c.version_id: c for c in candidates}
    pairs = pair(candidates, slots, CAP, STARVE)
    assert len(pairs) <= slots
    seen = [v for p in pairs for v in p]
    assert len(seen) == len(set(seen))  # one new match per bot: recent + 1 <= cap
    for a, b in pairs:
        assert by_id[a].owner_id != by_id[b].owner_id  # never two bots of one owner
        for c in (by_id[a], by_id[b]):
            assert not c.busy and c.recent < CAP


@settings(max_examples=150, deadline=None)
@given(candidates_st, st.integers(1, 6))
def test_the_most_urgent_free_bot_plays_first(candidates: list[Candidate], slots: int) -> None:
    """Starving bots first, then the highest sigma: the first pair starts with the most urgent
    free bot that has any possible opponent."""
    free = [c for c in candidates if not c.busy and c.recent < CAP]
    pairable = [c for c in free if any(o.owner_id != c.owner_id for o in free)]
    pairs = pair(candidates, slots, CAP, STARVE)
    if not pairable:
        assert pairs == []
        return
    top = min(pairable, key=lambda c: urgency(c, STARVE))
    assert pairs and pairs[0][0] == top.version_id
    if all(c.waited_s < STARVE for c in pairable):  # nobody starving: highest sigma first
        assert top.sigma == max(c.sigma for c in pairable)


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 12), st.integers(1, 3), st.integers(1, 2), st.randoms())
def test_nobody_is_starved_over_a_simulated_day(
    n: int, slots: int, per_owner: int, rng: Any
) -> None:
    """Each scheduler beat (60 s) pairs up to ``slots`` matches that finish before the next
    beat. Over a day no bot goes longer without a match than an hour of cap plus the
    starvation limit plus one beat per bot, and none ever exceeds the cap in an hour."""
    cap = 6
    bots = list(range(1, n + 1))
    owner = {v: v // per_owner for v in bots}  # one or two bots per author
    sigma = {v: rng.uniform(1.0, 8.0) for v in bots}
    rating = {v: rng.uniform(0.0, 30.0) for v in bots}
    starts: dict[int, list[float]] = {v: [] for v in bots}
    for beat in range(24 * 60):
        now = beat * 60.0
        cands = [
            Candidate(
                v,
                owner[v],
                sigma[v],
                rating[v],
                sum(1 for t in starts[v] if t > now - 3600.0),
                False,
                now - starts[v][-1] if starts[v] else math.inf,
            )
            for v in bots
        ]
        for a, b in pair(cands, slots, cap, STARVE):
            for v in (a, b):
                starts[v].append(now)
                sigma[v] = max(1.0, sigma[v] * 0.97)
    for v in bots:
        assert starts[v], v
        times = [0.0, *starts[v], 24 * 3600.0]
        longest = max(b - a for a, b in itertools.pairwise(times))
        assert longest <= 3600.0 + STARVE + 60.0 * (n + 2), (v, longest)
        for t in starts[v]:
            assert sum(1 for u in starts[v] if t - 3600.0 < u <= t) <= cap


def test_a_bot_meets_another_neighbour_rather_than_its_last_opponent_again() -> None:
    def bot(version: int, conservative: float, last: int | None) -> Candidate:
        return Candidate(version, version, 1.0, conservative, 0, False, 60.0, last)

    again = [bot(1, 20.0, 2), bot(2, 20.5, 1), bot(3, 21.0, None)]
    assert pair(again, 1, CAP, STARVE, penalty=0.0) == [(1, 2)]  # the closest
    assert pair(again, 1, CAP, STARVE) == [(1, 3)]  # the next closest: not the same pair
    far = [bot(1, 20.0, 2), bot(2, 20.5, 1), bot(3, 30.0, None)]
    assert pair(far, 1, CAP, STARVE) == [(1, 2)]  # unless the others are much further


# ---------------------------------------------------------------------------------------------
# The database side


@pytest.fixture
def world(db: Any, settings: Any) -> dict[str, Any]:
    """Users; random (staff's) and greedy (house's) on the ladder, and owner's bot ``mine``."""
    from django.contrib.auth.models import User

    from webui.league import ladder, versions

    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    settings.ARENA_LADDER_BACKLOG = 2
    settings.ARENA_LADDER_CAP_PER_HOUR = 20
    staff = User.objects.create_user("staff", is_staff=True)
    owner = User.objects.create_user("owner")
    other = User.objects.create_user("other")
    house = User.objects.create_user("house")  # two owners: random and greedy may meet
    samples = [
        versions.register_folder_bot(who, SAMPLES / n)
        for who, n in ((staff, "random"), (house, "greedy"))
    ]
    for v in samples:
        ladder.enter_version(v)
    bot = versions.create_bot(owner, "mine")
    version, _ = versions.register_version(
        bot,
        sha256="a" * 64,
        manifest={"name": "mine", "variants": ["scopa"]},
        source_dir=str(SAMPLES / "random"),
    )
    return {
        "staff": staff,
        "owner": owner,
        "other": other,
        "samples": samples,
        "bot": bot,
        "version": version,
    }


def test_a_version_enters_the_ladder_when_it_passes_validation(world: dict[str, Any]) -> None:
    from webui.league import ladder, variants, versions
    from webui.league.models import LadderEntry

    version = world["version"]
    assert not LadderEntry.objects.filter(bot=world["bot"]).exists()  # validating: not yet
    assert versions.finish_validation(version.pk, True)
    entry = LadderEntry.objects.get(bot=world["bot"])
    assert entry.version_id == version.pk and entry.status == "active"
    variant = variants.get_variant("scopa")
    assert {v.label for v in ladder.active_versions(variant)} == {"random@1", "greedy@1", "mine@1"}


def test_a_refused_version_stays_off_and_the_owner_sees_why(world: dict[str, Any]) -> None:
    from webui.league import ladder, versions
    from webui.league.models import LadderEntry

    version = world["version"]
    versions.finish_validation(version.pk, False, "timeout: no move in 2000 ms")
    assert not LadderEntry.objects.filter(bot=world["bot"]).exists()
    with pytest.raises(ladder.LadderError, match="failed, not ready: timeout: no move"):
        ladder.choose(world["owner"], world["bot"], 1)
    assert not LadderEntry.objects.filter(bot=world["bot"]).exists()


def test_only_the_owner_chooses_and_retired_is_final(world: dict[str, Any]) -> None:
    from webui.league import ladder, variants, versions
    from webui.league.models import LadderEntry

    versions.finish_validation(world["version"].pk, True)
    with pytest.raises(ladder.LadderError, match="only the owner"):
        ladder.choose(world["other"], world["bot"], status="paused")
    with pytest.raises(ladder.LadderError, match="status 'sleeping'"):
        ladder.choose(world["owner"], world["bot"], status="sleeping")
    with pytest.raises(ladder.LadderError, match="has no version 7"):
        ladder.choose(world["owner"], world["bot"], 7)
    random_bot = world["samples"][0].bot
    with pytest.raises(ladder.LadderError, match="only the owner"):  # another user's version
        ladder.choose(world["owner"], random_bot, 1)
    assert LadderEntry.objects.get(bot=world["bot"]).status == "active"
    variant = variants.get_variant("scopa")
    ladder.choose(world["owner"], world["bot"], status="paused")
    assert "mine@1" not in {v.label for v in ladder.active_versions(variant)}
    ladder.choose(world["owner"], world["bot"], status="retired")
    with pytest.raises(ladder.LadderError, match="retired"):
        ladder.choose(world["owner"], world["bot"], status="active")
    assert LadderEntry.objects.get(bot=world["bot"]).status == "retired"


def test_each_ladder_is_scheduled_even_when_its_bots_are_busy_on_another(
    world: dict[str, Any],
    settings: Any,
) -> None:
    from webui.league import ladder
    from webui.league.models import Match

    settings.ARENA_LADDER_VARIANTS = ["scopa", "scopone"]
    first = ladder.schedule()
    kinds = sorted(Match.objects.get(pk=m).variant.slug for m in first)
    assert kinds == ["scopa", "scopone"]  # random v greedy on each ladder, at once
    assert ladder.schedule() == []  # on each, both are busy now


def test_the_scheduler_fills_the_backlog_with_duplicate_deals_and_waits_for_challenges(
    world: dict[str, Any],
) -> None:
    from webui.league import challenges, ladder, versions
    from webui.league.models import Match

    versions.finish_validation(world["version"].pk, True)
    new = ladder.schedule()
    assert len(new) == 1  # three bots: one pair; nobody plays two matches at once
    match = Match.objects.get(pk=new[0])
    assert match.kind == "ladder" and match.season_id is None and match.round_id is None
    assert match.rated and match.games_planned == 2 and match.variant.slug == "scopa"
    assert [s.side for s in match.seats.order_by("index")] == [0, 1]
    a, b = [s.version_id for s in match.seats.order_by("index")]
    from django.utils import timezone

    seen = {c.version_id: c for c in ladder.candidates(match.variant, timezone.now())}
    assert seen[a].last_opponent == b and seen[b].last_opponent == a and seen[a].busy
    assert ladder.schedule() == []  # every free bot is busy or alone
    Match.objects.filter(pk=match.pk).update(status=Match.Status.DONE)
    # A challenge waiting in the queue goes first: no ladder match is added meanwhile.
    challenge = challenges.create_challenge(world["owner"], bot="mine", opponent="greedy")
    assert challenge.priority > match.priority
    assert ladder.schedule() == []
    Match.objects.filter(pk=challenge.pk).update(status=Match.Status.DONE)
    assert len(ladder.schedule()) == 1


def test_the_cap_per_hour_stops_new_matches(world: dict[str, Any], settings: Any) -> None:
    from webui.league import ladder
    from webui.league.models import Match

    settings.ARENA_LADDER_CAP_PER_HOUR = 2
    played = 0
    for _ in range(5):
        new = ladder.schedule()
        played += len(new)
        Match.objects.filter(pk__in=new).update(status=Match.Status.DONE)
    assert played == 2  # random and greedy: the only pair, twice, then the cap
    hour_ago = Match.objects.order_by("created").first()
    assert hour_ago is not None
    Match.objects.update(created=hour_ago.created - timedelta(hours=2))
    assert len(ladder.schedule()) == 1  # an hour later they play again


def test_two_bots_of_one_owner_never_meet_on_the_ladder(world: dict[str, Any]) -> None:
    """The newcomer's report: one owner's two bots met ten ladder matches in a row, because
    the pairing kept apart two versions of one bot but not two bots of one owner."""
    from webui.league import ladder, versions
    from webui.league.models import Match, MatchSeat

    owner = world["owner"]
    versions.finish_validation(world["version"].pk, True)
    second = versions.create_bot(owner, "mine-too")
    version, _ = versions.register_version(
        second,
        sha256="b" * 64,
        manifest={"name": "mine-too", "variants": ["scopa"]},
        source_dir=str(SAMPLES / "random"),
    )
    versions.finish_validation(version.pk, True)
    owners: list[set[int]] = []
    for _ in range(10):
        new = ladder.schedule()
        for match_id in new:
            owners.append(
                set(
                    MatchSeat.objects.filter(match_id=match_id).values_list(
                        "version__bot__owner_id", flat=True
                    )
                )
            )
        Match.objects.filter(pk__in=new).update(status=Match.Status.DONE)
    assert owners and all(len(pair) == 2 for pair in owners), owners
    assert sum(1 for pair in owners if owner.pk in pair) >= 5  # they do play, each other's never
    # Only the owner's two bots free: no match at all.
    for sample in world["samples"]:
        ladder.choose(sample.bot.owner, sample.bot, status="paused")
    assert ladder.schedule() == []


def play(match: Any) -> None:
    """Plays a match in this process with the engine and records it as a worker would."""
    from webui.league import matches
    from webui.web.sampledata import match_report

    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    assert matches.record_result(claim, match_report(match, greedy_entrant=None))
    assert not matches.record_result(claim, match_report(match))  # counted once


def test_ladder_ratings_are_kept_apart_from_season_ratings_and_recompute_alike(
    world: dict[str, Any],
) -> None:
    from webui.league import ladder, seasons, variants
    from webui.league.models import Game, Match, Rating, RatingHistory
    from webui.league.ratings import recompute_ratings, update_ratings

    variant = variants.get_variant("scopa")
    match = Match.objects.get(pk=ladder.schedule()[0])
    play(match)
    update_ratings(variant.pk)
    ratings = {r.key: r for r in Rating.objects.filter(variant=variant)}
    ids = {v.pk for v in world["samples"]}
    assert set(ratings) == {f"l:{i}" for i in ids}
    assert {r.pool for r in ratings.values()} == {"ladder"}
    assert all(r.games == 2 for r in ratings.values())
    assert RatingHistory.objects.filter(rating__variant=variant).count() == 4
    # A season between the same versions rates on the season ladder only.
    from webui.web.sampledata import play_season

    season = seasons.create_season(name="S", variant=variant, entrants=world["samples"])
    seasons.start_season(season)
    play_season(season)
    update_ratings(variant.pk)
    after = {r.key: r for r in Rating.objects.filter(variant=variant)}
    assert {f"v:{i}" for i in ids} | {f"l:{i}" for i in ids} == set(after)
    for key, rating in ratings.items():
        assert (after[key].mu, after[key].games) == (rating.mu, 2)
    assert update_ratings(variant.pk) == 0  # nothing rated twice
    before = {r.key: (round(r.mu, 9), r.games) for r in Rating.objects.filter(variant=variant)}
    recompute_ratings(variant.pk)
    again = {r.key: (round(r.mu, 9), r.games) for r in Rating.objects.filter(variant=variant)}
    assert again == before
    assert Game.objects.filter(match=match, rating_seq__isnull=False).count() == 2


def test_an_unrated_challenge_moves_no_rating_and_is_never_asked_to_be_rated(
    world: dict[str, Any],
) -> None:
    from django.utils import timezone

    from webui.league import challenges, ratings, sweep, variants, versions
    from webui.league.models import Game, Match, Rating

    versions.finish_validation(world["version"].pk, True)
    match = challenges.create_challenge(world["owner"], bot="mine", opponent="random", deals=1)
    assert not match.rated and match.kind == "challenge"
    play(match)
    variant = variants.get_variant("scopa")
    assert ratings.update_ratings(variant.pk) == 0
    assert not Rating.objects.exists()
    assert Game.objects.filter(match=match).count() == 2
    Match.objects.filter(pk=match.pk).update(finished=timezone.now() - timedelta(hours=1))
    assert sweep.requeue_stale() == 0  # no unrated game is taken for a lost rating
    result = challenges.result(Match.objects.get(pk=match.pk))
    assert result.wins + result.draws + result.losses == 2
    assert 0.0 <= result.estimate.los <= 1.0


def test_a_rated_challenge_moves_ladder_ratings(world: dict[str, Any]) -> None:
    from webui.league import challenges, ratings, variants, versions
    from webui.league.models import Rating

    versions.finish_validation(world["version"].pk, True)
    match = challenges.create_challenge(
        world["owner"], bot="mine", opponent="greedy", deals=1, rated=True
    )
    play(match)
    ratings.update_ratings(variants.get_variant("scopa").pk)
    keys = set(Rating.objects.values_list("key", flat=True))
    assert keys == {f"l:{world['version'].pk}", f"l:{world['samples'][1].pk}"}


@pytest.mark.parametrize(
    "kwargs, field, message",
    [
        ({"opponent": "nobody"}, "opponent", "no bot named 'nobody'"),
        ({"opponent": "mine"}, "opponent", "cannot challenge itself"),
        ({"deals": 11}, "deals", "from 1 to 10"),
        ({"deals": 0}, "deals", "from 1 to 10"),
        ({"variant": "scopone"}, "variant", "does not play scopone"),
        ({"variant": "briscola"}, "variant", "variant 'briscola'"),
        ({"bot": "random"}, "bot", "is not yours"),
    ],
)
def test_bad_challenges_are_refused_and_queue_nothing(
    world: dict[str, Any],
    kwargs: dict[str, Any],
    field: str,
    message: str,
) -> None:
    from webui.league import challenges, versions
    from webui.league.models import Match

    versions.finish_validation(world["version"].pk, True)
    args = {"bot": "mine", "opponent": "greedy", **kwargs}
    with pytest.raises(challenges.ChallengeError, match=message) as caught:
        challenges.create_challenge(world["owner"], **args)
    assert caught.value.field == field
    assert not Match.objects.exists()


def test_challenges_of_unvalidated_retired_or_unrated_bots_are_refused(
    world: dict[str, Any],
    settings: Any,
) -> None:
    from webui.league import challenges, ladder, versions
    from webui.league.models import Match

    other_bot = versions.create_bot(world["other"], "theirs")
    versions.register_version(
        other_bot, sha256="b" * 64, manifest={"name": "theirs"}, source_dir=str(SAMPLES / "random")
    )
    with pytest.raises(challenges.ChallengeError, match="your bot 'mine' has no version"):
        challenges.create_challenge(world["owner"], bot="mine", opponent="greedy")
    versions.finish_validation(world["version"].pk, True)
    with pytest.raises(challenges.ChallengeError, match="'theirs' has no version that passed"):
        challenges.create_challenge(world["owner"], bot="mine", opponent="theirs")
    ladder.choose(world["samples"][1].bot.owner, world["samples"][1].bot, status="retired")
    with pytest.raises(challenges.ChallengeError, match="'greedy' is retired"):
        challenges.create_challenge(world["owner"], bot="mine", opponent="greedy")
    ladder.choose(world["owner"], world["bot"], status="paused")
    with pytest.raises(challenges.ChallengeError, match="not active on the ladder"):
        challenges.create_challenge(world["owner"], bot="mine", opponent="random", rated=True)
    assert not Match.objects.exists()
    challenges.create_challenge(world["owner"], bot="mine", opponent="random")  # unrated: yes
    settings.ARENA_CHALLENGES_PER_HOUR = 1
    with pytest.raises(challenges.ChallengeError, match="at most 1") as caught:
        challenges.create_challenge(world["owner"], bot="mine", opponent="random")
    assert caught.value.status == 429
    assert Match.objects.count() == 1


def test_a_bot_has_at_most_so_many_challenges_open(world: dict[str, Any], settings: Any) -> None:
    """Challenges waiting or under way per bot, whoever asked: the next one, from another
    user, against that bot, is a 429 naming the limit, and queues nothing."""
    from webui.league import challenges, versions
    from webui.league.models import Match

    versions.finish_validation(world["version"].pk, True)
    settings.ARENA_CHALLENGES_OPEN_PER_BOT = 1
    first = challenges.create_challenge(world["owner"], bot="mine", opponent="greedy")
    theirs = versions.create_bot(world["other"], "theirs")
    version, _ = versions.register_version(
        theirs, sha256="c" * 64, manifest={"name": "theirs"}, source_dir=str(SAMPLES / "random")
    )
    versions.finish_validation(version.pk, True)
    with pytest.raises(challenges.ChallengeError) as caught:
        challenges.create_challenge(world["other"], bot="theirs", opponent="greedy")
    assert caught.value.status == 429 and caught.value.field == "opponent"
    assert "bot 'greedy' has 1 challenges waiting or under way" in str(caught.value)
    assert "ARENA_CHALLENGES_OPEN_PER_BOT = 1" in str(caught.value)
    assert list(Match.objects.values_list("pk", flat=True)) == [first.pk]
    Match.objects.filter(pk=first.pk).update(status=Match.Status.DONE)
    assert challenges.create_challenge(world["other"], bot="theirs", opponent="greedy")
