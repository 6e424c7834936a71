"""Trains the learned bot's weights with the arena's training environment (``arena.env``).

A linear softmax policy over the move features of ``features.py``: each legal move's score is
``weights . features``, a move is drawn with probability proportional to ``exp(score)``, and
REINFORCE with a baseline moves the weights towards the moves of deals that went well.  The
reward is the environment's: each deal's points of the bot's side minus the other side's.  It
plays the single-seat Gymnasium environment (``arena.env.SeatEnv``), both seats, against the
in-process ``random`` and ``greedy`` players in turn, reading the observation vector and the
action mask as any trainer does (decoded back to the engine's observation for the features).

Needs the ``rl`` extra (numpy, Gymnasium, PettingZoo); the bot itself (``bot.py``) does not.

    python train.py --seconds 60 --out weights.json     # or --deals N for a fixed budget
    python train.py --evaluate weights.json --deals 500 # mean point difference per deal
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if TYPE_CHECKING:  # mypy reads the bot's own modules under their package names
    from sample_bots.learned.features import FEATURES, features_of
else:
    from features import FEATURES, features_of

from arena import env as scopa_env  # noqa: E402
from arena.engine import Move, Observation  # noqa: E402

OPPONENTS = ("random", "greedy")


@dataclass
class Decision:
    """One choice of the bot: the legal moves' features and the index it chose."""

    rows: Any
    chosen: int


