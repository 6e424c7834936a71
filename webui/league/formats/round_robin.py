"""The round-robin (``round-robin``), with its knockout for the top N
(``round-robin+knockout``): two sides, Berger tables (:mod:`arena.scheduling`), every pair once
(twice in a double round-robin), then a seeded bracket where a match needs a winner (the higher
seed on a tie). Ranked by score, then head-to-head, Sonneborn-Berger, games won and game-point
difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena import scheduling

from ..matches import create_match
from ..models import BotVersion, Round, Season, Variant
from .base import (
    FormatError,
    FormatOptions,
    Ref,
    SeasonFormat,
    SeasonShape,
    StandingRow,
    close_round_if_done,
    entrant_numbers,
    league_results,
)
from .options import option

ROUND_ROBIN = "round-robin"
ROUND_ROBIN_KNOCKOUT = "round-robin+knockout"


@dataclass(frozen=True)
class RoundRobinOptions(FormatOptions):
    """A round-robin's options: its knockout, and whether every pair meets twice."""

    knockout_size: int = option(
        0,
        label="Knockout size",
        help="after the round-robin, the top N of the table play a knockout bracket (0: none)",
        flag="--knockout",
        lo=0,
        hi=64,
        refused="a knockout follows only a round-robin",
    )
    double_round_robin: bool = option(
        False,
        label="Double round-robin",
        help="every pair plays twice, the seats reversed",
        flag="--double",
        refused="a double round-robin is a round-robin",
    )


