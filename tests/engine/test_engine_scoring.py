"""Scoring a deal (every category and option) and a whole game (targets, tie rules, cappotto)."""

from __future__ import annotations

import pytest
from engine_helpers import position

from arena.engine import CATEGORIES, Deal, Game, parse_cards, parse_move, rules_for, score_deal


def points(
    variant: str, ours: str, theirs: str, scope: tuple[int, int] = (0, 0), **options: object
) -> tuple[dict[str, int], dict[str, int]]:
    score = score_deal(rules_for(variant, options), [parse_cards(ours), parse_cards(theirs)], scope)
    return score.points[0], score.points[1]


def test_carte_and_denari_go_to_the_side_with_most_and_to_nobody_on_a_tie() -> None:
    a, b = points("scopa", "1d 2d 3d 1c", "4d 5c 6c")
    assert (a["carte"], b["carte"], a["denari"], b["denari"]) == (1, 0, 1, 0)
    a, b = points("scopa", "1d 2c", "2d 3c")
    assert (a["carte"], b["carte"], a["denari"], b["denari"]) == (0, 0, 0, 0)


def test_settebello_scores_for_the_side_holding_the_seven_of_coins() -> None:
    a, b = points("scopa", "1c", "7d")
    assert (a["settebello"], b["settebello"]) == (0, 1)


def test_scope_are_one_point_each() -> None:
    a, b = points("scopa", "1c", "2c", scope=(3, 1))
    assert (a["scope"], b["scope"]) == (3, 1)


def test_primiera_adds_the_best_card_of_each_suit() -> None:
    a, b = points("scopa", "7d 1c 1b 1s", "6d 6c 6b 6s")  # 21+16*3 = 69 < 72
    assert (a["primiera"], b["primiera"]) == (0, 1)
    a, b = points("scopa", "7d 6c 1b 1s", "6d 7c 1c 5s 10b 10s")
    # 21+18+16+16 = 71 against 18+21+10+15 = 64
    assert (a["primiera"], b["primiera"]) == (1, 0)
    a, b = points("scopa", "7d 7c 6b 6s", "7b 7s 6d 6c")  # 78 each: nobody
    assert (a["primiera"], b["primiera"]) == (0, 0)


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("loses", (0, 1)),  # all four suits beat three sevens (source 001)
        ("void", (0, 1)),  # a side lacking a suit has no primiera (source 000)
        ("zero", (1, 0)),  # a missing suit adds 0: 63 beats 40 (source 002)
    ],
)
def test_primiera_when_one_side_lacks_a_suit(method: str, expected: tuple[int, int]) -> None:
    a, b = points("scopa", "7d 7c 7b 6d 6c 6b", "8d 8c 8b 8s", primiera_missing_suit=method)
    assert (a["primiera"], b["primiera"]) == expected


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        ("loses", (1, 0)),  # both lack a suit: the higher sum over the suits held
        ("void", (0, 0)),
        ("zero", (1, 0)),
    ],
)
def test_primiera_when_both_sides_lack_a_suit(method: str, expected: tuple[int, int]) -> None:
    a, b = points("scopa", "7d 7c 7b", "1d 1c", primiera_missing_suit=method)
    assert (a["primiera"], b["primiera"]) == expected


def test_primiera_by_count_compares_sevens_then_sixes_then_aces() -> None:
    a, b = points("scopa", "7d 7c 6d 6c 1b", "7b 7s 6b 6s 1s 1c", primiera_method="count")
    assert (a["primiera"], b["primiera"]) == (0, 1)
    a, b = points("scopa", "7d 7c 7b", "7s 6d 6c 6b 6s", primiera_method="count")
    assert (a["primiera"], b["primiera"]) == (1, 0)
    a, b = points("scopa", "7d 2c", "7c 2d", primiera_method="count")
    assert (a["primiera"], b["primiera"]) == (0, 0)


def test_re_bello_scores_only_when_on() -> None:
    assert points("scopa", "10d", "1c")[0]["re_bello"] == 0
    assert points("scopa", "10d", "1c", re_bello=True)[0]["re_bello"] == 1


