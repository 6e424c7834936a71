"""What one seat may see of a deal, and dealing the unseen cards out again for search.

An :class:`Observation` holds exactly what RULES.md lets a seat see: its own hand, the table,
every card played and captured (with who took it), hand and stock sizes, scope, the game's
totals and whose turn it is; never another hand or the stock's order.  Search bots use
:meth:`Observation.unseen_cards` and :meth:`Observation.determinize` to sample full deals
consistent with it.  This module does not decide moves or talk to bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine.cards import DECK, Card, EngineError, Seat, card_name, parse_card
from arena.engine.rng import Shuffler
from arena.engine.state import Deal, Move
from arena.engine.variants import Rules, rules_for


@dataclass(frozen=True)
class Observation:
    """One seat's view of a deal in progress.

    >>> from arena.engine.state import Game
    >>> from arena.engine.rng import Rng
    >>> game = Game(rules_for("scopone"), seed=3)
    >>> deal = game.new_deal()
    >>> obs = deal.observation(0)
    >>> len(obs.hand), obs.hand_sizes, obs.stock_size, len(obs.unseen_cards())
    (9, (9, 9, 9, 9), 0, 27)
    >>> sample = obs.determinize(Rng(1))
    >>> sample.hands[0] == deal.hands[0] and sample.table == deal.table
    True
    """

    # Deal.observation sets an instance's __dict__ to these fields, in this order, instead of
    # calling __init__ (a test checks the two agree): a field added here is added there too.
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
        deal = Deal(self.rules, self.dealer, [self.hand] * self.rules.players, self.table)
        deal._to_move = self.seat
        return deal.legal_moves()

    def determinize(self, rng: Shuffler) -> Deal:
        """A full deal consistent with this view: the unseen cards dealt out at random.

        Other seats get hands of their real sizes and the stock its real size; this seat's
        hand, the table, the piles, scope and history are as observed.  ``rng`` is an
        :class:`arena.engine.rng.Rng` or a :class:`random.Random`.  The deal plays on from
        here but cannot undo moves made before it.
        """
        unseen = sorted(self.unseen_cards())
        needed = sum(n for s, n in enumerate(self.hand_sizes) if s != self.seat) + self.stock_size
        if needed > len(unseen):
            raise EngineError(f"the view needs {needed} unseen cards but only {len(unseen)} exist")
        rng.shuffle(unseen)
        hands: list[list[Card]] = []
        pos = 0
        for s, size in enumerate(self.hand_sizes):
            if s == self.seat:
                hands.append(list(self.hand))
            else:
                hands.append(unseen[pos:pos + size])
                pos += size
        stock = unseen[pos:pos + self.stock_size]
        deal = Deal._restore(
            self.rules, self.dealer, self.to_move, hands, self.table, stock,
            self.captured, self.scope, self.history,
        )
        deal.deal_index = self.deal_index
        deal.game_totals = self.totals
        return deal

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
