"""Auditing a decision and a replay: the evaluator and the samplers leave the true deal as it
was, samples keep what the seat saw, the bound is a share, and bad input is refused."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.audit import AuditConfig, AuditError, audit_decision, audit_replay, move_values
from arena.audit.decisions import resample
from arena.engine import Deal, Game, Move, rules_for
from arena.engine.replay import random_game_replay


def played(variant: str, seed: int, moves: int) -> Deal:
    """A deal of ``variant`` after ``moves`` random moves."""
    deal = Game(rules_for(variant), seed).new_deal()
    rng = random.Random(seed)
    for _ in range(moves):
        deal.apply(rng.choice(deal.legal_moves()))
    return deal


@pytest.mark.parametrize("variant", ["scopa", "scopa-3", "scopone", "quindici"])
def test_evaluating_moves_leaves_the_deal_as_it_was(variant: str) -> None:
    for seed in range(5):
        deal = played(variant, seed, 7)
        before = deal.state_key()
        values = move_values(deal, deal.legal_moves())
        assert deal.state_key() == before
        assert len(values) == len(deal.legal_moves())


def test_a_sample_keeps_the_seats_view_and_the_kept_hands_and_deals_the_rest_again() -> None:
    deal = played("scopone", 3, 5)
    seat = deal.to_move
    partner = (seat + 2) % 4
    view = deal.observation(seat)
    opponents: Counter[int] = Counter()
    for i in range(200):
        sample = resample(deal, seat, (partner,), random.Random(i))
        assert sample.observation(seat).hand == view.hand
        assert sample.table == deal.table and sample.history == deal.history
        assert sample.hands[partner] == deal.hands[partner]
        assert sample.hand_sizes == deal.hand_sizes
        cards = sorted(c for h in sample.hands for c in h) + sorted(sample.stock)
        assert sorted(cards) == sorted([c for h in deal.hands for c in h] + list(deal.stock))
        opponents.update(sample.hands[(seat + 1) % 4])
    # The opponents' cards are dealt again: more distinct cards show up than one hand holds.
    assert len(opponents) > len(deal.hands[(seat + 1) % 4])


def test_a_decision_bound_is_the_chosen_moves_share_of_samples_with_slack() -> None:
    audits = 0
    for seed in range(30):
        deal = played("scopa", seed, 2 * (seed % 5))
        for move in deal.legal_moves():
            audit = audit_decision(deal, move, random.Random(seed), config=AuditConfig(samples=8))
            if audit is None:
                continue
            audits += 1
            assert 0.02 < audit.p0 < 1.0
            assert audit.seen in (0.0, 1.0)
            assert (move.name in audit.best) == (audit.seen == 1.0)
            assert audit.chosen == move.name and audit.legal == len(deal.legal_moves())
    assert audits > 20


def test_the_same_seed_audits_the_same_way() -> None:
    deal = played("scopone", 9, 6)
    move = deal.legal_moves()[-1]
    one = audit_decision(deal, move, random.Random(4), "partner")
    two = audit_decision(deal, move, random.Random(4), "partner")
    assert one == two


def test_it_rejects_a_move_that_is_not_legal() -> None:
    deal = played("scopa", 1, 0)
    hand = set(deal.hands[deal.to_move])
    outsider = next(c for c in range(40) if c not in hand)
    before = deal.state_key()
    with pytest.raises(AuditError, match="is not a legal move"):
        audit_decision(deal, Move(outsider), random.Random(1))
    assert deal.state_key() == before


def test_it_rejects_an_unknown_kind_and_a_partner_test_without_partners() -> None:
    deal = played("scopa", 1, 0)
    move = deal.legal_moves()[0]
    with pytest.raises(AuditError, match="kind must be one of"):
        audit_decision(deal, move, random.Random(1), "telepathy")
    with pytest.raises(AuditError, match="needs partners"):
        audit_decision(deal, move, random.Random(1), "partner")


@pytest.mark.parametrize(
    "settings", [{"samples": 1}, {"samples": 10**6}, {"references": 0}, {"slack": 1.0}]
)
def test_it_rejects_settings_out_of_range(settings: dict[str, float]) -> None:
    with pytest.raises(AuditError, match="must be"):
        AuditConfig(**settings)  # type: ignore[arg-type]


def test_a_replay_is_audited_decision_by_decision_for_the_seats_asked() -> None:
    replay = random_game_replay(rules_for("scopone"), 12)
    audits = audit_replay(replay, [1], "partner", AuditConfig(samples=8))
    assert audits and {a.seat for a in audits} == {1}
    moves = {(a.deal_index, a.move_index) for a in audits}
    assert len(moves) == len(audits)
    for a in audits:
        recorded = replay["deals"][a.deal_index]["moves"][a.move_index]
        assert recorded["seat"] == 1
        assert a.chosen.split(":")[0] == recorded["card"]
    assert audit_replay(replay, [1], "partner", AuditConfig(samples=8)) == audits


def test_it_rejects_a_replay_that_does_not_replay() -> None:
    replay = random_game_replay(rules_for("scopa"), 3)
    broken = dict(replay, deals=[dict(replay["deals"][0], moves=replay["deals"][0]["moves"][::-1])])
    with pytest.raises(AuditError, match="replay"):
        audit_replay(broken, [0])
    with pytest.raises(AuditError, match="not a replay"):
        audit_replay({"format": "nonsense"}, [0])
    with pytest.raises(AuditError, match="seats must be"):
        audit_replay(replay, [5])
