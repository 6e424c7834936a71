"""What a season format is: :class:`SeasonFormat`, the one interface every format implements,
and what the formats share.

A format shapes and checks a new season (which variants, how many entrants, rounds and games
per match), plans its matches, schedules each round when the one before it is complete, ranks
its table with its own tie-breaks, keeps its cross-table, names its champion, and says how
pages and the command line show it (its summary, schedule and headline). The pure schedules are
in :mod:`arena.scheduling`; a format maps entrant numbers to bot
versions, writes rounds and their matches (:func:`webui.league.matches.create_match`, so every
match is claimed, leased and recorded once, like any other) and reads the games back into
tables. Formats are found by name in :mod:`webui.league.formats`; nothing outside them asks
which format a season has.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django.utils import timezone

from arena import scheduling
from arena.scheduling.placement import PlacedGame

from ..matches import create_match, match_score
from ..models import BotVersion, Game, Match, Round, Season, Variant
from .options import FormatError as FormatError
from .options import FormatOptions as FormatOptions
from .options import Option

Ref = Callable[[Any], Mapping[str, Any] | None]
"""How a view names a bot version by id (``None`` for none): its page's ``VersionRef``."""


@dataclass(frozen=True)
class StandingRow:
    """One line of a season's table, with the bot version it belongs to."""

    version: BotVersion
    number: int
    standing: scheduling.Standing

    def to_json(self, **named: Any) -> dict[str, Any]:
        """The row JSON-ready, as the API and ``arena season standings --json`` give it: rank,
        entrant number, ``named`` (how the caller names the bot: ``bot=`` its label,
        ``version=`` its reference), then the standing's figures."""
        s = self.standing
        return {
            "rank": s.rank,
            "entrant": self.number,
            **named,
            "played": s.played,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "score": s.score,
            "head_to_head": s.head_to_head,
            "sonneborn_berger": s.sonneborn_berger,
            "buchholz": s.buchholz,
            "byes": s.byes,
            "places": list(s.places),
            "points_for": s.points_for,
            "points_against": s.points_against,
        }


@dataclass(frozen=True)
class SeasonShape:
    """A new season as its format shapes it: the format stored, its options, games per match."""

    format: str
    options: FormatOptions
    games_per_pairing: int


