"""The league's write paths on PostgreSQL: each run twice counts once."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from league_helpers import SAMPLES, fake_report

from arena.rating import RatedGame, Ratings
from webui.league import errors, matches, ratings, seasons, sweep, variants, versions
from webui.league.models import BotVersion, Game, Match, Rating, RatingHistory, Round, Season

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("staff", is_staff=True)


def make_versions(owner: Any, n: int) -> list[BotVersion]:
    """``n`` ready versions of distinct bots (all running the random sample's code)."""
    out = []
    for i in range(n):
        bot = versions.create_bot(owner, f"bot-{i + 1}")
        version, _ = versions.register_version(
            bot,
            sha256=f"{i:064x}",
            manifest={"name": bot.name},
            source_dir=str(SAMPLES / "random"),
            validate=False,
        )
        out.append(version)
    return out


def play_round(round_: Round, winner_of: Any = lambda match: 0) -> None:
    """Claims and records every match of a round; ``winner_of(match)`` is the winning entrant."""
    for match in round_.matches.order_by("board"):
        claim = matches.claim_match(match.pk)
        assert claim is not None
        w = winner_of(match)
        side_of_game = [w, 1 - w]  # seats [0, 1] then [1, 0]: entrant w sits at side w, then 1-w
        report = fake_report([[0, 1], [1, 0]], side_of_game)
        assert matches.record_result(claim, report)


def test_registering_the_same_archive_twice_gives_one_version(staff: Any) -> None:
    bot = versions.create_bot(staff, "twice")
    first, created = versions.register_version(
        bot, sha256="a" * 64, manifest={}, source_dir="x", validate=False
    )
    again, created_again = versions.register_version(
        bot, sha256="a" * 64, manifest={}, source_dir="x", validate=False
    )
    assert (created, created_again) == (True, False)
    assert first.pk == again.pk
    other, _ = versions.register_version(bot, sha256="b" * 64, manifest={}, source_dir="y")
    assert (first.number, other.number) == (1, 2)
    assert other.status == BotVersion.Status.VALIDATING


def test_it_rejects_a_bad_bot_name_and_a_taken_one(staff: Any) -> None:
    with pytest.raises(errors.LeagueError, match="a-z"):
        versions.create_bot(staff, "Bad Name")
    versions.create_bot(staff, "taken")
    with pytest.raises(errors.LeagueError, match="taken"):
        versions.create_bot(staff, "taken")


def test_validation_is_recorded_once(staff: Any) -> None:
    bot = versions.create_bot(staff, "validated")
    version, _ = versions.register_version(bot, sha256="c" * 64, manifest={}, source_dir="x")
    assert versions.finish_validation(version.pk, False, "crash: exit 1")
    assert not versions.finish_validation(version.pk, True)
    version.refresh_from_db()
    assert (version.status, version.status_reason) == ("failed", "crash: exit 1")


def test_a_variant_is_named_by_its_preset_and_overrides(db: Any) -> None:
    standard = variants.get_variant("scopa")
    custom = variants.get_variant("scopa", {"target": 21})
    assert (standard.slug, standard.standard, standard.players) == ("scopa", True, 2)
    assert custom.slug == "scopa--target-21" and not custom.standard
    assert variants.get_variant("scopa", {"target": 21}).pk == custom.pk
    with pytest.raises(errors.LeagueError):
        variants.get_variant("no-such-game")


def test_it_refuses_seasons_it_cannot_run(staff: Any) -> None:
    versions = make_versions(staff, 3)
    scopa = variants.get_variant("scopa")
    with pytest.raises(errors.LeagueError, match="at least 2"):
        seasons.create_season(name="s", variant=scopa, entrants=versions[:1])
    with pytest.raises(errors.LeagueError, match="twice"):
        seasons.create_season(name="s", variant=scopa, entrants=[versions[0], versions[0]])
    with pytest.raises(errors.LeagueError, match="knockout size"):
        seasons.create_season(name="s", variant=scopa, entrants=versions, knockout_size=4)
    with pytest.raises(errors.LeagueError, match="pairs two sides; variant scopa-3 has 3"):
        seasons.create_season(
            name="s",
            variant=variants.get_variant("scopa-3"),
            entrants=versions,
            format="round-robin",
        )
    BotVersion.objects.filter(pk=versions[2].pk).update(status="validating")
    versions[2].refresh_from_db()
    with pytest.raises(errors.LeagueError, match="not validated"):
        seasons.create_season(name="s", variant=scopa, entrants=versions)
    assert not Season.objects.exists()


def test_a_season_schedules_the_berger_rounds_then_the_knockout_and_finishes(staff: Any) -> None:
    versions = make_versions(staff, 5)
    season = seasons.create_season(
        name="five",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        knockout_size=4,
        seed=3,
    )
    assert seasons.start_season(season)
    assert not seasons.start_season(season)  # twice: counted once
    assert season.rounds.count() == 1
    first = season.rounds.get()
    assert first.plan["bye"] == versions[0].pk  # 5 entrants: table of 6, 6's partner sits out
    assert sorted(m.pairing for m in first.matches.all()) == ["2-5", "3-4"]
    # Entrant with the higher number wins every league match.
    while True:
        current = season.rounds.order_by("-number").first()
        assert current is not None
        if current.phase == "knockout":
            break
        assert seasons.schedule_next_round(season.pk) is None  # not done: nothing new
        play_round(
            current,
            lambda m: 0 if int(m.pairing.split("-")[0]) > int(m.pairing.split("-")[1]) else 1,
        )
        seasons.schedule_next_round(season.pk)
        seasons.schedule_next_round(season.pk)  # twice: one round
    league = seasons.league_standings(season)
    assert [row.number for row in league] == [5, 4, 3, 2, 1]
    semis = season.rounds.get(phase="knockout")
    assert semis.plan["slots"] == [
        [versions[4].pk, versions[1].pk],
        [versions[3].pk, versions[2].pk],
    ]
    play_round(semis, lambda m: 1)  # the lower seeds win the semi-finals
    seasons.schedule_next_round(season.pk)
    final = season.rounds.order_by("-number").first()
    assert final is not None and final.plan["slots"] == [[versions[1].pk, versions[2].pk]]
    play_round(final, lambda m: 0)
    assert seasons.schedule_next_round(season.pk) is None
    season.refresh_from_db()
    assert season.status == "finished"
    assert seasons.season_champion(season) == versions[1]
    assert Round.objects.filter(season=season).count() == 5 + 2


def test_a_match_is_claimed_by_one_worker_and_recorded_once(staff: Any) -> None:
    versions = make_versions(staff, 2)
    season = seasons.create_season(
        name="two", variant=variants.get_variant("scopa"), entrants=versions
    )
    seasons.start_season(season)
    match = Match.objects.get()
    claim = matches.claim_match(match.pk, "w1")
    assert claim is not None and claim.attempt == 1
    assert matches.claim_match(match.pk, "w2") is None  # the lease holds
    report = fake_report([[0, 1], [1, 0]], [0, 0])
    assert matches.record_result(claim, report)
    assert not matches.record_result(claim, report)  # a duplicated task
    assert matches.claim_match(match.pk, "w3") is None  # done is done
    assert Game.objects.filter(match=match).count() == 2
    match.refresh_from_db()
    assert match.status == "done" and match.summary["wins"] == [1, 1]
    assert match.winner is None  # one game each, equal points: a drawn league match


def test_a_dead_workers_claim_expires_and_its_late_result_is_refused(staff: Any) -> None:
    versions = make_versions(staff, 2)
    season = seasons.create_season(
        name="lease", variant=variants.get_variant("scopa"), entrants=versions
    )
    seasons.start_season(season)
    match = Match.objects.get()
    dead = matches.claim_match(match.pk, "dead")
    assert dead is not None
    Match.objects.filter(pk=match.pk).update(lease_until=timezone.now() - timedelta(seconds=1))
    assert sweep.requeue_stale() >= 1
    alive = matches.claim_match(match.pk, "alive")
    assert alive is not None and alive.attempt == 2
    assert not matches.renew_lease(dead)
    assert not matches.record_result(dead, fake_report([[0, 1]], [0]))
    assert matches.record_result(alive, fake_report([[0, 1]], [1]))
    assert Game.objects.get(match=match).winner_entrant == 1


def test_a_lease_is_reckoned_by_the_database_clock_alone(staff: Any, settings: Any) -> None:
    from django.db import connection
    from django.db.models.functions import Now

    settings.ARENA_MATCH_LEASE_S = 7.0
    versions = make_versions(staff, 2)
    season = seasons.create_season(
        name="clock", variant=variants.get_variant("scopa"), entrants=versions
    )
    seasons.start_season(season)
    match = Match.objects.get()
    claim = matches.claim_match(match.pk, "w1")
    assert claim is not None

    def lease_left() -> float:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT EXTRACT(EPOCH FROM lease_until - clock_timestamp()) "
                "FROM league_match WHERE id = %s",
                [match.pk],
            )
            return float(cursor.fetchone()[0])

    # Taken and renewed for a lease from the database's now: never longer than that.
    assert 0 < lease_left() <= 7.0
    assert matches.renew_lease(claim)
    assert 0 < lease_left() <= 7.0
    assert 0 < matches.lease_remaining(match.pk) <= 7.0
    # Whether it ran out is the database's call too: a lease ending a moment after the
    # database's now still holds, one ending before it does not.
    Match.objects.filter(pk=match.pk).update(lease_until=Now() + timedelta(minutes=1))
    assert matches.claim_match(match.pk, "w2") is None
    assert sweep.requeue_stale() == 0
    Match.objects.filter(pk=match.pk).update(lease_until=Now() - timedelta(milliseconds=1))
    assert matches.lease_remaining(match.pk) == 0.0
    assert sweep.requeue_stale() == 1
    taken = matches.claim_match(match.pk, "w2")
    assert taken is not None and taken.attempt == 2
    assert not matches.renew_lease(claim)


