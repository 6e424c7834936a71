"""Perft: the number of move sequences to a depth from pinned deals, counted two ways.

The engine's count (legal moves, apply, undo) must equal the pinned number, and, where the
tree is small enough, the count by brute force (every subset of the table, a fresh copy per
move).  A change in move generation, in dealing or in the refill between rounds shows here.
"""

from __future__ import annotations

import pytest
from engine_helpers import brute_force_moves

from arena.engine import Deal, Game, rules_for

PERFT = [
    ("scopa", 8, 712),  # crosses the refill after six plies
    ("scopa-3", 7, 235),
    ("scopa-4", 6, 585),
    ("scopone", 4, 6813),
    ("scientifico", 5, 90823),  # the fifth card is the first that can capture
    ("quindici", 8, 612),
    ("scopa-assi", 8, 648),
]


def perft(deal: Deal, depth: int) -> int:
    if depth == 0 or deal.is_over():
        return 1
    count = 0
    for move in deal.legal_moves():
        deal.apply(move)
        count += perft(deal, depth - 1)
        deal.undo()
    return count


def brute_perft(deal: Deal, depth: int) -> int:
    if depth == 0 or deal.is_over():
        return 1
    count = 0
    for move in brute_force_moves(deal):
        child = deal.clone()
        child.apply(move)
        count += brute_perft(child, depth - 1)
    return count


@pytest.mark.parametrize(("variant", "depth", "expected"), PERFT)
def test_perft_from_a_pinned_deal(variant: str, depth: int, expected: int) -> None:
    deal = Game(rules_for(variant), 2024).new_deal()
    before = deal.state_key()
    assert perft(deal, depth) == expected
    assert deal.state_key() == before
    if expected < 20_000:
        assert brute_perft(deal, depth) == expected
