"""A seat's observation as a fixed-size vector, and back: exactly the protocol's information.

:class:`ObservationLayout` turns an :class:`arena.engine.Observation` (what the protocol sends
a bot: RULES.md, "What each player sees") into a ``float32`` vector of a size fixed by the
rules, and :meth:`ObservationLayout.decode` turns the vector back into the same Observation, so
the vector holds that information and nothing more: it is computed from the Observation alone,
and a test decodes it at random points of every variant.

Seats and sides are relative to the observing seat (0 is itself, 1 the seat after it; side 0
its own side), so one policy can play every seat.  The vector, in order:

=========================  ==========  ==================================================
part                       size        value
=========================  ==========  ==================================================
hand                       40          1 for each card in the seat's hand
table                      40          1 for each card face up on the table
pile of side k             40 x sides  1 for each card in that side's pile
played by seat p           40 x seats  1 for each card that seat played in this deal
played at                  40          ``(t + 1) / 40`` for the card played as move t of
                                       the deal (0..39), else 0
taken at                   40          ``(t + 1) / 40`` for a table card taken by move t
to move                    seats       one-hot: whose turn it is
dealer                     seats       one-hot: who dealt
hand sizes                 seats       cards in each hand / 10
stock                      1           cards in the stock / 40
scope                      sides       this deal's scope of each side / 10
totals                     sides       each side's game points before this deal / target
deal                       1           the deal's index in the game / 10
=========================  ==========  ==================================================

The deal's history (every move, who made it, what it took) is the "played by", "played at"
and "taken at" parts together.  Everything is between 0 and 1 except scope (at most 4: 40
sweeps), totals and the deal index, which a long game can push past any bound: their Box
bound is :data:`UNBOUNDED_HIGH`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.engine import Card, Move, Observation, Rules, Seat

UNBOUNDED_HIGH = 1.0e6
"""The Box bound of the totals and the deal index (a game's points have no upper bound)."""
PLAYS = 40.0  # the scale of move numbers: a deal has at most 40 moves


class ObservationLayout:
    """Where each part of a seat's observation lies in the vector of one set of rules.

    >>> from arena.engine import Game, rules_for
    >>> layout = ObservationLayout(rules_for("scopone"))
    >>> layout.size
    418
    >>> deal = Game(rules_for("scopone"), seed=5).new_deal()
    >>> obs = deal.observation(2)
    >>> layout.decode(layout.encode(obs), seat=2) == obs
    True
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        seats = self.seats = rules.players
        sides = self.sides = rules.num_sides
        at = 0

        def take(width: int) -> int:
            nonlocal at
            start, at = at, at + width
            return start

        self.hand = take(40)
        self.table = take(40)
        self.piles = take(40 * sides)
        self.played_by = take(40 * seats)
        self.played_at = take(40)
        self.taken_at = take(40)
        self.to_move = take(seats)
        self.dealer = take(seats)
        self.hand_sizes = take(seats)
        self.stock = take(1)
        self.scope = take(sides)
        self.totals = take(sides)
        self.deal = take(1)
        self.size = at
        high = np.ones(self.size, dtype=np.float32)
        high[self.scope : self.scope + sides] = 4.0
        high[self.totals : self.totals + sides] = UNBOUNDED_HIGH
        high[self.deal] = UNBOUNDED_HIGH
        self.high = high

    def box_bounds(self) -> tuple[Any, Any]:
        """The ``low`` and ``high`` arrays of the observation's Box."""
        return np.zeros(self.size, dtype=np.float32), self.high.copy()

    def encode(self, obs: Observation) -> Any:
        """The vector of an observation (a new ``float32`` array)."""
        rules = self.rules
        seats, sides = self.seats, self.sides
        me = obs.seat
        my_side = rules.side_of(me)
        vec = np.zeros(self.size, dtype=np.float32)
        ones: list[int] = [self.hand + c for c in obs.hand]
        ones += [self.table + c for c in obs.table]
        for side, pile in enumerate(obs.captured):
            base = self.piles + 40 * ((side - my_side) % sides)
            ones += [base + c for c in pile]
        played_by, played_at, taken_at = self.played_by, self.played_at, self.taken_at
        for t, (seat, move) in enumerate(obs.history):
            card, capture = move
            ones.append(played_by + 40 * ((seat - me) % seats) + card)
            when = (t + 1) / PLAYS
            vec[played_at + card] = when
            for c in capture:
                vec[taken_at + c] = when
        ones.append(self.to_move + (obs.to_move - me) % seats)
        ones.append(self.dealer + (obs.dealer - me) % seats)
        vec[ones] = 1.0
        for seat, size in enumerate(obs.hand_sizes):
            vec[self.hand_sizes + (seat - me) % seats] = size / 10.0
        vec[self.stock] = obs.stock_size / 40.0
        target = float(rules.target)
        for side in range(sides):
            k = (side - my_side) % sides
            vec[self.scope + k] = obs.scope[side] / 10.0
            vec[self.totals + k] = obs.totals[side] / target
        vec[self.deal] = obs.deal_index / 10.0
        return vec

    def decode(self, vec: Any, seat: Seat) -> Observation:
        """The observation of ``seat`` that :meth:`encode` turned into ``vec``."""
        rules = self.rules
        seats, sides = self.seats, self.sides
        my_side = rules.side_of(seat)
        values = np.asarray(vec, dtype=np.float64)

        def cards(start: int) -> tuple[Card, ...]:
            return tuple(int(c) for c in np.flatnonzero(values[start : start + 40] > 0.5))

        def count(value: float, scale: float) -> int:
            return round(value * scale)

        def absolute(relative: int) -> Seat:
            return (seat + relative) % seats

        captured: list[tuple[Card, ...]] = [()] * sides
        for k in range(sides):
            captured[(my_side + k) % sides] = cards(self.piles + 40 * k)
        moves: dict[int, tuple[Seat, Card]] = {}
        for p in range(seats):
            for card in cards(self.played_by + 40 * p):
                moves[count(values[self.played_at + card], PLAYS) - 1] = (absolute(p), card)
        taken: dict[int, list[Card]] = {}
        for card in range(40):
            if values[self.taken_at + card] > 0:
                taken.setdefault(count(values[self.taken_at + card], PLAYS) - 1, []).append(card)
        history = tuple((moves[t][0], Move(moves[t][1], taken.get(t, ()))) for t in sorted(moves))

        def one_hot(start: int) -> Seat:
            return absolute(int(np.argmax(values[start : start + seats])))

        target = float(rules.target)
        scope = [0] * sides
        totals = [0] * sides
        for k in range(sides):
            side = (my_side + k) % sides
            scope[side] = count(values[self.scope + k], 10.0)
            totals[side] = count(values[self.totals + k], target)
        hand_sizes = [0] * seats
        for p in range(seats):
            hand_sizes[absolute(p)] = count(values[self.hand_sizes + p], 10.0)
        return Observation(
            rules=rules,
            seat=seat,
            to_move=one_hot(self.to_move),
            dealer=one_hot(self.dealer),
            hand=cards(self.hand),
            table=cards(self.table),
            hand_sizes=tuple(hand_sizes),
            stock_size=count(values[self.stock], 40.0),
            history=history,
            captured=tuple(captured),
            scope=tuple(scope),
            totals=tuple(totals),
            deal_index=count(values[self.deal], 10.0),
        )


__all__ = ["UNBOUNDED_HIGH", "ObservationLayout"]
