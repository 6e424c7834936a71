"""The league's side of the season formats: checking a new season, scheduling its rounds and
ranking its table, for each format.

The formats and their schedules are pure (:mod:`arena.scheduling` for the round-robin and the
knockout, :mod:`arena.formats` for the rest); this module maps entrant numbers to bot versions,
writes the rounds and their matches through :mod:`webui.league.services` (so every match is
claimed, leased and recorded once, like any other) and reads the games back into tables.
:mod:`webui.league.services` calls it: ``create_season`` to check and shape a new season,
``schedule_next_round`` for the rounds after the first, ``league_standings`` for the table.

Formats (``Season.format``):

- ``round-robin`` (``round-robin+knockout`` with a knockout): two sides; Berger tables;
- ``swiss``: two sides; ``swiss_rounds`` rounds, each paired from the table of the rounds
  before it, when they are complete;
- ``tables``: variants of three sides or more; every pair of entrants at the same table
  equally often, each table a match of every seat rotation;
- ``partnerships``: four-player partnership variants; a whist tournament, four different bots
  at each table and the partners rotating.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from arena import scheduling
from arena.formats.placement import PlacedGame, pairwise_scores, placement_standings, places_of
from arena.formats.swiss import (
    SwissRound,
    check_swiss,
    default_swiss_rounds,
    pair_swiss_round,
    swiss_players,
    swiss_standings,
)
from arena.formats.triples import table_design, table_rounds
from arena.formats.whist import (
    TeamGame,
    check_whist,
    partnership_standings,
    whist_rounds,
)

from .models import BotVersion, Game, Match, Round, Season, Variant

ROUND_ROBIN = Season.Format.ROUND_ROBIN.value
ROUND_ROBIN_KNOCKOUT = Season.Format.ROUND_ROBIN_KNOCKOUT.value
SWISS = Season.Format.SWISS.value
TABLES = Season.Format.TABLES.value
PARTNERSHIPS = Season.Format.PARTNERSHIPS.value

FORMAT_NAMES = (ROUND_ROBIN, SWISS, TABLES, PARTNERSHIPS)
"""What a new season may ask for (a knockout is asked for by its size)."""
CLASSIC = frozenset({ROUND_ROBIN, ROUND_ROBIN_KNOCKOUT})


class FormatError(ValueError):
    """A season its format cannot hold (raised again by the services as ``LeagueError``)."""


@dataclass(frozen=True)
class StandingRow:
    """One line of a season's table, with the bot version it belongs to."""

    version: BotVersion
    number: int
    standing: scheduling.Standing


@dataclass(frozen=True)
class SeasonShape:
    """A new season as its format shapes it: the format, its rounds, games per match."""

    format: str
    swiss_rounds: int
    games_per_pairing: int


def season_format(variant: Variant, requested: str | None, knockout_size: int) -> str:
    """The format of a new season: the one asked for, checked against the variant.

    No format asked for: a round-robin for two sides (with the knockout, if any), tables for
    more sides.
    """
    name = (requested or "").strip()
    if name in {"", "auto"}:
        name = ROUND_ROBIN if variant.sides == 2 else TABLES
    if name == ROUND_ROBIN_KNOCKOUT:
        name = ROUND_ROBIN
    if name not in FORMAT_NAMES:
        raise FormatError(f"format {name!r}: one of {', '.join(FORMAT_NAMES)}")
    if name in {ROUND_ROBIN, SWISS} and variant.sides != 2:
        raise FormatError(
            f"format {name!r} pairs two sides; variant {variant.slug} has {variant.sides}: "
            f"use format 'tables'"
        )
    if name == TABLES and variant.sides < 3:
        raise FormatError(
            f"format 'tables' is for variants of three sides or more; variant {variant.slug} "
            f"has {variant.sides}: use 'round-robin' or 'swiss'"
        )
    if name == PARTNERSHIPS and not (variant.players == 4 and variant.sides == 2):
        raise FormatError(
            f"format 'partnerships' is for four-player partnership variants (scopone, "
            f"scientifico, trentino, scopa-4, scopone-21), not {variant.slug}"
        )
    if knockout_size and name != ROUND_ROBIN:
        raise FormatError(f"a knockout follows only a round-robin, not format {name!r}")
    return ROUND_ROBIN_KNOCKOUT if name == ROUND_ROBIN and knockout_size else name


