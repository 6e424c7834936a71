"""The greedy policy: one-move lookahead with the seeds' priorities, as a pure function.

Priorities, highest first: take the settebello (7d); make a scopa (sweep the table); take
sevens; take coins; take cards. A move that leaves the next player a table they can sweep is
avoided whenever another move does not (only if a card that could sweep it is still unseen).
When nothing is captured, the card laid down is the least valuable one: never the settebello
if avoidable, then not a seven, not a coin, and high ranks before low ones. The policy reads
only the observation; it keeps no memory and is deterministic (ties go to the first legal move).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Card, Move, Observation, parse_card, rank_of, suit_of

# Lexicographic weights: each outweighs the most the next ones can add up to in one move.
W_SETTEBELLO = 100_000
W_SWEEP_RISK = 30_000
W_SCOPA = 10_000
W_SEVEN = 1_000
W_COIN = 50
W_CARD = 2

COINS = 0  # the suit index of denari
SETTEBELLO = parse_card("7d")


def is_last_play(obs: Observation) -> bool:
    """Whether the seat's next card is the last card of the deal."""
    return obs.stock_size == 0 and sum(obs.hand_sizes) == 1


def sweeping_ranks(table: Sequence[Card], quindici: bool = False) -> set[int]:
    """The ranks whose card, played next, would capture the whole ``table`` (not empty).

    Standard rules: one card is swept by its own rank; several cards by a card worth their sum
    (at most 10). Scopa di quindici: by the rank that makes 15 with the table's sum.
    """
    if not table:
        return set()
    total = sum(rank_of(c) for c in table)
    if quindici:
        need = 15 - total
        return {need} if 1 <= need <= 10 else set()
    if len(table) == 1:
        return {rank_of(table[0])}
    return {total} if total <= 10 else set()


def move_value(obs: Observation, move: Move) -> float:
    """How much the greedy policy likes ``move`` for the seat of ``obs`` (higher is better)."""
    rules = obs.rules
    table = list(obs.table)
    value = 0.0
    if move.capture:
        taken = [move.card, *move.capture]
        left = [c for c in table if c not in move.capture]
        if SETTEBELLO in taken:
            value += W_SETTEBELLO
        if not left and (not is_last_play(obs) or rules.last_play_scopa):
            value += W_SCOPA
        value += W_SEVEN * sum(1 for c in taken if rank_of(c) == 7)
        value += W_COIN * sum(1 for c in taken if suit_of(c) == COINS)
        value += W_CARD * len(taken)
    else:
        left = [*table, move.card]
        # Lay down the least useful card: keep the settebello, sevens, coins; shed high ranks.
        if move.card == SETTEBELLO:
            value -= W_SETTEBELLO / 10
        if rank_of(move.card) == 7:
            value -= W_SEVEN / 2
        if suit_of(move.card) == COINS:
            value -= W_COIN / 2
        value -= W_CARD * (10 - rank_of(move.card)) / 10
    if not is_last_play(obs):
        unseen_ranks = {rank_of(c) for c in obs.unseen_cards()}
        if sweeping_ranks(left, rules.quindici) & unseen_ranks:
            value -= W_SWEEP_RISK
    return value


def choose_move(obs: Observation, legal_moves: Sequence[Move]) -> Move:
    """The legal move the greedy policy likes best (the first of equals)."""
    best = legal_moves[0]
    best_value = move_value(obs, best)
    for move in legal_moves[1:]:
        value = move_value(obs, move)
        if value > best_value:
            best, best_value = move, value
    return best
