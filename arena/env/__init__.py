"""The training environment: every variant as a PettingZoo AEC environment, and one seat of it
as a Gymnasium environment against bots.

Needs the ``rl`` extra (``pip install scopa-arena[rl]``: PettingZoo, Gymnasium, numpy).

::

    from arena import env as scopa_env

    env = scopa_env.env(variant="scopone", options={"target": 21})
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)

    seat = scopa_env.SeatEnv("scopa", seat=0, opponent="greedy")   # or "random", a bot folder

The parts: :mod:`~arena.env.actions` (the fixed action space, pure Python),
:mod:`~arena.env.observations` (the observation vector and its decoding),
:mod:`~arena.env.aec` (the AEC environment, rewards, seeding), :mod:`~arena.env.players` (the
other seats of a single-agent game) and :mod:`~arena.env.single` (that game).  The engine knows
nothing of this package.
"""

from __future__ import annotations

from typing import Any

try:
    import gymnasium
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(
        f"arena.env needs the rl extra ({exc.name} is missing): pip install 'scopa-arena[rl]'"
    ) from None

from pettingzoo.utils import wrappers

from arena.env.actions import ALL_ACTIONS, STANDARD_ACTIONS, Action, ActionError, ActionSpace
from arena.env.aec import REWARDS, IllegalActionError, ScopaEnv, illegal_reward, raw_env
from arena.env.observations import ObservationLayout
from arena.env.players import (
    BotFault,
    Player,
    PolicyPlayer,
    ProtocolPlayer,
    RandomPolicy,
    make_player,
)
from arena.env.single import SeatEnv

GYM_ID = "arena/Scopa-v0"
"""The id of :class:`SeatEnv` for ``gymnasium.make``."""


def env(
    variant: str = "scopa",
    options: dict[str, Any] | None = None,
    render_mode: str | None = None,
    reward: str = "points",
) -> Any:
    """The AEC environment of ``variant``, wrapped as PettingZoo's classic games are: an
    illegal action ends the game with :func:`illegal_reward` for its agent, an action outside
    the space is an assertion error, and the API's order is enforced."""
    raw = ScopaEnv(variant, options, render_mode=render_mode, reward=reward)
    wrapped: Any = wrappers.TerminateIllegalWrapper(
        raw, illegal_reward=illegal_reward(raw.rules, reward)
    )
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


if GYM_ID not in gymnasium.registry:
    gymnasium.register(id=GYM_ID, entry_point="arena.env.single:SeatEnv")

__all__ = [
    "ALL_ACTIONS",
    "GYM_ID",
    "REWARDS",
    "STANDARD_ACTIONS",
    "Action",
    "ActionError",
    "ActionSpace",
    "BotFault",
    "IllegalActionError",
    "ObservationLayout",
    "Player",
    "PolicyPlayer",
    "ProtocolPlayer",
    "RandomPolicy",
    "ScopaEnv",
    "SeatEnv",
    "env",
    "illegal_reward",
    "make_player",
    "raw_env",
]
