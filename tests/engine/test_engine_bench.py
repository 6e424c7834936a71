"""``arena bench``: the dispatcher and the engine benchmark's output (no timing is asserted)."""

from __future__ import annotations

import json
import random

import pytest

from arena.bench.engine import NaiveDeal
from arena.cli import main
from arena.engine import VARIANTS, Deal, Game


def test_bench_engine_json_has_a_figure_and_a_baseline_per_variant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = main(
        [
            "bench",
            "engine",
            "--json",
            "--seconds",
            "0.05",
            "--runs",
            "1",
            "--variant",
            "scopa",
            "--variant",
            "quindici",
        ]
    )
    assert status == 0
    results = json.loads(capsys.readouterr().out)["results"]
    assert [r["variant"] for r in results] == ["scopa", "quindici"]
    for r in results:
        assert r["deals_per_s"] > 0 and r["baseline_deals_per_s"] > 0
        assert r["movegen_us"] > 0 and r["baseline_movegen_us"] > 0


def test_bench_refuses_unknown_variants_and_missing_benchmarks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "engine", "--variant", "briscola"]) == 1
    assert "unknown variant 'briscola'" in capsys.readouterr().err
    assert main(["bench"]) == 2
    assert "choose a benchmark" in capsys.readouterr().err


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_naive_baseline_plays_the_same_moves_as_the_engine(variant: str) -> None:
    rules = VARIANTS[variant]
    pick = random.Random(variant)
    for index in range(3):
        deal = Deal.from_deck(rules, index % rules.players, Game.deck_for(11, index))
        naive = NaiveDeal(rules, deal)
        while not deal.is_over():
            moves = deal.legal_moves()
            assert sorted(naive.legal_moves()) == moves
            move = pick.choice(moves)
            deal.apply(move)
            naive = naive.play(move)
            assert sorted(naive.table) == list(deal.table)
        assert naive.is_over()
        assert [sorted(p) for p in naive.captured] == [list(p) for p in deal.captured]
        assert naive.scope == list(deal.scope)