def test_ratings_follow_results_in_order_and_recompute_to_the_same_numbers(staff: Any) -> None:
    versions = make_versions(staff, 4)
    season = seasons.create_season(
        name="rated", variant=variants.get_variant("scopa"), entrants=versions, seed=1
    )
    seasons.start_season(season)
    while season.rounds.filter(status="running").exists():
        current = season.rounds.get(status="running")
        play_round(current, lambda m: m.board % 2)
        ratings.update_ratings(season.variant_id)
        seasons.schedule_next_round(season.pk)
    assert ratings.update_ratings(season.variant_id) == 0  # twice: nothing new
    games = list(Game.objects.filter(variant=season.variant).order_by("rating_seq"))
    assert [g.rating_seq for g in games] == list(range(1, 13))
    ladder = Ratings()
    for g in games:
        ladder.rate(RatedGame(((g.players[0],), (g.players[1],)), g.winner_side))
    stored = {r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.all()}
    assert stored == {k: (e.mu, e.sigma, e.games) for k, e in ladder.entries.items()}
    history = RatingHistory.objects.count()
    ratings.recompute_ratings()
    assert {r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.all()} == stored
    assert RatingHistory.objects.count() == history == 24
    table = seasons.league_standings(season)
    assert sum(row.standing.score for row in table) == 12


