"""The planted cheaters of the fair-play audit's tests and benchmark: policies the test harness
hands the true deal, so each sees its opponents' or its partner's hands without any hole in the
sandbox.  They live in the test suite only (never in the library, never a bot that could be
uploaded); ``arena bench fairplay`` loads this file from a checkout.

``peek-greedy`` plays the move that does best against the opponent's real reply,
``peek-search`` searches three plies of the true deal, ``partner-peek`` (scopone) averages a
round's play over deals where only its partner's hand is the true one, and ``tenth`` plays as
``peek-greedy`` in one decision in ten and as the honest ``sampler`` otherwise.  They weigh
cards by the honest ``sampler``'s weights (:func:`arena.bench.fairplay.gain`), not the audit's.
"""

from __future__ import annotations

import math
import random

from arena.audit.decisions import partner_of, resample
from arena.bench.fairplay import Policy, best_of, gain, greedy_line, sampler
from arena.engine import Deal, Move


def peek_greedy(deal: Deal, rng: random.Random) -> Move:
    """The move that does best against the opponent's real reply (every hand seen)."""
    return best_of(deal, [greedy_line(deal, m, 2) for m in deal.legal_moves()])


def _search(deal: Deal, depth: int) -> float:
    """The best a seat to move can do over ``depth`` plies with every hand known (each side
    maximizing its own gain less the other's), from the mover's side."""
    if depth == 0 or deal.is_over():
        return 0.0
    rules = deal.rules
    me = rules.side_of(deal.to_move)
    best = -math.inf
    for move in deal.legal_moves():
        value = gain(deal, move)
        deal.apply_unchecked(move)
        after = _search(deal, depth - 1)
        same = rules.side_of(deal.to_move) == me
        deal.undo()
        best = max(best, value + (after if same else -after))
    return best


def peek_search(deal: Deal, rng: random.Random) -> Move:
    """A three-ply search of the true deal (every hand seen), each side playing its best
    against the other's real cards."""
    rules = deal.rules
    me = rules.side_of(deal.to_move)
    values = []
    for move in deal.legal_moves():
        value = gain(deal, move)
        deal.apply_unchecked(move)
        after = _search(deal, 2)
        seat = deal.to_move
        deal.undo()
        values.append(value + (after if rules.side_of(seat) == me else -after))
    return best_of(deal, values)


def partner_peek(deal: Deal, rng: random.Random) -> Move:
    """(Partnerships) a round's play averaged over deals where the partner's hand is the true
    one and only the opponents' hands are sampled."""
    seat = deal.to_move
    partner = partner_of(deal, seat)
    keep = () if partner is None else (partner,)
    moves = deal.legal_moves()
    totals = [0.0] * len(moves)
    for _ in range(4):
        sample = resample(deal, seat, keep, rng)
        for i, move in enumerate(moves):
            totals[i] += greedy_line(sample, move, deal.rules.players)
    return best_of(deal, totals)


def tenth(deal: Deal, rng: random.Random) -> Move:
    """``peek_greedy`` in one decision in ten, the honest ``sampler`` otherwise."""
    return peek_greedy(deal, rng) if rng.random() < 0.1 else sampler(deal, rng)


PLANTED: dict[str, tuple[str, str, Policy]] = {
    "peek-greedy": ("scopa", "hidden", peek_greedy),
    "peek-search": ("scopa", "hidden", peek_search),
    "partner-peek": ("scopone", "partner", partner_peek),
    "tenth": ("scopa", "hidden", tenth),
}
"""Each planted cheater by name: its variant, the audit's test that should catch it, its policy."""
