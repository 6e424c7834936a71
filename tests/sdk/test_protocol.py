"""Conversions between engine objects and protocol messages (arena.protocol.convert)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from arena.engine import (
    POINT_CATEGORIES,
    VARIANTS,
    Deal,
    Game,
    Move,
    parse_card,
    parse_move,
    rules_for,
)
from arena.protocol import bot_pb2
from arena.protocol.convert import (
    TurnRequestBuilder,
    deal_end_message,
    game_end_message,
    move_from_proto,
    move_played,
    move_to_proto,
    observation_from_proto,
    observation_to_proto,
    points_from_proto,
    points_to_proto,
    rules_from_proto,
    rules_to_proto,
    turn_request_message,
    turn_response_index,
)


def played_positions(variant: str, seed: int) -> list[Deal]:
    """Snapshots of one random deal of ``variant`` after every move."""
    rng = random.Random(seed)
    deal = Game(rules_for(variant), seed).new_deal()
    snapshots = [deal.clone()]
    while not deal.is_over():
        deal.apply(rng.choice(deal.legal_moves()))
        snapshots.append(deal.clone())
    return snapshots


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_observations_survive_the_round_trip_in_every_variant(variant: str) -> None:
    for deal in played_positions(variant, seed=len(variant))[:-1]:
        for seat in range(deal.rules.players):
            obs = deal.observation(seat)
            wire = bot_pb2.Observation.FromString(observation_to_proto(obs).SerializeToString())
            assert observation_from_proto(wire, obs.rules) == obs


def test_an_observation_on_the_wire_holds_no_other_seats_hand() -> None:
    for deal in played_positions("scopone", seed=11)[:-1]:
        for seat in range(4):
            message = observation_to_proto(deal.observation(seat))
            others = {c for s, hand in enumerate(deal.hands) if s != seat for c in hand}
            shown = set(message.hand) | set(message.table)
            assert not (shown & others)
            assert list(message.hand) == list(deal.hands[seat])


def test_moves_round_trip_and_captures_come_back_sorted() -> None:
    move = parse_move("7d:3b+4d")
    assert move_from_proto(move_to_proto(move)) == move
    shuffled = bot_pb2.Move(card=parse_card("7d"), capture=[parse_card("4d"), parse_card("3b")])
    assert move_from_proto(shuffled) == move


def test_a_card_out_of_range_is_refused_with_the_number() -> None:
    with pytest.raises(ValueError, match="40 is not a card"):
        move_from_proto(bot_pb2.Move(card=40))


def test_rules_with_options_round_trip() -> None:
    rules = rules_for("scopone", {"target": 21, "napoli": True})
    message = rules_to_proto(rules)
    assert (message.players, message.num_sides, message.partners, message.target) == (
        4,
        2,
        True,
        21,
    )
    assert rules_from_proto(message) == rules


@pytest.mark.parametrize(
    ("options_json", "reason"),
    [("{nope", "not JSON"), ("[1]", "must be a JSON object")],
)
def test_bad_rule_options_are_refused(options_json: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        rules_from_proto(bot_pb2.Rules(variant="scopa", options_json=options_json))


def test_an_unknown_variant_is_refused() -> None:
    with pytest.raises(ValueError, match="no-such"):
        rules_from_proto(bot_pb2.Rules(variant="no-such"))


def test_turn_requests_carry_legal_moves_and_clock() -> None:
    deal = Game(rules_for("scopa"), 4).new_deal()
    legal = deal.legal_moves()
    message = turn_request_message(9, deal.observation(deal.to_move), legal, 1000, 30000)
    request = message.turn_request
    assert message.WhichOneof("kind") == "turn_request"
    assert [move_from_proto(m) for m in request.legal_moves] == legal
    assert (request.request_id, request.clock.move_ms, request.clock.bank_ms) == (9, 1000, 30000)


@pytest.mark.parametrize("variant", ["scopa", "scopone"])
def test_the_request_builder_builds_the_same_requests(variant: str) -> None:
    builder = TurnRequestBuilder()
    rng = random.Random(3)
    game = Game(rules_for(variant), 3)
    checked = 0
    while not game.is_over():
        deal = game.new_deal()
        builder.new_deal()
        before: list[Any] = []
        while not deal.is_over():
            legal = deal.legal_moves()
            obs = deal.observation(deal.to_move)
            plain = turn_request_message(checked, obs, legal, 900, 5000, before)
            assert builder.request(checked, obs, legal, 900, 5000, before) == plain
            move = rng.choice(legal)
            deal.apply(move)
            before = [builder.move_played(obs.to_move, move, by_arena=checked % 2 == 0)]
            assert before[0] == move_played(obs.to_move, move, by_arena=checked % 2 == 0)
            checked += 1
        game.finish_deal(deal)
    assert checked > 36
    # Without new_deal, another deal's history is built anew, not appended to the last one's.
    for snapshot in played_positions(variant, 8)[1:-1:7]:
        obs = snapshot.observation(snapshot.to_move)
        legal = snapshot.legal_moves()
        assert builder.request(1, obs, legal, 1, 1) == turn_request_message(1, obs, legal, 1, 1)


def test_responses_are_checked_against_the_request() -> None:
    assert turn_response_index(bot_pb2.TurnResponse(request_id=5, move_index=2), 5, 3) == 2
    with pytest.raises(ValueError, match=r"^garbled: answer to request 4"):
        turn_response_index(bot_pb2.TurnResponse(request_id=4, move_index=0), 5, 3)
    with pytest.raises(ValueError, match=r"^garbled: response without move_index"):
        turn_response_index(bot_pb2.TurnResponse(request_id=5), 5, 3)
    with pytest.raises(ValueError, match=r"^illegal: move_index 3"):
        turn_response_index(bot_pb2.TurnResponse(request_id=5, move_index=3), 5, 3)


def test_deal_and_game_ends_carry_scores_and_results() -> None:
    game = Game(rules_for("scopa"), 8)
    deal = game.new_deal()
    rng = random.Random(1)
    while not deal.is_over():
        deal.apply(rng.choice(deal.legal_moves()))
    score = game.finish_deal(deal)
    end = deal_end_message(0, score, list(game.totals)).deal_end
    assert [points_from_proto(p) for p in end.points] == [dict(p) for p in score.points]
    assert list(end.totals) == list(game.totals)
    assert end.HasField("cappotto") == (score.cappotto is not None)
    draw = game_end_message([3, 3], None).game_end
    assert not draw.HasField("winner") and not draw.HasField("forfeit_side")
    forfeit = game_end_message([0, 2], 1, forfeit_side=0, reason="crash").game_end
    assert (forfeit.winner, forfeit.forfeit_side, forfeit.reason) == (1, 0, "crash")


def test_a_move_message_names_the_engine_move() -> None:
    assert move_to_proto(Move(parse_card("5c"), ())).card == parse_card("5c")


def test_the_protocol_s_points_are_the_engine_s_categories_in_order() -> None:
    fields = [f.name for f in bot_pb2.SidePoints.DESCRIPTOR.fields]
    assert fields == [c.key for c in POINT_CATEGORIES] + ["total"]
    points = {c.key: n for n, c in enumerate(POINT_CATEGORIES, start=1)}
    points["total"] = sum(points.values())
    assert points_from_proto(points_to_proto(points)) == points
