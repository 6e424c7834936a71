"""Small helpers shared by the engine tests: positions written as card names."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, settings

from arena.engine import Deal, Move, parse_cards, parse_move, rules_for


def position(variant: str, hands: list[str], table: str, *, dealer: int | None = None,
             stock: str = "", **options: Any) -> Deal:
    """A deal from hands and table written as card names; seat 0 moves first by default."""
    rules = rules_for(variant, options)
    if dealer is None:
        dealer = rules.players - 1
    return Deal.from_hands(rules, dealer, [parse_cards(h) for h in hands], parse_cards(table),
                           parse_cards(stock))


def names(moves: list[Move]) -> list[str]:
    """Moves as text, in the engine's order."""
    return [m.name for m in moves]


def moves_of(deal: Deal, card: str) -> list[str]:
    """The legal moves that play ``card``."""
    played = parse_move(card).card
    return [m.name for m in deal.legal_moves() if m.card == played]


# Moderate example counts: the whole engine folder runs in well under a minute.
PROPERTY = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
