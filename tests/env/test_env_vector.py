"""The vector environment (arena.env.vector) against N single AEC environments: the same
observations, masks, rewards and game ends for the same seeds and actions, auto-reset included."""

from __future__ import annotations

import os

import numpy as np
import pytest

from arena.engine import core
from arena.env import ScopaEnv
from arena.env.aec import agent_name

pytestmark = pytest.mark.skipif(
    core.compiled is None and os.environ.get("CI") != "true",
    reason="the vector environment needs the compiled core",
)

from arena.env.vector import VectorScopaEnv  # noqa: E402


def _singles(variant: str, options: dict[str, object], reward: str, seeds: list[int]) -> list:
    envs = []
    for s in seeds:
        env = ScopaEnv(variant, options, reward=reward)
        env.reset(seed=s)
        envs.append(env)
    return envs


@pytest.mark.parametrize(
    ("variant", "options", "reward", "steps"),
    [
        ("scopa", {"target": 3}, "points", 700),
        ("scopone", {"target": 2, "tie_rule": "count_out"}, "win", 300),
        ("quindici", {"target": 2}, "points", 300),
        ("scopa-assi", {"target": 2, "assi_empty_table": "pile"}, "points", 300),
        ("scopa-veneta", {"target": 3}, "points", 200),
        ("scopa-3", {"target": 2}, "win", 200),
    ],
)
def test_the_vector_env_plays_the_games_of_n_single_envs(
    variant: str, options: dict[str, object], reward: str, steps: int
) -> None:
    n = 3
    vec = VectorScopaEnv(variant, num_envs=n, options=options, reward=reward)
    obs, infos = vec.reset(seed=40)
    singles = _singles(variant, options, reward, [40 + i for i in range(n)])
    ended = 0
    for _ in range(steps):
        for i, env in enumerate(singles):
            agent = env.agent_selection
            assert infos["to_move"][i] == env.seat_of(agent)
            want = env.observe(agent)
            assert np.array_equal(obs["observation"][i], want["observation"])
            assert np.array_equal(obs["action_mask"][i], want["action_mask"])
            assert vec.legal_actions(i) == list(env.legal)
        actions = vec.sample_actions()
        for i, a in enumerate(actions):
            assert obs["action_mask"][i, a] == 1  # sampled actions are legal
        obs, rewards, terms, truncs, infos = vec.step(actions)
        assert not truncs.any()
        for i, env in enumerate(singles):
            seat = env.seat_of(env.agent_selection)
            env.step(int(actions[i]))
            got = [env.rewards[agent_name(s)] for s in range(vec.rules.players)]
            assert infos["rewards"][i].tolist() == pytest.approx(got)
            assert rewards[i] == pytest.approx(got[seat])
            assert bool(terms[i]) == all(env.terminations.values())
            if terms[i]:
                ended += 1
                assert infos["final_info"][i]["winner"] == env.game.winner
                assert infos["final_info"][i]["totals"] == tuple(env.game.totals)
                env.reset()  # the next game's seed from the env's own generator
                assert env.game_seed == vec.game_seeds[i]
    assert ended >= 2


def test_masks_are_legal_and_bad_actions_change_nothing() -> None:
    vec = VectorScopaEnv("scopa", num_envs=4)
    obs, _ = vec.reset(seed=[5, 6, 7, 8])
    assert (obs["action_mask"].sum(axis=1) >= 1).all()
    for i in range(4):
        assert np.flatnonzero(obs["action_mask"][i]).tolist() == sorted(vec.legal_actions(i))
    good = vec.sample_actions()
    bad = good.copy()
    bad[2] = next(a for a in range(vec.actions.n) if obs["action_mask"][2, a] == 0)
    with pytest.raises(ValueError, match="not legal in game 2"):
        vec.step(bad)
    with pytest.raises(ValueError, match="4 whole numbers"):
        vec.step(good[:3])
    again = vec._observation()
    assert np.array_equal(again["observation"], obs["observation"])
    assert np.array_equal(again["action_mask"], obs["action_mask"])
    vec.step(good)


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        VectorScopaEnv("scopa", num_envs=0)
    with pytest.raises(ValueError):
        VectorScopaEnv("scopa", num_envs=2, reward="elo")
    with pytest.raises(RuntimeError, match="reset"):
        VectorScopaEnv("scopa", num_envs=2).step(np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="list of 2"):
        VectorScopaEnv("scopa", num_envs=2).reset(seed=[1])