class RoundRobin(SeasonFormat):
    """Every pair of entrants once (or twice), then optionally a knockout of the top N."""

    key = ROUND_ROBIN
    labels = ((ROUND_ROBIN, "round-robin"), (ROUND_ROBIN_KNOCKOUT, "round-robin, then knockout"))
    description = "Round-robin (two sides; then a knockout if asked)"
    Options = RoundRobinOptions
    columns: ClassVar[tuple[tuple[str, str], ...]] = (
        ("wins", "won"),
        ("draws", "drawn"),
        ("losses", "lost"),
        ("score", "score"),
        ("sonneborn_berger", "SB"),
        ("points", "points"),
    )

    @classmethod
    def is_default_for(cls, variant: Variant) -> bool:
        return variant.sides == 2

    @classmethod
    def check_variant(cls, variant: Variant) -> None:
        if variant.sides != 2:
            raise FormatError(
                f"format {cls.key!r} pairs two sides; variant {variant.slug} has "
                f"{variant.sides}: use format 'tables'"
            )

    @classmethod
    def shape(
        cls, variant: Variant, entrants: int, options: FormatOptions, games_per_pairing: int
    ) -> SeasonShape:
        assert isinstance(options, RoundRobinOptions)
        knockout = options.knockout_size
        if knockout and not 2 <= knockout <= entrants:
            raise FormatError(f"knockout size {knockout}: between 2 and {entrants}, or 0")
        stored = ROUND_ROBIN_KNOCKOUT if knockout else ROUND_ROBIN
        return SeasonShape(stored, options, games_per_pairing)

    @property
    def options(self) -> RoundRobinOptions:
        """The season's options."""
        return RoundRobinOptions.from_json(self.season.format_options)

    @property
    def has_knockout(self) -> bool:
        return self.season.format == ROUND_ROBIN_KNOCKOUT and self.options.knockout_size >= 2

    def knockout_entrants(self, table_size: int) -> int:
        return min(self.options.knockout_size, table_size) if self.has_knockout else 0

    def headline(self, summary: Mapping[str, Any]) -> str:
        return f" (top {self.options.knockout_size})" if self.has_knockout else ""

    def planned_matches(self) -> int:
        n = self.season.season_entrants.count()
        league = n * (n - 1) // 2 * (2 if self.options.double_round_robin else 1)
        return league + (self.options.knockout_size - 1 if self.has_knockout else 0)

    def schedule_round(
        self, entrants: list[BotVersion], number: int, last: Round | None
    ) -> Round | None:
        plans = scheduling.round_robin(len(entrants), self.options.double_round_robin)
        if number <= len(plans):
            return self._league_round(entrants, plans[number - 1], number)
        if self.has_knockout:
            return self._knockout_round(entrants, last, number)
        return None

    def _league_round(
        self, entrants: list[BotVersion], plan: scheduling.RoundPlan, number: int
    ) -> Round:
        season = self.season
        round_ = Round.objects.create(
            season=season,
            number=number,
            phase=Round.Phase.LEAGUE,
            plan={
                "pairings": [[entrants[a - 1].pk, entrants[b - 1].pk] for a, b in plan.pairings],
                "bye": entrants[plan.bye - 1].pk if plan.bye else None,
            },
        )
        for board, (a, b) in enumerate(plan.pairings):
            create_match(season, round_, board, [entrants[a - 1], entrants[b - 1]], f"{a}-{b}")
        if not plan.pairings:  # nothing to play (cannot happen with >= 2 entrants)
            close_round_if_done(round_)
        return round_

    def _knockout_round(
        self, entrants: list[BotVersion], last: Round | None, number: int
    ) -> Round | None:
        season = self.season
        assert last is not None
        by_id = {v.pk: v for v in entrants}
        if last.phase == Round.Phase.LEAGUE:
            table = self.standings()
            seeds = [row.version for row in table[: self.options.knockout_size]]
            slots_by_seed = scheduling.bracket(len(seeds))
            slots = [
                [seeds[a - 1].pk, seeds[b - 1].pk if b is not None else None]
                for a, b in slots_by_seed
            ]
            seed_ids = [v.pk for v in seeds]
        else:
            advancing = knockout_advancing(last)
            if len(advancing) < 2:
                return None  # the final is over
            slots = [[a, b] for a, b in scheduling.next_bracket_round(advancing)]
            seed_ids = list(last.plan["seeds"])
        round_ = Round.objects.create(
            season=season,
            number=number,
            phase=Round.Phase.KNOCKOUT,
            plan={"slots": slots, "seeds": seed_ids},
        )
        seed_of = {v: i for i, v in enumerate(seed_ids, start=1)}
        for board, (a, b) in enumerate(slots):
            if a is None or b is None:
                continue  # a bye: the first seed advances without a match
            create_match(season, round_, board, [by_id[a], by_id[b]], f"{seed_of[a]}-{seed_of[b]}")
        return round_

    def standings(self) -> list[StandingRow]:
        by_number, _, numbers = entrant_numbers(self.season)
        table = scheduling.standings(numbers, league_results(self.season, Round.Phase.LEAGUE))
        return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]

    def _final_winner(self) -> int | None:
        """The bot version that won the knockout's final, if the season ended with one."""
        if self.season.status != Season.Status.FINISHED:
            return None
        last = self.season.rounds.order_by("-number").first()
        if last is not None and last.phase == Round.Phase.KNOCKOUT:
            advancing = knockout_advancing(last)
            if len(advancing) == 1:
                return advancing[0]
        return None

    def champion(self) -> BotVersion | None:
        """The winner of the final (knockout), else the top of the table."""
        winner = self._final_winner()
        return BotVersion.objects.get(pk=winner) if winner is not None else super().champion()

    def champion_by(self) -> str | None:
        return "knockout" if self._final_winner() is not None else super().champion_by()

    def bracket(
        self, match_rows: Sequence[Mapping[str, Any]], table: list[StandingRow], ref: Ref
    ) -> list[dict[str, Any]] | None:
        """The knockout as columns of slots; projected from the standings before it starts (once
        a game is played: before, the standings are only the order of entry)."""
        season = self.season
        if not self.has_knockout:
            return None
        size = self.knockout_entrants(len(table))
        if size < 2:
            return None
        ko_rounds = list(
            Round.objects.filter(season=season, phase=Round.Phase.KNOCKOUT).order_by("number")
        )
        if not ko_rounds and not any(row.standing.played for row in table):
            return None  # before any game the standings are entry order: nothing to project
        by_round_board = {
            (m["round"], m["board"]): m for m in match_rows if m["phase"] == "knockout"
        }
        seeds: list[int] = (
            list((ko_rounds[0].plan or {}).get("seeds", []))
            if ko_rounds
            else [row.version.pk for row in table[:size]]
        )
        seed_of = {vid: k for k, vid in enumerate(seeds, start=1)}

        def entry(vid: int | None) -> dict[str, Any] | None:
            if vid is None:
                return None
            named = ref(vid) or {}
            return {"label": named.get("label"), "bot": named.get("bot"), "seed": seed_of.get(vid)}

        columns: list[dict[str, Any]] = []
        for r in ko_rounds:
            slots = []
            for board, slot in enumerate((r.plan or {}).get("slots", [])):
                a, b = ([*list(slot), None, None])[:2]
                m = by_round_board.get((r.number, board))
                winner = m["winner"] if m else None
                if b is None and a is not None:
                    winner = (ref(a) or {}).get("label")
                slots.append(
                    {
                        "a": entry(a),
                        "b": entry(b),
                        "match": m["id"] if m else None,
                        "winner": winner,
                        "score": m["score"] if m else None,
                        "bye": b is None,
                    }
                )
            columns.append({"title": _ko_title(len(slots)), "slots": slots, "projected": False})
        if not columns:
            slots = []
            for a, b in scheduling.bracket(size):
                va = seeds[a - 1] if a - 1 < len(seeds) else None
                vb = seeds[b - 1] if b is not None and b - 1 < len(seeds) else None
                slots.append(
                    {
                        "a": entry(va),
                        "b": entry(vb),
                        "match": None,
                        "winner": None,
                        "score": None,
                        "bye": b is None,
                    }
                )
            columns.append({"title": _ko_title(len(slots)), "slots": slots, "projected": True})
        while len(columns) < scheduling.knockout_round_count(size):
            n = max(1, len(columns[-1]["slots"]) // 2)
            columns.append(
                {
                    "title": _ko_title(n),
                    "projected": True,
                    "slots": [
                        {
                            "a": None,
                            "b": None,
                            "match": None,
                            "winner": None,
                            "score": None,
                            "bye": False,
                        }
                        for _ in range(n)
                    ],
                }
            )
        return columns


def knockout_advancing(round_: Round) -> list[int]:
    """The bot version ids advancing from each slot of a finished knockout round."""
    winners = {m.board: m.winner_id for m in round_.matches.all()}
    advancing: list[int] = []
    for board, (a, b) in enumerate(round_.plan["slots"]):
        if b is None:
            advancing.append(a)
        else:
            winner = winners.get(board)
            advancing.append(winner if winner is not None else a)
    return advancing


def _ko_title(slots: int) -> str:
    return {1: "Final", 2: "Semi-finals", 4: "Quarter-finals"}.get(slots, f"Round of {slots * 2}")
