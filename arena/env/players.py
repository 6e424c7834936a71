"""The other seats of a single-agent environment: a policy in this process, or a bot folder
played over the real protocol.

A :class:`Player` is told the game's events (start, each deal, each move, each deal's score, the
end) and chooses a move when its seat is to play.  :class:`PolicyPlayer` calls a function (or
an object with ``choose``, such as an SDK :class:`arena.sdk.Bot`) in this process;
:class:`ProtocolPlayer` starts a bot folder as a local process (:class:`arena.sdk.launch.LocalBot`,
unsandboxed: for bots you trust) and speaks ``scopa.arena.v1`` to it, one ``Play`` stream per
game, as the match runner does.  :func:`make_player` turns what a user passes (``"random"``,
``"greedy"``, a folder, a function) into one.
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from arena.engine import DealScore, Move, Observation, Rules, Seat

Policy = Callable[[Observation, Sequence[Move]], Move]
"""A function that chooses one of the legal moves for the seat of the observation."""

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
IN_PROCESS = ("random", "greedy")
"""The sample policies that run in this process by name."""


class Player:
    """One seat's player; the hooks are optional, :meth:`choose` is not."""

    def start_game(self, rules: Rules, seat: Seat, seed: int) -> None:
        """A game starts; ``seed`` seeds the player's own randomness (for a reproducible game)."""

    def start_deal(self, observation: Observation) -> None:
        """A deal starts (its first observation)."""

    def played(self, seat: Seat, move: Move) -> None:
        """A seat (this one included) played ``move``."""

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        """One of ``legal_moves`` for this seat."""
        raise NotImplementedError

    def end_deal(self, deal_index: int, score: DealScore, totals: Sequence[int]) -> None:
        """A deal was scored."""

    def end_game(self, totals: Sequence[int], winner: int | None, forfeit_side: int | None) -> None:
        """The game is over (``forfeit_side``: the side that played an illegal move)."""

    def close(self) -> None:
        """Releases what the player holds (processes, connections)."""


