"""A single-agent Gymnasium environment: one seat learns, bots play every other seat.

:class:`SeatEnv` wraps :class:`arena.env.aec.ScopaEnv` for one seat; the other seats are
:class:`arena.env.players.Player` objects (``opponent=`` for every other seat, ``partner=`` for
the partner's seat in partnership variants): ``"random"`` or ``"greedy"`` in this process, a
function or an SDK bot in this process, or a bot folder played over the real protocol.  An
episode is a whole game; a step plays the agent's move and then every other seat's until it is
the agent's turn again, and its reward is the agent's reward over that stretch (see
:mod:`arena.env.aec`).  An action that is not legal forfeits the game, as in the arena: the
episode ends with :func:`arena.env.aec.illegal_reward` (a masked policy never does it).
Registered as ``gymnasium.make("arena/Scopa-v0", variant=..., ...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym

from arena.env.actions import Action
from arena.env.aec import ScopaEnv, agent_name, illegal_reward
from arena.env.players import BotFault, Player, Policy, ProtocolPlayer, make_player
from arena.seeds import SEED_BITS

PlayerSpec = str | Path | Player | Policy | Any


class SeatEnv(gym.Env):
    """One seat of a game against bots, as a Gymnasium environment.

    >>> env = SeatEnv("scopa", seat=1, opponent="random")
    >>> obs, info = env.reset(seed=7)
    >>> sorted(obs), obs["observation"].shape, int(obs["action_mask"].sum()) > 0
    (['action_mask', 'observation'], (332,), True)
    """

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(
        self,
        variant: str = "scopa",
        options: dict[str, Any] | None = None,
        *,
        seat: int = 0,
        opponent: PlayerSpec = "random",
        partner: PlayerSpec | None = None,
        reward: str = "points",
        illegal: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        """``seat`` learns; ``opponent`` plays every other seat, except the partner's seat in
        partnership variants when ``partner`` is given.  ``illegal`` is the reward of an
        illegal action (default :func:`illegal_reward`)."""
        self.aec = ScopaEnv(variant, options, render_mode=None, reward=reward)
        rules = self.rules = self.aec.rules
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < rules.players:
            raise ValueError(f"seat must be 0..{rules.players - 1}, not {seat!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be human, ansi or None, not {render_mode!r}")
        self.render_mode = render_mode
        self.seat = seat
        self.agent = agent_name(seat)
        self.illegal = illegal_reward(rules, reward) if illegal is None else float(illegal)
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.players: dict[int, Player] = {}
        try:
            for other in range(rules.players):
                if other == seat:
                    continue
                is_partner = rules.partners and rules.side_of(other) == rules.side_of(seat)
                spec = partner if is_partner and partner is not None else opponent
                player = self.players[other] = make_player(spec)
                if isinstance(player, ProtocolPlayer) and not player.bot.manifest.supports(
                    rules.variant
                ):
                    raise ValueError(f"bot {player.label} does not play {rules.variant!r}")
        except BaseException:
            self.close()
            raise
        self.forfeited = False

    # -- gymnasium ------------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game (the game of ``seed`` when given, as ``Game(rules, seed)`` deals it)."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**SEED_BITS))
        self.aec.reset(seed=game_seed)
        self.forfeited = False
        for seat, player in self.players.items():
            player.start_game(self.rules, seat, int(self.np_random.integers(0, 2**SEED_BITS)))
        self._start_deal()
        self._play_others()
        return self._observe(), self._info()

    def step(self, action: Action) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Plays ``action`` for the seat, then the others until its turn or the game's end."""
        aec = self.aec
        if self._is_over():
            raise ValueError("the game is over: reset() the environment")
        try:
            number = int(action)
        except (TypeError, ValueError):
            number = -1
        if number not in aec.legal:
            self.forfeited = True
            side = self.rules.side_of(self.seat)
            assert aec.game is not None
            for player in self.players.values():
                player.end_game(list(aec.game.totals), None, side)
            info = self._info()
            info["illegal"] = True
            return self._observe(), self.illegal, True, False, info
        reward = self._apply(number)
        reward += self._play_others()
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, self._is_over(), False, self._info()

    def render(self) -> str | None:
        """The table as text (``"human"`` prints it, ``"ansi"`` returns it)."""
        if self.render_mode is None or self.aec.deal is None:
            return None
        text = self.aec.describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Stops the bots played over the protocol."""
        for player in getattr(self, "players", {}).values():
            player.close()

    # -- the other seats ------------------------------------------------------------------------

    def _is_over(self) -> bool:
        game = self.aec.game
        return self.forfeited or game is None or game.is_over()

    def _observe(self) -> dict[str, Any]:
        obs = self.aec.observe(self.agent)
        if self._is_over():
            obs["action_mask"][:] = 0
        return obs

    def _info(self) -> dict[str, Any]:
        game = self.aec.game
        assert game is not None
        return {"deal": game.deal_index, "totals": list(game.totals), "winner": game.winner}

    def _apply(self, action: Action) -> float:
        """Plays one legal action for the seat to move; the agent's reward for it."""
        aec = self.aec
        assert aec.deal is not None and aec.game is not None
        seat = aec.deal.to_move
        move = aec.legal[action]
        deals_before = aec.game.deal_index
        aec.step(action)
        for player in self.players.values():
            player.played(seat, move)
        game = aec.game
        if game.deal_index > deals_before:
            score = game.scores[-1]
            for player in self.players.values():
                player.end_deal(deals_before, score, list(game.totals))
            if game.is_over():
                for player in self.players.values():
                    player.end_game(list(game.totals), game.winner, None)
            else:
                self._start_deal()
        return float(aec.rewards.get(self.agent, 0.0))

    def _start_deal(self) -> None:
        deal = self.aec.deal
        assert deal is not None
        for seat, player in self.players.items():
            player.start_deal(deal.observation(seat))

    def _play_others(self) -> float:
        """Lets the other seats play until it is the agent's turn or the game is over."""
        aec = self.aec
        reward = 0.0
        while not self._is_over():
            assert aec.deal is not None
            seat = aec.deal.to_move
            if seat == self.seat:
                break
            legal = list(aec.legal.values())
            player = self.players[seat]
            move = player.choose(aec.deal.observation(seat), legal)
            if move not in legal:
                label = getattr(player, "label", type(player).__name__)
                raise BotFault(f"seat {seat} ({label}) chose {move!r}, not a legal move")
            reward += self._apply(aec.actions.action_of(move))
        return reward


__all__ = ["SeatEnv"]
