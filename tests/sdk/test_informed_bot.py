"""The informed sample bot: its reading of play, its samples, its search in-process, and the bot
itself through ``arena bot check`` and the real runner."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine import (
    DECK,
    Deal,
    Game,
    Move,
    Observation,
    parse_card,
    parse_cards,
    rules_for,
)
from sample_bots.greedy.policy import choose_move as greedy_move
from sample_bots.informed.search import (
    Sampler,
    SearchConfig,
    capturing_ranks,
    card_weights,
    opening_table,
    outcome_value,
    search,
    solve,
    sweep_rollout_move,
)

INFORMED = Path(__file__).resolve().parents[2] / "sample_bots" / "informed"


def scopone_after(moves: list[str], seed: int = 11) -> tuple[Deal, Observation]:
    """A Scopone deal of ``seed`` after the named moves; the view of the seat to move."""
    deal = Game(rules_for("scopone"), seed).new_deal()
    for name in moves:
        move = next(m for m in deal.legal_moves() if m.name == name)
        deal.apply(move)
    return deal, deal.observation(deal.to_move)


def first_lay_over_a_capture(seed: int) -> tuple[Deal, Move]:
    """A Scopone deal where the first seat may lay a card down while another card captures."""
    deal = Game(rules_for("scopone"), seed).new_deal()
    legal = deal.legal_moves()
    lays = [m for m in legal if not m.capture]
    assert lays and any(m.capture for m in legal), "this seed's first hand cannot do both"
    return deal, lays[0]


def test_the_opening_table_is_read_back_from_play() -> None:
    deal = Game(rules_for("scopone"), 4).new_deal()
    opening = sorted(deal.table)
    for _ in range(9):
        deal.apply(deal.legal_moves()[-1])
    assert opening_table(deal.observation(deal.to_move)) == opening


def test_capturing_ranks_follow_the_rules_of_the_variant() -> None:
    table = parse_cards("2c 3b 9d")
    assert capturing_ranks(rules_for("scopa"), table) == dict.fromkeys([2, 3, 5, 9], False)
    # Quindici: the ace makes 15 with the whole table, a sweep.
    assert capturing_ranks(rules_for("quindici"), table) == {
        1: True,
        3: False,
        4: False,
        6: False,
        10: False,
    }
    assert capturing_ranks(rules_for("scopa"), []) == {}


def test_a_rank_whose_four_cards_are_on_the_table_is_read_as_held_by_no_one() -> None:
    # An opening table can hold all four nines (a scopone deal of the fair-play benchmark did).
    table = parse_cards("9d 9c 9s 9b 7d")
    assert capturing_ranks(rules_for("scopone"), table) == {7: True}
    rest = [card for card in DECK if card not in table]
    deal = Deal.from_hands(
        rules_for("scopone"), dealer=0, hands=[rest[s:32:4] for s in range(4)], table=table
    )
    laid = next(m for m in deal.legal_moves() if not m.capture)
    deal.apply(laid)  # seat 1 lays a card down where a seven would take the settebello
    weights = card_weights(deal.observation(deal.to_move), 0.1)
    sevens = {card for card in (16, 26, 36) if card not in deal.hands[deal.to_move]}
    assert sevens and all(weights[1][card] == 0.1 for card in sevens)


def test_a_sweep_or_the_settebello_makes_a_telling_capture() -> None:
    assert capturing_ranks(rules_for("scopa"), parse_cards("7d 3b")) == {
        3: False,
        7: True,
        10: True,
    }


def test_a_seat_that_laid_a_card_over_a_capture_is_read_as_lacking_the_capturing_ranks() -> None:
    deal, lay = first_lay_over_a_capture(2)
    seat = deal.to_move
    ranks = capturing_ranks(deal.rules, deal.table)
    deal.apply(lay)
    viewer = (seat + 1) % 4
    obs = deal.observation(viewer)
    unseen = obs.unseen_cards()
    weights = card_weights(obs, 0.1, 0.5)[seat]
    expected = {c: 0.1 if ranks[c % 10 + 1] else 0.5 for c in unseen if c % 10 + 1 in ranks}
    assert weights == pytest.approx(expected) and expected
    assert card_weights(obs, 1.0, 1.0) == {s: {} for s in range(4)}  # 1.0: no reading at all


def test_samples_deal_every_unseen_card_once_in_the_real_hand_sizes() -> None:
    deal = Game(rules_for("scopone"), 3).new_deal()
    for _ in range(6):
        deal.apply(deal.legal_moves()[0])
    obs = deal.observation(deal.to_move)
    weights = {s: {c: 0.01 for c in list(obs.unseen_cards())[:4]} for s in range(4)}
    sampler = Sampler(obs, weights)
    rng = random.Random(1)
    for _ in range(20):
        sample = sampler.sample(rng)
        assert [len(h) for h in sample.hands] == list(obs.hand_sizes)
        assert sorted(sample.hands[obs.seat]) == sorted(obs.hand)
        others = sorted(c for s, h in enumerate(sample.hands) if s != obs.seat for c in h)
        assert others == sorted(obs.unseen_cards())
        assert sorted(sample.table) == sorted(obs.table)


def test_a_light_weight_keeps_a_card_out_of_its_seats_hand_most_of_the_time() -> None:
    deal = Game(rules_for("scopone"), 8).new_deal()
    obs = deal.observation(0)
    card = sorted(obs.unseen_cards())[0]
    sampler = Sampler(obs, {1: {card: 0.01}, 3: {card: 0.01}})
    rng = random.Random(2)
    holders = [
        next(s for s, h in enumerate(sampler.sample(rng).hands) if card in h) for _ in range(300)
    ]
    assert holders.count(2) > 280  # the only seat left without a light weight on it
    uniform = Sampler(obs, {})
    spread = [
        next(s for s, h in enumerate(uniform.sample(rng).hands) if card in h) for _ in range(300)
    ]
    assert all(spread.count(s) > 60 for s in (1, 2, 3))


def test_the_sweep_rollout_avoids_a_sweep_the_next_hand_holds() -> None:
    rules = rules_for("scopa")
    mine = parse_cards("4c 10s")
    theirs = parse_cards("9b 2d 1b")
    deal = Deal.from_hands(rules, 1, [mine, theirs[:2]], parse_cards("5c"))
    # 4c on 5c leaves 9 for a 9b the next seat holds; 10s leaves 15, no sweep.
    assert sweep_rollout_move(deal, deal.legal_moves()).card == parse_card("10s")


@pytest.mark.parametrize(
    ("mode", "expansion"), [("flat", "random"), ("tree", "random"), ("tree", "policy")]
)
def test_the_search_is_deterministic_given_its_seed(mode: str, expansion: str) -> None:
    deal, obs = scopone_after([], seed=5)
    legal = deal.legal_moves()
    config = SearchConfig(iterations=120, mode=mode, expansion=expansion, seed=9)
    first, second = search(obs, legal, config), search(obs, legal, config)
    assert first.move == second.move and first.values == second.values
    assert first.move in legal and first.iterations >= 120


def test_a_single_legal_move_is_answered_without_searching() -> None:
    deal = Deal.from_hands(rules_for("scopa"), 1, [parse_cards("5c"), parse_cards("9b")], [])
    obs = deal.observation(0)
    assert search(obs, deal.legal_moves(), SearchConfig(iterations=500)).iterations == 0


@pytest.mark.parametrize("mode", ["flat", "tree"])
def test_the_search_sweeps_the_settebello_rather_than_leave_it(mode: str) -> None:
    rules = rules_for("scopa")
    deal = Deal.from_hands(rules, 1, [parse_cards("7s 10c"), parse_cards("2b 3s")], [6])
    config = SearchConfig(iterations=200, mode=mode)
    result = search(deal.observation(0), deal.legal_moves(), config)
    assert result.move.name == "7s:7d"
    assert result.values[result.move] == max(result.values.values())


def minimax(deal: Deal, side: int) -> int:
    """The value of ``deal`` to ``side`` by looking at every line of play (no pruning)."""
    if deal.is_over():
        return outcome_value(deal, side)
    values = []
    for move in deal.legal_moves():
        deal.apply(move)
        values.append(minimax(deal, side))
        deal.undo()
    return max(values) if deal.rules.side_of(deal.to_move) == side else min(values)


def greedy_down_to(variant: str, seed: int, cards: int) -> Deal:
    """A deal of ``seed`` played by greedy until ``cards`` cards are left in the hands."""
    deal = Game(rules_for(variant), seed).new_deal()
    while sum(deal.hand_sizes) > cards or deal.stock:
        deal.apply(greedy_move(deal.observation(deal.to_move), deal.legal_moves()))
    return deal


@pytest.mark.parametrize("seed", range(6))
def test_the_endgame_solve_agrees_with_looking_at_every_line(seed: int) -> None:
    deal = greedy_down_to("scopone" if seed % 2 else "scopa", seed, 6)
    side = deal.rules.side_of(deal.to_move)
    before = deal.state_key()
    assert solve(deal, side) == minimax(deal, side) == -solve(deal, 1 - side)
    assert deal.state_key() == before  # every move tried was taken back


def test_the_endgame_search_plays_a_move_of_the_best_mean_outcome() -> None:
    deal = greedy_down_to("scopone", 3, 8)
    legal = deal.legal_moves()
    obs = deal.observation(deal.to_move)
    config = SearchConfig(iterations=300, endgame=8, seed=4)
    result = search(obs, legal, config)
    assert result.move in legal and result.iterations > 0
    assert result.values[result.move] == max(result.values.values())
    assert search(obs, legal, config).values == result.values


@pytest.mark.slow
def test_the_bot_passes_arena_bot_check() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bot", "check", str(INFORMED), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "SCOPA_INFORMED_ROLLOUTS": "20"},
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"], done.stdout
    assert {c["name"] for c in report["checks"]} >= {"full game: scopa", "full game: scopone"}


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.parametrize("variant", ["scopa", "scopone"])
def test_the_bot_plays_greedy_through_the_runner(bwrap: str, tmp_path: Path, variant: str) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "match",
            str(INFORMED),
            "greedy",
            "--variant",
            variant,
            "--games",
            "2",
            "--seed",
            "7",
            "--move-time",
            "60",  # the bot thinks for half of it
            "--json",
            "--replays",
            str(tmp_path),
            *(["--unpaced"] if variant == "scopone" else []),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["entrants"] == ["informed (1.0.0)", "greedy (1.0.0)"]
    games = report["games"]
    assert len(games) == 2
    for game in games:
        assert game["void"] is None
        assert {fault["kind"] for fault in game["faults"]} <= {"timeout"}, game["faults"]
    assert len(list(tmp_path.glob("game-*.json"))) == 2