@dataclass
class Trainer:
    """The policy's weights, Adam's moments, and a baseline per (opponent, seat)."""

    weights: Any
    lr: float = 0.05
    beta1: float = 0.9
    beta2: float = 0.999
    step: int = 0
    m: Any = None
    v: Any = None
    baselines: dict[tuple[str, int], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.m = np.zeros_like(self.weights)
        self.v = np.zeros_like(self.weights)

    def probabilities(self, rows: Any) -> Any:
        scores = rows @ self.weights
        scores -= scores.max()
        exp = np.exp(scores)
        return exp / exp.sum()

    def gradient(self, decisions: Sequence[Decision], advantage: float) -> Any:
        grad = np.zeros_like(self.weights)
        for d in decisions:
            p = self.probabilities(d.rows)
            grad += d.rows[d.chosen] - p @ d.rows
        return advantage * grad

    def apply(self, grad: Any) -> None:
        """One Adam step of gradient ascent."""
        self.step += 1
        self.m = self.beta1 * self.m + (1 - self.beta1) * grad
        self.v = self.beta2 * self.v + (1 - self.beta2) * grad * grad
        m_hat = self.m / (1 - self.beta1**self.step)
        v_hat = self.v / (1 - self.beta2**self.step)
        self.weights = self.weights + self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def legal_moves(env: Any, obs: dict[str, Any]) -> tuple[Observation, list[int], list[Move]]:
    """The seat's observation, legal action ids and their moves, from what the env returned."""
    aec = env.unwrapped.aec
    observation = aec.layout.decode(obs["observation"], env.unwrapped.seat)
    actions = [int(a) for a in np.flatnonzero(obs["action_mask"].view(bool))]
    return observation, actions, [aec.actions.move_of(a, observation.table) for a in actions]


def play_game(
    env: Any, seed: int, choose: Callable[[Any], int]
) -> list[tuple[list[Decision], float]]:
    """A whole game; per deal, the bot's decisions and the deal's reward."""
    obs, info = env.reset(seed=seed)
    deals: list[tuple[list[Decision], float]] = []
    current: list[Decision] = []
    done = False
    while not done:
        observation, actions, moves = legal_moves(env, obs)
        rows = np.asarray(features_of(observation, moves), dtype=np.float64)
        index = choose(rows)
        current.append(Decision(rows, index))
        deal = info["deal"]
        obs, reward, done, _, info = env.step(actions[index])
        if info["deal"] > deal or done:  # the deal ended: its points came with this step
            deals.append((current, float(reward)))
            current = []
    return deals


def train(
    deals: int | None = None,
    seconds: float | None = None,
    seed: int = 1,
    variant: str = "scopa",
    progress: Callable[[int, float], None] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Trains from zero weights for ``deals`` deals or ``seconds`` of wall time; returns the
    weights and what the run did (deals, games, seconds, the mean reward of the first and last
    tenth of the deals)."""
    if (deals is None) == (seconds is None):
        raise ValueError("give either deals or seconds")
    rng = np.random.default_rng(seed)
    trainer = Trainer(np.zeros(len(FEATURES)))
    envs = {
        (name, seat): scopa_env.SeatEnv(variant, seat=seat, opponent=name)
        for name in OPPONENTS
        for seat in (0, 1)
    }
    began = time.perf_counter()
    rewards: list[float] = []
    batch = np.zeros(len(FEATURES))
    batch_deals = 0
    games = 0

    def sample(rows: Any) -> int:
        return int(rng.choice(len(rows), p=trainer.probabilities(rows)))

    while True:
        if deals is not None and len(rewards) >= deals:
            break
        if seconds is not None and time.perf_counter() - began >= seconds:
            break
        key = list(envs)[games % len(envs)]
        games += 1
        for decisions, reward in play_game(envs[key], int(rng.integers(2**53)), sample):
            base = trainer.baselines.get(key, 0.0)
            trainer.baselines[key] = base + 0.02 * (reward - base)
            batch += trainer.gradient(decisions, reward - base)
            batch_deals += 1
            rewards.append(reward)
            if batch_deals == 16:
                trainer.apply(batch / batch_deals)
                batch[:] = 0.0
                batch_deals = 0
        if progress is not None:
            progress(len(rewards), time.perf_counter() - began)
    tenth = max(1, len(rewards) // 10)
    report = {
        "deals": len(rewards),
        "games": games,
        "seconds": round(time.perf_counter() - began, 1),
        "seed": seed,
        "variant": variant,
        "opponents": list(OPPONENTS),
        "first_tenth_reward": round(float(np.mean(rewards[:tenth])), 3),
        "last_tenth_reward": round(float(np.mean(rewards[-tenth:])), 3),
    }
    return trainer.weights, report


def evaluate(
    weights: Sequence[float], opponent: str, games: int, seed: int = 2026, variant: str = "scopa"
) -> dict[str, Any]:
    """The greedy policy of ``weights`` (its best move, no sampling) against ``opponent`` over
    ``games`` duplicate pairs (each game seed played from both seats): mean point difference
    per deal and per game, and the games won, with 95% intervals."""
    w = np.asarray(weights, dtype=np.float64)
    per_deal: list[float] = []
    per_game: list[float] = []
    wins = 0
    for seat in (0, 1):
        env = scopa_env.SeatEnv(variant, seat=seat, opponent=opponent)
        for game in range(games):
            deals = play_game(env, seed + game, lambda rows: int(np.argmax(rows @ w)))
            per_deal += [reward for _, reward in deals]
            per_game.append(sum(reward for _, reward in deals))
            aec = env.aec  # SeatEnv is its own unwrapped env
            assert aec.game is not None, "play_game() played a game"
            wins += int(aec.game.winner == aec.rules.side_of(seat))
    n = len(per_game)
    return {
        "opponent": opponent,
        "games": n,
        "deals": len(per_deal),
        "points_per_deal": round(float(np.mean(per_deal)), 3),
        "points_per_deal_95": round(1.96 * float(np.std(per_deal)) / math.sqrt(len(per_deal)), 3),
        "points_per_game": round(float(np.mean(per_game)), 2),
        "wins": wins,
        "win_rate": round(wins / n, 4),
        "win_rate_95": [round(x, 4) for x in wilson(wins, n)],
    }


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson's 95% interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def save(weights: Sequence[float], report: dict[str, Any], path: Path) -> None:
    """Writes the weights file the bot reads."""
    data = {
        "features": list(FEATURES),
        "weights": [round(float(w), 6) for w in weights],
        "training": report,
    }
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=None, help="train for S seconds")
    budget.add_argument(
        "--deals",
        type=int,
        default=None,
        help="train on N deals (or, with --evaluate, play N games a seat)",
    )
    parser.add_argument("--seed", type=int, default=1, help="training seed (default 1)")
    parser.add_argument(
        "--out",
        type=Path,
        default=HERE / "weights.json",
        help="where to write the weights (default: weights.json here)",
    )
    parser.add_argument(
        "--evaluate",
        type=Path,
        default=None,
        metavar="WEIGHTS",
        help="evaluate a weights file against random and greedy instead",
    )
    args = parser.parse_args()
    if args.evaluate is not None:
        weights = json.loads(args.evaluate.read_text())["weights"]
        for opponent in OPPONENTS:
            print(json.dumps(evaluate(weights, opponent, args.deals or 200)))
        return 0
    seconds = args.seconds if args.deals is None and args.seconds is not None else None
    if args.deals is None and seconds is None:
        seconds = 60.0

    shown = [-1.0]

    def show(done: int, elapsed: float) -> None:
        if elapsed - shown[0] >= 1.0:
            shown[0] = elapsed
            print(
                f"\rtraining: {done:,} deals, {elapsed:.0f} s", end="", file=sys.stderr, flush=True
            )

    weights, report = train(deals=args.deals, seconds=seconds, seed=args.seed, progress=show)
    print(file=sys.stderr)
    save(weights, report, args.out)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
