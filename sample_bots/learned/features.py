"""What the learned bot sees of a move: a few numbers per legal move, in pure Python.

The bot scores each legal move by a weighted sum of these features (weights in
``weights.json``, learned by ``train.py``) and plays the best.  Everything here reads only the
seat's observation (``arena.engine.Observation``), the same information the arena's protocol
sends, so the bot needs nothing but the arena package: no numpy in the sandbox.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import Move, Observation

SETTEBELLO = 6  # 7d
COINS = 0  # the suit of denari

FEATURES: tuple[str, ...] = (
    "captures",  # the move takes cards
    "cards_taken",  # cards into the pile (the played card included) / 10
    "coins_taken",  # denari among them / 4
    "settebello_taken",  # 7d among them
    "sevens_taken",  # sevens among them / 2
    "sixes_taken",  # sixes among them / 2 (primiera)
    "aces_taken",  # aces among them / 2 (primiera)
    "scopa",  # the capture empties the table and scores a scopa
    "laid_rank",  # a card laid down: its rank / 10
    "laid_seven",  # a seven laid down
    "laid_coin",  # a denaro laid down
    "laid_settebello",  # the settebello laid down
    "sweep_risk",  # the next seat could sweep the table left: unseen cards that do / 4
    "sevens_left",  # sevens on the table left / 4
    "coins_left",  # denari on the table left / 4
    "settebello_left",  # the settebello on the table left
    "table_left",  # cards on the table left / 10
)


def _rank(card: int) -> int:
    return card % 10 + 1


def sweeping_ranks(table: Sequence[int], quindici: bool) -> tuple[int, ...]:
    """The ranks whose card, played next, takes the whole ``table`` (not empty)."""
    if not table:
        return ()
    total = sum(_rank(c) for c in table)
    if quindici:
        need = 15 - total
        return (need,) if 1 <= need <= 10 else ()
    if len(table) == 1:
        return (_rank(table[0]),)
    return (total,) if total <= 10 else ()


def features_of(obs: Observation, legal_moves: Sequence[Move]) -> list[list[float]]:
    """One list of :data:`FEATURES` values for each legal move, in order."""
    rules = obs.rules
    table = obs.table
    last_play = obs.stock_size == 0 and sum(obs.hand_sizes) == 1
    scopa_counts = not last_play or rules.last_play_scopa
    unseen_by_rank = [0] * 11
    for c in obs.unseen_cards():
        unseen_by_rank[_rank(c)] += 1
    out: list[list[float]] = []
    for move in legal_moves:
        card, capture = move
        if capture:
            taken = (card, *capture)
            left = [c for c in table if c not in capture]
            laid = (0.0, 0.0, 0.0, 0.0)
            scopa = (
                not left
                and scopa_counts
                and not (
                    rules.assi
                    and card % 10 == 0
                    and not rules.assi_sweep_is_scopa
                    and not (len(capture) == 1 and capture[0] % 10 == 0)
                )
            )
        else:
            taken = ()
            left = [*table, card]
            if rules.assi and card % 10 == 0 and not table and rules.assi_empty_table == "pile":
                left = []
            laid = (
                _rank(card) / 10.0,
                float(_rank(card) == 7),
                float(card // 10 == COINS),
                float(card == SETTEBELLO),
            )
            scopa = False
        risk = 0.0
        if not last_play:
            risk = sum(unseen_by_rank[r] for r in sweeping_ranks(left, rules.quindici)) / 4.0
        out.append(
            [
                float(bool(capture)),
                len(taken) / 10.0,
                sum(1 for c in taken if c // 10 == COINS) / 4.0,
                float(SETTEBELLO in taken),
                sum(1 for c in taken if _rank(c) == 7) / 2.0,
                sum(1 for c in taken if _rank(c) == 6) / 2.0,
                sum(1 for c in taken if _rank(c) == 1) / 2.0,
                float(scopa),
                *laid,
                risk,
                sum(1 for c in left if _rank(c) == 7) / 4.0,
                sum(1 for c in left if c // 10 == COINS) / 4.0,
                float(SETTEBELLO in left),
                len(left) / 10.0,
            ]
        )
    return out


def best_move(obs: Observation, legal_moves: Sequence[Move], weights: Sequence[float]) -> Move:
    """The legal move of highest score (the first of equals)."""
    rows = features_of(obs, legal_moves)
    best, best_score = 0, float("-inf")
    for index, row in enumerate(rows):
        score = sum(w * x for w, x in zip(weights, row, strict=True))
        if score > best_score:
            best, best_score = index, score
    return legal_moves[best]
