"""Swiss, tables and rotating partnership seasons on the league's tables (PostgreSQL).

The games are real engine games (``webui.web.sampledata``: greedy or random policies, the
runner's seatings), recorded through the league's own claim and record path; the Celery
workers' version of the same seasons is in ``tests/workers``.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise
from typing import Any

import pytest
from league_helpers import SAMPLES
from report_fakes import FakeGame, fake_match_report

from arena.rating import RatedGame, Ratings
from arena.scheduling.whist import whist_rounds
from webui.league import errors, matches, ratings, seasons, variants, versions
from webui.league.models import (
    BotVersion,
    Game,
    Match,
    Rating,
    RatingHistory,
    Round,
    Season,
)
from webui.web.sampledata import play_season

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("staff", is_staff=True)


def make_versions(owner: Any, n: int, variants: list[str] | None = None) -> list[BotVersion]:
    """``n`` ready versions of distinct bots, declaring ``variants`` (default every one)."""
    out = []
    for i in range(n):
        bot = versions.create_bot(owner, f"bot-{i + 1}")
        version, _ = versions.register_version(
            bot,
            sha256=f"{i:064x}",
            manifest={"name": bot.name, "variants": variants or ["*"]},
            source_dir=str(SAMPLES / "random"),
            validate=False,
        )
        out.append(version)
    return out


def refuses(message: str, **kwargs: Any) -> None:
    with pytest.raises(errors.LeagueError) as error:
        seasons.create_season(name="refused", **kwargs)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
    assert not Season.objects.filter(name="refused").exists()


def test_it_refuses_each_season_its_format_cannot_hold_and_creates_nothing(staff: Any) -> None:
    from webui.league.versions import create_bot, register_version

    versions = make_versions(staff, 6)
    scopa, scopa3 = variants.get_variant("scopa"), variants.get_variant("scopa-3")
    scopone = variants.get_variant("scopone")
    refuses(
        "a Swiss of 5 rounds needs at least 6 entrants, not 5",
        variant=scopa,
        entrants=versions[:5],
        format="swiss",
    )  # the default ceil(log2 5) + 2 rounds
    refuses(
        "a Swiss of 6 rounds needs at least 7 entrants, not 6",
        variant=scopa,
        entrants=versions,
        format="swiss",
        rounds=6,
    )
    refuses(
        "rotating partnerships need 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24 or 25 entrants, not 6",
        variant=scopone,
        entrants=versions,
        format="partnerships",
    )
    refuses(
        "format 'partnerships' is for four-player partnership variants",
        variant=scopa,
        entrants=versions[:4],
        format="partnerships",
    )
    refuses(
        "format 'tables' is for variants of three sides or more",
        variant=scopa,
        entrants=versions,
        format="tables",
    )
    refuses(
        "format 'swiss' pairs two sides; variant scopa-3 has 3",
        variant=scopa3,
        entrants=versions,
        format="swiss",
    )
    refuses(
        "a knockout follows only a round-robin, not format 'swiss'",
        variant=scopa,
        entrants=versions,
        format="swiss",
        rounds=3,
        knockout_size=2,
    )
    refuses(
        "only a Swiss season takes a number of rounds",
        variant=scopa,
        entrants=versions,
        rounds=3,
    )
    refuses(
        "format 'ladder': one of round-robin, swiss, tables, partnerships",
        variant=scopa,
        entrants=versions,
        format="ladder",
    )
    # A bot version whose bot.toml lists only two-player variants cannot sit at a table of 3.
    two_player, _ = register_version(
        create_bot(staff, "two-player"),
        sha256="f" * 64,
        manifest={"name": "two-player", "variants": ["scopa", "scopone"]},
        source_dir=str(SAMPLES / "random"),
        validate=False,
    )
    refuses(
        "entrant two-player@1 does not play scopa-3: its bot.toml lists scopa, scopone",
        variant=scopa3,
        entrants=[*versions[:2], two_player],
    )
    BotVersion.objects.filter(pk=versions[0].pk).update(status="validating")
    versions[0].refresh_from_db()
    refuses("not validated yet: bot-1@1", variant=scopa3, entrants=versions[:3])
    assert not Season.objects.exists()


def test_a_swiss_season_pairs_each_round_from_the_finished_ones_and_ranks_by_buchholz(
    staff: Any,
) -> None:
    versions = make_versions(staff, 7)
    greedy = frozenset(v.pk for v in versions[:3])
    season = seasons.create_season(
        name="swiss",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=versions,
        format="swiss",
        seed=5,
    )
    assert (season.format, season.format_options, seasons.planned_matches(season)) == (
        "swiss",
        {"rounds": 5},
        15,
    )
    seasons.start_season(season)
    assert season.rounds.count() == 1  # the next round waits for this one
    first = season.rounds.get()
    assert first.plan["bye"] is not None and len(first.plan["pairings"]) == 3
    assert set(first.plan["scores"].values()) == {0.0}
    played = play_season(season, greedy_versions=greedy)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED and played == 15
    rounds = list(season.rounds.order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3, 4, 5]
    met = Counter(frozenset(p) for r in rounds for p in r.plan["pairings"])
    assert max(met.values()) == 1  # no rematch
    byes = [r.plan["bye"] for r in rounds]
    assert len(set(byes)) == 5  # nobody sits out twice
    # Each round was paired from the scores of the rounds before it.
    table = seasons.league_standings(season)
    for earlier, later in pairwise(rounds):
        assert later.created >= earlier.finished
    assert all(r.plan["rematches"] == 0 for r in rounds)
    by_version = {row.version.pk: row.standing for row in table}
    bye_line = by_version[byes[0]]
    assert bye_line.byes == 1 and bye_line.played == 8  # 4 matches of 2 games
    # Scores are games won (draws half) plus 1 per bye (half a match of 2 games).
    games = Game.objects.filter(match__season=season)
    for version_id, line in by_version.items():
        won = sum(
            1 for g in games if g.winner_side is not None and g.players[g.winner_side] == version_id
        )
        drawn = sum(1 for g in games if g.winner_side is None and version_id in g.players)
        assert line.score == won + drawn / 2 + line.byes
    # Ranked by score, then Buchholz (the opponents' scores summed over the games played).
    keys = [(-row.standing.score, -row.standing.buchholz) for row in table]
    assert keys == sorted(keys)
    assert table[0].standing.buchholz == sum(
        by_version[g.players[1 - g.players.index(table[0].version.pk)]].score
        for g in games
        if table[0].version.pk in g.players
    )
    assert seasons.season_champion(season) == table[0].version


def test_a_season_at_three_seat_tables_seats_everyone_everywhere_and_ranks_the_greedy_first(
    staff: Any,
) -> None:
    versions = make_versions(staff, 6)
    greedy = frozenset(v.pk for v in versions[3:])
    season = seasons.create_season(
        name="three",
        variant=variants.get_variant("scopa-3"),
        entrants=versions,
        seed=9,
        games_per_pairing=2,
    )
    assert (season.format, season.games_per_pairing) == ("tables", 3)  # whole rotations
    assert seasons.planned_matches(season) == 20  # every triple of six
    seasons.start_season(season)
    play_season(season, greedy_versions=greedy)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    games = list(Game.objects.filter(match__season=season))
    assert len(games) == 60
    seats = Counter((vid, seat) for g in games for seat, vid in enumerate(g.players))
    assert {seats[(v.pk, s)] for v in versions for s in range(3)} == {10}
    together = Counter(
        frozenset(p)
        for m in Match.objects.filter(season=season)
        for p in combinations([v.pk for v in m.entrants()], 2)
    )
    assert set(together.values()) == {4}
    table = seasons.league_standings(season)
    assert {row.version.pk for row in table[:3]} == greedy
    assert sum(row.standing.score for row in table) == 60 * 3  # 2 + 1 + 0 a game
    assert all(sum(row.standing.places) == 30 for row in table)
    # The cross-table counts who finished above whom; each pair sat together in 12 games.
    cross = seasons.cross_table(season)
    for a, b in combinations(range(1, 7), 2):
        assert cross[(a, b)] + cross[(b, a)] == 12
    # Ratings from the full ranking: the greedy on top of the scopa-3 leaderboard.
    board = ratings.leaderboard(season.variant)
    assert {r.version_id for r in board[:3]} == greedy
    assert all(r.key.startswith("v:") and r.games == 30 for r in board)
    before = {r.key: (r.mu, r.sigma) for r in board}
    ratings.recompute_ratings(season.variant_id)
    after = {r.key: (r.mu, r.sigma) for r in ratings.leaderboard(season.variant)}
    assert after.keys() == before.keys()
    assert all(after[k] == pytest.approx(before[k], abs=1e-9) for k in before)


def test_a_forfeit_is_last_and_a_void_game_counts_for_nobody_at_a_table(staff: Any) -> None:
    versions = make_versions(staff, 3)
    season = seasons.create_season(
        name="faults", variant=variants.get_variant("scopa-3"), entrants=versions, seed=1
    )
    seasons.start_season(season)
    match = Match.objects.get(season=season)
    claim = matches.claim_match(match.pk)
    assert claim is not None

    report = fake_match_report(
        "scopa-3",
        [
            FakeGame([0, 1, 2], [11, 6, 2], 0),  # entrant 0 first, 1 second, 2 third
            FakeGame([1, 2, 0], [7, 4, 9], None, forfeit=1),  # seat 1 (entrant 2) crashed:
            # last; entrant 0 (9 points) above entrant 1 (7)
            FakeGame([2, 0, 1], [0, 0, 0], None, void="the sandbox failed"),  # nobody
        ],
    )
    assert matches.record_result(claim, report)
    assert not matches.record_result(claim, report)  # twice: once
    table = {row.version.pk: row.standing for row in seasons.league_standings(season)}
    a, b, c = (table[v.pk] for v in versions)
    assert (a.score, a.places, a.played) == (4.0, [2, 0, 0], 2)
    assert (b.score, b.places) == (2.0, [0, 2, 0])
    assert (c.score, c.places) == (0.0, [0, 0, 2])
    ratings.update_ratings(season.variant_id)
    ladder = Ratings()
    ladder.rate(
        RatedGame(((versions[0].pk,), (versions[1].pk,), (versions[2].pk,)), 0, places=(0, 1, 2))
    )
    ladder.rate(
        RatedGame(((versions[1].pk,), (versions[2].pk,), (versions[0].pk,)), None, places=(1, 2, 0))
    )
    stored = {
        r.key: (r.mu, r.sigma, r.games) for r in Rating.objects.filter(variant=season.variant)
    }
    assert stored == {k: (e.mu, e.sigma, e.games) for k, e in ladder.entries.items()}


def test_rotating_partnerships_seat_four_different_bots_and_rate_them_as_partners(
    staff: Any,
) -> None:
    from webui.league.ratings import leaderboard

    versions = make_versions(staff, 5)
    greedy = frozenset({versions[0].pk})
    season = seasons.create_season(
        name="whist",
        variant=variants.get_variant("scopone", {"target": 1}),
        entrants=versions,
        format="partnerships",
        seed=2,
    )
    assert (season.games_per_pairing, seasons.planned_matches(season)) == (4, 5)
    seasons.start_season(season)
    first = season.rounds.get()
    assert len(first.plan["tables"]) == 1 and len(first.plan["sitting_out"]) == 1
    play_season(season, greedy_versions=greedy)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    rounds = list(season.rounds.order_by("number"))
    assert len(rounds) == 5
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    for r in rounds:
        ((a, b, c, d),) = r.plan["tables"]
        partners.update([frozenset((a, c)), frozenset((b, d))])
        opponents.update(frozenset((x, y)) for x in (a, c) for y in (b, d))
    pairs = [frozenset(p) for p in combinations([v.pk for v in versions], 2)]
    assert {partners[p] for p in pairs} == {1} and {opponents[p] for p in pairs} == {2}
    assert [r.plan["sitting_out"] for r in rounds] == [
        [versions[w.sitting_out - 1].pk] for w in whist_rounds(5)
    ]
    # Every game's sides are the table's partnerships, whatever the rotation.
    for g in Game.objects.filter(match__season=season).select_related("match__round"):
        table = g.match.round.plan["tables"][g.match.board]
        sides = {frozenset(g.players[s::2]) for s in range(2)}
        assert sides == {frozenset((table[0], table[2])), frozenset((table[1], table[3]))}
    ratings = list(Rating.objects.filter(variant=season.variant))
    assert {r.pool for r in ratings} == {"partners"}
    assert {r.key for r in ratings} == {f"p:{v.pk}" for v in versions}
    assert all(r.games == 16 for r in ratings)  # 4 tables of 4 games each
    assert leaderboard(season.variant) == []  # the solo ladder is another one
    assert len(leaderboard(season.variant, "partners")) == 5
    table = seasons.league_standings(season)
    assert all(row.standing.played == 16 for row in table)
    assert seasons.cross_table(season) is None  # the rota replaces it


def test_running_the_scheduler_twice_schedules_a_round_once(staff: Any) -> None:
    versions = make_versions(staff, 4)
    season = seasons.create_season(
        name="twice",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        format="swiss",
        rounds=3,
        seed=4,
    )
    seasons.start_season(season)
    assert seasons.schedule_next_round(season.pk) is None  # round 1 is still open
    assert Round.objects.filter(season=season).count() == 1


def test_the_migration_replaces_team_ratings_by_partner_ratings_rated_again(
    staff: Any,
) -> None:
    import sys

    from django.apps import apps
    from django.db.migrations.loader import MigrationLoader

    # The migration's module, as Django's loader imports it (its name starts with a digit).
    loaded = MigrationLoader(None, ignore_no_migrations=True).get_migration(
        "league", "0004_formats"
    )
    migration = sys.modules[type(loaded).__module__]
    versions = make_versions(staff, 4)
    season = seasons.create_season(
        name="old",
        variant=variants.get_variant("scopone"),
        entrants=versions,
        format="partnerships",
        seed=1,
    )
    seasons.start_season(season)
    play_season(season)
    ratings.update_ratings(season.variant_id)
    rated = Game.objects.filter(match__season=season).count()
    assert Rating.objects.filter(variant=season.variant, pool="partners").count() == 4
    # As an older installation had it: those games rated for team entities only.
    Rating.objects.filter(variant=season.variant).delete()
    team = Rating.objects.create(
        variant=season.variant,
        key=f"t:{versions[0].pk}+{versions[2].pk}",
        version=versions[0],
        mu=30.0,
        sigma=5.0,
        conservative=15.0,
    )
    for game in Game.objects.filter(match__season=season):
        RatingHistory.objects.create(
            rating=team, game=game, seq=game.rating_seq, mu=30.0, sigma=5.0, conservative=15.0
        )
    migration.drop_team_ratings(apps, None)
    assert not RatingHistory.objects.exists()
    assert not Rating.objects.filter(key__startswith="t:").exists()
    assert not Game.objects.filter(match__season=season, rating_seq__isnull=False).exists()
    assert ratings.update_ratings(season.variant_id) == rated
    assert {r.key for r in Rating.objects.filter(variant=season.variant)} == {
        f"p:{v.pk}" for v in versions
    }