def test_napoli_scores_the_unbroken_run_of_coins_from_the_ace() -> None:
    assert points("scopa", "1d 2d 3d 4d 6d", "5d", napoli=True)[0]["napoli"] == 4
    assert points("scopa", "1d 2d 4d", "3d", napoli=True)[0]["napoli"] == 0
    assert points("scopa", "1d 2d 3d", "4d", napoli=False)[0]["napoli"] == 0
    coins = " ".join(f"{r}d" for r in range(1, 11))
    assert points("scopa", coins, "1c", napoli=True)[0]["napoli"] == 10


def test_sette_tutti_scores_all_four_sevens() -> None:
    assert points("scopa", "7d 7c 7b 7s", "1c", sette_tutti=True)[0]["sette_tutti"] == 1
    assert points("scopa", "7d 7c 7b", "7s", sette_tutti=True)[0]["sette_tutti"] == 0


def test_cappotto_names_the_side_with_every_coin_only_when_on() -> None:
    coins = " ".join(f"{r}d" for r in range(1, 11))
    rules = rules_for("scopa", {"cappotto": True})
    assert score_deal(rules, [parse_cards("1c"), parse_cards(coins)], [0, 0]).cappotto == 1
    assert score_deal(rules_for("scopa"), [parse_cards(coins), []], [0, 0]).cappotto is None


def test_the_total_is_the_sum_of_the_categories() -> None:
    a, _ = points("scopa-veneta", "1d 2d 3d 7d 10d 7c 7b 7s 1c", "4d 5d", scope=(2, 0))
    assert a["total"] == sum(a[c] for c in CATEGORIES)
    assert (a["napoli"], a["re_bello"], a["sette_tutti"], a["scope"]) == (3, 1, 1, 2)


def test_three_player_scoring_gives_a_point_only_to_a_sole_leader() -> None:
    score = score_deal(
        rules_for("scopa-3"),
        [parse_cards("1d 2d"), parse_cards("3d 4d"), parse_cards("1c")],
        [0, 0, 0],
    )
    assert [p["denari"] for p in score.points] == [0, 0, 0]
    assert [p["carte"] for p in score.points] == [0, 0, 0]


# -- a game ----------------------------------------------------------------------------------


def five_nil_deal(variant: str = "scopa", dealer: int = 1, **options: object) -> Deal:
    """A finished deal where side 0 scores 5 (carte, denari, settebello, primiera, a scopa)."""
    deal = position(variant, ["7d", "2c"], "7c", dealer=dealer, **options)
    deal.apply(parse_move("7d:7c"))
    deal.apply(parse_move("2c"))
    assert deal.is_over()
    return deal


def test_the_game_ends_when_a_side_reaches_the_target_and_the_deal_passes() -> None:
    game = Game(rules_for("scopa"), 1)
    game.dealer = 1
    game.totals = [8, 3]
    score = game.finish_deal(five_nil_deal())
    assert score.totals == (5, 0)
    assert game.totals == [13, 3] and game.winner == 0 and game.is_over()
    assert game.dealer == 0 and game.deal_index == 1


def test_below_the_target_the_game_goes_on() -> None:
    game = Game(rules_for("scopa", {"target": 21}), 1)
    game.dealer = 1
    game.finish_deal(five_nil_deal())
    assert game.totals == [5, 0] and game.winner is None


def test_a_tie_at_the_target_plays_on_by_default() -> None:
    game = Game(rules_for("scopa"), 1)
    game.dealer = 1
    game.totals = [6, 11]
    game.finish_deal(five_nil_deal())
    assert game.totals == [11, 11] and game.winner is None and not game.is_over()


def test_count_out_adds_the_last_deal_category_by_category() -> None:
    game = Game(rules_for("scopa", {"tie_rule": "count_out"}), 1)
    game.dealer = 1
    game.totals = [6, 11]
    game.finish_deal(five_nil_deal())
    # Side 1 had its 11 before the deal; side 0 only gets there with its last point (scope).
    assert game.totals == [11, 11] and game.winner == 1


