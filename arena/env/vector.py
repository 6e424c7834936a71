"""Many games stepped at once: observations, action masks and rewards as numpy arrays.

:class:`VectorScopaEnv` plays ``num_envs`` whole games of one variant side by side, one move
in each game per :meth:`~VectorScopaEnv.step`, for self-play training: one policy plays every
seat, each game showing the seat to move (observations are relative to that seat, as in
:mod:`arena.env.observations`).  It follows Gymnasium's vector API (``reset`` and ``step``
return batched arrays; ``single_observation_space``, ``single_action_space``) with these
conventions of its own:

- the observation is a dict of arrays: ``"observation"`` ``(N, size)`` float32 (the same
  vector as :class:`arena.env.ScopaEnv` gives the seat to move) and ``"action_mask"``
  ``(N, actions)`` int8 (the same ids, :mod:`arena.env.actions`);
- ``rewards[i]`` is the reward of the seat that just moved in game ``i``; ``infos["rewards"]``
  ``(N, seats)`` holds every seat's reward of the step, by seat (the AEC environment's
  ``rewards``), ``infos["to_move"]`` the seat each observation belongs to;
- auto-reset in the same step (``AutoresetMode.SAME_STEP``): a game that ends reports
  ``terminations[i]`` and already shows its next game's first observation; the next game's
  seed is drawn from the game's own generator, as ``ScopaEnv.reset()`` draws it.

``reset(seed=S)`` deals game ``i`` as ``Game(rules, S + i)`` (a list gives each game's seed),
so ``N`` single :class:`arena.env.ScopaEnv` reset with those seeds and given the same actions
play the same games (a test checks it).  The loop runs in the compiled core
(:mod:`arena.engine._core`): legal moves, their ids, the masks and the observation vectors are
written by C loops, with no Python object per game and move.  Without the core this
environment is not available (:class:`RuntimeError`); :class:`arena.env.ScopaEnv` is.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv

from arena.engine import DECK, Rules, core, rules_for
from arena.env import actions as _actions
from arena.env.aec import REWARDS
from arena.env.observations import ObservationLayout
from arena.seeds import SEED_BITS


@cache
def _sum_tables() -> tuple[Any, Any, Any]:
    """Each card's sum captures (sorted card sets) and their action ids, for the C search."""
    keys: list[int] = []
    ids: list[int] = []
    start = [0]
    for card in DECK:
        index = _actions._SUM_INDEX[card % 10]
        for mask in sorted(index):
            keys.append(mask)
            ids.append(_actions._SUM_OFFSET[card] + index[mask])
        start.append(len(keys))
    return _arrays(keys, ids, start)


@cache
def _fifteen_tables() -> tuple[Any, Any, Any]:
    """Each card's fifteen captures and their action ids (``quindici``)."""
    keys: list[int] = []
    ids: list[int] = []
    start = [0]
    offsets = _actions._fifteen_offsets()
    for card in DECK:
        index = _actions._fifteen_index(card)
        for mask in sorted(index):
            keys.append(mask)
            ids.append(offsets[card] + index[mask])
        start.append(len(keys))
    return _arrays(keys, ids, start)


def _arrays(keys: list[int], ids: list[int], start: list[int]) -> tuple[Any, Any, Any]:
    return (
        np.array(keys or [0], dtype=np.uint64),
        np.array(ids or [0], dtype=np.intc),
        np.array(start, dtype=np.intc),
    )