def check_entrants(variant: Variant, entrants: Sequence[BotVersion]) -> None:
    """Refuses versions that are not validated or whose bot.toml does not list the variant."""
    not_ready = [v.label for v in entrants if v.status != BotVersion.Status.READY]
    if not_ready:
        raise FormatError(f"not validated yet: {', '.join(not_ready)}")
    for version in entrants:
        declared = version.manifest.get("variants") if isinstance(version.manifest, dict) else None
        names = [str(n) for n in declared] if isinstance(declared, list) and declared else ["*"]
        if "*" not in names and variant.name not in names:
            raise FormatError(
                f"entrant {version.label} does not play {variant.name}: its bot.toml lists "
                f"{', '.join(names)}"
            )


def shape_season(
    format_name: str, variant: Variant, entrants: int, swiss_rounds: int | None,
    games_per_pairing: int,
) -> SeasonShape:
    """Checks that ``entrants`` bots can play ``format_name`` and fixes rounds and games.

    Games per match are rounded up to whole duplicate sets where a set is larger than two
    games: three at three-seat tables (every rotation of the seats), four at partnership
    tables.
    """
    if swiss_rounds is not None and format_name != SWISS:
        raise FormatError(f"rounds {swiss_rounds}: only a Swiss season takes a number of rounds")
    games = games_per_pairing
    rounds = 0
    try:
        if format_name == SWISS:
            rounds = default_swiss_rounds(max(entrants, 2)) if swiss_rounds is None else (
                swiss_rounds)
            check_swiss(entrants, rounds)
        elif format_name == TABLES:
            table_design(entrants, seats=variant.sides)
            games = _whole_sets(games, variant.sides)
        elif format_name == PARTNERSHIPS:
            check_whist(entrants)
            games = _whole_sets(games, 4)
    except scheduling.SchedulingError as error:
        raise FormatError(str(error)) from None
    return SeasonShape(format_name, rounds, games)


def _whole_sets(games: int, per_set: int) -> int:
    return max(1, math.ceil(games / per_set)) * per_set