def test_count_out_that_cannot_separate_the_sides_plays_on() -> None:
    game = Game(rules_for("scopa", {"tie_rule": "count_out"}), 1)
    game.dealer = 1
    game.totals = [11, 16]
    game.finish_deal(five_nil_deal())  # both already past the target: no first to reach it
    assert game.totals == [16, 16] and game.winner is None


def test_cappotto_wins_the_game_at_once_whatever_the_scores() -> None:
    deal = position(
        "scopa-veneta", ["10d", "1s"], "1d 2d 3d 4d 5d 6d 7d 8d 9d", dealer=1, target=50
    )
    deal.apply(parse_move("10d:1d+9d"))
    deal.apply(parse_move("1s"))  # the rest of the table goes to seat 0, the last capturer
    game = Game(deal.rules, 1)
    game.dealer = 1
    game.totals = [0, 40]
    score = game.finish_deal(deal)
    assert score.cappotto == 0 and game.cappotto == 0 and game.winner == 0
    assert game.totals[0] < game.totals[1] and game.totals[0] < 50


def test_finishing_a_deal_of_the_wrong_dealer_or_unfinished_is_refused() -> None:
    game = Game(rules_for("scopa"), 1)
    game.dealer = 0
    with pytest.raises(ValueError, match="deal"):
        game.finish_deal(five_nil_deal())
    game.dealer = 1
    with pytest.raises(ValueError, match="not over"):
        game.finish_deal(position("scopa", ["7d", "2c"], "7c"))


def test_a_game_from_a_seed_is_played_to_its_target() -> None:
    game = Game(rules_for("scopone"), 5)
    first_dealer = game.dealer
    while not game.is_over():
        deal = game.new_deal()
        assert deal.dealer == (first_dealer + deal.deal_index) % 4
        while not deal.is_over():
            deal.apply(deal.legal_moves()[-1])
        game.finish_deal(deal)
    assert max(game.totals) >= 11 and game.winner == game.totals.index(max(game.totals))
    assert sum(s.totals[0] for s in game.scores) == game.totals[0]
    with pytest.raises(ValueError, match="over"):
        game.new_deal()


@pytest.mark.parametrize("seed", range(40))
def test_deal_counts_are_the_figures_behind_the_points(seed: int) -> None:
    import random

    from arena.engine import deal_counts
    from arena.engine.cards import mask_of
    from arena.engine.scoring import score_masks

    rules = rules_for("scopa", {"re_bello": True, "napoli": True, "sette_tutti": True})
    deck = list(range(40))
    random.Random(seed).shuffle(deck)
    cut = random.Random(seed + 1).randint(8, 32)
    masks = [mask_of(deck[:cut]), mask_of(deck[cut:])]
    scope = [seed % 3, seed % 2]
    counts = deal_counts(rules, masks, scope)
    score = score_masks(rules, masks, scope)
    assert counts[0]["carte"] + counts[1]["carte"] == 40
    assert counts[0]["denari"] + counts[1]["denari"] == 10
    assert counts[0]["settebello"] + counts[1]["settebello"] == 1
    for key in ("carte", "denari"):
        a, b = counts[0][key], counts[1][key]
        assert (score.points[0][key], score.points[1][key]) == (int(a > b), int(b > a))
    for side in (0, 1):
        assert counts[side]["settebello"] == score.points[side]["settebello"]
        assert counts[side]["scope"] == score.points[side]["scope"] == scope[side]
        assert counts[side]["re_bello"] == score.points[side]["re_bello"]
        run = counts[side]["napoli"]
        assert score.points[side]["napoli"] == (run if run >= 3 else 0)
        assert (counts[side]["sette_tutti"] == 4) == bool(score.points[side]["sette_tutti"])
    if counts[0]["primiera"] != counts[1]["primiera"] and all(
        any(m >> (s * 10) & 0x3FF for s in range(4)) for m in masks
    ):
        complete = [all(m >> (s * 10) & 0x3FF for s in range(4)) for m in masks]
        if all(complete):
            better = int(counts[1]["primiera"] > counts[0]["primiera"])
            assert score.points[better]["primiera"] == 1
