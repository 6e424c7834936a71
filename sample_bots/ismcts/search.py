"""Information-Set Monte Carlo Tree Search (SO-ISMCTS) over determinized deals, as pure code.

Each iteration samples one deal consistent with what the seat sees (``Deal.determinize``),
walks a single tree shared by all determinizations choosing among the moves legal in that
sample (UCB1 with availability counts, Cowling, Powley and Whitehouse 2012), adds one node,
finishes the deal with a cheap greedy rollout and backs up the deal's result from the point of
view of the side that made each move. The budget is a number of iterations, a time limit, or
both. With an iteration budget the choice is a pure function of (observation, seed).
This module plays one deal at a time: it optimises the deal's points, not the game's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Deal, Move, Observation, Rules

SETTEBELLO = 6  # 7d: suit 0 (denari) * 10 + rank 7 - 1
RANK = tuple(c % 10 + 1 for c in range(40))
IS_COIN = tuple(c < 10 for c in range(40))


@dataclass(frozen=True)
class SearchConfig:
    """How hard and how to search."""

    iterations: int | None = 400
    """Iterations per move (None: no limit, the time limit decides)."""
    time_limit: float | None = None
    """Seconds per move (None: no limit, the iterations decide)."""
    exploration: float = 0.5
    """The UCB1 exploration constant (rewards are in 0..1)."""
    rollout_epsilon: float = 0.0
    """Chance that a rollout move is uniformly random instead of greedy."""
    margin_weight: float = 0.0
    """Share of the reward given by the point margin (the rest: deal win 1, draw 0.5, loss 0)."""
    seed: int = 0


class Node:
    """A tree node: statistics of the move that leads to it, for the side that made it."""

    __slots__ = ("avail", "children", "reward", "side", "visits")

    def __init__(self, side: int) -> None:
        self.side = side
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.children: dict[Move, Node] = {}


def _capture_worth(card: int) -> float:
    return 2.0 + 100.0 * (card == SETTEBELLO) + 10.0 * (RANK[card] == 7) + 1.0 * IS_COIN[card]


def _lay_worth(card: int) -> float:
    if card == SETTEBELLO:
        penalty = 50.0
    elif RANK[card] == 7:
        penalty = 5.0
    else:
        penalty = 0.0
    return -0.1 * (10 - RANK[card]) - penalty - 0.5 * IS_COIN[card]


CAPTURE_WORTH = tuple(_capture_worth(c) for c in range(40))
"""What a card is worth to the rollout policy when it ends in the mover's pile."""
LAY_WORTH = tuple(_lay_worth(c) for c in range(40))
"""What laying a card on the table costs the rollout policy (shed high plain cards first)."""
SWEEP_BONUS = 50.0
OPEN_TABLE_PENALTY = 30.0


def rollout_move(deal: Deal, legal: Sequence[Move], rng: random.Random, epsilon: float) -> Move:
    """A cheap greedy move: sweeps, the settebello, sevens, coins, cards; avoid open tables."""
    if len(legal) == 1:
        return legal[0]
    if rng.random() < epsilon:
        return legal[rng.randrange(len(legal))]
    table = deal.table
    table_sum = sum([RANK[c] for c in table])
    table_len = len(table)
    best = legal[0]
    best_value = -1e9
    for move in legal:
        card, capture = move
        if capture:
            value = CAPTURE_WORTH[card]
            taken_sum = 0
            for c in capture:
                value += CAPTURE_WORTH[c]
                taken_sum += RANK[c]
            if table_len == len(capture):
                value += SWEEP_BONUS
            elif table_sum - taken_sum <= 10:
                value -= OPEN_TABLE_PENALTY
        else:
            value = LAY_WORTH[card]
            if table_sum + RANK[card] <= 10:
                value -= OPEN_TABLE_PENALTY
        if value > best_value:
            best, best_value = move, value
    return best


def deal_rewards(deal: Deal, rules: Rules, margin_weight: float) -> list[float]:
    """The reward in 0..1 of each side for a finished deal: win/draw/loss plus the margin."""
    score = deal.score()
    totals = [p["total"] for p in score.points]
    rewards = []
    for side, mine in enumerate(totals):
        best_other = max(t for s, t in enumerate(totals) if s != side)
        diff = mine - best_other
        outcome = 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        margin = 0.5 + max(-1.0, min(1.0, diff / 6.0)) / 2.0
        rewards.append((1.0 - margin_weight) * outcome + margin_weight * margin)
    if score.cappotto is not None:  # taking every coin wins the game outright
        rewards = [1.0 if s == score.cappotto else 0.0 for s in range(len(rewards))]
    return rewards


@dataclass(frozen=True)
class SearchResult:
    """The chosen move and what the search did to choose it."""

    move: Move
    iterations: int
    seconds: float
    visits: dict[Move, int]


def search(obs: Observation, legal_moves: Sequence[Move], config: SearchConfig) -> SearchResult:
    """Runs ISMCTS for the seat of ``obs`` and returns the most visited legal move."""
    began = time.perf_counter()
    if len(legal_moves) == 1:
        return SearchResult(legal_moves[0], 0, 0.0, {legal_moves[0]: 0})
    rules = obs.rules
    rng = random.Random(f"{config.seed}:{obs.deal_index}:{len(obs.history)}:{obs.seat}")
    root = Node(side=rules.side_of(obs.seat))
    c = config.exploration
    eps = config.rollout_epsilon
    weight = config.margin_weight
    deadline = None if config.time_limit is None else began + config.time_limit
    limit = config.iterations
    done = 0
    while (limit is None or done < limit) and (deadline is None or time.perf_counter() < deadline):
        done += 1
        deal = Deal.determinize(obs, rng)
        node = root
        path = [root]
        # Selection and expansion.
        while not deal.is_over():
            legal = deal.legal_moves() if node is not root else list(legal_moves)
            children = node.children
            untried = [m for m in legal if m not in children]
            for m in legal:
                child = children.get(m)
                if child is not None:
                    child.avail += 1
            if untried:
                move = untried[rng.randrange(len(untried))]
                child = Node(side=rules.side_of(deal.to_move))
                children[move] = child
                deal.apply_unchecked(move)
                path.append(child)
                break
            best_move = legal[0]
            best_ucb = -1.0
            for m in legal:
                child = children[m]
                ucb = child.reward / child.visits + c * math.sqrt(
                    math.log(child.avail) / child.visits
                )
                if ucb > best_ucb:
                    best_move, best_ucb = m, ucb
            node = children[best_move]
            deal.apply_unchecked(best_move)
            path.append(node)
        # Rollout.
        while not deal.is_over():
            deal.apply_unchecked(rollout_move(deal, deal.legal_moves(), rng, eps))
        rewards = deal_rewards(deal, rules, weight)
        for visited in path[1:]:
            visited.visits += 1
            visited.reward += rewards[visited.side]
    visits = {m: (root.children[m].visits if m in root.children else 0) for m in legal_moves}
    move = max(legal_moves, key=lambda m: visits[m])  # first of equals: deterministic
    return SearchResult(move, done, time.perf_counter() - began, visits)


def choose_move(obs: Observation, legal_moves: Sequence[Move], config: SearchConfig) -> Move:
    """The move ISMCTS chooses for the seat of ``obs`` under ``config``."""
    return search(obs, legal_moves, config).move
