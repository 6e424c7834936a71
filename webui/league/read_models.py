"""The site's read models: versions of what it shows, bumped where the league writes, and the
head-to-head records kept as results are recorded.

A page is cached (by :mod:`webui.web.read_cache`) under the versions of exactly the scopes it
shows, so a write makes the next read of its scopes fresh and no other:

- ``home``: the home page (recent games, seasons' progress, how many are rated per variant);
- ``board:<variant>:<pool>``: a leaderboard (a variant's season pools and its ladder);
- ``bot:<bot>``: a bot's rating charts;
- ``matches:<bot>``: a bot's recent matches (created, claimed, given back, recorded, void);
- ``season:<season>``: a season's standings, cross-table, rounds and progress;
- ``live``: which matches are being played (every claim, give-back and result): the game
  featured on the home page and at ``/tv/``, and a match page's own rows.

Every write that changes a scope bumps it in its own transaction (:func:`bump`, the last
statement there, the scopes in one sorted statement so two writers never wait on each other
in a circle). The head-to-head records (:class:`~webui.league.models.HeadToHead`) are added to
in :func:`~webui.league.matches.record_result`'s transaction; :func:`recompute_reads` rebuilds
them from the games and bumps every scope (``arena season recompute-reads``). Nothing here
reads a cache: this module is the league's side only.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import TypedDict

from django.db import connection, transaction

from .models import (
    Bot,
    BotVersion,
    HeadToHead,
    MatchSeat,
    Rating,
    ReadVersion,
    Season,
    Variant,
)

HOME = "home"
LADDER = "ladder"
"""The ladders' pages: their active versions, their matches outside seasons and (with every
ladder rating update) their leaderboards."""
LIVE = "live"
"""Which matches are being played, and each match's own rows: bumped by every change of a
match's state."""


def board_scope(variant_id: int, pool: str) -> str:
    """The scope of a variant's leaderboard in one pool (``solo``, ``partners``, ``ladder``)."""
    return f"board:{variant_id}:{pool}"


def bot_scope(bot_id: int) -> str:
    """The scope of a bot's page."""
    return f"bot:{bot_id}"


def matches_scope(bot_id: int) -> str:
    """The scope of a bot's recent matches."""
    return f"matches:{bot_id}"


def season_scope(season_id: int) -> str:
    """The scope of a season's page."""
    return f"season:{season_id}"


def _fresh_start() -> int:
    # A new scope's first number: random, so cached reads of another database never match.
    return secrets.randbelow(2**52) + 1


def bump(scopes: Iterable[str]) -> None:
    """Moves each scope to its next version, in the caller's transaction (one statement)."""
    wanted = sorted(set(scopes))
    if not wanted:
        return
    table = ReadVersion._meta.db_table
    values = ", ".join(["(%s, %s)"] * len(wanted))
    params: list[str | int] = []
    for scope in wanted:
        params += [scope, _fresh_start()]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (scope, number) VALUES {values} "
            f"ON CONFLICT (scope) DO UPDATE SET number = {table}.number + 1",
            params,
        )


def bump_on_commit(scopes: Iterable[str]) -> None:
    """Bumps the scopes once the caller's transaction has committed, in a statement of its
    own: for writes inside longer transactions that bump other scopes too (a round's matches
    as they are created), where a bump in the middle would hold its rows while the
    transaction takes others. Readers may see the committed rows under the old versions for
    that instant; only a new match's appearance waits so, never a recorded result."""
    wanted = list(scopes)
    transaction.on_commit(lambda: bump(wanted))


def versions(scopes: Iterable[str]) -> dict[str, int]:
    """The current version of each scope (0 for one never bumped), in one query."""
    wanted = list(dict.fromkeys(scopes))
    found = dict(ReadVersion.objects.filter(scope__in=wanted).values_list("scope", "number"))
    return {scope: int(found.get(scope, 0)) for scope in wanted}


def bot_changed(bot_ids: Iterable[int]) -> None:
    """A bot's own rows changed (its description, owner, versions and their validation):
    its page is stale once the caller's transaction commits."""
    bump_on_commit([bot_scope(bot_id) for bot_id in bot_ids])


def _bot_row_changed(sender: type, instance: Bot | BotVersion, **kwargs: object) -> None:
    bot_changed([instance.pk if isinstance(instance, Bot) else instance.bot_id])


def connect_signals() -> None:
    """Saving or deleting a bot or a version through the ORM makes its bot's page stale
    (writes by ``update()`` call :func:`bot_changed` themselves)."""
    from django.db.models.signals import post_delete, post_save

    for model in (Bot, BotVersion):
        post_save.connect(_bot_row_changed, sender=model, dispatch_uid=f"reads-{model.__name__}")
        post_delete.connect(
            _bot_row_changed, sender=model, dispatch_uid=f"reads-del-{model.__name__}"
        )


def match_scopes(season_id: int | None, bot_ids: Iterable[int], finished: bool = True) -> list[str]:
    """What a change of one match's state makes stale: its season's page (outside seasons, the
    ladders' pages) and its bots' recent matches; ``finished`` (recorded or given up): the
    home page too (recent games, seasons' progress); always the matches being played
    (``live``). Its bots' charts change with their ratings, which bump them; their
    head-to-head is a read model of its own, read as it is."""
    scopes = [matches_scope(bot) for bot in bot_ids]
    scopes.append(LIVE)  # the matches being played, and the match's own page
    if finished:
        scopes.append(HOME)
    scopes.append(season_scope(season_id) if season_id is not None else LADDER)
    return scopes


