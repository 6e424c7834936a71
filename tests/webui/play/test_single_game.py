"""The runner's single games (``MatchSpec.duplicate=False``), which the Play page plays: exactly
the games asked for, each dealt from its own seed, the seats rotating from game to game."""

from __future__ import annotations

from arena.runner import BotRef, MatchSpec, run_match


def spec(games: int, duplicate: bool) -> MatchSpec:
    return MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")],
        "scopa",
        options={"target": 1},
        games=games,
        duplicate=duplicate,
        seed=7,
        sandbox=False,
    )


def test_one_game_is_one_game_not_a_duplicate_set() -> None:
    assert len(run_match(spec(1, duplicate=True)).games) == 2  # rounded up to a whole set
    report = run_match(spec(1, duplicate=False))
    assert [g.seats for g in report.games] == [[0, 1]]
    assert report.games[0].void is None and report.games[0].moves > 0


def test_single_games_rotate_the_seats_and_deal_each_its_own_cards() -> None:
    report = run_match(spec(3, duplicate=False))
    assert [g.seats for g in report.games] == [[0, 1], [1, 0], [0, 1]]
    assert len({g.seed for g in report.games}) == 3
    duplicate = run_match(spec(2, duplicate=True))
    assert len({g.seed for g in duplicate.games}) == 1  # a duplicate set deals the same cards
