"""Tables (``tables``): variants of three sides or more; every pair of entrants at the same
table equally often (:mod:`arena.scheduling.triples`), each table a match of every seat rotation.
Ranked by placement points (2 for first, 1 for second, 0 for third, shared when tied), then
head-to-head places, first places, game points (:mod:`arena.scheduling.placement`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.scheduling.placement import pairwise_scores, placement_standings
from arena.scheduling.triples import table_design, table_rounds

from ..models import BotVersion, Round, Variant
from .base import (
    FormatError,
    Ref,
    SeasonFormat,
    StandingRow,
    entrant_numbers,
    placed_game,
    schedule_tables,
    season_games,
    table_schedule,
    whole_sets,
)


class Tables(SeasonFormat):
    """Every pair at the same tables equally often."""

    key = "tables"
    labels = (("tables", "every pair at the same tables"),)
    description = "Tables (three sides: every pair at the same tables equally often)"
    columns: ClassVar[tuple[tuple[str, str], ...]] = (
        ("places", ""),
        ("score", "points"),
        ("points_for", "game points"),
    )
    cross_table_note = (
        "How often the row's bot finished above the column's at the same "
        "table (½ for the same place)."
    )

    @classmethod
    def is_default_for(cls, variant: Variant) -> bool:
        return variant.sides > 2

    @classmethod
    def check_variant(cls, variant: Variant) -> None:
        if variant.sides < 3:
            raise FormatError(
                f"format 'tables' is for variants of three sides or more; variant "
                f"{variant.slug} has {variant.sides}: use 'round-robin' or 'swiss'"
            )

    @classmethod
    def games_per_match(cls, variant: Variant, entrants: int, asked: int) -> int:
        """Whole sets of every rotation of the seats (three at three-seat tables)."""
        table_design(entrants, seats=variant.sides)
        return whole_sets(asked, variant.sides)

    def planned_matches(self) -> int:
        n = self.season.season_entrants.count()
        return len(table_design(n, seats=self.season.variant.sides).tables) if n >= 3 else 0

    def schedule_round(
        self, entrants: list[BotVersion], number: int, last: Round | None
    ) -> Round | None:
        rounds = table_rounds(len(entrants), seats=self.season.variant.sides)
        if number > len(rounds):
            return None
        plan = rounds[number - 1]
        return schedule_tables(self.season, entrants, number, plan.tables, plan.sitting_out)

    def standings(self) -> list[StandingRow]:
        by_number, number_of, numbers = entrant_numbers(self.season)
        sides = self.season.variant.sides
        table = placement_standings(
            numbers, (placed_game(g, number_of, sides) for g in season_games(self.season))
        )
        return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]

    def cross_table(self) -> dict[tuple[int, int], float] | None:
        """How often ``a`` finished above ``b`` at the same table (1/2 for the same place)."""
        number_of = {e.version_id: e.number for e in self.season.season_entrants.all()}
        sides = self.season.variant.sides
        return pairwise_scores(placed_game(g, number_of, sides) for g in season_games(self.season))

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        n = self.season.season_entrants.count()
        seats = self.season.variant.sides
        if n >= seats:
            design = table_design(n, seats=seats)
            out.update(
                seats=seats,
                design=design.kind,
                pair_meetings=design.pair_meetings,
                tables=len(design.tables),
                rounds=len(table_rounds(n, seats=seats)),
            )
        return out

    def headline(self, summary: Mapping[str, Any]) -> str:
        if not summary.get("design"):
            return ""
        times = "time" if summary["pair_meetings"] == 1 else "times"
        return (
            f" · {summary['tables']} tables of {summary['seats']} ({summary['design']}: "
            f"each pair together {summary['pair_meetings']} {times}) in "
            f"{summary['rounds']} rounds"
        )

    def note(self, summary: Mapping[str, Any]) -> str:
        return (
            "placement points: 2 for first, 1 for second, 0 for third, shared when tied; "
            "a forfeit is last"
        )

    def schedule(self, ref: Ref) -> list[dict[str, Any]] | None:
        """The rounds with their tables and who sat out."""
        return table_schedule(self.season, ref)
