"""TrueSkill ladders of :mod:`arena.rating`."""

from __future__ import annotations

import random

import pytest

from arena.rating import (
    MU,
    SIGMA,
    Ladder,
    RatedGame,
    entity_key,
    is_provisional,
    key_versions,
    ranks_for,
    recompute,
)


def test_a_side_of_one_version_is_that_version_and_a_mixed_partnership_is_a_team() -> None:
    assert entity_key([4]) == "v:4"
    assert entity_key([4, 4]) == "v:4"
    assert entity_key([9, 4]) == entity_key([4, 9]) == "t:4+9"
    assert key_versions("t:4+9") == [4, 9]


def test_it_rejects_a_bad_key_and_a_bad_winner() -> None:
    with pytest.raises(ValueError, match="not a rating key"):
        key_versions("x:1")
    with pytest.raises(ValueError, match="out of range"):
        ranks_for(2, 2)


def test_the_winner_gains_and_the_loser_drops_and_both_grow_surer() -> None:
    ladder = Ladder()
    winner, loser = ladder.rate(RatedGame(((1, 1), (2, 2)), winner=0))
    assert winner.key == "v:1" and loser.key == "v:2"
    assert winner.mu > MU > loser.mu
    assert winner.sigma < SIGMA and loser.sigma < SIGMA
    assert (winner.wins, winner.losses, loser.wins, loser.losses) == (1, 0, 0, 1)
    assert winner.provisional


def test_a_partnership_of_two_bots_has_its_own_rating() -> None:
    ladder = Ladder()
    ladder.rate(RatedGame(((1, 2), (3, 3)), winner=0))
    assert set(ladder.entries) == {"t:1+2", "v:3"}
    assert "v:1" not in ladder.entries


def test_a_draw_moves_the_underdog_up() -> None:
    ladder = Ladder()
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
    incremental = Ladder()
    for game in games:
        incremental.rate(game)
    assert recompute(games).entries == incremental.entries


def test_provisional_until_enough_games_and_a_narrow_sigma() -> None:
    assert is_provisional(3, 1.0)
    assert is_provisional(50, 4.0)
    assert not is_provisional(50, 1.0)
