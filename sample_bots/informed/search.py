"""ISMCTS over determinized deals that respect what play revealed, with switches to measure by.

Five ideas, each a switch of :class:`SearchConfig` so each can be measured on its own:

- **Informed determinizations** (``inference``, ``inference_weak``): every sample of the hidden
  cards respects what play revealed. Sweeping the table or taking the settebello is almost
  always right, so a seat that laid a card down while a card of rank ``r`` would have done so
  probably holds no card of rank ``r``; each such card is dealt to that seat with its weight
  multiplied by ``inference`` (``inference_weak`` where ``r`` would only have captured; 1.0:
  no inference, the uniform samples of ``Deal.determinize``).
- **The search** (``mode``): ``"tree"`` (the default) is single-observer ISMCTS, one tree over
  all samples with UCB1 and availability counts, as the ISMCTS sample bot; ``"flat"`` is
  perfect-information Monte Carlo: every sample is played out once after each legal move (the
  same sample for every move, so the moves are compared on the same cards), and the move with
  the best mean reward is chosen.
- **The rollout policy** (``rollout``): ``"greedy"`` (the default) is the ISMCTS sample bot's
  (a table of ten or less left behind counts as a risk whatever the hands); ``"sweep"`` reads
  the sample's hands and avoids only a table the next seat can sweep with a card it holds.
- **The tree's expansion** (``expansion``): a node adds the rollout policy's favourite untried
  move first (``"policy"``, the default), so an opponent's first reply in the tree is a
  sensible one, not a random one; ``"random"`` adds them in random order, as the ISMCTS sample
  bot.
- **An exact endgame** (``endgame``): with that many cards or fewer left in the hands, every
  sample is solved by alpha-beta with all cards seen, and the move with the best mean outcome
  over the samples is played (0, the default: never).

The budget is a number of rollouts, a time limit, or both; under a rollout budget the choice is
a pure function of (observation, seed). It plays one deal at a time: it optimises the deal's
points, not the game's.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine import Card, Deal, Move, Observation, Rules

SETTEBELLO = 6  # 7d: suit 0 (denari) * 10 + rank 7 - 1
RANK = tuple(c % 10 + 1 for c in range(40))
IS_COIN = tuple(c < 10 for c in range(40))


@dataclass(frozen=True)
class SearchConfig:
    """How hard and how to search."""

    iterations: int | None = 1000
    """Rollouts per move (None: no limit, the time limit decides)."""
    time_limit: float | None = None
    """Seconds per move (None: no limit, the rollouts decide)."""
    mode: str = "tree"
    """``"tree"`` (ISMCTS) or ``"flat"`` (every move on every sample)."""
    inference: float = 0.1
    """Weight of a card that would have swept or taken the settebello where its seat laid a
    card down instead (1.0: off)."""
    inference_weak: float = 1.0
    """Weight of a card that would only have captured where its seat laid one down (1.0: off)."""
    rollout: str = "greedy"
    """The rollout policy: ``"greedy"`` or ``"sweep"`` (reads the sample's next hand)."""
    rollout_epsilon: float = 0.0
    """Chance that a rollout move is uniformly random instead of the policy's."""
    exploration: float = 0.5
    """The UCB1 exploration constant of ``mode="tree"`` (rewards are in 0..1)."""
    margin_weight: float = 0.0
    """Share of the reward given by the point margin (the rest: deal win 1, draw 0.5, loss 0)."""
    endgame: int = 0
    """At most this many cards left in the hands (and none in the stock), the search solves
    each sample exactly (alpha-beta on the deal's outcome, the point margin breaking ties) and
    plays the move with the best mean over the samples (0: never)."""
    expansion: str = "policy"
    """Which untried move a tree node adds first: ``"random"`` or ``"policy"`` (the one the
    rollout policy likes best in the sample)."""
    seed: int = 0


# -- what play revealed ----------------------------------------------------------------------


def opening_table(obs: Observation) -> list[Card]:
    """The table the deal opened with, read back from the table, the captures and the plays.

    Every card that was ever on the table is on it now or was captured from it; the ones never
    played from a hand were there from the start.
    """
    played = {move.card for _, move in obs.history}
    ever = set(obs.table)
    for _, move in obs.history:
        ever.update(move.capture)
    return sorted(ever - played)


def capturing_ranks(rules: Rules, table: Sequence[Card]) -> dict[int, bool]:
    """The ranks (1..10) whose card, played on ``table``, must capture something; each with
    whether one of its captures would sweep the table or take the settebello."""
    if not table:
        return {}
    empty: list[list[Card]] = [[] for _ in range(rules.players)]
    probe = Deal.restore(
        rules, 0, 0, empty, table, [], empty, [0] * rules.players, []
    )  # a position to ask the rules what each rank captures here
    on_table = set(table)
    ranks = {}
    for rank in range(1, 11):
        # A card of the rank not on the table (it is never both played and on the table);
        # none when all four are on it (an opening table can hold them), and then no hand
        # holds one to tell of.
        card = next(
            (c for c in (rank - 1, rank + 9, rank + 19, rank + 29) if c not in on_table), None
        )
        if card is None:
            continue
        captures = [cap for cap in probe.captures_for(card) if cap]
        if captures:
            ranks[rank] = any(len(cap) == len(table) or SETTEBELLO in cap for cap in captures)
    return ranks


def card_weights(
    obs: Observation, strong: float, weak: float = 1.0
) -> dict[int, dict[Card, float]]:
    """For each other seat, the weight of each unseen card it may hold (missing: 1.0).

    A seat that laid a card down where a card of rank ``r`` would have swept the table or
    taken the settebello gets ``strong`` on each unseen card of rank ``r`` it could have held
    then; where it would only have captured, ``weak`` (a capture may leave the next seat a
    sweep, which a good player declines). In the ``scopa`` layout only the plays since the
    last refill count (earlier hands are gone).
    """
    weights: dict[int, dict[Card, float]] = {s: {} for s in range(obs.rules.players)}
    if (strong >= 1.0 and weak >= 1.0) or not obs.history:
        return weights
    rules = obs.rules
    unseen = obs.unseen_cards()
    start = 0
    if rules.layout == "scopa":
        refill = 3 * rules.players
        start = (len(obs.history) // refill) * refill
    table = opening_table(obs)
    for index, (seat, move) in enumerate(obs.history):
        if index >= start and seat != obs.seat and not move.capture:
            for rank, telling in capturing_ranks(rules, table).items():
                factor = strong if telling else weak
                if factor >= 1.0:
                    continue
                for card in (rank - 1, rank + 9, rank + 19, rank + 29):
                    if card in unseen:
                        weights[seat][card] = weights[seat].get(card, 1.0) * factor
        if move.capture:
            taken = set(move.capture)
            table = [c for c in table if c not in taken]
        else:
            table.append(move.card)
    return weights


class Sampler:
    """Deals the unseen cards of one view, again and again, as the weights say."""

    def __init__(self, obs: Observation, weights: dict[int, dict[Card, float]]) -> None:
        self.obs = obs
        self.unseen = sorted(obs.unseen_cards())
        # Destinations: the other seats, then the stock (seat index -1).
        self.seats = [s for s in range(obs.rules.players) if s != obs.seat]
        self.sizes = [obs.hand_sizes[s] for s in self.seats]
        if obs.stock_size:
            self.seats.append(-1)
            self.sizes.append(obs.stock_size)
        constrained = sorted({c for w in weights.values() for c in w})
        self.constrained = constrained
        self.free = [c for c in self.unseen if c not in set(constrained)]
        self.table = [[weights.get(s, {}).get(c, 1.0) for s in self.seats] for c in constrained]

    def sample(self, rng: random.Random) -> Deal:
        """One deal consistent with the view, the constrained cards placed first by weight."""
        obs = self.obs
        left = list(self.sizes)
        piles: list[list[Card]] = [[] for _ in self.seats]
        order = list(range(len(self.constrained)))
        rng.shuffle(order)
        for i in order:
            row = self.table[i]
            total = 0.0
            for d, room in enumerate(left):
                total += row[d] * room
            pick = rng.random() * total
            dest = len(left) - 1
            for d, room in enumerate(left):
                pick -= row[d] * room
                if room and pick < 0:
                    dest = d
                    break
            while not left[dest]:  # rounding at the edge: the last destination with room
                dest -= 1
            piles[dest].append(self.constrained[i])
            left[dest] -= 1
        rest = list(self.free)
        rng.shuffle(rest)
        pos = 0
        for d, room in enumerate(left):
            piles[d].extend(rest[pos : pos + room])
            pos += room
        hands: list[list[Card]] = []
        stock: list[Card] = []
        for d, seat in enumerate(self.seats):
            if seat == -1:
                stock = piles[d]
        for seat in range(obs.rules.players):
            hands.append(list(obs.hand) if seat == obs.seat else piles[self.seats.index(seat)])
        deal = Deal.restore(
            obs.rules,
            obs.dealer,
            obs.to_move,
            hands,
            obs.table,
            stock,
            obs.captured,
            obs.scope,
            obs.history,
        )
        deal.deal_index = obs.deal_index
        deal.game_totals = obs.totals
        return deal


# -- rollouts ---------------------------------------------------------------------------------


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


def greedy_rollout_move(deal: Deal, legal: Sequence[Move]) -> Move:
    """Sweeps, the settebello, sevens, coins, cards; a table of ten or less is a risk."""
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


def sweep_rollout_move(deal: Deal, legal: Sequence[Move]) -> Move:
    """As :func:`greedy_rollout_move`, but the risk is a sweep by the next seat's own cards.

    The next seat plays for the other side; the table left is swept by one card of its rank
    (one card left) or by a card worth the sum (several, summing to ten or less). A next seat
    with no cards (the end of a round) is no risk.
    """
    table = deal.table
    table_sum = sum([RANK[c] for c in table])
    table_len = len(table)
    hands = deal.hands
    following = hands[(deal.to_move + 1) % len(hands)]
    next_ranks = 0
    for c in following:
        next_ranks |= 1 << RANK[c]
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
            left = table_len - len(capture)
            if left == 0:
                value += SWEEP_BONUS
                continue_sum = 0
            else:
                continue_sum = table_sum - taken_sum
        else:
            value = LAY_WORTH[card]
            left = table_len + 1
            continue_sum = table_sum + RANK[card]
        if left and next_ranks:
            if left == 1:
                single = continue_sum  # one card: its rank is the sum
                risk = next_ranks >> single & 1
            else:
                risk = continue_sum <= 10 and next_ranks >> continue_sum & 1
            if risk:
                value -= OPEN_TABLE_PENALTY
        if value > best_value:
            best, best_value = move, value
    return best


def deal_rewards(deal: Deal, margin_weight: float) -> list[float]:
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


def play_out(deal: Deal, config: SearchConfig, rng: random.Random) -> None:
    """Finishes ``deal`` with the rollout policy of ``config``."""
    policy = sweep_rollout_move if config.rollout == "sweep" else greedy_rollout_move
    eps = config.rollout_epsilon
    while not deal.is_over():
        legal = deal.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        elif eps and rng.random() < eps:
            move = legal[rng.randrange(len(legal))]
        else:
            move = policy(deal, legal)
        deal.apply_unchecked(move)


# -- search -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SearchResult:
    """The chosen move and what the search did to choose it."""

    move: Move
    iterations: int
    seconds: float
    values: dict[Move, float]
    """Each move's mean reward (flat) or visit count (tree)."""


class Node:
    """A tree node: statistics of the move that leads to it, for the side that made it."""

    __slots__ = ("avail", "children", "reward", "side", "visits")

    def __init__(self, side: int) -> None:
        self.side = side
        self.visits = 0
        self.avail = 1
        self.reward = 0.0
        self.children: dict[Move, Node] = {}


def search(obs: Observation, legal_moves: Sequence[Move], config: SearchConfig) -> SearchResult:
    """Searches for the seat of ``obs`` and returns the move it judges best."""
    began = time.perf_counter()
    if len(legal_moves) == 1:
        return SearchResult(legal_moves[0], 0, 0.0, {legal_moves[0]: 0.0})
    rng = random.Random(f"{config.seed}:{obs.deal_index}:{len(obs.history)}:{obs.seat}")
    sampler = Sampler(obs, card_weights(obs, config.inference, config.inference_weak))
    deadline = None if config.time_limit is None else began + config.time_limit
    if (
        config.endgame
        and obs.stock_size == 0
        and obs.rules.num_sides == 2
        and sum(obs.hand_sizes) <= config.endgame
    ):
        return _solve(obs, legal_moves, config, sampler, rng, began, deadline)
    if config.mode == "tree":
        return _tree(obs, legal_moves, config, sampler, rng, began, deadline)
    return _flat(obs, legal_moves, config, sampler, rng, began, deadline)


def _flat(
    obs: Observation,
    legal_moves: Sequence[Move],
    config: SearchConfig,
    sampler: Sampler,
    rng: random.Random,
    began: float,
    deadline: float | None,
) -> SearchResult:
    side = obs.rules.side_of(obs.seat)
    totals = dict.fromkeys(legal_moves, 0.0)
    limit = config.iterations
    done = samples = 0
    while (limit is None or done < limit) and (deadline is None or time.perf_counter() < deadline):
        world = sampler.sample(rng)
        samples += 1
        for move in legal_moves:
            deal = world.clone()
            deal.apply_unchecked(move)
            play_out(deal, config, rng)
            totals[move] += deal_rewards(deal, config.margin_weight)[side]
            done += 1
    values = {m: totals[m] / max(1, samples) for m in legal_moves}
    move = max(legal_moves, key=lambda m: values[m])  # first of equals: deterministic
    return SearchResult(move, done, time.perf_counter() - began, values)


def _tree(
    obs: Observation,
    legal_moves: Sequence[Move],
    config: SearchConfig,
    sampler: Sampler,
    rng: random.Random,
    began: float,
    deadline: float | None,
) -> SearchResult:
    rules = obs.rules
    root = Node(side=rules.side_of(obs.seat))
    c = config.exploration
    by_policy = config.expansion == "policy"
    policy = sweep_rollout_move if config.rollout == "sweep" else greedy_rollout_move
    limit = config.iterations
    done = 0
    while (limit is None or done < limit) and (deadline is None or time.perf_counter() < deadline):
        done += 1
        deal = sampler.sample(rng)
        node = root
        path = [root]
        while not deal.is_over():
            legal = deal.legal_moves() if node is not root else list(legal_moves)
            children = node.children
            untried = [m for m in legal if m not in children]
            for m in legal:
                child = children.get(m)
                if child is not None:
                    child.avail += 1
            if untried:
                if by_policy and len(untried) > 1:
                    move = policy(deal, untried)
                else:
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
        play_out(deal, config, rng)
        rewards = deal_rewards(deal, config.margin_weight)
        for visited in path[1:]:
            visited.visits += 1
            visited.reward += rewards[visited.side]
    visits = {m: float(root.children[m].visits if m in root.children else 0) for m in legal_moves}
    move = max(legal_moves, key=lambda m: visits[m])
    return SearchResult(move, done, time.perf_counter() - began, visits)


def outcome_value(deal: Deal, side: int) -> int:
    """A finished deal's worth to ``side``: its outcome first (win, draw, loss), its margin
    second."""
    score = deal.score()
    if score.cappotto is not None:
        return 1000 if score.cappotto == side else -1000
    totals = score.totals
    diff = totals[side] - totals[1 - side]
    return (diff > 0) * 100 - (diff < 0) * 100 + diff


def solve(deal: Deal, side: int) -> int:
    """The exact value (:func:`outcome_value`) of ``deal`` to ``side`` with every card seen."""
    return _alphabeta(deal, side, -10_000, 10_000, [0])


def _alphabeta(deal: Deal, side: int, alpha: int, beta: int, nodes: list[int]) -> int:
    """:func:`solve` within the window (alpha, beta), counting the positions in ``nodes``."""
    nodes[0] += 1
    if deal.is_over():
        return outcome_value(deal, side)
    maximizing = deal.rules.side_of(deal.to_move) == side
    best = -10_000 if maximizing else 10_000
    for move in deal.legal_moves():
        deal.apply_unchecked(move)
        value = _alphabeta(deal, side, alpha, beta, nodes)
        deal.undo()
        if maximizing:
            if value > best:
                best = value
                if best > alpha:
                    alpha = best
        elif value < best:
            best = value
            if best < beta:
                beta = best
        if alpha >= beta:
            break
    return best


def _solve(
    obs: Observation,
    legal_moves: Sequence[Move],
    config: SearchConfig,
    sampler: Sampler,
    rng: random.Random,
    began: float,
    deadline: float | None,
) -> SearchResult:
    """Perfect-information Monte Carlo with an exact solve of every sample (the endgame).

    The budget in iterations is read as rollouts of the plies left: the solves stop once they
    have visited as many positions as that many rollouts would have played.
    """
    side = obs.rules.side_of(obs.seat)
    outcome = dict.fromkeys(legal_moves, 0.0)
    margin = dict.fromkeys(legal_moves, 0.0)
    budget = None if config.iterations is None else config.iterations * sum(obs.hand_sizes)
    nodes = [0]
    samples = 0
    while (budget is None or nodes[0] < budget) and (
        deadline is None or time.perf_counter() < deadline
    ):
        world = sampler.sample(rng)
        samples += 1
        for move in legal_moves:
            world.apply_unchecked(move)
            value = _alphabeta(world, side, -10_000, 10_000, nodes)
            world.undo()
            if value >= 500 or value <= -500:  # cappotto
                outcome[move] += 1.0 if value > 0 else 0.0
            else:
                outcome[move] += 1.0 if value > 50 else 0.0 if value < -50 else 0.5
                margin[move] += value - 100 * (value > 50) + 100 * (value < -50)
    values = {m: outcome[m] / samples for m in legal_moves}
    move = max(legal_moves, key=lambda m: (outcome[m], margin[m]))
    return SearchResult(move, samples, time.perf_counter() - began, values)


def choose_move(obs: Observation, legal_moves: Sequence[Move], config: SearchConfig) -> Move:
    """The move the search chooses for the seat of ``obs`` under ``config``."""
    return search(obs, legal_moves, config).move
