"""Every rule of RULES.md, with the source texts' own examples among them."""

from __future__ import annotations

import pytest
from engine_helpers import moves_of, names, position

from arena.engine import (
    VARIANTS,
    CardError,
    Deal,
    EngineError,
    Game,
    IllegalMoveError,
    Move,
    VariantError,
    card_name,
    italian_name,
    needs_redeal,
    parse_card,
    parse_cards,
    parse_move,
    rules_for,
)

# -- cards -----------------------------------------------------------------------------------


def cards(text: str) -> tuple[int, ...]:
    """Cards by name, sorted as the engine reports them."""
    return tuple(sorted(parse_cards(text)))


def test_cards_are_integers_by_suit_then_rank_and_names_round_trip() -> None:
    assert [card_name(c) for c in (0, 6, 9, 10, 20, 39)] == ["1d", "7d", "10d", "1c", "1b", "10s"]
    for card in range(40):
        assert parse_card(card_name(card)) == card


@pytest.mark.parametrize("text", ["0d", "11c", "7x", "", "d7", "7", "Settebello"])
def test_parse_card_rejects_what_is_not_a_card(text: str) -> None:
    with pytest.raises(CardError, match=repr(text).replace("'", "'")):
        parse_card(text)


def test_italian_names_follow_the_deck() -> None:
    assert italian_name(parse_card("1s")) == "Asso di spade"
    assert italian_name(parse_card("8c")) == "Fante di coppe"
    assert italian_name(parse_card("9b")) == "Cavallo di bastoni"


def test_moves_have_a_text_form_that_parses_back() -> None:
    move = parse_move("10s:5c+5b")
    assert move == Move(parse_card("10s"), parse_cards("5b 5c"))
    assert parse_move(move.name) == move
    assert Move.from_json(move.to_json()) == move
    with pytest.raises(CardError):
        parse_move("7d:3b+3b")


# -- variants --------------------------------------------------------------------------------


def test_every_named_variant_of_the_rules_exists_with_its_layout() -> None:
    expected = {
        "scopa": ("scopa", 2, False),
        "scopa-3": ("scopa", 3, False),
        "scopa-4": ("scopa", 4, True),
        "scopone": ("scopone", 4, True),
        "scopone-21": ("scopone", 4, True),
        "scientifico": ("scientifico", 4, True),
        "trentino": ("scientifico", 4, True),
        "scopa-assi": ("scopa", 2, False),
        "quindici": ("scopa", 2, False),
        "scopa-veneta": ("scopa", 2, False),
    }
    assert {n: (r.layout, r.players, r.partners) for n, r in VARIANTS.items()} == expected


def test_named_variants_turn_on_exactly_their_rules() -> None:
    assert rules_for("scopone-21").target == 21
    trentino = rules_for("trentino")
    assert (trentino.target, trentino.napoli, trentino.cappotto) == (21, True, True)
    assert rules_for("scopa-assi").assi and rules_for("quindici").quindici
    veneta = rules_for("scopa-veneta")
    assert (
        veneta.re_bello,
        veneta.napoli,
        veneta.sette_tutti,
        veneta.cappotto,
        veneta.primiera_method,
    ) == (True, True, True, True, "count")
    plain = rules_for("scopa")
    assert (
        plain.target,
        plain.tie_rule,
        plain.primiera_method,
        plain.primiera_missing_suit,
        plain.redeal_kings,
        plain.assi_ace_takes_ace,
        plain.assi_empty_table,
    ) == (11, "play_on", "sum", "loses", True, True, "stay")


def test_options_override_a_variant_and_are_reported_as_overrides() -> None:
    rules = rules_for("scopone", {"target": 15, "re_bello": True})
    assert rules.target == 15 and rules.re_bello
    assert rules.options() == {"target": 15, "re_bello": True}
    assert not rules.is_standard and rules_for("scopone").is_standard
    assert rules_for(rules.variant, rules.options()) == rules


@pytest.mark.parametrize(
    ("variant", "options", "message"),
    [
        ("briscola", None, "unknown variant 'briscola'"),
        ("scopa", {"targte": 11}, "unknown option 'targte'"),
        ("scopa", {"target": "11"}, "option 'target' must be a whole number"),
        ("scopa", {"target": 0}, "between 1 and"),
        ("scopa", {"napoli": 1}, "option 'napoli' must be true or false"),
        ("scopa", {"tie_rule": "sudden_death"}, "must be one of 'play_on', 'count_out'"),
        ("scopa", {"primiera_missing_suit": "ignore"}, "'loses', 'void', 'zero'"),
        ("scopa", {"assi_empty_table": "table"}, "'stay', 'pile'"),
    ],
)
def test_bad_variants_and_options_are_refused_with_the_bad_value(
    variant: str, options: dict[str, object] | None, message: str
) -> None:
    with pytest.raises(VariantError, match=message):
        rules_for(variant, options)


