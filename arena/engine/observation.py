"""What one seat may see of a deal, and dealing the unseen cards out again for search.

An :class:`Observation` holds exactly what RULES.md lets a seat see: its own hand, the table,
every card played and captured (with who took it), hand and stock sizes, scope, the game's
totals and whose turn it is; never another hand or the stock's order.  Search bots use
:meth:`Observation.unseen_cards` and :meth:`arena.engine.state.Deal.determinize` to sample full
deals consistent with it.  A deal builds its seats' views (:meth:`arena.engine.state.Deal.
observation`) through the constructor; this module needs nothing of the deal's state.  It does
not decide moves or talk to bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine.cards import DECK, Card, EngineError, Seat, card_name, parse_card
from arena.engine.moves import Move, legal_moves
from arena.engine.variants import Rules, rules_for


@dataclass(frozen=True)
class Observation:
    """One seat's view of a deal in progress.

    >>> from arena.engine.cards import parse_cards
    >>> obs = Observation(rules=rules_for("scopa"), seat=0, to_move=0, dealer=1,
    ...     hand=tuple(parse_cards("5c 10b 8s")), table=tuple(parse_cards("3d 5b 5s 8d")),
    ...     hand_sizes=(3, 3), stock_size=30, history=(), captured=((), ()), scope=(0, 0),
    ...     totals=(0, 0))
    >>> len(obs.unseen_cards()), [m.name for m in obs.legal_moves()]
    (33, ['5c:5b', '5c:5s', '10b:5b+5s', '8s:8d'])
    """

    rules: Rules
    seat: Seat
    to_move: Seat
    dealer: Seat
    hand: tuple[Card, ...]
    table: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    history: tuple[tuple[Seat, Move], ...]
    captured: tuple[tuple[Card, ...], ...]
    scope: tuple[int, ...]
    totals: tuple[int, ...]
    deal_index: int = 0

    def unseen_cards(self) -> frozenset[Card]:
        """The cards this seat has not seen: the other hands and the stock, together."""
        seen = set(self.hand)
        seen.update(self.table)
        for pile in self.captured:
            seen.update(pile)
        return frozenset(c for c in DECK if c not in seen)

    def legal_moves(self) -> list[Move]:
        """This seat's legal moves when it is its turn (else an empty list)."""
        if self.seat != self.to_move or not self.hand:
            return []
        return legal_moves(self.rules, self.hand, self.table)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form (cards by name)."""

        def names(cards: tuple[Card, ...]) -> list[str]:
            return [card_name(c) for c in cards]

        return {
            "variant": self.rules.variant,
            "options": self.rules.options(),
            "seat": self.seat,
            "to_move": self.to_move,
            "dealer": self.dealer,
            "hand": names(self.hand),
            "table": names(self.table),
            "hand_sizes": list(self.hand_sizes),
            "stock_size": self.stock_size,
            "history": [{"seat": s, **m.to_json()} for s, m in self.history],
            "captured": [names(p) for p in self.captured],
            "scope": list(self.scope),
            "totals": list(self.totals),
            "deal_index": self.deal_index,
        }

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Observation:
        """The inverse of :meth:`to_json`; bad input raises :class:`EngineError`."""
        try:
            return cls(
                rules=rules_for(obj["variant"], obj.get("options") or {}),
                seat=int(obj["seat"]),
                to_move=int(obj["to_move"]),
                dealer=int(obj["dealer"]),
                hand=tuple(parse_card(c) for c in obj["hand"]),
                table=tuple(parse_card(c) for c in obj["table"]),
                hand_sizes=tuple(int(n) for n in obj["hand_sizes"]),
                stock_size=int(obj["stock_size"]),
                history=tuple((int(h["seat"]), Move.from_json(h)) for h in obj["history"]),
                captured=tuple(tuple(parse_card(c) for c in p) for p in obj["captured"]),
                scope=tuple(int(n) for n in obj["scope"]),
                totals=tuple(int(n) for n in obj["totals"]),
                deal_index=int(obj.get("deal_index", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, EngineError):
                raise
            raise EngineError(f"not an observation: {exc}") from None