class SeasonFormat:
    """A season's format, bound to one season (``format_of(season)``); the class methods
    check and shape a season before it exists.

    Subclasses set :attr:`key` and :attr:`labels` (every ``Season.format`` value the format
    plays, with what pages call it), :attr:`description`, :attr:`Options` (their options
    dataclass) and :attr:`columns`, and implement the rounds and the table. Everything the
    model's choices, the season form, the API and the command line show of a format is read
    from these.
    """

    key: ClassVar[str]
    """The name a new season asks for (``round-robin``, ``swiss``, ...)."""
    labels: ClassVar[tuple[tuple[str, str], ...]] = ()
    """Every ``Season.format`` value this format plays, with its label (default: its key)."""
    description: ClassVar[str] = ""
    """One line for the form and ``--help``: what the format is, what it takes."""
    Options: ClassVar[type[FormatOptions]] = FormatOptions
    """What a new season of this format may be asked for beyond its name (none by default)."""
    columns: ClassVar[tuple[tuple[str, str], ...]] = ()
    """The columns of its table after rank, bot and games played: (key of a standing row,
    heading); ``places`` is a column per place, ``points`` game points for and against."""
    cross_table_note: ClassVar[str] = ""
    """What its cross-table's cells mean, when not a head-to-head score."""

    def __init__(self, season: Season) -> None:
        self.season = season

    # -- a new season ----------------------------------------------------------------------

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The ``Season.format`` values this format plays."""
        return tuple(name for name, _ in cls.labels) or (cls.key,)

    @classmethod
    def choices(cls) -> tuple[tuple[str, str], ...]:
        """The ``Season.format`` values with their labels (the model's choices)."""
        return cls.labels or ((cls.key, cls.key),)

    @classmethod
    def is_default_for(cls, variant: Variant) -> bool:
        """Whether a season of ``variant`` that asks for no format gets this one."""
        return False

    @classmethod
    def check_variant(cls, variant: Variant) -> None:
        """Refuses (:class:`FormatError`) a variant this format cannot play."""

    @classmethod
    def options_from(
        cls, given: Mapping[str, object], every: Mapping[str, Option]
    ) -> FormatOptions:
        """This format's options from the values ``given`` by name (``every``: each format's
        options by name). A value left at its default is not asked for; an option of another
        format asked for is refused, naming the option and the value."""
        own = {o.name: o for o in cls.Options.declared()}
        taken: dict[str, object] = {}
        for name, value in given.items():
            if name in own:
                if value is not None:
                    taken[name] = own[name].check(value)
                continue
            other = every.get(name)
            if other is None:
                raise FormatError(
                    f"option {name!r}: no format takes it (the options: "
                    f"{', '.join(every) or 'none'})"
                )
            if not other.is_default(value):
                why = f"{other.refused}, not" if other.refused else "not an option of"
                raise FormatError(f"{name} {value!r}: {why} format {cls.key!r}")
        return cls.Options(**taken)

    @classmethod
    def shape(
        cls, variant: Variant, entrants: int, options: FormatOptions, games_per_pairing: int
    ) -> SeasonShape:
        """Checks that ``entrants`` bots can play this format with ``options`` and fixes its
        stored name, options and games per match (:class:`FormatError` when they cannot)."""
        try:
            games = cls.games_per_match(variant, entrants, games_per_pairing)
        except scheduling.SchedulingError as error:
            raise FormatError(str(error)) from None
        return SeasonShape(cls.key, options, games)

    @classmethod
    def games_per_match(cls, variant: Variant, entrants: int, asked: int) -> int:
        """Games per match for ``asked`` (checking that ``entrants`` can play the format)."""
        return asked

    # -- planning and scheduling -----------------------------------------------------------

    def planned_matches(self) -> int:
        """How many matches the whole season will have."""
        raise NotImplementedError

    def schedule_round(
        self, entrants: list[BotVersion], number: int, last: Round | None
    ) -> Round | None:
        """Writes round ``number`` and its matches (``last``: the round before, complete), or
        returns None when the season has no such round (it is over). Called under the
        season's row lock (:func:`webui.league.seasons.schedule_next_round`)."""
        raise NotImplementedError

    # -- tables ----------------------------------------------------------------------------

    def standings(self) -> list[StandingRow]:
        """The season's table, ranked by the format's tie-breaks."""
        raise NotImplementedError

    def cross_table(self) -> dict[tuple[int, int], float] | None:
        """League score of entrant number ``a`` against ``b``: ``{(a, b): score}``; None
        when the format has no cross-table."""
        scores: dict[tuple[int, int], float] = {}
        for result in league_results(self.season, Round.Phase.LEAGUE):
            if result.void:
                continue
            for side, entrant in enumerate(result.sides):
                for other_side, opponent in enumerate(result.sides):
                    if side == other_side:
                        continue
                    value = 0.5 if result.winner is None else float(result.winner == side)
                    scores[(entrant, opponent)] = scores.get((entrant, opponent), 0.0) + value
        return scores

    def champion(self) -> BotVersion | None:
        """The winner once the season is over: the top of the table."""
        if self.season.status != Season.Status.FINISHED:
            return None
        table = self.standings()
        return table[0].version if table else None

    def champion_by(self) -> str | None:
        """How :meth:`champion` was decided: ``table`` (its top), ``knockout`` (the final's
        winner); None before the season is over."""
        return "table" if self.season.status == Season.Status.FINISHED else None

    @property
    def has_knockout(self) -> bool:
        """Whether the top of the table plays a knockout bracket after the league."""
        return False

    def knockout_entrants(self, table_size: int) -> int:
        """How many of a table of ``table_size`` play the knockout: its size, at most the
        table (0 without one)."""
        return 0

    # -- how it is shown -------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What a season page says of its format, JSON-ready."""
        return {
            "name": self.season.format,
            "label": self.season.get_format_display(),
            "options": self.Options.from_json(self.season.format_options).to_json(),
        }

    def headline(self, summary: Mapping[str, Any]) -> str:
        """The format's words after its name on the season page (`` · 5 rounds``)."""
        return ""

    def note(self, summary: Mapping[str, Any]) -> str:
        """The line the command line prints under the table (its scoring), or empty."""
        return ""

    def schedule(self, ref: Ref) -> list[dict[str, Any]] | None:
        """The rounds as scheduled so far with their results, or None when the format's rounds
        are its cross-table and bracket."""
        return None

    def bracket(
        self, match_rows: Sequence[Mapping[str, Any]], table: list[StandingRow], ref: Ref
    ) -> list[dict[str, Any]] | None:
        """The knockout as columns of slots, or None without one."""
        return None


# ---------------------------------------------------------------------------------------------
# What the formats share


def whole_sets(games: int, per_set: int) -> int:
    """``games`` rounded up to whole duplicate sets of ``per_set`` games."""
    return max(1, math.ceil(games / per_set)) * per_set


def league_results(season: Season, phase: str | None) -> Iterable[scheduling.GameResult]:
    """The season's played games (of one phase), as :mod:`arena.scheduling` ranks them."""
    number_of = {se.version_id: se.number for se in season.season_entrants.all()}
    games = Game.objects.filter(match__season=season, match__status=Match.Status.DONE)
    if phase is not None:
        games = games.filter(match__round__phase=phase)
    sides = season.variant.sides
    for game in games.only("players", "winner_side", "totals", "void"):
        side_entrants = [number_of[int(game.players[s])] for s in range(sides)]
        totals = tuple(int(t) for t in game.totals) if game.totals else ()
        yield scheduling.GameResult(tuple(side_entrants), game.winner_side, totals, bool(game.void))


def season_games(season: Season) -> Iterable[Game]:
    """The season's played league games, in match order."""
    return (
        Game.objects.filter(
            match__season=season,
            match__status=Match.Status.DONE,
            match__round__phase=Round.Phase.LEAGUE,
        )
        .only("players", "winner_side", "totals", "void", "forfeit")
        .order_by("match_id", "index")
    )


def entrant_numbers(season: Season) -> tuple[dict[int, BotVersion], dict[int, int], list[int]]:
    """The entrants: version by number, number by version id, and the numbers in order."""
    entrants = list(season.season_entrants.select_related("version__bot").order_by("number"))
    return (
        {e.number: e.version for e in entrants},
        {e.version_id: e.number for e in entrants},
        [e.number for e in entrants],
    )


def placed_game(game: Game, number_of: dict[int, int], sides: int) -> PlacedGame:
    """A game of a multi-side season as :mod:`arena.scheduling.placement` ranks it."""
    return PlacedGame(
        tuple(number_of[int(game.players[s])] for s in range(sides)),
        game.places(sides),
        tuple(int(t) for t in game.totals or ()),
    )


def close_round_if_done(round_: Round) -> bool:
    """Marks a round done once none of its matches is open; whether it is done."""
    if round_.status == Round.Status.DONE:
        return True
    if round_.matches.exclude(status__in=[Match.Status.DONE, Match.Status.VOID]).exists():
        return False
    Round.objects.filter(pk=round_.pk, status=Round.Status.RUNNING).update(
        status=Round.Status.DONE, finished=timezone.now()
    )
    round_.status = Round.Status.DONE
    return True


def schedule_tables(
    season: Season,
    entrants: list[BotVersion],
    number: int,
    tables: Sequence[Sequence[int]],
    sitting_out: Sequence[int],
) -> Round:
    """Writes a round of tables (entrant numbers) and a match for each table."""
    round_ = Round.objects.create(
        season=season,
        number=number,
        phase=Round.Phase.LEAGUE,
        plan={
            "tables": [[entrants[e - 1].pk for e in table] for table in tables],
            "sitting_out": [entrants[e - 1].pk for e in sitting_out],
        },
    )
    for board, table in enumerate(tables):
        create_match(
            season, round_, board, [entrants[e - 1] for e in table], "-".join(str(e) for e in table)
        )
    return round_


def scheduled_matches(season: Season) -> dict[tuple[int, int], tuple[int, str, Any]]:
    """The season's matches by (round number, board): id, status, summary."""
    return {
        (number, board): (mid, status, summary)
        for mid, number, board, status, summary in Match.objects.filter(season=season).values_list(
            "id", "round__number", "board", "status", "summary"
        )
    }


def table_schedule(
    season: Season, ref: Ref, sides_of: Callable[[list[Any]], list[list[Any]]] | None = None
) -> list[dict[str, Any]]:
    """Rounds of tables as scheduled, each table with its entrants (and, with ``sides_of``,
    its sides), its match and result, and who sat out."""
    matches = scheduled_matches(season)
    out = []
    for r in Round.objects.filter(season=season, phase=Round.Phase.LEAGUE).order_by("number"):
        plan = r.plan or {}
        tables = []
        for board, table in enumerate(plan.get("tables", [])):
            mid, status, summary = matches.get((r.number, board), (None, None, {}))
            row: dict[str, Any] = {
                "board": board,
                "entrants": [ref(v) for v in table],
                "match": mid,
                "status": status,
                "result": match_score(summary, len(table)),
            }
            if sides_of is not None:
                row["sides"] = [[ref(v) for v in side] for side in sides_of(table)]
            tables.append(row)
        out.append(
            {
                "number": r.number,
                "status": r.status,
                "tables": tables,
                "sitting_out": [ref(v) for v in plan.get("sitting_out", [])],
            }
        )
    return out
