"""Auditing a decision and a replay: the evaluator and the samplers leave the true deal as it
was, samples keep what the seat saw, the paired statistic has mean zero for a seat that sees
nothing where the sampler is exact, and bad input is refused."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.audit import AuditConfig, AuditError, audit_decision, audit_replay, move_values
from arena.audit.decisions import is_exact, resample
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


def test_a_decision_records_the_moves_share_its_match_and_whether_the_sampler_is_exact() -> None:
    audits = exact = 0
    for seed in range(30):
        deal = played("scopa", seed, 2 * (seed % 5))
        for move in deal.legal_moves():
            audit = audit_decision(deal, move, random.Random(seed), config=AuditConfig(samples=8))
            if audit is None:
                continue
            audits += 1
            exact += audit.exact
            assert 0.0 <= audit.share < 1.0 and audit.share * 4 == int(audit.share * 4)
            assert audit.seen in (0.0, 1.0)
            assert (move.name in audit.best) == (audit.seen == 1.0)
            assert audit.excess == audit.seen - audit.share
            assert audit.slack == (0.0 if audit.exact else 0.02)
            assert audit.exact == (deal.hand_sizes[1 - deal.to_move] == 3)
            assert 1.0 <= audit.scale <= 1 / 0.05
            assert audit.chosen == move.name and audit.legal == len(deal.legal_moves())
    assert audits > 20 and 0 < exact < audits


def test_a_seat_is_exact_while_no_hand_sampled_has_been_played_from() -> None:
    deal = Game(rules_for("scopa"), 4).new_deal()
    leader = deal.to_move
    assert is_exact(deal, leader)
    deal.apply(deal.legal_moves()[0])
    assert not is_exact(deal, deal.to_move)  # the leader played from the hand it still holds
    deal.apply(deal.legal_moves()[0])
    assert not is_exact(deal, leader)
    scopone = Game(rules_for("scopone"), 4).new_deal()
    seat = scopone.to_move
    scopone.apply(scopone.legal_moves()[0])
    assert not is_exact(scopone, scopone.to_move)
    # Kept hands are not sampled: what their seat played says nothing the samples lack.
    assert is_exact(scopone, scopone.to_move, (seat,))


def test_a_random_seats_excess_has_mean_zero_where_the_sampler_is_exact() -> None:
    # A seat that ignores everything chooses independently of the hidden cards; where the
    # uniform samples are its true posterior, its match and the samples' are exchangeable.
    excess: list[float] = []
    for seed in range(120):
        game = Game(rules_for("scopa"), 1000 + seed)
        deal = game.new_deal()
        rng = random.Random(seed)
        while not deal.is_over():
            move = rng.choice(deal.legal_moves())
            if is_exact(deal, deal.to_move):
                audit = audit_decision(deal, move, rng, config=AuditConfig(samples=16))
                if audit is not None:
                    excess.append(audit.excess)
            deal.apply(move)
    mean = sum(excess) / len(excess)
    sd = (sum((x - mean) ** 2 for x in excess) / len(excess)) ** 0.5
    assert len(excess) > 300
    assert abs(mean) < 3 * sd / len(excess) ** 0.5


def test_no_decision_is_left_out_by_what_the_true_deal_shows() -> None:
    # A decision where every move ties on the true deal is audited (it matches for sure there):
    # leaving such decisions out would push an honest seat's match below its share.
    ties = 0
    for seed in range(40):
        deal = played("scopa", seed, 2 * (seed % 6))
        moves = deal.legal_moves()
        if len(moves) < 2:
            continue
        audit = audit_decision(deal, moves[0], random.Random(seed), config=AuditConfig(samples=8))
        if audit is not None and len(audit.best) == audit.legal:
            ties += 1
            assert audit.seen == 1.0
    assert ties > 0


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
    "settings", [{"samples": 3}, {"samples": 10**6}, {"references": 0}, {"slack": 0.5}]
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