def test_a_knockout_of_five_gives_byes_and_plays_only_the_real_matches(staff: Any) -> None:
    versions = make_versions(staff, 5)
    season = seasons.create_season(
        name="byes",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        knockout_size=5,
        seed=2,
    )
    seasons.start_season(season)
    # Entrant 1 wins everything, then 2, ...: the league ranks them 1..5.
    while not season.rounds.filter(phase="knockout").exists():
        current = season.rounds.get(status="running")
        play_round(
            current,
            lambda m: 0 if int(m.pairing.split("-")[0]) < int(m.pairing.split("-")[1]) else 1,
        )
        seasons.schedule_next_round(season.pk)
    first = season.rounds.get(phase="knockout")
    ids = [v.pk for v in versions]
    assert first.plan["seeds"] == ids
    assert first.plan["slots"] == [[ids[0], None], [ids[3], ids[4]], [ids[1], None], [ids[2], None]]
    assert [m.pairing for m in first.matches.all()] == ["4-5"]
    play_round(first, lambda m: 1)  # seed 5 beats seed 4
    seasons.schedule_next_round(season.pk)
    semis = season.rounds.order_by("-number").first()
    assert semis is not None
    assert semis.plan["slots"] == [[ids[0], ids[4]], [ids[1], ids[2]]]
    assert sorted(m.pairing for m in semis.matches.all()) == ["1-5", "2-3"]


