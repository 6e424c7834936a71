"""The runner's turn requests, encoded by hand, are the bytes protobuf would write, and a
stream takes them as it takes messages."""

from __future__ import annotations

import random
from concurrent import futures
from typing import Any

import grpc
import pytest
from runner_helpers import run_coroutine

from arena.engine import Game, rules_for
from arena.protocol import bot_pb2, bot_pb2_grpc
from arena.protocol.convert import TurnRequestBuilder, move_played, turn_request_message


@pytest.mark.parametrize("variant", ["scopa", "scopone"])
def test_encoded_turn_requests_are_the_bytes_protobuf_writes(variant: str) -> None:
    builder = TurnRequestBuilder()
    rng = random.Random(5)
    checked = 0
    for game_seed in range(2):
        game = Game(rules_for(variant), game_seed)
        while not game.is_over():
            deal = game.new_deal()
            builder.new_deal()
            unsent: list[list[Any]] = [[] for _ in range(game.rules.players)]
            while not deal.is_over():
                seat = deal.to_move
                legal = deal.legal_moves()
                obs = deal.observation(seat)
                # Clocks of every size, zero included (a zero field is left out).
                # (Varints of one to six bytes, each side of every length's bounds.)
                move_ms, bank_ms = rng.choice(
                    [
                        (0, 0),
                        (1, 300),
                        (1000, 60_000),
                        (2**31, 5),
                        (16_383, 16_384),
                        (2**21 - 1, 2**21),
                        (-5, 127),
                    ]
                )
                request_id = rng.choice([0, 1, 127, 128, 16_383, 16_384, 2**21, 2**40])
                expected = turn_request_message(
                    request_id, obs, legal, move_ms, bank_ms, unsent[seat]
                ).SerializeToString()
                encoded = builder.request_bytes(
                    request_id, obs, legal, move_ms, bank_ms, unsent[seat]
                )
                assert encoded == expected
                unsent[seat] = []
                move = rng.choice(legal)
                deal.apply(move)
                played = builder.move_played(seat, move, by_arena=checked % 3 == 0)
                for each in unsent:
                    each.append(played)
                checked += 1
            game.finish_deal(deal)
    assert checked > 60


def test_a_history_that_does_not_continue_the_last_one_is_encoded_anew() -> None:
    builder = TurnRequestBuilder()
    game = Game(rules_for("scopa"), 1)
    deal = game.new_deal()
    for move_seed in range(6):
        deal.apply(deal.legal_moves()[move_seed % len(deal.legal_moves())])
    late = deal.observation(deal.to_move)
    builder.request_bytes(1, late, deal.legal_moves(), 1, 1)
    other = Game(rules_for("scopa"), 2).new_deal()  # new_deal() of the builder not called
    other.apply(other.legal_moves()[0])
    obs = other.observation(other.to_move)
    legal = other.legal_moves()
    expected = turn_request_message(2, obs, legal, 1, 1).SerializeToString()
    assert builder.request_bytes(2, obs, legal, 1, 1) == expected


def test_kept_bytes_hold_across_deals_variants_and_messages_made_elsewhere() -> None:
    builder = TurnRequestBuilder()
    rng = random.Random(9)
    games = [Game(rules_for("scopa"), 11), Game(rules_for("scopone"), 12)]
    earlier: list[Any] = []  # the builder's messages of deals gone by
    checked = 0
    for _ in range(4):
        for game in games:  # one builder, the deals of two variants in turn
            if game.is_over():
                continue
            deal = game.new_deal()
            builder.new_deal()
            while not deal.is_over():
                seat = deal.to_move
                legal = deal.legal_moves()
                obs = deal.observation(seat)
                before = [
                    builder.move_played(seat, legal[0]),
                    move_played(1, legal[-1], by_arena=True),  # not made by the builder
                    *rng.sample(earlier, min(2, len(earlier))),
                ]
                expected = turn_request_message(checked, obs, legal, 500, 9_000, before)
                encoded = builder.request_bytes(checked, obs, legal, 500, 9_000, before)
                assert encoded == expected.SerializeToString()
                earlier.append(before[0])
                deal.apply(rng.choice(legal))
                checked += 1
            game.finish_deal(deal)
    assert checked > 150
    # More messages than a builder keeps without new_deal: the first ones are encoded anew.
    deal = Game(rules_for("scopa"), 13).new_deal()
    first = [builder.move_played(s % 2, m) for s, m in enumerate(deal.legal_moves())]
    for _ in range(1_100):
        builder.move_played(0, deal.legal_moves()[0])
    obs = deal.observation(deal.to_move)
    expected = turn_request_message(1, obs, deal.legal_moves(), 1, 1, first)
    assert builder.request_bytes(1, obs, deal.legal_moves(), 1, 1, first) == (
        expected.SerializeToString()
    )


class _Recorder(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """Answers each turn request with index 0 and keeps what it got."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    def Play(self, request_iterator: Any, context: Any) -> Any:
        for message in request_iterator:
            self.got.append(message)
            if message.WhichOneof("kind") == "turn_request":
                yield bot_pb2.TurnResponse(request_id=message.turn_request.request_id, move_index=0)


def test_a_stream_sends_encoded_requests_and_messages_alike() -> None:
    from arena.runner.link import BotLink

    recorder = _Recorder()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServicer_to_server(recorder, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    deal = Game(rules_for("scopa"), 4).new_deal()
    obs = deal.observation(deal.to_move)
    legal = deal.legal_moves()
    encoded = TurnRequestBuilder().request_bytes(7, obs, legal, 900, 5000)
    event = bot_pb2.ArenaMessage(move_played=bot_pb2.MovePlayed(seat=1))

    async def play() -> Any:
        link = BotLink(f"127.0.0.1:{port}")
        stream = link.open_game(timeout=None)
        assert await stream.send(event)
        answer = await stream.ask(encoded, 7, len(legal), 5.0)
        await stream.finish()
        await link.close()
        return answer

    try:
        answer = run_coroutine(play())
    finally:
        server.stop(grace=None)
    assert (answer.fault, answer.index) == (None, 0)
    assert recorder.got == [event, turn_request_message(7, obs, legal, 900, 5000)]
