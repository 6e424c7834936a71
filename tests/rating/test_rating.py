"""TrueSkill ratings and their pools, :mod:`arena.rating`."""

from __future__ import annotations

import random

import pytest

from arena.rating import (
    MU,
    SIGMA,
    RatedGame,
    Ratings,
    entity_key,
    is_partnership_game,
    is_provisional,
    key_pool,
    key_version,
    ranks_for,
    recompute,
)


def test_a_side_of_one_version_is_that_version_and_two_versions_are_partners() -> None:
    assert entity_key([4]) == "v:4"
    assert entity_key([4, 4]) == "v:4"
    assert not is_partnership_game([[4, 4], [9, 9]])
    assert is_partnership_game([[4, 9], [5, 5]])
    assert key_version("p:9") == 9 and key_pool("p:9") == "partners"
    assert key_pool("v:4") == "solo"
    with pytest.raises(ValueError, match="rated as partners"):
        entity_key([9, 4])


def test_it_rejects_a_bad_key_and_a_bad_winner() -> None:
    for bad in ("x:1", "t:4+9", "v:"):
        with pytest.raises(ValueError, match="not a rating key"):
            key_version(bad)
    with pytest.raises(ValueError, match="out of range"):
        ranks_for(2, 2)


def test_the_winner_gains_and_the_loser_drops_and_both_grow_surer() -> None:
    ladder = Ratings()
    winner, loser = ladder.rate(RatedGame(((1, 1), (2, 2)), winner=0))
    assert winner.key == "v:1" and loser.key == "v:2"
    assert winner.mu > MU > loser.mu
    assert winner.sigma < SIGMA and loser.sigma < SIGMA
    assert (winner.wins, winner.losses, loser.wins, loser.losses) == (1, 0, 0, 1)
    assert winner.provisional


def test_partners_are_rated_one_by_one_from_team_updates_on_a_ladder_of_their_own() -> None:
    ladder = Ratings()
    ladder.rate(RatedGame(((1, 1), (2, 2)), winner=0))
    solo = {k: (e.mu, e.sigma) for k, e in ladder.entries.items()}
    changed = ladder.rate(RatedGame(((1, 3), (2, 4)), winner=0))
    assert [e.key for e in changed] == ["p:1", "p:3", "p:2", "p:4"]
    assert {k: (e.mu, e.sigma) for k, e in ladder.entries.items() if k.startswith("v:")} == solo
    # Equal partners gain alike; the winners gain what the losers lose.
    assert ladder.entries["p:1"].mu == pytest.approx(ladder.entries["p:3"].mu)
    assert ladder.entries["p:1"].mu - MU == pytest.approx(MU - ladder.entries["p:2"].mu)
    # A stronger partner shares less of the credit than an untested one.
    for _ in range(20):
        ladder.rate(RatedGame(((5, 6), (7, 8)), winner=0))
        ladder.rate(RatedGame(((5, 7), (6, 8)), winner=0))
    before = {k: ladder.entry(k).mu for k in ("p:5", "p:9")}
    ladder.rate(RatedGame(((5, 9), (6, 8)), winner=0))
    assert ladder.entries["p:9"].mu - before["p:9"] > ladder.entries["p:5"].mu - before["p:5"]
    assert ladder.entries["p:5"].wins == 41 and ladder.entries["p:8"].losses == 41


def test_a_free_for_all_game_is_rated_from_its_full_ranking() -> None:
    ladder = Ratings()
    first, second, third = ladder.rate(RatedGame(((1,), (2,), (3,)), None, places=(0, 1, 2)))
    assert first.mu > second.mu > third.mu
    assert first.mu > MU > third.mu
    assert (first.wins, second.losses, third.losses) == (1, 1, 1)
    tied = Ratings()
    a, b, c = tied.rate(RatedGame(((1,), (2,), (3,)), None, places=(0, 0, 2)))
    assert a.mu == pytest.approx(b.mu, abs=0.01) and a.mu > c.mu
    assert (a.draws, b.draws, c.losses) == (1, 1, 1)
    with pytest.raises(ValueError, match="2 places for 3 sides"):
        tied.rate(RatedGame(((1,), (2,), (3,)), None, places=(0, 1)))


def test_a_draw_moves_the_underdog_up() -> None:
    ladder = Ratings()
    for _ in range(5):
        ladder.rate(RatedGame(((1,), (2,)), winner=0))
    before = ladder.entries["v:2"].mu
    ladder.rate(RatedGame(((1,), (2,)), winner=None))
    assert ladder.entries["v:2"].mu > before
    assert ladder.entries["v:2"].draws == 1


def test_recomputing_the_same_games_gives_the_same_numbers_exactly() -> None:
    rng = random.Random(7)
    games = []
    for _ in range(200):
        a, b = rng.sample(range(1, 7), 2)
        games.append(RatedGame(((a, a), (b, b)), winner=rng.choice([0, 1, None])))
    incremental = Ratings()
    for game in games:
        incremental.rate(game)
    assert recompute(games).entries == incremental.entries


def test_provisional_until_enough_games_and_a_narrow_sigma() -> None:
    assert is_provisional(3, 1.0)
    assert is_provisional(50, 4.0)
    assert not is_provisional(50, 1.0)
