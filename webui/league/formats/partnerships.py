"""Rotating partnerships (``partnerships``): four-player partnership variants; a whist
tournament (:mod:`arena.scheduling.whist`): four different bots at each table, each bot partnering
every other once and opposing it twice, partners sitting opposite. Each bot scores the games its
side won; ties broken by games won and game-point difference. No cross-table: the rota is its
schedule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from arena.scheduling.whist import TeamGame, check_whist, partnership_standings, whist_rounds

from ..models import BotVersion, Round, Variant
from .base import (
    FormatError,
    Ref,
    SeasonFormat,
    StandingRow,
    entrant_numbers,
    schedule_tables,
    season_games,
    table_schedule,
    whole_sets,
)


class Partnerships(SeasonFormat):
    """Partners rotate: a whist tournament of four-player tables."""

    key = "partnerships"
    labels = (("partnerships", "rotating partnerships"),)
    description = (
        "Rotating partnerships (four different bots at each table; 4, 5, 8, 9, 12, 13, 16, 17, "
        "20, 21, 24 or 25 entrants of a four-player partnership variant)"
    )
    columns: ClassVar[tuple[tuple[str, str], ...]] = (
        ("wins", "won"),
        ("draws", "drawn"),
        ("losses", "lost"),
        ("score", "score"),
        ("points", "points"),
    )

    @classmethod
    def check_variant(cls, variant: Variant) -> None:
        if not (variant.players == 4 and variant.sides == 2):
            raise FormatError(
                f"format 'partnerships' is for four-player partnership variants (scopone, "
                f"scientifico, trentino, scopa-4, scopone-21), not {variant.slug}"
            )

    @classmethod
    def games_per_match(cls, variant: Variant, entrants: int, asked: int) -> int:
        """Whole sets of four games (every seat rotation of a partnership table)."""
        check_whist(entrants)
        return whole_sets(asked, 4)

    def planned_matches(self) -> int:
        n = self.season.season_entrants.count()
        return n * (n - 1) // 4

    def schedule_round(
        self, entrants: list[BotVersion], number: int, last: Round | None
    ) -> Round | None:
        whist = whist_rounds(len(entrants))
        if number > len(whist):
            return None
        game = whist[number - 1]
        out = (game.sitting_out,) if game.sitting_out is not None else ()
        return schedule_tables(self.season, entrants, number, game.tables, out)

    def standings(self) -> list[StandingRow]:
        by_number, number_of, numbers = entrant_numbers(self.season)
        team_games = [
            TeamGame(
                tuple(
                    tuple(number_of[int(g.players[s])] for s in (side, side + 2))
                    for side in range(2)
                ),
                g.winner_side,
                tuple(int(t) for t in g.totals) if g.totals else (),
                bool(g.void),
            )
            for g in season_games(self.season)
        ]
        table = partnership_standings(numbers, team_games)
        return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]

    def cross_table(self) -> dict[tuple[int, int], float] | None:
        return None  # partners change every round: the rota replaces it

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        n = self.season.season_entrants.count()
        if n:
            out.update(
                rounds=n - 1 if n % 4 == 0 else n, tables_per_round=n // 4, sits_out=n % 4 == 1
            )
        return out

    def headline(self, summary: Mapping[str, Any]) -> str:
        if not summary.get("rounds"):
            return ""
        tables = "table" if summary["tables_per_round"] == 1 else "tables"
        return f" · {summary['rounds']} rounds of {summary['tables_per_round']} {tables}"

    def schedule(self, ref: Ref) -> list[dict[str, Any]] | None:
        """The rota: each round's tables as their two sides (partners opposite), and who sat
        out."""
        return table_schedule(
            self.season, ref, lambda table: [[table[0], table[2]], [table[1], table[3]]]
        )
