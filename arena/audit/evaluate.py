"""The audit's fixed evaluator: a move's worth, and each seat's greedy reply through one round.

A move is worth the cards it takes (every card 1, a coin 3 more, a seven 5 more, the
settebello 20 more) plus 20 for a scopa.  :func:`move_values` scores each legal move of the
seat to move as its worth, then lets every other seat in turn (one round: as many plies as
seats) play the move of highest worth, adding a partner's worth and subtracting an
opponent's.  It is deliberately simple: what the audit needs is a fixed function of the deal,
cheap enough to run on a few dozen sampled deals per decision, not a strong player.  It does
not search, and it knows nothing of bots.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import DECK, Card, Deal, Move

W_CARD = 1.0
W_COIN = 3.0
W_SEVEN = 5.0
W_SETTEBELLO = 20.0
W_SCOPA = 20.0

# Each card's worth when taken: suit 0 is denari, rank 7 is index 6 of a suit.
CARD_WORTH: tuple[float, ...] = tuple(
    W_CARD
    + (W_COIN if c // 10 == 0 else 0.0)
    + (W_SEVEN if c % 10 == 6 else 0.0)
    + (W_SETTEBELLO if c == 6 else 0.0)
    for c in DECK
)


def worth(move: Move, table: Sequence[Card], last_play: bool = False) -> float:
    """What ``move`` takes, played on ``table`` (a scopa unless it is the deal's last play).

    >>> from arena.engine import parse_cards, parse_move
    >>> worth(parse_move("7d:3d+4c"), parse_cards("3d 4c"))
    54.0
    >>> worth(parse_move("5c"), parse_cards("3d 4c"))
    0.0
    """
    capture = move[1]
    if not capture:
        return 0.0
    value = CARD_WORTH[move[0]]
    for card in capture:
        value += CARD_WORTH[card]
    if len(capture) == len(table) and not last_play:
        value += W_SCOPA
    return value


def _is_last_play(deal: Deal) -> bool:
    return not deal.stock and sum(deal.hand_sizes) == 1


def greedy_reply(deal: Deal) -> tuple[Move, float]:
    """The legal move of highest worth for the seat to move (the first of equals), and its worth."""
    table = deal.table
    last = _is_last_play(deal) and not deal.rules.last_play_scopa
    best: Move | None = None
    best_value = -1.0
    for move in deal.legal_moves():
        value = worth(move, table, last)
        if value > best_value:
            best, best_value = move, value
    if best is None:
        raise ValueError(f"no legal move in {deal!r}")
    return best, best_value


def move_values(deal: Deal, moves: Sequence[Move], plies: int | None = None) -> list[float]:
    """Each move's value for the seat to move: its worth, then ``plies - 1`` greedy replies
    (default: one round, a ply per seat), partners' worth added and opponents' subtracted.

    The deal is left as it was (moves are applied and undone).

    >>> from arena.engine import parse_cards, rules_for
    >>> deal = Deal.from_hands(rules_for("scopa"), dealer=1,
    ...     hands=[parse_cards("5c 2b 8s"), parse_cards("2c 3b 9b")], table=parse_cards("3d 5b"))
    >>> moves = deal.legal_moves()
    >>> dict(zip([m.name for m in moves], move_values(deal, moves)))
    {'5c:5b': -23.0, '2b': -5.0, '8s:3d+5b': 26.0}
    """
    rules = deal.rules
    me = rules.side_of(deal.to_move)
    rounds = rules.players if plies is None else plies
    last_scopa = rules.last_play_scopa
    out: list[float] = []
    for move in moves:
        table = deal.table
        total = worth(move, table, _is_last_play(deal) and not last_scopa)
        deal.apply_unchecked(move)
        applied = 1
        for _ in range(rounds - 1):
            if deal.is_over():
                break
            seat = deal.to_move
            reply, value = greedy_reply(deal)
            total += value if rules.side_of(seat) == me else -value
            deal.apply_unchecked(reply)
            applied += 1
        for _ in range(applied):
            deal.undo()
        out.append(total)
    return out


def best_moves(values: Sequence[float], tolerance: float = 1e-9) -> frozenset[int]:
    """The indexes of the moves whose value is the highest (all of them on a tie).

    >>> sorted(best_moves([1.0, 3.0, 3.0]))
    [1, 2]
    """
    top = max(values)
    return frozenset(i for i, v in enumerate(values) if v >= top - tolerance)
