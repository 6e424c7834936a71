"""Properties of the engine over random seeds and every variant (hypothesis)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from engine_helpers import PROPERTY, brute_force_moves
from hypothesis import given
from hypothesis import strategies as st

from arena.engine import (
    CATEGORIES,
    DECK,
    VARIANTS,
    Deal,
    Game,
    Observation,
    Rng,
    random_game_replay,
    read_replay,
    rules_for,
    verify_replay,
    write_replay,
)
from arena.engine.cards import cards_of

# Every named variant, and the options that change how moves work.
RULESETS: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in VARIANTS] + [
    ("scopa-assi", {"assi_ace_takes_ace": False, "assi_sweep_is_scopa": True}),
    ("scopa-assi", {"assi_empty_table": "pile"}),
    ("scientifico", {"last_play_scopa": True}),
    ("quindici", {"assi": True}),
    ("scopone", {"primiera_missing_suit": "void", "tie_rule": "count_out"}),
]

rulesets = st.sampled_from(RULESETS)
seeds = st.integers(min_value=0, max_value=2**64 - 1)


def start(ruleset: tuple[str, dict[str, Any]], seed: int) -> Deal:
    rules = rules_for(*ruleset)
    return Game(rules, seed).new_deal()


def all_cards(deal: Deal) -> list[int]:
    cards = [c for hand in deal.hands for c in hand]
    cards += deal.table
    cards += deal.stock
    cards += [c for pile in deal.captured for c in pile]
    return cards


@PROPERTY
@given(rulesets, seeds)
def test_a_random_deal_keeps_every_rule_at_every_step(
    ruleset: tuple[str, dict[str, Any]], seed: int
) -> None:
    deal = start(ruleset, seed)
    pick = Rng(seed)
    while True:
        # The 40 cards are conserved.
        assert sorted(all_cards(deal)) == list(DECK)
        moves = deal.legal_moves()
        # There is a legal move exactly until the deal ends.
        assert bool(moves) == (not deal.is_over())
        if not moves:
            break
        # Generation equals the rules read literally.
        assert moves == brute_force_moves(deal)
        # Every move applies, and undo restores the exact state.
        before = deal.state_key()
        for move in moves:
            deal.apply(move)
            deal.undo()
            assert deal.state_key() == before
        deal.apply(moves[pick.randbelow(len(moves))])
    # The deal's total is the sum of its categories, and all 40 cards are in the piles.
    score = deal.score()
    for row in score.points:
        assert row["total"] == sum(row[c] for c in CATEGORIES)
    assert sum(len(p) for p in deal.captured) + len(deal.table) == 40


@PROPERTY
@given(rulesets, seeds, st.integers(min_value=0, max_value=40))
def test_an_observation_never_holds_another_seats_hand(
    ruleset: tuple[str, dict[str, Any]], seed: int, plies: int
) -> None:
    deal = start(ruleset, seed)
    pick = Rng(seed ^ 1)
    for _ in range(plies):
        if deal.is_over():
            break
        moves = deal.legal_moves()
        deal.apply(moves[pick.randbelow(len(moves))])
    for seat in range(deal.rules.players):
        obs = deal.observation(seat)
        hidden = {c for s, hand in enumerate(deal.hands) if s != seat for c in hand}
        hidden |= set(deal.stock)
        visible = set(obs.hand) | set(obs.table) | {c for p in obs.captured for c in p}
        visible |= {c for _, m in obs.history for c in (m.card, *m.capture)}
        assert not visible & hidden
        assert obs.hand == deal.hands[seat] and obs.hand_sizes == deal.hand_sizes
        assert obs.unseen_cards() == hidden
        sample = Deal.determinize(obs, Rng(seed + seat))
        assert sample.hands[seat] == deal.hands[seat] and sample.table == deal.table
        assert sample.hand_sizes == deal.hand_sizes and len(sample.stock) == len(deal.stock)
        assert sorted(all_cards(sample)) == list(DECK)
        assert sample.captured == deal.captured and sample.scope == deal.scope
        assert sample.history == deal.history and sample.to_move == deal.to_move
        if seat == deal.to_move:
            assert obs.legal_moves() == deal.legal_moves() == sample.legal_moves()
        assert type(obs).from_json(obs.to_json()) == obs


@PROPERTY
@given(rulesets, seeds)
def test_a_clone_is_independent_of_its_original(
    ruleset: tuple[str, dict[str, Any]], seed: int
) -> None:
    deal = start(ruleset, seed)
    before = deal.state_key()
    copy = deal.clone()
    pick = Rng(seed)
    while not copy.is_over():
        moves = copy.legal_moves()
        copy.apply(moves[pick.randbelow(len(moves))])
    assert deal.state_key() == before
    while copy.history:
        copy.undo()
    assert copy.state_key() == before


@PROPERTY
@given(rulesets, st.integers(min_value=0, max_value=2**32))
def test_the_same_seed_gives_the_same_game_and_its_replay_round_trips(
    ruleset: tuple[str, dict[str, Any]], seed: int
) -> None:
    rules = rules_for(*ruleset)
    replay = random_game_replay(rules, seed)
    assert random_game_replay(rules, seed) == replay
    assert read_replay(write_replay(replay)) == replay
    report = verify_replay(replay)
    assert report["ok"], report
    assert report["totals"] == replay["result"]["totals"]
    assert report["winner"] == replay["result"]["winner"] is not None


def plain_observation(deal: Deal, seat: int, history: list[Any]) -> Observation:
    """The observation of ``seat`` read off the deal's public state, by the dataclass's own
    constructor; ``history`` is the (seat, move) list kept beside the deal."""
    return Observation(
        rules=deal.rules,
        seat=seat,
        to_move=deal.to_move,
        dealer=deal.dealer,
        hand=deal.hands[seat],
        table=tuple(sorted(deal.table)),
        hand_sizes=deal.hand_sizes,
        stock_size=len(deal.stock),
        history=tuple(history),
        captured=tuple(tuple(cards_of(m)) for m in deal.captured_masks),
        scope=deal.scope,
        totals=tuple(deal.game_totals),
        deal_index=deal.deal_index,
    )


@PROPERTY
@given(rulesets, seeds)
def test_observations_are_the_dataclass_built_plainly_through_undo_clone_and_restore(
    ruleset: tuple[str, dict[str, Any]], seed: int
) -> None:
    deal = start(ruleset, seed)
    deal.deal_index = seed % 5
    history: list[Any] = []
    undoable = 0  # moves this deal can take back (none made before a restore)
    pick = Rng(seed)
    fields = [f.name for f in dataclasses.fields(Observation)]
    steps = 0
    while not deal.is_over() and steps < 80:
        steps += 1
        seat = deal.to_move
        obs = deal.observation(seat)
        plain = plain_observation(deal, seat, history)
        assert obs == plain and hash(obs) == hash(plain) and repr(obs) == repr(plain)
        assert list(vars(obs)) == fields and vars(obs) == vars(plain)
        # (asdict cannot rebuild a Move from a generator: the history is left out.)
        bare, plain_bare = (dataclasses.replace(o, history=()) for o in (obs, plain))
        assert bare == plain_bare and dataclasses.asdict(bare) == dataclasses.asdict(plain_bare)
        with pytest.raises(dataclasses.FrozenInstanceError):
            obs.seat = 0  # type: ignore[misc]
        other = (seat + 1) % deal.rules.players
        assert deal.observation(other) == plain_observation(deal, other, history)
        roll = pick.randbelow(8)
        if roll == 0 and undoable:  # take a move back, and play one (maybe another) unseen
            deal.undo()
            history.pop()
            moves = deal.legal_moves()
            move = moves[pick.randbelow(len(moves))]
            history.append((deal.to_move, move))
            deal.apply(move)
        elif roll == 1:  # a copy plays a move; the original's view stays; go on in the copy
            copy = deal.clone()
            assert copy.observation(seat) == obs
            moves = copy.legal_moves()
            copy.apply(moves[pick.randbelow(len(moves))])
            assert deal.observation(seat) == obs
            copy.undo()
            deal = copy
        elif roll == 2:  # go on in a deal restored from the observation
            deal = Deal.determinize(obs, Rng(seed + steps))
            undoable = 0
            assert deal.observation(seat) == obs
        else:
            moves = deal.legal_moves()
            move = moves[pick.randbelow(len(moves))]
            deal.apply(move)
            history.append((seat, move))
            undoable += 1
        assert deal.history == history