def test_a_double_round_robin_plays_every_pairing_twice_with_the_seats_reversed(
    staff: Any,
) -> None:
    versions = make_versions(staff, 4)
    season = seasons.create_season(
        name="double",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        double_round_robin=True,
    )
    assert seasons.planned_matches(season) == 12
    seasons.start_season(season)
    pairings = []
    while season.rounds.filter(status="running").exists():
        current = season.rounds.get(status="running")
        pairings += [m.pairing for m in current.matches.all()]
        play_round(current)
        seasons.schedule_next_round(season.pk)
    assert len(pairings) == 12
    firsts, seconds = set(pairings[:6]), set(pairings[6:])
    assert {"-".join(reversed(p.split("-"))) for p in firsts} == seconds


def test_a_match_that_keeps_failing_is_void_and_counts_for_nobody(staff: Any) -> None:
    from workers import tasks

    versions = make_versions(staff, 2)
    season = seasons.create_season(
        name="void", variant=variants.get_variant("scopa"), entrants=versions
    )
    seasons.start_season(season)
    match = Match.objects.get()
    Match.objects.filter(pk=match.pk).update(attempts=tasks.MAX_MATCH_ATTEMPTS)
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: void"
    match.refresh_from_db()
    assert match.status == "void" and "gave up" in match.error
    assert not Game.objects.filter(match=match).exists()
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: void, nothing to do"
    seasons.schedule_next_round(season.pk)
    season.refresh_from_db()
    assert season.status == "finished"
    assert all(row.standing.played == 0 for row in seasons.league_standings(season))


def test_what_a_bot_writes_is_recorded_even_with_text_the_database_cannot_hold(
    staff: Any,
) -> None:
    # A bot's fallback message, its log and its fault details are its own text: a NUL or a
    # lone surrogate in them must not make its match unrecordable (and so void).
    from webui.league.versions import finish_validation

    versions = make_versions(staff, 2)
    season = seasons.create_season(
        name="nul", variant=variants.get_variant("scopa"), entrants=versions
    )
    seasons.start_season(season)
    match = Match.objects.get()
    claim = matches.claim_match(match.pk, "w1")
    assert claim is not None
    report = fake_report([[0, 1], [1, 0]], [0, 1])
    fault = {
        "deal": 0,
        "move": 3,
        "seat": 1,
        "kind": "fallback",
        "detail": "not chosen by the bot: ValueError: \x00\ud800",
    }
    report["games"][0]["faults"] = [fault]
    report["games"][0]["replay"]["faults"] = [fault]
    assert matches.record_result(claim, report)
    game = Game.objects.get(match=match, index=0)
    assert game.faults[0]["detail"] == "not chosen by the bot: ValueError: \ufffd\ufffd"
    assert game.replay["faults"] == game.faults

    version = versions[0]
    BotVersion.objects.filter(pk=version.pk).update(status="validating")
    assert finish_validation(
        version.pk,
        False,
        "crash\x00",
        "log\x00line\ud800",
        {"faults": [fault]},
        [{"faults": [fault]}],
    )
    version.refresh_from_db()
    assert (version.status_reason, version.validation_log) == ("crash\ufffd", "log\ufffdline\ufffd")