class RandomPolicy:
    """A uniformly random legal move, reseeded with each game (as the sample ``random`` bot)."""

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def seed(self, seed: int) -> None:
        """Seeds the choices of the next game."""
        self.rng.seed(seed)

    def __call__(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return self.rng.choice(legal_moves)


def greedy_policy() -> Policy:
    """The greedy sample bot's choice (``sample_bots/greedy``), its bot made in this process
    by its own script (:func:`arena.sdk.launch.load_bot`)."""
    folder = SAMPLE_BOTS / "greedy"
    if not (folder / "bot.toml").is_file():
        raise ValueError(f"the greedy policy needs the arena's sample bots ({folder} is missing)")
    from arena.sdk.launch import load_bot

    choose: Policy = load_bot(folder).choose
    return choose


class PolicyPlayer(Player):
    """A policy called in this process: a function, or an object with ``choose``."""

    def __init__(self, policy: Policy | Any, label: str = "") -> None:
        choose = getattr(policy, "choose", None)
        if choose is None and not callable(policy):
            raise ValueError(
                f"a player is a function of (observation, legal_moves) or an object "
                f"with choose(), not {policy!r}"
            )
        self.policy = policy
        self.choose_move: Policy = choose if choose is not None else policy
        self.label = label or getattr(policy, "name", "") or type(policy).__name__

    def start_game(self, rules: Rules, seat: Seat, seed: int) -> None:
        reseed = getattr(self.policy, "seed", None)
        if callable(reseed):
            reseed(seed)

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        return self.choose_move(observation, legal_moves)


class BotFault(RuntimeError):
    """A bot over the protocol broke it (no answer, a garbled or illegal one, a crash)."""


class ProtocolPlayer(Player):
    """A bot folder as a local process, played over the real protocol (one per seat).

    The process starts with the first game and serves every game after it (its own
    randomness is its own: a game against it is as reproducible as the bot is); :meth:`close`
    stops it.  It runs unsandboxed, so use it for bots you trust (your own, the samples).
    """

    def __init__(self, folder: str | Path, move_ms: int = 1000, bank_ms: int = 60_000) -> None:
        from arena.sdk.launch import LocalBot

        self.bot = LocalBot(folder)
        self.label = self.bot.manifest.label
        self.move_ms = move_ms
        self.bank_ms = bank_ms
        self.channel: Any = None
        self.stream: _Stream | None = None
        self.unsent: list[Any] = []
        self.request_id = 0
        self.games = 0

    def start_game(self, rules: Rules, seat: Seat, seed: int) -> None:
        import grpc

        from arena.protocol import bot_pb2_grpc
        from arena.protocol.convert import game_start_message

        if self.channel is None:
            self.bot.start()
            self.channel = grpc.insecure_channel(self.bot.address)
        if self.stream is not None:
            self.stream.abort()
        self.games += 1
        self.stream = _Stream(bot_pb2_grpc.BotStub(self.channel), timeout=None)
        players = [f"seat-{s}" for s in range(rules.players)]
        players[seat] = self.label
        self.unsent = []
        self.stream.send(
            game_start_message(
                f"env-{self.games}", rules, seat, players, self.move_ms, self.bank_ms
            )
        )

    def start_deal(self, observation: Observation) -> None:
        from arena.protocol.convert import deal_start_message

        self._stream().send(deal_start_message(observation))
        self.unsent = []

    def played(self, seat: Seat, move: Move) -> None:
        from arena.protocol.convert import move_played

        self.unsent.append(move_played(seat, move))

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        from arena.protocol.convert import turn_request_message, turn_response_index

        self.request_id += 1
        message = turn_request_message(
            self.request_id, observation, legal_moves, self.move_ms, self.bank_ms, self.unsent
        )
        self.unsent = []
        answer = self._stream().ask(message, timeout=self.move_ms / 1000.0 * 10 + 5)
        try:
            return legal_moves[turn_response_index(answer, self.request_id, len(legal_moves))]
        except ValueError as exc:
            raise BotFault(f"{self.label}: {exc}") from None

    def end_deal(self, deal_index: int, score: DealScore, totals: Sequence[int]) -> None:
        from arena.protocol import bot_pb2
        from arena.protocol.convert import deal_end_message

        stream = self._stream()
        for played in self.unsent:  # the deal's last moves: no turn request carried them
            stream.send(bot_pb2.ArenaMessage(move_played=played))
        self.unsent = []
        stream.send(deal_end_message(deal_index, score, list(totals)))

    def end_game(self, totals: Sequence[int], winner: int | None, forfeit_side: int | None) -> None:
        from arena.protocol.convert import game_end_message

        if self.stream is None:
            return
        reason = "an illegal move" if forfeit_side is not None else ""
        self.stream.send(game_end_message(list(totals), winner, forfeit_side, reason))
        self.stream.finish()
        self.stream = None

    def _stream(self) -> _Stream:
        if self.stream is None:
            raise BotFault(f"{self.label}: no game in progress")
        return self.stream

    def close(self) -> None:
        if self.stream is not None:
            self.stream.abort()
            self.stream = None
        if self.channel is not None:
            self.channel.close()
            self.channel = None
        self.bot.stop()


class _Stream:
    """One ``Play`` stream: messages go out in order; each turn request reads one answer."""

    def __init__(self, stub: Any, timeout: float | None) -> None:
        self._outbox: queue.Queue[Any] = queue.Queue()
        self._answers: queue.Queue[Any] = queue.Queue()
        self._call = stub.Play(self._requests(), timeout=timeout)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _requests(self) -> Iterator[Any]:
        while True:
            message = self._outbox.get()
            if message is None:
                return
            yield message

    def _read(self) -> None:
        try:
            for answer in self._call:
                self._answers.put(answer)
        except Exception as exc:  # the stream failed: tell the waiting turn
            self._answers.put(exc)
        self._answers.put(None)

    def send(self, message: Any) -> None:
        self._outbox.put(message)

    def ask(self, message: Any, timeout: float) -> Any:
        self.send(message)
        try:
            answer = self._answers.get(timeout=timeout)
        except queue.Empty:
            raise BotFault(f"no answer within {timeout:g} s") from None
        if answer is None or isinstance(answer, Exception):
            raise BotFault(f"the bot's stream ended instead of answering ({answer})")
        return answer

    def finish(self) -> None:
        """Half-closes the stream; the bot ends it in its own time."""
        self.send(None)

    def abort(self) -> None:
        self.send(None)
        self._call.cancel()


def make_player(spec: str | Path | Player | Policy | Any) -> Player:
    """A player from ``"random"``, ``"greedy"`` (in process), a bot folder (over the protocol),
    a :class:`Player`, a function of ``(observation, legal_moves)``, or an object with
    ``choose`` (an SDK bot).  Raises ValueError for anything else."""
    if isinstance(spec, Player):
        return spec
    if isinstance(spec, str) and spec in IN_PROCESS:
        if spec == "random":
            return PolicyPlayer(RandomPolicy(), "random")
        return PolicyPlayer(greedy_policy(), "greedy")
    if isinstance(spec, str | Path):
        folder = Path(spec)
        if not (folder / "bot.toml").is_file():
            raise ValueError(
                f"player {str(spec)!r}: not {' nor '.join(IN_PROCESS)} nor a bot "
                "folder with a bot.toml"
            )
        return ProtocolPlayer(folder)
    return PolicyPlayer(spec)


__all__ = [
    "IN_PROCESS",
    "BotFault",
    "Player",
    "Policy",
    "PolicyPlayer",
    "ProtocolPlayer",
    "RandomPolicy",
    "greedy_policy",
    "make_player",
]