def test_sides_are_seat_parity_with_partners_and_the_seat_otherwise() -> None:
    assert [rules_for("scopone").side_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [rules_for("scopa-3").side_of(s) for s in range(3)] == [0, 1, 2]
    assert rules_for("scopa-3").num_sides == 3 and rules_for("scopa-4").num_sides == 2


# -- dealing ---------------------------------------------------------------------------------

DECK = list(range(40))


def test_scopa_deals_one_card_at_a_time_from_the_seat_after_the_dealer() -> None:
    deal = Deal.from_deck(rules_for("scopa"), 0, DECK)
    assert deal.hands == ((1, 3, 5), (0, 2, 4))
    assert deal.table == (6, 7, 8, 9) and deal.stock == tuple(range(10, 40))
    assert deal.to_move == 1


def test_scopone_deals_packets_of_three_with_two_to_the_table_twice() -> None:
    deal = Deal.from_deck(rules_for("scopone"), 3, DECK)
    assert deal.hands[0] == (0, 1, 2, 14, 15, 16, 28, 29, 30)
    assert deal.hands[3] == (9, 10, 11, 23, 24, 25, 37, 38, 39)
    assert deal.table == (12, 13, 26, 27) and deal.stock == ()


def test_scientifico_deals_two_packets_of_five_and_no_table() -> None:
    deal = Deal.from_deck(rules_for("scientifico"), 3, DECK)
    assert deal.hands[0] == (0, 1, 2, 3, 4, 20, 21, 22, 23, 24)
    assert deal.table == () and deal.hand_sizes == (10, 10, 10, 10)


@pytest.mark.parametrize(("variant", "rounds"), [("scopa", 6), ("scopa-3", 4), ("scopa-4", 3)])
def test_scopa_refills_hands_between_rounds_and_leaves_the_table(variant: str, rounds: int) -> None:
    rules = rules_for(variant)
    deal = Deal.from_deck(rules, 0, DECK)
    refills = 0
    while not deal.is_over():
        if deal.to_move == 0 and len(deal.hands[0]) == 1:  # the dealer's last card of a round
            table_before, stock_before = set(deal.table), len(deal.stock)
            move = (
                next(m for m in deal.legal_moves() if not m.capture)
                if any(not m.capture for m in deal.legal_moves())
                else deal.legal_moves()[0]
            )
            deal.apply(move)
            if stock_before:
                refills += 1
                assert all(len(h) == 3 for h in deal.hands)
                assert len(deal.stock) == stock_before - 3 * rules.players
                if not move.capture:
                    assert set(deal.table) == table_before | {move.card}
        else:
            deal.apply(deal.legal_moves()[0])
    assert refills == rounds - 1
    assert len(deal.history) == 36


def test_a_deck_must_hold_each_of_the_forty_cards_once() -> None:
    rules = rules_for("scopa")
    with pytest.raises(CardError, match="appears twice"):
        Deal.from_deck(rules, 0, [0, *range(39)])
    with pytest.raises(CardError, match="not 39"):
        Deal.from_deck(rules, 0, list(range(39)))
    with pytest.raises(EngineError, match="dealer"):
        Deal.from_deck(rules, 2, DECK)


def _seed_with_table(rules_name: str, wanted: int, rank: int) -> int:
    rules = rules_for(rules_name)
    for seed in range(100_000):
        deal = Deal.from_deck(rules, Game.first_dealer(rules, seed), Game.deck_for(seed, 0))
        if [c % 10 + 1 for c in deal.table].count(rank) >= wanted:
            return seed
    raise AssertionError("no such seed")


def test_three_re_on_the_starting_table_throw_the_cards_in_and_the_same_dealer_deals() -> None:
    seed = _seed_with_table("scopa", 3, 10)
    game = Game(rules_for("scopa"), seed)
    dealer = game.dealer
    deal = game.new_deal()
    assert len(game.thrown_in) >= 1 and game.thrown_in[0] == Game.deck_for(seed, 0)
    assert game.current_deck == Game.deck_for(seed, 0, len(game.thrown_in))
    assert deal.dealer == dealer and needs_redeal(deal.rules, deal.table) is None
    relaxed = Game(rules_for("scopa", {"redeal_kings": False}), seed)
    relaxed.new_deal()
    assert relaxed.thrown_in == [] and relaxed.current_deck == Game.deck_for(seed, 0)


def test_an_ace_on_the_starting_table_forces_a_redeal_only_with_assi_redeal_on_ace() -> None:
    seed = _seed_with_table("scopa", 1, 1)
    assert Game(rules_for("scopa-assi"), seed).new_deal() and True
    plain = Game(rules_for("scopa-assi"), seed)
    plain.new_deal()
    strict = Game(rules_for("scopa-assi", {"assi_redeal_on_ace": True}), seed)
    deal = strict.new_deal()
    assert plain.thrown_in == [] and len(strict.thrown_in) >= 1
    assert all(c % 10 != 0 for c in deal.table)


def test_the_same_seed_deals_the_same_decks_and_dealer() -> None:
    assert Game.deck_for(7, 3) == Game.deck_for(7, 3) != Game.deck_for(7, 4)
    assert sorted(Game.deck_for(7, 3)) == DECK
    assert Game(rules_for("scopone"), 7).dealer == Game(rules_for("scopone"), 7).dealer


# -- captures --------------------------------------------------------------------------------


def test_source_example_table_3_5_5_fante() -> None:
    deal = position("scopa", ["5d 10d 8d", "1c 2c 4c"], "3d 5c 5b 8s")
    assert moves_of(deal, "5d") == ["5d:5c", "5d:5b"]  # either five, one at a time
    assert moves_of(deal, "10d") == ["10d:5c+5b"]  # a Re takes both fives
    assert moves_of(deal, "8d") == ["8d:8s"]  # the Fante, never 5 + 3


def test_source_example_table_2_3_4_5_5_and_a_seven() -> None:
    deal = position("scopa", ["7s 1c 9c", "1b 2b 6c"], "2d 3c 4b 5s 5c")
    assert moves_of(deal, "7s") == ["7s:2d+5c", "7s:2d+5s", "7s:3c+4b"]


def test_a_single_card_of_equal_value_beats_any_sum() -> None:
    deal = position("scopa", ["7s 1c 9c", "1b 2b 6c"], "3d 4c 7b")
    assert moves_of(deal, "7s") == ["7s:7b"]


def test_capture_is_compulsory_for_the_card_played_but_any_card_may_be_played() -> None:
    deal = position("scopa", ["5d 9d 1s", "1b 3b 6c"], "5c 2b")
    assert names(deal.legal_moves()) == ["5d:5c", "9d", "1s"]
    with pytest.raises(IllegalMoveError, match="not legal"):
        deal.apply(parse_move("5d"))


def test_moves_are_ordered_by_card_then_capture() -> None:
    deal = position(
        "scopone",
        [
            "10d 5b 5d 1c 2c 3c 4c 6c 7c",
            "8d 9d 1b 2b 3b 4b 6b 7b 8b",
            "1d 2d 3d 4d 6d 7d 9b 10b 8c",
            "9c 10c 1s 2s 3s 4s 6s 7s 8s",
        ],
        "5c 5s 9s 10s",
    )
    moves = deal.legal_moves()
    assert moves == sorted(moves, key=lambda m: (m.card, m.capture))


def test_quindici_captures_sets_that_make_fifteen_with_the_card_played() -> None:
    deal = position("quindici", ["4d 7d 9d", "1b 2b 6c"], "1c 3c 4b 7s")
    assert moves_of(deal, "4d") == ["4d:1c+3c+7s", "4d:4b+7s"]  # the source's example
    assert moves_of(deal, "7d") == ["7d:1c+3c+4b", "7d:1c+7s"]  # never the 7s alone
    assert moves_of(deal, "9d") == ["9d"]  # nothing makes six: laid down


def test_quindici_takes_a_single_card_too() -> None:
    deal = position("quindici", ["10d 9c 8c", "1b 2b 6c"], "5s 2s 3s")
    assert moves_of(deal, "10d") == ["10d:2s+3s", "10d:5s"]


def test_assi_an_ace_sweeps_a_table_without_aces_and_it_is_not_a_scopa() -> None:
    deal = position("scopa-assi", ["1d 9c 8c", "1b 2b 6c"], "3c 5b 10s")
    assert moves_of(deal, "1d") == ["1d:3c+5b+10s"]
    deal.apply(parse_move("1d:3c+5b+10s"))
    assert deal.table == () and deal.scope == (0, 0)
    counted = position(
        "scopa-assi", ["1d 9c 8c", "1b 2b 6c"], "3c 5b 10s", assi_sweep_is_scopa=True
    )
    counted.apply(parse_move("1d:3c+5b+10s"))
    assert counted.scope == (1, 0)


def test_assi_an_ace_takes_just_an_ace_when_one_lies_on_the_table() -> None:
    deal = position("scopa-assi", ["1d 9c 8c", "2b 3b 6c"], "1c 1b 5s")
    assert moves_of(deal, "1d") == ["1d:1c", "1d:1b"]
    sweeping = position(
        "scopa-assi", ["1d 9c 8c", "2b 3b 6c"], "1c 1b 5s", assi_ace_takes_ace=False
    )
    assert moves_of(sweeping, "1d") == ["1d:1c+1b+5s"]


def test_assi_an_ace_on_an_empty_table_stays_or_goes_to_the_pile() -> None:
    stay = position("scopa-assi", ["1d 9c 8c", "2b 3b 6c"], "")
    stay.apply(parse_move("1d"))
    assert stay.table == (parse_card("1d"),) and stay.captured == ((), ())
    pile = position("scopa-assi", ["1d 9c 8c", "2b 3b 6c"], "", assi_empty_table="pile")
    pile.apply(parse_move("1d"))
    assert pile.table == () and pile.captured == ((parse_card("1d"),), ())
    assert pile.scope == (0, 0) and pile.last_capturer is None
    pile.undo()
    assert pile.captured == ((), ()) and pile.hands[0] == tuple(parse_cards("1d 8c 9c"))


def test_other_cards_capture_as_usual_under_assi() -> None:
    deal = position("scopa-assi", ["5d 9c 8c", "2b 3b 6c"], "5b 1s 4c")
    assert moves_of(deal, "5d") == ["5d:5b"]
    assert moves_of(deal, "9c") == ["9c:4c+5b"]


# -- sweeps and the end of a deal ------------------------------------------------------------


def test_a_capture_that_empties_the_table_is_a_scopa() -> None:
    deal = position("scopa", ["5d", "9s"], "2c 3c")
    deal.apply(parse_move("5d:2c+3c"))
    assert deal.scope == (1, 0)
    deal.apply(parse_move("9s"))  # the last card: the table goes to the last capturer
    assert deal.is_over() and deal.table == () and deal.scope == (1, 0)
    assert deal.captured == (cards("2c 3c 5d 9s"), ())
    deal.undo()
    assert deal.table == () and deal.captured[0] == cards("2c 3c 5d")
    deal.undo()
    assert deal.scope == (0, 0) and deal.table == cards("2c 3c")


def test_a_sweep_with_the_last_card_of_the_deal_counts_only_with_last_play_scopa() -> None:
    for on, scope in ((False, (0, 0)), (True, (0, 1))):
        deal = position("scopa", ["3d", "5s"], "2c", last_play_scopa=on)
        deal.apply(parse_move("3d"))
        deal.apply(parse_move("5s:2c+3d"))
        assert deal.is_over() and deal.scope == scope


def test_a_deal_where_nobody_captures_leaves_its_cards_on_the_table() -> None:
    deal = position("scientifico", ["3d", "4c", "9b", "5s"], "")
    for text in ("3d", "4c", "9b"):
        deal.apply(parse_move(text))
    assert moves_of(deal, "5s") == ["5s"]  # 3, 4, 9: nothing makes five
    deal.apply(parse_move("5s"))
    assert deal.is_over() and deal.captured == ((), ()) and len(deal.table) == 4


def test_cards_left_at_the_end_go_to_the_last_capturer_and_are_no_scopa() -> None:
    deal = position("scopa", ["6d", "5s"], "2c 3c")
    deal.apply(parse_move("6d"))
    deal.apply(parse_move("5s:2c+3c"))
    assert deal.is_over() and deal.last_capturer == 1
    assert deal.captured == ((), cards("6d 2c 3c 5s"))
    assert deal.scope == (0, 0)


def test_illegal_moves_are_refused_and_change_nothing() -> None:
    deal = position("scopa", ["5d 10d 8d", "1c 2c 4c"], "3d 5c 5b 8s")
    before = deal.state_key()
    for text, message in [
        ("8d:3d+5c", "not legal"),
        ("7d", "does not hold"),
        ("5d", "not legal"),
        ("10d:5c", "not legal"),
    ]:
        with pytest.raises(IllegalMoveError, match=message):
            deal.apply(parse_move(text))
    assert deal.state_key() == before
    with pytest.raises(EngineError, match="no move to undo"):
        deal.undo()


def test_no_move_after_the_deal_is_over() -> None:
    deal = position("scopa", ["6d", "5s"], "2c 3c")
    deal.apply(parse_move("6d"))
    deal.apply(parse_move("5s:2c+3c"))
    assert deal.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="over"):
        deal.apply(parse_move("6d"))


def test_from_hands_refuses_duplicates_and_uneven_hands() -> None:
    rules = rules_for("scopa")
    with pytest.raises(CardError, match="appears twice"):
        Deal.from_hands(rules, 1, [[1, 2, 3], [4, 5, 6]], [1])
    with pytest.raises(EngineError, match="as many cards"):
        Deal.from_hands(rules, 1, [[1, 2, 3], [4, 5]], [])
    with pytest.raises(EngineError, match="hands were given"):
        Deal.from_hands(rules, 1, [[1]], [])
    with pytest.raises(EngineError, match="no stock"):
        Deal.from_hands(rules_for("scopone"), 1, [[1], [2], [3], [4]], [], [5, 6, 7])
