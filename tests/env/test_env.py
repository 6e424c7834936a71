"""The training environment: the libraries' own checkers for every variant, the action space's
completeness, the observation's exact information, rewards, seeding and the single-seat game."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from arena import env as scopa_env
from arena.engine import VARIANTS, Deal, Game, Rng, parse_move, rules_for
from arena.env import actions
from arena.env.actions import ActionError, ActionSpace
from arena.env.aec import IllegalActionError, ScopaEnv
from arena.env.observations import ObservationLayout

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots"
PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# PettingZoo's checker warns about every Dict observation of a game it does not list as its own
# classic games (which observe the same {"observation", "action_mask"} dict); nothing else.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
)

# Option sets that change which moves exist (RULES.md, "Capture variants").
CAPTURE_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("scopa-assi", {"assi_ace_takes_ace": False}),
    ("scopa-assi", {"assi_empty_table": "pile", "assi_sweep_is_scopa": True}),
    ("quindici", {"assi": True}),
    ("scopone", {"quindici": True}),
    ("scientifico", {"assi": True, "last_play_scopa": True}),
]


# ---- the libraries' checkers ------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_passes_pettingzoo_api_test(variant: str, capsys: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(scopa_env.env(variant=variant), num_cycles=1000)
    assert "Passed API test" in capsys.readouterr().out
    unexpected = [
        str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
    ]
    assert unexpected == []


@pytest.mark.parametrize(("variant", "options"), CAPTURE_OPTIONS)
def test_the_capture_options_pass_pettingzoo_api_test(
    variant: str, options: dict[str, Any]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(scopa_env.env(variant=variant, options=options), num_cycles=1000)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_passes_gymnasium_check_env(variant: str, capsys: Any) -> None:
    env = gym.make(scopa_env.GYM_ID, variant=variant, opponent="random")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # with its spec: the determinism and render checks run too
    env.close()
    assert [str(w.message) for w in caught] == []
    assert variant in capsys.readouterr().out  # check_env rendered it as text ("human")


# ---- the action space -------------------------------------------------------------------------


def test_the_action_blocks_have_the_documented_sizes() -> None:
    assert (actions.SUM, actions.SWEEP, actions.FIFTEEN) == (160, 16_200, 16_204)
    assert actions.STANDARD_ACTIONS == 16_204
    assert actions.ALL_ACTIONS == actions.FIFTEEN + sum(actions._fifteen_counts()) == 100_652
    assert ActionSpace(rules_for("scopone")).n == 16_204
    assert (
        ActionSpace(rules_for("quindici")).n
        == ActionSpace(rules_for("scopa", {"quindici": True})).n
        == 100_652
    )


@pytest.mark.parametrize(
    "rules", [rules_for("scopa"), rules_for("quindici")], ids=["scopa", "quindici"]
)
def test_every_id_but_a_sweep_names_one_card_and_set_and_maps_back_to_itself(rules: Any) -> None:
    space = ActionSpace(rules)
    seen = set()
    for action in range(space.n):
        if actions.SWEEP <= action < actions.FIFTEEN:
            continue
        move = space.move_of(action, table=())
        assert move.card not in move.capture
        if action >= actions.FIFTEEN:  # the fifteen block: sets making 15 with the card
            assert sum(c % 10 + 1 for c in (move.card, *move.capture)) == 15
        elif action >= actions.SUM:  # the sum block: two or more cards making the card's rank
            assert len(move.capture) >= 2
            assert sum(c % 10 + 1 for c in move.capture) == move.card % 10 + 1
        assert (
            ActionSpace(rules_for("quindici" if action >= actions.FIFTEEN else "scopa")).action_of(
                move
            )
            == action
        )
        seen.add(move)
    assert len(seen) == space.n - 4


def test_an_ace_sweep_under_assi_is_one_id_whatever_the_table() -> None:
    space = ActionSpace(rules_for("scopa-assi", {"assi_ace_takes_ace": False}))
    big = space.action_of(parse_move("1c:2d+5b+9s+10s"))
    assert big == space.action_of(parse_move("1c:4d")) == actions.SWEEP + 1
    assert space.move_of(big, table=(1, 24)).name == "1c:2d+5b"
    # A table of one ace: the ace takes that ace, the "same" id, under either rule.
    assert space.action_of(parse_move("1c:1s")) == ActionSpace(rules_for("scopa")).action_of(
        parse_move("1c:1s")
    )


def test_bad_action_ids_are_refused_with_the_reason() -> None:
    space = ActionSpace(rules_for("scopa"))
    with pytest.raises(ActionError, match=r"outside 0\.\.16203"):
        space.move_of(16_204, table=())
    with pytest.raises(ActionError, match="whole number"):
        space.move_of(2.5, table=())  # type: ignore[arg-type]
    with pytest.raises(ActionError, match="no capture of scopa"):
        space.action_of(parse_move("10s:4d+5c"))


option_sets = st.fixed_dictionaries(
    {
        "assi": st.booleans(),
        "quindici": st.booleans(),
        "assi_ace_takes_ace": st.booleans(),
        "assi_empty_table": st.sampled_from(["stay", "pile"]),
        "assi_redeal_on_ace": st.booleans(),
        "assi_sweep_is_scopa": st.booleans(),
        "last_play_scopa": st.booleans(),
    }
)


@PROPERTY
@given(st.sampled_from(list(VARIANTS)), option_sets, st.integers(0, 2**53 - 1))
def test_every_legal_move_of_any_option_set_has_its_own_id_naming_it(
    variant: str, options: dict[str, Any], seed: int
) -> None:
    rules = rules_for(variant, options)
    space = ActionSpace(rules)
    layout = ObservationLayout(rules)
    deal = Game(rules, seed).new_deal()
    pick = Rng(seed)
    while not deal.is_over():
        legal = deal.legal_moves()
        ids = [space.action_of(move) for move in legal]
        assert len(set(ids)) == len(ids)
        assert all(0 <= a < space.n for a in ids)
        assert [space.move_of(a, deal.table) for a in ids] == legal
        for seat in range(rules.players):
            observation = deal.observation(seat)
            assert layout.decode(layout.encode(observation), seat) == observation
        deal.apply(legal[pick.randbelow(len(legal))])


# ---- the observation --------------------------------------------------------------------------


@PROPERTY
@given(st.sampled_from(list(VARIANTS)), st.integers(0, 2**53 - 1), st.integers(0, 40))
def test_the_vector_changes_with_nothing_the_seat_cannot_see(
    variant: str, seed: int, moves: int
) -> None:
    rules = rules_for(variant)
    deal = Game(rules, seed).new_deal()
    pick = Rng(seed)
    for _ in range(moves):
        if deal.is_over():
            break
        legal = deal.legal_moves()
        deal.apply(legal[pick.randbelow(len(legal))])
    layout = ObservationLayout(rules)
    for seat in range(rules.players):
        observation = deal.observation(seat)
        # Another deal the seat cannot tell apart: the hidden cards dealt out again.
        other = Deal.determinize(observation, random.Random(seed))
        assert np.array_equal(layout.encode(other.observation(seat)), layout.encode(observation))


def test_observations_stay_within_their_box_and_masks_are_the_legal_moves() -> None:
    env = ScopaEnv("scopone", {"target": 3})
    env.reset(seed=11)
    box = env.observation_space("player_0")
    while not env.game.is_over():  # type: ignore[union-attr]
        for agent in env.agents:
            obs = env.observe(agent)
            assert box.contains(obs)
            if agent != env.agent_selection:
                assert obs["action_mask"].sum() == 0
        mask = env.observe(env.agent_selection)["action_mask"]
        assert env.deal is not None
        legal = env.deal.legal_moves()
        assert sorted(np.flatnonzero(mask)) == sorted(env.actions.action_of(m) for m in legal)
        env.step(int(np.flatnonzero(mask)[0]))


# ---- seeding and rewards ----------------------------------------------------------------------


def play(env: Any, seed: int, pick_seed: int) -> Iterator[tuple[str, int, float]]:
    """A whole game with random legal actions: (agent, action, reward) per step."""
    env.reset(seed=seed)
    pick = random.Random(pick_seed)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = pick.choice(list(np.flatnonzero(obs["action_mask"])))
        yield agent, -1 if action is None else int(action), reward
        env.step(action)


def test_a_seed_and_the_actions_reproduce_a_game_exactly() -> None:
    first = list(play(scopa_env.env("scopa-4"), seed=5, pick_seed=1))
    again = list(play(scopa_env.env("scopa-4"), seed=5, pick_seed=1))
    other = list(play(scopa_env.env("scopa-4"), seed=6, pick_seed=1))
    assert first == again
    assert first != other


def test_reset_with_a_seed_deals_the_engines_game_of_that_seed() -> None:
    env = ScopaEnv("scopone")
    env.reset(seed=123)
    game = Game(rules_for("scopone"), 123)
    assert env.deal is not None
    assert env.deal.hands == game.new_deal().hands
    assert env.game_seed == 123


def test_a_reset_without_seed_follows_the_last_seed() -> None:
    env = ScopaEnv("scopa")
    env.reset(seed=9)
    env.reset()
    first = env.game_seed
    env.reset(seed=9)
    env.reset()
    assert env.game_seed == first != 9


@pytest.mark.parametrize("variant", ["scopa", "scopa-3", "scopone", "trentino"])
def test_point_rewards_are_zero_sum_and_add_up_to_the_final_difference(variant: str) -> None:
    env = ScopaEnv(variant)
    rules = env.rules
    totals = dict.fromkeys(env.possible_agents, 0.0)
    env.reset(seed=21)
    pick = random.Random(2)
    while not env.game.is_over():  # type: ignore[union-attr]
        env.step(pick.choice(list(env.legal)))
        assert sum(env.rewards.values()) == pytest.approx(0.0)
        for agent, reward in env.rewards.items():
            totals[agent] += reward
    assert env.game is not None
    final = env.game.totals
    for seat, agent in enumerate(env.possible_agents):
        side = rules.side_of(seat)
        others = [t for s, t in enumerate(final) if s != side]
        assert totals[agent] == pytest.approx(final[side] - sum(others) / len(others))


def test_win_rewards_come_once_at_the_end() -> None:
    env = ScopaEnv("scopa", reward="win")
    env.reset(seed=4)
    pick = random.Random(4)
    seen: list[dict[str, float]] = []
    while not env.game.is_over():  # type: ignore[union-attr]
        env.step(pick.choice(list(env.legal)))
        seen.append(dict(env.rewards))
    assert all(set(r.values()) == {0.0} for r in seen[:-1])
    assert env.game is not None
    winner = f"player_{env.game.winner}"
    assert seen[-1][winner] == 1.0
    assert sum(seen[-1].values()) == 0.0


def test_an_illegal_action_raises_in_the_raw_env_and_forfeits_in_the_wrapped_one() -> None:
    raw = ScopaEnv("scopa")
    raw.reset(seed=1)
    illegal = next(a for a in range(raw.actions.n) if a not in raw.legal)
    with pytest.raises(IllegalActionError, match="not legal for player_"):
        raw.step(illegal)
    wrapped = scopa_env.env("scopa")
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped._cumulative_rewards[agent] == -11.0  # the target: a forfeit


# ---- one seat against bots --------------------------------------------------------------------


def test_a_seat_env_game_ends_with_the_seats_points_as_its_return() -> None:
    env = scopa_env.SeatEnv("scopone", seat=1, opponent="greedy", partner="random")
    obs, info = env.reset(seed=3)
    pick = random.Random(3)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, done, truncated, info = env.step(int(pick.choice(list(legal))))
        assert not truncated
        total += reward
    mine, theirs = info["totals"][1], info["totals"][0]
    assert total == mine - theirs
    assert obs["action_mask"].sum() == 0


def test_an_illegal_action_forfeits_the_seats_game() -> None:
    env = scopa_env.SeatEnv("scopa", reward="win")
    obs, _ = env.reset(seed=2)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(ValueError, match="game is over"):
        env.step(0)


def test_bad_arguments_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="unknown variant 'briscola'"):
        scopa_env.env("briscola")
    with pytest.raises(ValueError, match="reward must be one of points, win"):
        ScopaEnv("scopa", reward="elo")
    with pytest.raises(ValueError, match=r"seat must be 0\.\.1"):
        scopa_env.SeatEnv("scopa", seat=2)
    with pytest.raises(ValueError, match="not random nor greedy nor a bot folder"):
        scopa_env.SeatEnv("scopa", opponent="no-such-bot")


def moves_of_a_game(opponent: Any, seed: int) -> list[int]:
    env = scopa_env.SeatEnv("scopa", seat=0, opponent=opponent)
    try:
        obs, _ = env.reset(seed=seed)
        played, done = [], False
        while not done:
            action = int(np.flatnonzero(obs["action_mask"])[-1])
            obs, _, done, _, _ = env.step(action)
            played.append(action)
            assert env.aec.deal is not None
        played += list(env.aec.game.totals)  # type: ignore[union-attr]
        return played
    finally:
        env.close()


def test_a_bot_folder_over_the_protocol_plays_as_the_same_bot_in_process() -> None:
    # greedy is deterministic: over the real protocol it must play the very same game.
    over_the_protocol = moves_of_a_game(SAMPLE_BOTS / "greedy", seed=8)
    in_process = moves_of_a_game("greedy", seed=8)
    assert over_the_protocol == in_process


def test_a_bot_folder_that_does_not_play_the_variant_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "only-scopone"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "only-scopone"\nversion = "1"\n'
        'command = ["python", "bot.py"]\nvariants = ["scopone"]\n'
    )
    with pytest.raises(ValueError, match="does not play 'scopa'"):
        scopa_env.SeatEnv("scopa", opponent=folder)
