"""The SDK's server: hooks, error containment, start-up contract; and that the checks can fail."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.engine import Move, Observation, Seat
from arena.protocol import PROTOCOL_VERSION, bot_pb2, bot_pb2_grpc
from arena.sdk import Bot, DealInfo, GameInfo, GameResult, create_server
from arena.sdk.compliance import (
    ComplianceError,
    check_full_game,
    check_single_legal_move,
    run_checks,
)

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


class RecordingBot(Bot):
    """Plays the first legal move and records every hook call."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.games: list[GameInfo] = []
        self.moves: list[tuple[Seat, Move]] = []
        self.results: list[GameResult] = []
        self.observations: list[Observation] = []
        self.deal_moves: list[tuple[Seat, Move]] = []  # on_move calls of the current deal
        self.history_matches: list[bool] = []  # per choose: on_move saw the history, in order

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        self.calls.append("choose")
        self.observations.append(observation)
        self.history_matches.append(tuple(observation.history) == tuple(self.deal_moves))
        return legal_moves[-1]

    def on_game_start(self, game: GameInfo) -> None:
        self.calls.append("game_start")
        self.games.append(game)

    def on_deal_start(self, deal: DealInfo) -> None:
        self.calls.append("deal_start")
        self.deal_moves = []

    def on_move(self, seat: Seat, move: Move, by_arena: bool) -> None:
        self.moves.append((seat, move))
        self.deal_moves.append((seat, move))

    def on_deal_end(
        self, deal_index: int, points: list[dict[str, int]], totals: tuple[int, ...]
    ) -> None:
        self.calls.append("deal_end")

    def on_game_end(self, result: GameResult) -> None:
        self.calls.append("game_end")
        self.results.append(result)


@pytest.fixture
def served() -> Iterator[Any]:
    """Serves a bot in-process on a free port; yields (channel, bot) makers."""
    servers: list[grpc.Server] = []
    channels: list[grpc.Channel] = []

    def serve(bot: Bot) -> grpc.Channel:
        server, address = create_server(bot)
        servers.append(server)
        channel = grpc.insecure_channel(address)
        channels.append(channel)
        return channel

    yield serve
    for channel in channels:
        channel.close()
    for server in servers:
        server.stop(0)


def test_hooks_see_the_whole_game_in_order(served: Any) -> None:
    bot = RecordingBot()
    check_full_game(served(bot), "scopone", seed=3)
    assert bot.calls[0] == "game_start" and bot.calls[-1] == "game_end"
    assert bot.calls.count("deal_start") == bot.calls.count("deal_end") >= 1
    assert bot.games[0].rules.variant == "scopone" and bot.games[0].seat == 3 % 4
    # The seat chose 9 cards per deal and saw every move of every seat (36 per deal).
    deals = bot.calls.count("deal_start")
    assert bot.calls.count("choose") == 9 * deals
    assert len(bot.moves) == 36 * deals
    # The moves a turn request carries reach on_move before choose, in the order played.
    assert len(bot.history_matches) == 9 * deals and all(bot.history_matches)
    assert bot.results[0].winner in (0, 1)
    assert all(o.seat == bot.games[0].seat for o in bot.observations)


class FailingBot(Bot):
    """A bot with a bug: every other ``choose`` raises, the rest return a move not offered."""

    name = "failing"

    def __init__(self) -> None:
        self.turns = 0

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        self.turns += 1
        if self.turns % 2:
            raise RuntimeError("a bug in the bot")
        return Move(39, (38, 37, 36))  # never legal here


def test_a_bug_in_choose_costs_a_move_not_the_game(
    served: Any, caplog: pytest.LogCaptureFixture
) -> None:
    bot = FailingBot()
    with caplog.at_level(logging.ERROR, logger="arena.sdk"):
        assert "answers" in check_full_game(served(bot), "scopa", seed=2)
    assert bot.turns > 2
    assert "a bug in the bot" in caplog.text
    assert "not a legal move" in caplog.text


class BrokenServicer(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """A bot written without the SDK that breaks the protocol in a chosen way."""

    def __init__(self, fault: str) -> None:
        self.fault = fault

    def Describe(self, request: Any, context: Any) -> Any:
        return bot_pb2.BotInfo(name="broken", variants=["scopa"], protocol_version=1)

    def Play(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        for message in request_iterator:
            if message.WhichOneof("kind") != "turn_request":
                continue
            request = message.turn_request
            if self.fault == "illegal":
                yield bot_pb2.TurnResponse(request_id=request.request_id, move_index=99)
            elif self.fault == "twice":
                yield bot_pb2.TurnResponse(request_id=request.request_id, move_index=0)
                yield bot_pb2.TurnResponse(request_id=request.request_id, move_index=0)
            elif self.fault == "no-index":
                yield bot_pb2.TurnResponse(request_id=request.request_id)


@pytest.fixture
def broken() -> Iterator[Any]:
    started: list[grpc.Server] = []

    def start(fault: str) -> str:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        bot_pb2_grpc.add_BotServicer_to_server(BrokenServicer(fault), server)
        health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
        port = server.add_insecure_port("127.0.0.1:0")
        server.start()
        started.append(server)
        return f"127.0.0.1:{port}"

    yield start
    for server in started:
        server.stop(0)


@pytest.mark.parametrize(
    ("fault", "reason"),
    [("illegal", "illegal: move_index 99"), ("twice", "garbled"), ("no-index", "garbled")],
)
def test_the_checks_catch_a_bot_that_breaks_the_protocol(
    broken: Any, fault: str, reason: str
) -> None:
    results = {r.name: r for r in run_checks(broken(fault), variants=["scopa"])}
    assert results["describe"].ok
    assert not results["full game: scopa"].ok
    assert reason in results["full game: scopa"].detail
    # The health service was registered but never set SERVING for the Bot service.
    assert not results["health"].ok


def test_the_checks_reject_a_single_move_answered_with_nothing(broken: Any) -> None:
    with grpc.insecure_channel(broken("no-index")) as channel, pytest.raises(ComplianceError):
        check_single_legal_move(channel)


def test_serve_binds_a_free_port_and_says_where(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "bot.py", "--address", "127.0.0.1:0"],
        cwd=SAMPLE_BOTS / "random",
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("LISTENING 127.0.0.1:")
        address = line.split(" ", 1)[1]
        assert not address.endswith(":0")
        with grpc.insecure_channel(address) as channel:
            info = bot_pb2_grpc.BotStub(channel).Describe(
                bot_pb2.DescribeRequest(protocol_version=PROTOCOL_VERSION), timeout=10
            )
            status = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service="scopa.arena.v1.Bot"), timeout=10
            )
        assert (info.name, info.language) == ("random", "python")
        assert status.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        process.terminate()
        assert process.wait(timeout=10) == 0
