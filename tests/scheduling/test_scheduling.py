"""Berger tables, brackets and standings of :mod:`arena.scheduling`."""

from __future__ import annotations

import re
from itertools import combinations, pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.scheduling import (
    GameResult,
    SchedulingError,
    bracket,
    knockout_round_count,
    next_bracket_round,
    round_robin,
    standings,
)

TABLES = Path(__file__).parent / "data" / "berger-tables.md"


def fide_tables() -> dict[int, list[list[tuple[int, int]]]]:
    """The published FIDE tables, parsed from the Handbook's text."""
    tables: dict[int, list[list[tuple[int, int]]]] = {}
    current: list[list[tuple[int, int]]] = []
    for line in TABLES.read_text().splitlines():
        heading = re.match(r"## (\d+) players", line)
        if heading:
            current = tables.setdefault(int(heading.group(1)), [])
        elif line.startswith("Round "):
            pairs = re.findall(r"(\d+)-(\d+)", line.split(":", 1)[1])
            current.append([(int(a), int(b)) for a, b in pairs])
    return tables


@pytest.mark.parametrize("n", [4, 6, 8, 10])
def test_it_reproduces_the_fide_tables_board_for_board(n: int) -> None:
    expected = fide_tables()[n]
    assert [list(plan.pairings) for plan in round_robin(n)] == expected
    assert all(plan.bye is None for plan in round_robin(n))


@pytest.mark.parametrize("n", [5, 7, 9])
def test_it_gives_odd_counts_the_next_table_with_the_last_number_as_bye(n: int) -> None:
    table = fide_tables()[n + 1]
    for plan, boards in zip(round_robin(n), table, strict=True):
        assert list(plan.pairings) == [p for p in boards if n + 1 not in p]
        (bye_pair,) = [p for p in boards if n + 1 in p]
        assert plan.bye == sum(bye_pair) - (n + 1)


@pytest.mark.parametrize("n", range(2, 12))
def test_everyone_meets_everyone_once(n: int) -> None:
    plans = round_robin(n)
    met = [frozenset(p) for plan in plans for p in plan.pairings]
    assert sorted(met, key=sorted) == sorted(
        (frozenset(c) for c in combinations(range(1, n + 1), 2)), key=sorted
    )
    for plan in plans:
        seated = [e for p in plan.pairings for e in p] + ([plan.bye] if plan.bye else [])
        assert sorted(seated) == list(range(1, n + 1))


@pytest.mark.parametrize("n", range(4, 11))
def test_a_double_round_robin_reverses_the_seats_and_swaps_the_last_two_rounds(n: int) -> None:
    single = round_robin(n)
    double = round_robin(n, double=True)
    assert len(double) == 2 * len(single)
    first = [p.pairings for p in double[: len(single)]]
    assert first == [p.pairings for p in [*single[:-2], single[-1], single[-2]]]
    second = [p.pairings for p in double[len(single) :]]
    assert second == [tuple((b, a) for a, b in p.pairings) for p in single]
    # Nobody takes the same seat three rounds running across the join of the cycles.
    for entrant in range(1, n + 1):
        seats = [
            next((0 if p[0] == entrant else 1) for p in plan.pairings if entrant in p)
            for plan in double
            if plan.bye != entrant
        ]
        runs = [seats[i : i + 3] for i in range(len(seats) - 2)]
        join = len(single) - 2
        assert all(len(set(run)) > 1 for run in runs[join - 1 : join + 2]), (entrant, seats)


def test_it_rejects_fewer_than_two_entrants() -> None:
    with pytest.raises(SchedulingError, match="at least 2"):
        round_robin(1)


def test_a_bracket_of_four_pairs_one_with_four_and_two_with_three() -> None:
    assert bracket(4) == [(1, 4), (2, 3)]
    assert knockout_round_count(4) == 2


def test_a_bracket_of_five_gives_byes_to_the_top_three_seeds() -> None:
    assert bracket(5) == [(1, None), (4, 5), (2, None), (3, None)]
    assert knockout_round_count(5) == 3
    # Seed 1 meets the winner of 4 v 5, and 2 meets 3, if the seeds hold.
    assert next_bracket_round([1, 4, 2, 3]) == [(1, 4), (2, 3)]


def test_a_bracket_of_eight_keeps_the_top_seeds_apart_until_the_final() -> None:
    slots = bracket(8)
    assert slots == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert all(a + b == 9 for a, b in slots if b is not None)
    semis = next_bracket_round([a for a, _ in slots])
    assert semis == [(1, 4), (2, 3)]
    assert next_bracket_round([1, 2]) == [(1, 2)]


def test_it_rejects_a_bracket_of_one() -> None:
    with pytest.raises(SchedulingError, match="at least 2 qualifiers"):
        bracket(1)


def test_standings_break_ties_by_head_to_head_before_sonneborn_berger() -> None:
    games = [
        GameResult((1, 2), 1, (4, 11)),  # 2 beats 1
        GameResult((2, 3), 1, (3, 11)),  # 3 beats 2
        GameResult((3, 1), 1, (5, 11)),  # 1 beats 3
        GameResult((1, 4), 0, (11, 0)),  # 1 beats 4
        GameResult((2, 4), 0, (11, 2)),  # 2 beats 4
        GameResult((3, 4), 1, (9, 11)),  # 4 beats 3
    ]
    table = standings([1, 2, 3, 4], games)
    assert [s.score for s in table] == [2.0, 2.0, 1.0, 1.0]
    top, second = table[0], table[1]
    # 1 and 2 are tied on 2 points; 2 beat 1.
    assert (top.entrant, second.entrant) == (2, 1)
    assert top.head_to_head == 1.0
    # 3 and 4 tied on 1 point; 4 beat 3.
    assert [s.entrant for s in table[2:]] == [4, 3]


def test_standings_ignore_void_games_and_count_draws_half() -> None:
    table = standings(
        [1, 2],
        [GameResult((1, 2), None, (11, 11)), GameResult((1, 2), 0, (11, 0), void=True)],
    )
    assert [(s.entrant, s.score, s.played, s.draws) for s in table] == [
        (1, 0.5, 1, 1),
        (2, 0.5, 1, 1),
    ]


@given(
    st.integers(min_value=2, max_value=8).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(
                st.tuples(
                    st.integers(1, n), st.integers(1, n), st.sampled_from([0, 1, None])
                ).filter(lambda t: t[0] != t[1]),
                max_size=30,
            ),
        )
    )
)
def test_standings_are_a_total_order_consistent_with_score(case: tuple) -> None:
    n, raw = case
    games = [GameResult((a, b), w, (11 if w == 0 else 5, 11 if w == 1 else 5)) for a, b, w in raw]
    table = standings(range(1, n + 1), games)
    assert [s.rank for s in table] == list(range(1, n + 1))
    assert sorted(s.entrant for s in table) == list(range(1, n + 1))
    assert all(a.score >= b.score for a, b in pairwise(table))
    assert sum(s.score for s in table) == len(games)
