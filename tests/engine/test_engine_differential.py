"""The compiled core against the pure engine (arena.engine.differential): the same legal moves
in the same order, states, scores and replays for random deals of every named variant and of
extra option sets; the same decks, dealers and redeals; the fallback to the pure engine.

The suite plays a few deals per rule set; ``arena bench engine --differential 100000`` plays
100,000 per set by hand (docs/BENCHMARKS.md has its result).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

import pytest

from arena.engine import Deal, Game, Rng, core, differential, rules_for
from arena.engine.state import Deal as PureDeal

RULE_SETS = differential.rule_sets()


@pytest.mark.parametrize("rules", RULE_SETS, ids=[r.label for r in RULE_SETS])
def test_random_deals_give_the_same_moves_states_and_scores(rules: object) -> None:
    assert isinstance(rules, type(RULE_SETS[0]))
    assert differential.compare_deals(rules, seed=11, count=40, full_every=1) > 40 * 9


@pytest.mark.parametrize("rules", RULE_SETS, ids=[r.label for r in RULE_SETS])
def test_whole_games_record_the_same_replay_and_the_c_loop_agrees(rules: object) -> None:
    assert isinstance(rules, type(RULE_SETS[0]))
    assert differential.compare_replays(rules, range(3)) == 3
    assert differential.compare_loop(rules, seed=5, count=40) == 40


def test_a_mismatch_is_reported_not_missed() -> None:
    rules = rules_for("scopa")
    pure, fast = differential._pair(rules, 0, Game.deck_for(1, 0))
    fast.apply_unchecked(fast.legal_moves()[0])
    assert pure.state_key() != fast.state_key()


@pytest.mark.parametrize("seed", [0, 1, 7, -5, 2**70 + 3, 123456789])
def test_decks_dealers_and_redeals_are_the_pure_engines(seed: int) -> None:
    compiled = core.compiled
    assert compiled is not None
    for attempt in range(3):
        assert compiled.deck(seed, 4, attempt) == Game.deck_for(seed, 4, attempt)
    for name in ("scopa", "scopa-3", "scopone", "scopa-assi"):
        for options in ({}, {"assi_redeal_on_ace": True} if name == "scopa-assi" else {}):
            rules = rules_for(name, options)
            assert compiled.dealer_of(rules, seed) == Game.first_dealer(rules, seed)
            for index in range(30):
                with core.engine("python"):
                    game = Game(rules, seed)
                    game.deal_index = index
                    pure = game.new_deal()
                hands, table, stock = compiled.game_deal(rules, seed, index, game.dealer)
                assert (hands, table, stock) == (pure.hands, pure.table, pure.stock)


def test_every_deal_is_a_core_deal_and_the_pure_engine_is_forced_by_the_variable() -> None:
    rules = rules_for("scopone")
    assert (
        core.backend() == "core" and type(Deal.from_deck(rules, 0, list(range(40)))) is not PureDeal
    )
    code = (
        "from arena.engine import core, Game, rules_for; "
        "print(core.backend(), type(Game(rules_for('scopa'), 1).new_deal()).__name__)"
    )
    for value, expected in (("python", "python Deal"), ("", "core CoreDeal")):
        env = {**os.environ, "ARENA_ENGINE": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.stdout.split() == expected.split(), out.stderr


def test_rules_the_core_does_not_know_fall_back_to_the_pure_engine() -> None:
    odd = dataclasses.replace(rules_for("scopa"), primiera_method="suits")
    assert core.unsupported(odd) == "primiera_method 'suits'"
    deal = Deal.from_deck(odd, 0, Game.deck_for(3, 0))
    assert type(deal) is PureDeal
    while not deal.is_over():
        deal.apply(deal.legal_moves()[0])
    assert sum(deal.score().totals) >= 1
    assert core.unsupported(rules_for("trentino")) is None


def test_the_checked_apply_refuses_what_the_pure_engine_refuses() -> None:
    rules = rules_for("scopa")
    pure, fast = differential._pair(rules, 1, Game.deck_for(9, 0))
    card = pure.hands[pure.to_move][0]
    other = pure.hands[1 - pure.to_move][0]
    for bad in [(card, (pure.table[0], pure.table[1])), (other, ()), "7d", (card, (99,))]:
        errors = []
        for deal in (pure, fast):
            with pytest.raises(ValueError) as info:
                deal.apply(bad)  # type: ignore[arg-type]
            errors.append((type(info.value), str(info.value)))
        assert errors[0] == errors[1]
        assert pure.state_key() == fast.state_key()
    with pytest.raises(ValueError, match="no move to undo"):
        fast.undo()


def test_without_the_core_the_engine_is_pure_python_and_plays() -> None:
    code = (
        "import sys; sys.modules['arena.engine._core'] = None\n"
        "from arena.engine import core, random_game_replay, rules_for, verify_replay\n"
        "print(core.backend(), core.compiled, verify_replay(random_game_replay("
        "rules_for('scopone'), 3))['ok'])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.split() == ["python", "None", "True"], out.stderr


def test_the_build_says_once_when_there_is_no_compiler(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.engine import build_core

    monkeypatch.setattr(build_core.shutil, "which", lambda name: None)
    assert build_core.compiler() is None
    assert build_core.main() == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["no C compiler found: the engine runs as pure Python (slower, same results)"]


@pytest.mark.parametrize("variant", ["scopa", "scopone", "scopa-3"])
def test_the_cores_determinization_deals_as_the_pure_engines(variant: str) -> None:
    rules = rules_for(variant)
    for seed in range(20):
        with core.engine("python"):
            deal = Game(rules, seed).new_deal()
        with core.engine("core"):
            fast = Game(rules, seed).new_deal()
        for _ in range(seed % 9):
            move = deal.legal_moves()[-1]
            deal.apply_unchecked(move)
            fast.apply_unchecked(move)
        seat = (deal.to_move + seed) % rules.players
        want = Deal.determinize(deal.observation(seat), Rng(seed * 7919))
        assert fast.hands == deal.hands and fast.stock == deal.stock
        state = fast.core  # type: ignore[attr-defined]
        state.determinize(seat, seed * 7919)
        assert (fast.hands, fast.stock) == (want.hands, want.stock)
        assert fast.table == deal.table and fast.captured == deal.captured
        totals, _ = state.playout(seed)
        assert len(totals) == rules.num_sides and fast.hands == want.hands  # undone after


def test_the_bench_command_runs_the_differential_check(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.cli import main

    assert main(["bench", "engine", "--differential", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["identical"] is True
    assert [s["rules"] for s in report["sets"]] == [r.label for r in RULE_SETS]
    assert all(s["deals"] == 2 and s["positions"] > 2 * 9 for s in report["sets"])
    assert main(["bench", "engine", "--differential", "-1"]) == 1
    assert "--differential must be" in capsys.readouterr().err
