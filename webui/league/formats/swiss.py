"""The Swiss (``swiss``): two sides; its option ``rounds`` rounds, each paired from the table of
the rounds before it when they are complete (:mod:`arena.scheduling.swiss`): equal or close
scores, no rematch while one can be avoided. A bye scores a drawn match. Ranked by score, then
Buchholz, Sonneborn-Berger, games won and game-point difference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from arena import scheduling
from arena.scheduling.swiss import (
    SwissRound,
    check_swiss,
    default_swiss_rounds,
    pair_swiss_round,
    swiss_players,
    swiss_standings,
)

from ..matches import create_match, match_score
from ..models import BotVersion, Round, Variant
from .base import (
    FormatError,
    FormatOptions,
    Ref,
    SeasonFormat,
    SeasonShape,
    StandingRow,
    entrant_numbers,
    scheduled_matches,
    season_games,
)
from .options import option


@dataclass(frozen=True)
class SwissOptions(FormatOptions):
    """A Swiss's options: its number of rounds (fixed when the season is created)."""

    rounds: int | None = option(
        None,
        label="Swiss rounds",
        help="the number of rounds (default ceil(log2 n) + 2; at most n - 1)",
        lo=1,
        hi=255,
        refused="only a Swiss season takes a number of rounds",
    )


class Swiss(SeasonFormat):
    """A few rounds, each pairing bots of close scores."""

    key = "swiss"
    labels = (("swiss", "Swiss"),)
    description = "Swiss (two sides; a fixed number of rounds)"
    Options = SwissOptions
    columns: ClassVar[tuple[tuple[str, str], ...]] = (
        ("wins", "won"),
        ("draws", "drawn"),
        ("losses", "lost"),
        ("byes", "byes"),
        ("score", "score"),
        ("buchholz", "Buchholz"),
        ("sonneborn_berger", "SB"),
        ("points", "points"),
    )

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
        assert isinstance(options, SwissOptions)
        rounds = (
            default_swiss_rounds(max(entrants, 2)) if options.rounds is None else options.rounds
        )
        try:
            check_swiss(entrants, rounds)
        except scheduling.SchedulingError as error:
            raise FormatError(str(error)) from None
        return SeasonShape(cls.key, SwissOptions(rounds=rounds), games_per_pairing)

    @property
    def rounds(self) -> int:
        """The season's number of rounds (fixed when it was created)."""
        return SwissOptions.from_json(self.season.format_options).rounds or 0

    def bye_score(self) -> float:
        """What a bye scores: a drawn match, half its games."""
        return self.season.games_per_pairing / 2

    def planned_matches(self) -> int:
        return self.rounds * (self.season.season_entrants.count() // 2)

    def played_rounds(self, entrants: Sequence[BotVersion]) -> list[SwissRound]:
        """The rounds paired so far, in entrant numbers."""
        number_of = {v.pk: i for i, v in enumerate(entrants, start=1)}
        out = []
        for r in self.season.rounds.filter(phase=Round.Phase.LEAGUE).order_by("number"):
            plan = r.plan or {}
            bye = plan.get("bye")
            out.append(
                SwissRound(
                    tuple((number_of[a], number_of[b]) for a, b in plan.get("pairings", [])),
                    number_of[int(bye)] if bye is not None else None,
                    int(plan.get("rematches", 0)),
                )
            )
        return out

    def schedule_round(
        self, entrants: list[BotVersion], number: int, last: Round | None
    ) -> Round | None:
        season = self.season
        if number > self.rounds:
            return None
        previous = self.played_rounds(entrants)
        table = self.standings()
        paired = pair_swiss_round(swiss_players([row.standing for row in table], previous))
        scores = {str(row.version.pk): row.standing.score for row in table}
        round_ = Round.objects.create(
            season=season,
            number=number,
            phase=Round.Phase.LEAGUE,
            plan={
                "pairings": [[entrants[a - 1].pk, entrants[b - 1].pk] for a, b in paired.pairings],
                "bye": entrants[paired.bye - 1].pk if paired.bye is not None else None,
                "scores": scores,
                "rematches": paired.rematches,
            },
        )
        for board, (a, b) in enumerate(paired.pairings):
            create_match(season, round_, board, [entrants[a - 1], entrants[b - 1]], f"{a}-{b}")
        return round_

    def standings(self) -> list[StandingRow]:
        season = self.season
        by_number, number_of, numbers = entrant_numbers(season)
        byes: dict[int, int] = {}
        for r in season.rounds.filter(phase=Round.Phase.LEAGUE):
            bye = (r.plan or {}).get("bye")
            if bye is not None:
                byes[number_of[int(bye)]] = byes.get(number_of[int(bye)], 0) + 1
        results = [
            scheduling.GameResult(
                (number_of[int(g.players[0])], number_of[int(g.players[1])]),
                g.winner_side,
                tuple(int(t) for t in g.totals) if g.totals else (),
                bool(g.void),
            )
            for g in season_games(season)
        ]
        table = swiss_standings(numbers, results, byes, self.bye_score())
        return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]

    def summary(self) -> dict[str, Any]:
        return {
            **super().summary(),
            "rounds": self.rounds,
            "bye_score": self.bye_score(),
        }

    def headline(self, summary: Mapping[str, Any]) -> str:
        return f" · {summary['rounds']} rounds"

    def note(self, summary: Mapping[str, Any]) -> str:
        return (
            f"{summary['rounds']} rounds; a bye scores {summary['bye_score']:g}; ties "
            "broken by Buchholz, then Sonneborn-Berger"
        )

    def schedule(self, ref: Ref) -> list[dict[str, Any]] | None:
        """The rounds with their pairings, each bot's score when the round was paired, the
        results so far and the bye."""
        matches = scheduled_matches(self.season)
        out = []
        for r in Round.objects.filter(season=self.season, phase=Round.Phase.LEAGUE).order_by(
            "number"
        ):
            plan = r.plan or {}
            scores = plan.get("scores") or {}
            pairings = []
            for board, (a, b) in enumerate(plan.get("pairings", [])):
                mid, status, summary = matches.get((r.number, board), (None, None, {}))
                pairings.append(
                    {
                        "board": board,
                        "a": ref(a),
                        "b": ref(b),
                        "scores": [scores.get(str(a), 0.0), scores.get(str(b), 0.0)],
                        "match": mid,
                        "status": status,
                        "result": match_score(summary, 2),
                    }
                )
            out.append(
                {
                    "number": r.number,
                    "status": r.status,
                    "pairings": pairings,
                    "bye": ref(plan.get("bye")),
                    "rematches": int(plan.get("rematches", 0)),
                }
            )
        return out
