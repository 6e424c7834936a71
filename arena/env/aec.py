"""The PettingZoo AEC environment of every variant: one agent per seat, a whole game an episode.

:class:`ScopaEnv` (``raw_env``) plays :class:`arena.engine.Game` deal after deal to the target,
exactly as the arena does: ``reset(seed=S)`` deals the game of seed ``S`` (the same dealer and
decks as ``Game(rules, S)``, and as a replay with ``"seed": S``), so a seed and the actions
reproduce a game exactly.  Agents are ``player_0`` .. ``player_{n-1}``, by seat.  Each agent
observes ``{"observation": vector, "action_mask": mask}`` (:mod:`arena.env.observations`,
:mod:`arena.env.actions`); the mask is all zeros for an agent whose turn it is not.

Rewards (``reward=``):

- ``"points"`` (default): when a deal is scored, each seat gets its side's points of the deal
  minus the mean of the other sides' (in two-side games: its side's points minus the
  other's), so rewards add up to zero, and a game's rewards add up to the final difference;
- ``"win"``: at the end of the game, +1 for each seat of the winning side and
  ``-1 / (sides - 1)`` for the others (zero-sum too); nothing before.

An illegal action raises :class:`IllegalActionError` in ``raw_env``; :func:`arena.env.env`
wraps it as PettingZoo's classic games are wrapped, where an illegal action ends the game with
:func:`illegal_reward` for the agent that made it (the arena forfeits the game too).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from arena.engine import Deal, DealScore, EngineError, Game, Move, Rules, card_name, rules_for
from arena.env.actions import Action, ActionError, ActionSpace
from arena.env.observations import ObservationLayout
from arena.seeds import SEED_BITS

REWARDS = ("points", "win")
"""The reward schemes of the environment."""


class IllegalActionError(ActionError):
    """An action that is not legal in the current state (the message names the legal ones)."""


def illegal_reward(rules: Rules, reward: str) -> float:
    """The reward of an illegal action, which forfeits the game: a lost game (-1) under
    ``"win"``, and under ``"points"`` minus the target, as if the others had made it from 0."""
    return -1.0 if reward == "win" else -float(rules.target)


def agent_name(seat: int) -> str:
    """The agent of a seat: ``player_0``, ``player_1``..."""
    return f"player_{seat}"


class ScopaEnv(AECEnv):  # type: ignore[misc]
    """A game of a Scopa variant as a PettingZoo AEC environment (``arena.env.raw_env``).

    >>> env = ScopaEnv("scopa")
    >>> env.reset(seed=42)
    >>> env.agent_selection, int(env.observe(env.agent_selection)["action_mask"].sum())
    ('player_1', 3)
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "scopa_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str = "scopa",
        options: dict[str, Any] | None = None,
        render_mode: str | None = None,
        reward: str = "points",
    ) -> None:
        """A game of ``variant`` with ``options`` overridden (RULES.md names, as in a season).

        Raises :class:`arena.engine.VariantError` for an unknown variant or option and
        ``ValueError`` for an unknown reward scheme or render mode.
        """
        super().__init__()
        self.rules = rules_for(variant, options)
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            modes = ", ".join(self.metadata["render_modes"])
            raise ValueError(f"render_mode must be one of {modes} or None, not {render_mode!r}")
        self.reward_scheme = reward
        self.render_mode = render_mode
        self.layout = ObservationLayout(self.rules)
        self.actions = ActionSpace(self.rules)
        self.possible_agents = [agent_name(s) for s in range(self.rules.players)]
        self.agents = list(self.possible_agents)
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = self.layout.box_bounds()
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.actions.n,), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(self.actions.n)
        self.game: Game | None = None
        self.deal: Deal | None = None
        self.game_seed: int | None = None
        self.legal: dict[Action, Move] = {}
        self.last_move: tuple[int, Move] | None = None
        self._np_random: np.random.Generator | None = None
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = self.possible_agents[0]

    # -- spaces ---------------------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Dict:
        """The same Dict space for every agent."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(16204)``, or ``Discrete(100652)`` under ``quindici``."""
        return self._action_space

    # -- the game -------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deals a new game: the game of ``seed`` when given, else one drawn from the
        environment's generator (seeded by the last seed given)."""
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            game_seed = int(seed)
        else:
            if self._np_random is None:
                self._np_random, _ = seeding.np_random()
            game_seed = int(self._np_random.integers(0, 2**SEED_BITS))
        self.game_seed = game_seed
        self.game = Game(self.rules, game_seed)
        self.deal = self.game.new_deal()
        self.last_move = None
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._begin_turn()

    def _begin_turn(self) -> None:
        assert self.deal is not None and self.game is not None
        self.agent_selection = agent_name(self.deal.to_move)
        if self.game.is_over():
            self.legal = {}
            return
        action_of = self.actions.action_of
        self.legal = {action_of(move): move for move in self.deal.legal_moves()}

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent``'s seat sees now, and its legal actions (none unless it is to move)."""
        assert self.deal is not None, "reset() the environment first"
        seat = self._seat_of[agent]
        mask = np.zeros(self.actions.n, dtype=np.int8)
        if agent == self.agent_selection and self.legal:
            mask[list(self.legal)] = 1
        return {"observation": self.layout.encode(self.deal.observation(seat)), "action_mask": mask}

    def step(self, action: Action | None) -> None:
        """Plays ``action`` for the agent to move (None for an agent whose game is over)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        assert self.deal is not None and self.game is not None, "reset() the environment first"
        move = self.move_of(action)
        seat = self._seat_of[agent]
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.deal.apply_unchecked(move)
        self.last_move = (seat, move)
        if self.deal.is_over():
            score = self.game.finish_deal(self.deal)
            self._score(score)
            if self.game.is_over():
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.deal = self.game.new_deal()
        self._begin_turn()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def move_of(self, action: Action | None) -> Move:
        """The legal move ``action`` names now; :class:`IllegalActionError` if none."""
        if action is None:
            raise IllegalActionError(f"{self.agent_selection} is to move; None is no action")
        try:
            move = self.legal.get(int(action))
        except (TypeError, ValueError):
            move = None
        if move is None:
            names = ", ".join(f"{a} ({m.name})" for a, m in sorted(self.legal.items()))
            raise IllegalActionError(
                f"action {action!r} is not legal for {self.agent_selection}; legal: {names}"
            )
        return move

    def _score(self, score: DealScore) -> None:
        assert self.game is not None
        rules = self.rules
        sides = rules.num_sides
        if self.reward_scheme == "points":
            by_side = [float(p) for p in score.totals]
            total = sum(by_side)
            values = [p - (total - p) / (sides - 1) for p in by_side]
        elif self.game.is_over() and self.game.winner is not None:
            values = [1.0 if s == self.game.winner else -1.0 / (sides - 1) for s in range(sides)]
        else:
            return
        for agent, seat in self._seat_of.items():
            self.rewards[agent] = values[rules.side_of(seat)]

    # -- display --------------------------------------------------------------------------------

    def render(self) -> str | None:
        """The table as text: printed (``"human"``) or returned (``"ansi"``)."""
        if self.render_mode is None or self.deal is None or self.game is None:
            return None
        text = self.describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def describe(self) -> str:
        """The game as a person watching the table sees it (every hand shown)."""
        assert self.deal is not None and self.game is not None
        deal, game = self.deal, self.game

        def names(cards: tuple[int, ...]) -> str:
            return " ".join(card_name(c) for c in cards) or "-"

        lines = [
            f"{self.rules.label}, deal {game.deal_index + 1}, totals "
            f"{' '.join(str(t) for t in game.totals)}"
        ]
        if self.last_move is not None:
            seat, move = self.last_move
            lines.append(f"  last move: seat {seat} played {move.name}")
        lines.append(f"  table: {names(deal.table)}   stock: {len(deal.stock)}")
        for seat, hand in enumerate(deal.hands):
            marker = "*" if seat == deal.to_move and not game.is_over() else " "
            lines.append(f" {marker}seat {seat}: {names(hand)}")
        if game.is_over():
            lines.append(f"  game over: side {game.winner} wins")
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release (text rendering only)."""

    # -- access for wrappers and trainers ----------------------------------------------------------

    def seat_of(self, agent: str) -> int:
        """The seat of an agent."""
        try:
            return self._seat_of[agent]
        except KeyError:
            raise EngineError(f"no agent {agent!r} (agents: {', '.join(self._seat_of)})") from None


raw_env = ScopaEnv

__all__ = ["REWARDS", "IllegalActionError", "ScopaEnv", "agent_name", "illegal_reward", "raw_env"]