class VectorScopaEnv(VectorEnv):  # type: ignore[misc, unused-ignore]
    """``num_envs`` games of a variant stepped together (see the module's docstring).

    >>> env = VectorScopaEnv("scopa", num_envs=4)
    >>> obs, infos = env.reset(seed=7)
    >>> obs["observation"].shape, obs["action_mask"].shape, int(obs["action_mask"][0].sum()) > 0
    ((4, 332), (4, 16204), True)
    >>> actions = env.sample_actions()
    >>> obs, rewards, terminations, truncations, infos = env.step(actions)
    >>> rewards.shape, infos["rewards"].shape
    ((4,), (4, 2))
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        variant: str = "scopa",
        num_envs: int = 1,
        options: dict[str, Any] | None = None,
        reward: str = "points",
        copy: bool = True,
    ) -> None:
        """``num_envs`` games of ``variant`` with ``options`` (RULES.md names).

        ``copy=False`` returns the environment's own arrays, overwritten by the next step (as
        Gymnasium's ``SyncVectorEnv(copy=False)``): at 1,024 games the masks alone are 16 MB a
        step to copy."""
        compiled = core.compiled
        if compiled is None:
            raise RuntimeError("the vector environment needs the compiled core (scripts/setup)")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not num_envs >= 1:
            raise ValueError(f"num_envs must be a positive whole number, not {num_envs!r}")
        if num_envs > 1 << 16:
            raise ValueError(f"num_envs must be at most {1 << 16}, not {num_envs}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.rules: Rules = rules_for(variant, options)
        why = core.unsupported(self.rules)
        if why is not None:
            raise RuntimeError(f"the compiled core does not play these rules: {why}")
        self.num_envs = num_envs
        self.reward_scheme = reward
        self.copy = copy
        self.layout = layout = ObservationLayout(self.rules)
        self.actions = _actions.ActionSpace(self.rules)
        low, high = layout.box_bounds()
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.actions.n,), dtype=np.int8),
            }
        )
        self.single_action_space = spaces.Discrete(self.actions.n)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=np.tile(low, (num_envs, 1)),
                    high=np.tile(high, (num_envs, 1)),
                    dtype=np.float32,
                ),
                "action_mask": spaces.Box(
                    low=0, high=1, shape=(num_envs, self.actions.n), dtype=np.int8
                ),
            }
        )
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, self.actions.n))
        empty = (np.zeros(1, np.uint64), np.zeros(1, np.intc), np.zeros(41, np.intc))
        sums = _sum_tables()
        fifteens = _fifteen_tables() if self.rules.quindici else empty
        self._core = compiled.VecCore(
            self.rules,
            num_envs,
            (
                layout.size,
                layout.hand,
                layout.table,
                layout.piles,
                layout.played_by,
                layout.played_at,
                layout.taken_at,
                layout.to_move,
                layout.dealer,
                layout.hand_sizes,
                layout.stock,
                layout.scope,
                layout.totals,
                layout.deal,
            ),
            self.actions.n,
            _actions.SWEEP,
            *sums,
            *fifteens,
            reward == "points",
        )
        self._obs = np.zeros((num_envs, layout.size), dtype=np.float32)
        self._mask = np.zeros((num_envs, self.actions.n), dtype=np.int8)
        self._seat_rewards = np.zeros((num_envs, self.rules.players), dtype=np.float32)
        self._rewards = np.zeros(num_envs, dtype=np.float32)
        self._ended = np.zeros(num_envs, dtype=np.uint8)
        self._to_move = np.zeros(num_envs, dtype=np.int_)
        self._generators: list[np.random.Generator] = []
        self.game_seeds: list[int] = [0] * num_envs
        self._pick = 0x5EED
        self._ready = False

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Deals a new game in every slot: ``Game(rules, seed + i)`` (or ``seed[i]``); without
        a seed, each slot's seed is drawn from its generator."""
        n = self.num_envs
        if seed is None:
            if not self._generators:
                self._generators = [seeding.np_random()[0] for _ in range(n)]
            seeds = [self._draw(i) for i in range(n)]
        else:
            if isinstance(seed, int) and not isinstance(seed, bool):
                seeds = [seed + i for i in range(n)]
            elif isinstance(seed, list) and len(seed) == n:
                seeds = [int(s) for s in seed]
            else:
                raise ValueError(f"seed is a whole number or a list of {n} of them, not {seed!r}")
            if any(s < 0 for s in seeds):
                raise ValueError("seeds must not be negative")
            self._generators = [seeding.np_random(s)[0] for s in seeds]
            self._pick = seeds[0] ^ 0x5EED
        for i, s in enumerate(seeds):
            self._start(i, s)
        self._ready = True
        return self._observation(), self._infos()

    def step(self, actions: Any) -> tuple[dict[str, Any], Any, Any, Any, dict[str, Any]]:
        """One move in every game: ``actions[i]`` for game ``i``'s seat to move."""
        if not self._ready:
            raise RuntimeError("reset() the environment first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} whole numbers, not {actions!r}")
        acts = acts.astype(np.int_, copy=False)
        self._core.step(acts, self._obs, self._mask, self._seat_rewards, self._rewards, self._ended)
        terminations = self._ended.astype(bool)
        infos = self._infos()
        if terminations.any():
            finals: list[Any] = [None] * self.num_envs
            for i in np.flatnonzero(terminations):
                finals[i] = {
                    "winner": self._core.winner(int(i)),
                    "totals": self._core.totals(int(i)),
                }
                self._start(int(i), self._draw(int(i)))
            infos["final_info"] = finals
            infos = {**infos, **self._infos()}
        return (
            self._observation(),
            self._rewards.copy(),
            terminations,
            np.zeros(self.num_envs, dtype=bool),
            infos,
        )

    def sample_actions(self) -> Any:
        """A uniformly random legal action in every game (from the environment's own generator,
        seeded by ``reset``)."""
        out = np.zeros(self.num_envs, dtype=np.int_)
        self._pick = self._core.random_actions(self._pick & ((1 << 64) - 1), out)
        return out

    def legal_actions(self, index: int) -> list[int]:
        """Game ``index``'s legal action ids, in the engine's move order."""
        return list(self._core.legal_actions(index))

    def _draw(self, i: int) -> int:
        return int(self._generators[i].integers(0, 2**SEED_BITS))

    def _start(self, i: int, seed: int) -> None:
        self.game_seeds[i] = seed
        self._core.reset_game(i, seed, self._mask)
        self._core.encode(i, self._obs)

    def _observation(self) -> dict[str, Any]:
        if not self.copy:
            return {"observation": self._obs, "action_mask": self._mask}
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def _infos(self) -> dict[str, Any]:
        self._core.to_move(self._to_move)
        return {"to_move": self._to_move.copy(), "rewards": self._seat_rewards.copy()}


__all__ = ["VectorScopaEnv"]
