"""The pure season formats of :mod:`arena.scheduling`: three-seat tables, Swiss, whist, places."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import rules_for
from arena.runner.match import seating
from arena.scheduling import GameResult, SchedulingError
from arena.scheduling.placement import (
    PlacedGame,
    place_points,
    placement_standings,
    places_of,
)
from arena.scheduling.swiss import (
    SwissPlayer,
    SwissRound,
    check_swiss,
    default_swiss_rounds,
    pair_swiss_round,
    swiss_players,
    swiss_standings,
)
from arena.scheduling.triples import table_design, table_rounds
from arena.scheduling.whist import WHIST_SIZES, check_whist, whist_rounds

PROPERTY = settings(deadline=None)  # no test is timed

# ---- three-seat tables ------------------------------------------------------------------------


@PROPERTY
@given(st.integers(min_value=3, max_value=40), st.sampled_from([1, 20, 220]))
def test_every_pair_of_entrants_sits_together_equally_often(n: int, max_tables: int) -> None:
    design = table_design(n, max_tables)
    meetings = Counter(frozenset(pair) for t in design.tables for pair in combinations(t, 2))
    assert all(len(set(t)) == 3 and set(t) <= set(range(1, n + 1)) for t in design.tables)
    assert {meetings[frozenset(p)] for p in combinations(range(1, n + 1), 2)} == {
        design.pair_meetings
    }
    # Hence every entrant plays as many tables as any other.
    tables_each = Counter(e for t in design.tables for e in t)
    assert set(tables_each.values()) == {design.pair_meetings * (n - 1) // 2}


@PROPERTY
@given(st.integers(min_value=3, max_value=30))
def test_table_rounds_seat_nobody_twice_and_play_the_whole_design(n: int) -> None:
    rounds = table_rounds(n)
    assert [r.number for r in rounds] == list(range(1, len(rounds) + 1))
    for r in rounds:
        seated = [e for t in r.tables for e in t]
        assert len(seated) == len(set(seated))
        assert sorted(seated + list(r.sitting_out)) == list(range(1, n + 1))
    assert Counter(t for r in rounds for t in r.tables) == Counter(table_design(n).tables)


@PROPERTY
@given(st.integers(min_value=3, max_value=16))
def test_the_rotations_of_a_table_sit_every_entrant_in_every_seat_equally_often(n: int) -> None:
    # A table is one match; the runner plays it as the three rotations of the seats.
    rules = rules_for("scopa-3")
    seats: Counter[tuple[int, int]] = Counter()
    for table in table_design(n).tables:
        for rotation in range(3):
            for seat, entrant in enumerate(seating(rules, 3, rotation)):
                seats[(table[entrant], seat)] += 1
    per_entrant = {e: {seats[(e, s)] for s in range(3)} for e in range(1, n + 1)}
    assert all(len(counts) == 1 for counts in per_entrant.values()), per_entrant


def test_large_fields_use_a_design_with_fewer_tables_than_every_triple() -> None:
    assert table_design(15).kind == "Steiner triple system (Bose)"
    assert table_design(13).kind == "Steiner triple system (Skolem)"
    assert table_design(17).kind == "arithmetic progressions of Z_n"
    assert len(table_design(15).tables) == 35  # against 455 triples
    assert table_design(14).kind == "every triple"
    with pytest.raises(SchedulingError, match="at least 3 entrants, not 2"):
        table_design(2)


# ---- whist tournaments ------------------------------------------------------------------------


@given(st.sampled_from(WHIST_SIZES))
@settings(max_examples=30, deadline=None)
def test_in_a_whist_tournament_every_pair_partners_once_and_opposes_twice(v: int) -> None:
    rounds = whist_rounds(v)
    partners: Counter[frozenset[int]] = Counter()
    opponents: Counter[frozenset[int]] = Counter()
    sat_out: Counter[int] = Counter()
    for r in rounds:
        seated = [e for t in r.tables for e in t]
        assert len(seated) == len(set(seated)) == 4 * (v // 4)
        if v % 4:
            assert r.sitting_out is not None and r.sitting_out not in seated
            sat_out[r.sitting_out] += 1
        else:
            assert r.sitting_out is None
        assert set(seated) | ({r.sitting_out} if r.sitting_out else set()) == set(range(1, v + 1))
        for a, b, c, d in r.tables:
            partners.update([frozenset((a, c)), frozenset((b, d))])
            opponents.update(frozenset((x, y)) for x in (a, c) for y in (b, d))
    assert len(rounds) == (v - 1 if v % 4 == 0 else v)
    for pair in combinations(range(1, v + 1), 2):
        assert partners[frozenset(pair)] == 1, pair
        assert opponents[frozenset(pair)] == 2, pair
    if v % 4:
        assert set(sat_out.values()) == {1} and len(sat_out) == v


def test_the_runners_rotations_keep_a_whist_tables_partnerships() -> None:
    # Seat s of rotation r gets entrant (s + r) % 4; sides are seat parity.
    rules = rules_for("scopone")
    table = (7, 3, 9, 5)  # 7 and 9 against 3 and 5
    for rotation in range(4):
        seats = [table[e] for e in seating(rules, 4, rotation)]
        sides = {
            frozenset(seats[s] for s in range(4) if rules.side_of(s) == side) for side in range(2)
        }
        assert sides == {frozenset((7, 9)), frozenset((3, 5))}


@PROPERTY
@given(st.integers(min_value=0, max_value=60).filter(lambda n: n not in WHIST_SIZES))
def test_a_count_with_no_whist_tournament_is_refused_with_the_allowed_counts(n: int) -> None:
    with pytest.raises(SchedulingError) as error:
        check_whist(n)
    assert str(error.value).startswith("rotating partnerships need 4, 5, 8, 9, 12, 13")
    assert str(error.value).endswith(f"entrants, not {n}")


# ---- places -----------------------------------------------------------------------------------


@PROPERTY
@given(
    st.integers(min_value=2, max_value=4).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.lists(st.integers(0, 30), min_size=k, max_size=k),
            st.one_of(st.none(), st.integers(0, k - 1)),
            st.one_of(st.none(), st.integers(0, k - 1)),
        )
    )
)
def test_places_hand_out_the_same_points_in_every_game(
    case: tuple[int, list[int], int | None, int | None],
) -> None:
    k, totals, winner, forfeit = case
    places = places_of(k, totals, winner, forfeit)
    assert places is not None
    points = place_points(places)
    assert sum(points) == pytest.approx(k * (k - 1) / 2)
    if forfeit is not None:
        assert places[forfeit] == k - 1 and list(places).count(k - 1) == 1
    elif winner is not None:
        assert places[winner] == 0 and list(places).count(0) == 1
    # Higher game points never place lower, but for the winner and the forfeit.
    others = [s for s in range(k) if s not in (winner, forfeit)]
    for a, b in combinations(others, 2):
        if totals[a] > totals[b]:
            assert places[a] < places[b]
        if totals[a] == totals[b]:
            assert places[a] == places[b]


def test_a_void_game_counts_for_nobody_and_a_forfeit_is_last() -> None:
    assert places_of(3, (11, 4, 2), 0, void=True) is None
    assert places_of(3, (5, 9, 2), None, forfeit_side=1) == (0, 2, 1)
    assert places_of(3, (5, 5, 2), None, forfeit_side=2) == (0, 0, 2)
    table = placement_standings(
        [1, 2, 3],
        [
            PlacedGame((1, 2, 3), (0, 1, 2), (11, 6, 2)),
            PlacedGame((2, 3, 1), None, (0, 0, 0)),  # void
            PlacedGame((3, 1, 2), (2, 0, 0), (9, 4, 4)),  # 3 forfeited; 1 and 2 tied
        ],
    )
    assert [(s.entrant, s.score, s.played, s.places) for s in table] == [
        (1, 3.5, 2, [2, 0, 0]),
        (2, 2.5, 2, [1, 1, 0]),
        (3, 0.0, 2, [0, 0, 2]),
    ]
    assert (table[0].wins, table[0].draws) == (1, 1)


# ---- Swiss ------------------------------------------------------------------------------------


def test_the_default_rounds_and_the_limit_on_rounds() -> None:
    assert [default_swiss_rounds(n) for n in (2, 7, 8, 64, 65)] == [3, 5, 5, 8, 9]
    check_swiss(6, 5)
    with pytest.raises(SchedulingError, match="a Swiss of 6 rounds needs at least 7 entrants"):
        check_swiss(6, 6)
    with pytest.raises(SchedulingError, match="at least 1 round"):
        check_swiss(6, 0)


def perfect_matchings(
    people: list[int], allowed: set[frozenset[int]]
) -> list[list[tuple[int, int]]]:
    """Every perfect matching of ``people`` using only ``allowed`` pairs (small fields)."""
    if not people:
        return [[]]
    first, rest = people[0], people[1:]
    out = []
    for i, other in enumerate(rest):
        if frozenset((first, other)) in allowed:
            for tail in perfect_matchings(rest[:i] + rest[i + 1 :], allowed):
                out.append([(first, other), *tail])
    return out


def play_swiss(n: int, rounds: int, seed: int, check: bool) -> list[SwissRound]:
    """A Swiss of random results; with ``check``, each round is held against brute force."""
    pick = random.Random(seed)
    entrants = list(range(1, n + 1))
    games: list[GameResult] = []
    paired: list[SwissRound] = []
    for _ in range(rounds):
        byes = Counter(r.bye for r in paired if r.bye is not None)
        table = swiss_standings(entrants, games, byes, 1.0)
        players = swiss_players(table, paired)
        this = pair_swiss_round(players)
        seated = [e for p in this.pairings for e in p] + ([this.bye] if this.bye else [])
        assert sorted(seated) == entrants
        if check:
            check_round(players, this)
        for a, b in this.pairings:
            for game in range(2):
                winner = pick.choice([0, 1, None])
                games.append(GameResult((a, b) if game == 0 else (b, a), winner))
        paired.append(this)
    return paired


def check_round(players: list[SwissPlayer], this: SwissRound) -> None:
    """No rematch while any bye choice allows none; then the closest scores possible."""
    by = {p.entrant: p for p in players}
    unmet = {
        frozenset((a.entrant, b.entrant))
        for a, b in combinations(players, 2)
        if not a.times_met(b.entrant)
    }
    byes = [None] if len(players) % 2 == 0 else [p.entrant for p in players]
    possible = {
        bye: perfect_matchings([p.entrant for p in players if p.entrant != bye], unmet)
        for bye in byes
    }
    if any(possible.values()):
        assert this.rematches == 0
        assert possible[this.bye], "the bye left a field that cannot avoid a rematch"

        def cost(matching: list[tuple[int, int]]) -> int:
            return sum(round(2 * abs(by[a].score - by[b].score)) ** 2 for a, b in matching)

        assert cost(list(this.pairings)) == min(cost(m) for m in possible[this.bye])
    if this.bye is not None:
        fewest = min(p.byes for p in players)
        if possible.get(this.bye) or not any(possible.values()):
            # The bye falls to a bot with the fewest byes whenever that choice is free.
            candidates = [p for p in players if p.byes == fewest and possible.get(p.entrant)]
            if candidates:
                assert by[this.bye].byes == fewest


@given(
    st.integers(min_value=2, max_value=9),
    st.integers(min_value=1, max_value=8),
    st.integers(0, 10**6),
)
@settings(max_examples=60, deadline=None)
def test_swiss_rounds_avoid_rematches_and_pair_the_closest_scores(
    n: int, rounds: int, seed: int
) -> None:
    play_swiss(n, min(rounds, n - 1), seed, check=True)


@given(st.integers(min_value=12, max_value=40), st.integers(0, 10**6))
@settings(max_examples=25, deadline=None)
def test_swiss_keeps_first_seats_balanced_and_never_repeats_in_fields_of_twelve_or_more(
    n: int, seed: int
) -> None:
    rounds = min(default_swiss_rounds(n), n - 1)
    paired = play_swiss(n, rounds, seed, check=False)
    assert sum(r.rematches for r in paired) == 0
    met = Counter(frozenset(p) for r in paired for p in r.pairings)
    assert max(met.values()) == 1
    firsts = Counter(p[0] for r in paired for p in r.pairings)
    seconds = Counter(p[1] for r in paired for p in r.pairings)
    balance = [abs(firsts[e] - seconds[e]) for e in range(1, n + 1)]
    assert max(balance) <= 3 and sum(balance) <= 1.5 * n
    byes = Counter(r.bye for r in paired if r.bye is not None)
    assert all(count == 1 for count in byes.values())


def test_swiss_standings_break_ties_by_buchholz() -> None:
    games = [
        GameResult((1, 2), 0),
        GameResult((3, 4), 0),  # round 1: 1 and 3 win
        GameResult((1, 3), 0),
        GameResult((2, 4), 1),  # round 2: 1 and 4 win
    ]
    table = swiss_standings([1, 2, 3, 4], games)
    # 3 and 4 both scored 1; 3 met the stronger opponents (4 and 1: 3 points, against 1).
    assert [(s.entrant, s.score, s.buchholz) for s in table] == [
        (1, 2.0, 1.0),
        (3, 1.0, 3.0),
        (4, 1.0, 1.0),
        (2, 0.0, 3.0),
    ]
    assert table[0].sonneborn_berger == 1.0  # beat 2 (0 points) and 3 (1 point)
    with_byes = swiss_standings([1, 2, 3, 4, 5], games, {5: 2}, 0.5)
    five = next(s for s in with_byes if s.entrant == 5)
    assert (five.score, five.byes, five.buchholz, five.played) == (1.0, 2, 0.0, 0)