def planned_matches(season: Season) -> int:
    """How many matches the whole season will have."""
    n = season.season_entrants.count()
    if season.format == SWISS:
        return season.swiss_rounds * (n // 2)
    if season.format == TABLES:
        return len(table_design(n, seats=season.variant.sides).tables) if n >= 3 else 0
    if season.format == PARTNERSHIPS:
        return n * (n - 1) // 4
    league = n * (n - 1) // 2 * (2 if season.double_round_robin else 1)
    return league + (season.knockout_size - 1 if season.has_knockout else 0)


# ---------------------------------------------------------------------------------------------
# Rounds


def schedule_round(season: Season, entrants: list[BotVersion], number: int) -> Round | None:
    """Writes round ``number`` of a Swiss, tables or partnerships season and its matches.

    Returns None when the season has no such round (it is over). Called by
    :func:`webui.league.services.schedule_next_round` under the season's row lock, once the
    round before is complete.
    """
    if season.format == SWISS:
        return _schedule_swiss(season, entrants, number)
    if season.format == TABLES:
        rounds = table_rounds(len(entrants), seats=season.variant.sides)
        if number > len(rounds):
            return None
        plan = rounds[number - 1]
        return _schedule_tables(season, entrants, number, plan.tables, plan.sitting_out)
    if season.format == PARTNERSHIPS:
        whist = whist_rounds(len(entrants))
        if number > len(whist):
            return None
        game = whist[number - 1]
        out = (game.sitting_out,) if game.sitting_out is not None else ()
        return _schedule_tables(season, entrants, number, game.tables, out)
    raise FormatError(f"format {season.format!r} is scheduled by the services")


def _schedule_tables(season: Season, entrants: list[BotVersion], number: int,
                     tables: Sequence[Sequence[int]], sitting_out: Sequence[int]) -> Round:
    from .services import create_match

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
        create_match(season, round_, board, [entrants[e - 1] for e in table],
                     "-".join(str(e) for e in table))
    return round_


def played_swiss_rounds(season: Season, entrants: Sequence[BotVersion]) -> list[SwissRound]:
    """The Swiss rounds paired so far, in entrant numbers."""
    number_of = {v.pk: i for i, v in enumerate(entrants, start=1)}
    out = []
    for r in season.rounds.filter(phase=Round.Phase.LEAGUE).order_by("number"):
        plan = r.plan or {}
        bye = plan.get("bye")
        out.append(SwissRound(
            tuple((number_of[a], number_of[b]) for a, b in plan.get("pairings", [])),
            number_of[int(bye)] if bye is not None else None,
            int(plan.get("rematches", 0)),
        ))
    return out


def _schedule_swiss(season: Season, entrants: list[BotVersion], number: int) -> Round | None:
    from .services import create_match

    if number > season.swiss_rounds:
        return None
    previous = played_swiss_rounds(season, entrants)
    table = standings(season)
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


# ---------------------------------------------------------------------------------------------
# Tables


def bye_score(season: Season) -> float:
    """What a Swiss bye scores: a drawn match, half its games."""
    return season.games_per_pairing / 2


def _season_games(season: Season) -> Iterable[Game]:
    return (
        Game.objects.filter(match__season=season, match__status=Match.Status.DONE,
                            match__round__phase=Round.Phase.LEAGUE)
        .only("players", "winner_side", "totals", "void", "forfeit")
        .order_by("match_id", "index")
    )


def placed_game(game: Game, number_of: dict[int, int], sides: int) -> PlacedGame:
    """A game of a multi-side season as :mod:`arena.formats.placement` ranks it."""
    totals = tuple(int(t) for t in game.totals) if game.totals else ()
    forfeit = game.forfeit.get("side") if isinstance(game.forfeit, dict) else None
    places = places_of(sides, totals or (0,) * sides, game.winner_side,
                       int(forfeit) if forfeit is not None else None, bool(game.void))
    return PlacedGame(tuple(number_of[int(game.players[s])] for s in range(sides)), places,
                      totals)


def game_places(game: Game, sides: int) -> tuple[int, ...] | None:
    """The places of a stored game's sides (None when void): the ratings' view of it."""
    identity = {int(p): int(p) for p in game.players}
    return placed_game(game, identity, sides).places


def standings(season: Season) -> list[StandingRow]:
    """The table of a Swiss, tables or partnerships season."""
    entrants = list(season.season_entrants.select_related("version__bot").order_by("number"))
    by_number = {e.number: e.version for e in entrants}
    number_of = {e.version_id: e.number for e in entrants}
    numbers = [e.number for e in entrants]
    games = list(_season_games(season))
    if season.format == SWISS:
        byes: dict[int, int] = {}
        for r in season.rounds.filter(phase=Round.Phase.LEAGUE):
            bye = (r.plan or {}).get("bye")
            if bye is not None:
                byes[number_of[int(bye)]] = byes.get(number_of[int(bye)], 0) + 1
        results = [
            scheduling.GameResult(
                (number_of[int(g.players[0])], number_of[int(g.players[1])]), g.winner_side,
                tuple(int(t) for t in g.totals) if g.totals else (), bool(g.void))
            for g in games
        ]
        table = swiss_standings(numbers, results, byes, bye_score(season))
    elif season.format == TABLES:
        sides = season.variant.sides
        table = placement_standings(numbers, (placed_game(g, number_of, sides) for g in games))
    elif season.format == PARTNERSHIPS:
        team_games = [
            TeamGame(
                tuple(tuple(number_of[int(g.players[s])] for s in (side, side + 2))
                      for side in range(2)),
                g.winner_side, tuple(int(t) for t in g.totals) if g.totals else (),
                bool(g.void))
            for g in games
        ]
        table = partnership_standings(numbers, team_games)
    else:
        raise FormatError(f"format {season.format!r} is ranked by the services")
    return [StandingRow(by_number[s.entrant], s.entrant, s) for s in table]


def pairwise_table(season: Season) -> dict[tuple[int, int], float] | None:
    """The cross-table of a tables season: how often ``a`` finished above ``b``.

    None for formats whose cross-table is the services' (or that have none: partnerships).
    """
    if season.format != TABLES:
        return None
    number_of = {e.version_id: e.number for e in season.season_entrants.all()}
    sides = season.variant.sides
    return pairwise_scores(placed_game(g, number_of, sides) for g in _season_games(season))


def format_summary(season: Season) -> dict[str, Any]:
    """What a season page says of its format, JSON-ready."""
    n = season.season_entrants.count()
    out: dict[str, Any] = {"name": season.format, "label": season.get_format_display()}
    if season.format == SWISS:
        out.update(rounds=season.swiss_rounds, bye_score=bye_score(season))
    elif season.format == TABLES and n >= season.variant.sides:
        design = table_design(n, seats=season.variant.sides)
        out.update(seats=season.variant.sides, design=design.kind,
                   pair_meetings=design.pair_meetings, tables=len(design.tables),
                   rounds=len(table_rounds(n, seats=season.variant.sides)))
    elif season.format == PARTNERSHIPS and n:
        out.update(rounds=n - 1 if n % 4 == 0 else n, tables_per_round=n // 4,
                   sits_out=n % 4 == 1)
    return out
