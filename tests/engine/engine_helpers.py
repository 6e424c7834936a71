"""Small helpers shared by the engine tests: positions written as card names."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from hypothesis import HealthCheck, settings

from arena.engine import Deal, Move, parse_cards, parse_move, rank_of, rules_for


def position(
    variant: str,
    hands: list[str],
    table: str,
    *,
    dealer: int | None = None,
    stock: str = "",
    **options: Any,
) -> Deal:
    """A deal from hands and table written as card names; seat 0 moves first by default."""
    rules = rules_for(variant, options)
    if dealer is None:
        dealer = rules.players - 1
    return Deal.from_hands(
        rules, dealer, [parse_cards(h) for h in hands], parse_cards(table), parse_cards(stock)
    )


def names(moves: list[Move]) -> list[str]:
    """Moves as text, in the engine's order."""
    return [m.name for m in moves]


def moves_of(deal: Deal, card: str) -> list[str]:
    """The legal moves that play ``card``."""
    played = parse_move(card).card
    return [m.name for m in deal.legal_moves() if m.card == played]


# Moderate example counts: the whole engine folder runs in well under a minute.
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_force_moves(deal: Deal) -> list[Move]:
    """The legal moves by RULES.md read literally: every subset of the table, tried in turn."""
    rules = deal.rules
    table = deal.table
    subsets = [s for k in range(1, len(table) + 1) for s in combinations(table, k)]
    moves: list[Move] = []
    for card in deal.hands[deal.to_move]:
        value = rank_of(card)
        aces = [(c,) for c in table if rank_of(c) == 1]
        if rules.assi and value == 1:
            if not table:
                caps: list[tuple[int, ...]] = [()]
            elif aces and rules.assi_ace_takes_ace:
                caps = list(aces)
            else:
                caps = [tuple(table)]
        elif rules.quindici:
            caps = [s for s in subsets if sum(rank_of(c) for c in s) + value == 15] or [()]
        else:
            caps = [s for s in subsets if len(s) == 1 and rank_of(s[0]) == value]
            caps = (
                caps
                or [s for s in subsets if len(s) > 1 and sum(rank_of(c) for c in s) == value]
                or [()]
            )
        moves.extend(Move(card, cap) for cap in sorted(tuple(sorted(c)) for c in caps))
    return moves
