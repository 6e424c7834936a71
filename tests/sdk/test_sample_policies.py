"""The greedy and ISMCTS sample bots' policies, in-process (no gRPC)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest

from arena.engine import Deal, Game, Move, Observation, parse_cards, parse_move, rules_for
from sample_bots.greedy.policy import choose_move as greedy_move
from sample_bots.greedy.policy import sweeping_ranks
from sample_bots.ismcts.search import SearchConfig, search


def position(hand: str, table: str, variant: str = "scopa") -> tuple[Observation, list[Move]]:
    """Seat 0 to move with ``hand`` against an opponent holding three unrelated cards."""
    mine = parse_cards(hand)
    table_cards = parse_cards(table)
    used = set(mine) | set(table_cards)
    other = [c for c in parse_cards("10s 9s 8d 10b 9d 8b") if c not in used][: len(mine)]
    deal = Deal.from_hands(rules_for(variant), 1, [mine, other], table_cards)
    assert deal.to_move == 0
    return deal.observation(0), deal.legal_moves()


def greedy(hand: str, table: str) -> str:
    obs, legal = position(hand, table)
    return greedy_move(obs, legal).name


def test_greedy_takes_the_settebello() -> None:
    assert greedy("7s 10c 1d", "7d 4b 6c") == "7s:7d"


def test_greedy_sweeps_the_table_rather_than_take_a_coin() -> None:
    assert greedy("10s 5c 1b", "2c 3b 5d") == "10s:5d+2c+3b"


def test_greedy_takes_sevens_before_coins() -> None:
    assert greedy("6s 7c 8s", "7b 1d 5d 9c 10b") == "7c:7b"


def test_greedy_leaves_no_sweep_even_for_two_sevens() -> None:
    # 7c:7b would leave 3d alone, and a 3 is still unseen: laying the 2 keeps the table at 12.
    assert greedy("7c 2s", "7b 3d") == "2s"


def test_greedy_lays_down_a_high_plain_card_not_a_seven_or_a_coin() -> None:
    assert greedy("7d 1d 8s", "10c 9b") == "8s"


def test_sweeping_ranks_follow_the_capture_rules() -> None:
    assert sweeping_ranks(parse_cards("4c")) == {4}
    assert sweeping_ranks(parse_cards("2c 3b 4d")) == {9}
    assert sweeping_ranks(parse_cards("6c 5b")) == set()
    assert sweeping_ranks(parse_cards("6c 5b"), quindici=True) == {4}


def test_ismcts_is_deterministic_given_its_seed() -> None:
    deal = Game(rules_for("scopone"), 5).new_deal()
    obs, legal = deal.observation(deal.to_move), deal.legal_moves()
    config = SearchConfig(iterations=150, seed=9)
    first, second = search(obs, legal, config), search(obs, legal, config)
    assert first.move == second.move and first.visits == second.visits
    assert first.iterations == 150 and sum(first.visits.values()) == 150


def test_ismcts_answers_a_single_legal_move_without_searching() -> None:
    obs, legal = position("5c", "")
    assert legal == [parse_move("5c")]
    assert search(obs, legal, SearchConfig(iterations=1000)).iterations == 0


Policy = Callable[[Observation, Sequence[Move]], Move]


def duplicate_margins(variant: str, decks: int, hero: Policy, villain: Policy) -> list[int]:
    """The hero's point margin in each deal, every deck played from both sides."""
    rules = rules_for(variant)
    margins = []
    for index in range(decks):
        deck = Game.deck_for(77, index)
        for hero_side in (0, 1):
            deal = Deal.from_deck(rules, index % rules.players, deck)
            while not deal.is_over():
                seat = deal.to_move
                policy = hero if rules.side_of(seat) == hero_side else villain
                deal.apply(policy(deal.observation(seat), deal.legal_moves()))
            points = [p["total"] for p in deal.score().points]
            margins.append(points[hero_side] - points[1 - hero_side])
    return margins


@pytest.mark.slow
def test_ismcts_beats_random_clearly() -> None:
    rng = random.Random(4)
    config = SearchConfig(iterations=100, seed=1)

    def ismcts(obs: Observation, legal: Sequence[Move]) -> Move:
        return search(obs, legal, config).move

    def random_policy(obs: Observation, legal: Sequence[Move]) -> Move:
        return rng.choice(legal)

    margins = duplicate_margins("scopa", 8, ismcts, random_policy)
    wins = sum(m > 0 for m in margins)
    losses = sum(m < 0 for m in margins)
    assert wins >= 3 * losses and wins >= len(margins) * 0.6, margins
    assert sum(margins) >= len(margins), margins  # at least a point a deal on average