def match_bots(match_id: int) -> set[int]:
    """The bots of a match's entrants."""
    return set(
        MatchSeat.objects.filter(match_id=match_id).values_list("version__bot_id", flat=True)
    )


# ---------------------------------------------------------------------------------------------
# Head-to-head records

# A bot's record against each opponent bot, per game: an opponent is an entrant of another
# side (a partner at a rotating partnership table shares its side, which the seats of a match
# keep in every game); a side won when the winning entrant is on it. Void games count for
# nobody. The same query adds one match's games and rebuilds the whole table.
_H2H_SELECT = """
    SELECT mv.bot_id, ov.bot_id,
           COUNT(*),
           SUM(CASE WHEN w.side = me.side THEN 1 ELSE 0 END),
           SUM(CASE WHEN g.winner_entrant IS NULL THEN 1 ELSE 0 END),
           SUM(CASE WHEN w.side = opp.side THEN 1 ELSE 0 END)
    FROM league_matchseat me
    JOIN league_botversion mv ON mv.id = me.version_id
    JOIN league_matchseat opp ON opp.match_id = me.match_id AND opp.side <> me.side
    JOIN league_botversion ov ON ov.id = opp.version_id
    JOIN league_game g ON g.match_id = me.match_id
    LEFT JOIN league_matchseat w ON w.match_id = g.match_id AND w."index" = g.winner_entrant
    WHERE g.void = '' {where}
    GROUP BY mv.bot_id, ov.bot_id
"""


def add_head_to_head(match_id: int) -> None:
    """Adds one recorded match's games to its bots' head-to-head records (in the caller's
    transaction, once: :func:`~webui.league.matches.record_result` records a match once)."""
    table = HeadToHead._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (bot_id, opponent_id, games, wins, draws, losses) "
            + _H2H_SELECT.format(where="AND me.match_id = %s")
            + " ON CONFLICT (bot_id, opponent_id) DO UPDATE SET"
            f" games = {table}.games + excluded.games,"
            f" wins = {table}.wins + excluded.wins,"
            f" draws = {table}.draws + excluded.draws,"
            f" losses = {table}.losses + excluded.losses",
            [match_id],
        )


Record = tuple[int, int, int, int]  # games, wins, draws, losses


def _head_to_head_from_games() -> dict[tuple[int, int], Record]:
    with connection.cursor() as cursor:
        cursor.execute(_H2H_SELECT.format(where=""))
        return {
            (int(bot), int(opp)): (int(g), int(w or 0), int(d or 0), int(lost or 0))
            for bot, opp, g, w, d, lost in cursor.fetchall()
        }


class RecomputeReport(TypedDict):
    """What :func:`recompute_reads` found and did."""

    head_to_head: int  # records that differed from the games (missing, extra or wrong)
    head_to_head_records: int  # records now stored
    scopes_bumped: int  # versions moved on, so every cached read is built again


def recompute_reads() -> RecomputeReport:
    """Rebuilds every read model from the league's tables and reports what differed.

    The head-to-head records are compared with the games and put right; then every scope's
    version moves on (the cached reads are derived from the tables, so they are built again on
    their next read). A healthy database reports 0 differences.
    """
    with transaction.atomic():
        # The bots' rows in a fixed order: a result recorded meanwhile waits for the rebuild.
        list(Bot.objects.select_for_update().order_by("pk").values_list("pk", flat=True))
        wanted = _head_to_head_from_games()
        stored = {
            (bot, opp): (g, w, d, lost)
            for bot, opp, g, w, d, lost in HeadToHead.objects.values_list(
                "bot_id", "opponent_id", "games", "wins", "draws", "losses"
            )
        }
        differing = {
            pair for pair in wanted.keys() | stored.keys() if wanted.get(pair) != stored.get(pair)
        }
        for bot, opp in differing:
            HeadToHead.objects.filter(bot_id=bot, opponent_id=opp).delete()
        HeadToHead.objects.bulk_create(
            HeadToHead(bot_id=bot, opponent_id=opp, games=g, wins=w, draws=d, losses=lost)
            for (bot, opp), (g, w, d, lost) in sorted(wanted.items())
            if (bot, opp) in differing
        )
        scopes = {HOME, LADDER, LIVE, *ReadVersion.objects.values_list("scope", flat=True)}
        bots = list(Bot.objects.values_list("pk", flat=True))
        scopes |= {bot_scope(pk) for pk in bots} | {matches_scope(pk) for pk in bots}
        scopes |= {season_scope(pk) for pk in Season.objects.values_list("pk", flat=True)}
        # Every pool of every variant, rated yet or not: a scope with a version is cached.
        scopes |= {
            board_scope(v, pool)
            for v in Variant.objects.values_list("pk", flat=True)
            for pool in Rating.Pool.values
        }
        bump(scopes)
    return RecomputeReport(
        head_to_head=len(differing), head_to_head_records=len(wanted), scopes_bumped=len(scopes)
    )
