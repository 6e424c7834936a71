"""What the pages and the JSON API show, read from the league's tables as JSON-ready dicts.

Every page and its API twin call the same function here, so the API carries everything a page
shows. The queries are shaped for large tables (100,000 games and more): bounded result sets,
lookups by indexed keys, aggregates done by the database, rating charts thinned in SQL. This
module only reads; the changes go through :mod:`webui.web.submission` and the league's write
paths. What a season's format shows (its summary, schedule, bracket) its format object says
(:mod:`webui.league.formats`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any, cast

from django.db import connection
from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from arena.engine import side_of_seat
from arena.rating import is_provisional
from arena.text import printable
from webui.league import formats, read_models
from webui.league.matches import match_score
from webui.league.models import (
    Bot,
    BotVersion,
    Game,
    HeadToHead,
    Match,
    MatchSeat,
    Rating,
    Round,
    Season,
    SeasonEntrant,
    Variant,
)
from webui.league.seat_limits import describe as describe_seat_limits

from .read_cache import cached
from .shapes import (
    BotJson,
    BotListRow,
    BotRating,
    BotSummary,
    Chart,
    GameRow,
    HeadToHeadRow,
    HomeOverview,
    LeaderRow,
    MatchRow,
    MatchScore,
    RatingFigures,
    RatingPoint,
    RoundRow,
    SeasonPage,
    SeasonRef,
    SeasonRow,
    SeasonTables,
    StandingRow,
    ValidationGame,
    VariantJson,
    VersionJson,
    VersionRef,
)

CHART_POINTS = 160
"""The most points a rating chart draws per series (the history is thinned to this)."""


def bot_text(value: Any) -> Any:
    """A bot's words (a fault's detail, a forfeit's reason, bot.toml's version and author),
    shown as text: control and format characters escaped (:func:`arena.text.printable`). The
    runner records them so; this holds for what was stored before it did."""
    return printable(value) if isinstance(value, str) else value


def bot_forfeit(forfeit: Any) -> Any:
    """A game's ``forfeit`` with its reason shown as text."""
    if isinstance(forfeit, dict) and "reason" in forfeit:
        return {**forfeit, "reason": bot_text(forfeit["reason"])}
    return forfeit


def bot_faults(faults: Any) -> list[Any]:
    """A game's faults with their details shown as text."""
    return [
        {**f, "detail": bot_text(f["detail"])} if isinstance(f, dict) and "detail" in f else f
        for f in faults or []
    ]


def fault_summary(faults: Any, players: list[VersionRef]) -> str:
    """Whose faults a game had, for lists: ``"1 fault: greedy@1 timeout"`` ("" with none).

    A count alone leaves a reader guessing whether it was their bot's; the seat's version and
    the fault's kind say it (kinds as in REPLAY.md: ``timeout``, ``illegal``, ``crash``...).
    """
    named = []
    for f in faults or []:
        if not isinstance(f, dict):
            continue
        seat = f.get("seat")
        who = (
            players[seat]["label"]
            if isinstance(seat, int) and 0 <= seat < len(players)
            else f"seat {seat}"
        )
        named.append(f"{who} {bot_text(str(f.get('kind', 'fault')))}")
    if not named:
        return ""
    return f"{len(named)} fault{'' if len(named) == 1 else 's'}: {', '.join(named)}"


def version_refs(ids: Iterable[int]) -> dict[int, VersionRef]:
    """Labels of the given bot version ids, in one query."""
    wanted = {int(i) for i in ids if i is not None}
    if not wanted:
        return {}
    rows = BotVersion.objects.filter(id__in=wanted).values_list("id", "number", "bot__name")
    return {
        vid: VersionRef(id=vid, label=f"{name}@{number}", bot=name, number=number)
        for vid, number, name in rows
    }


def _unknown(vid: int) -> VersionRef:
    return VersionRef(id=vid, label=f"version {vid}", bot="", number=0)


# ---------------------------------------------------------------------------------------------
# Variants and the home page


def variant_json(v: Variant) -> VariantJson:
    """A variant as the API shows it."""
    return {
        "slug": v.slug,
        "name": v.name,
        "label": v.label,
        "options": v.options,
        "standard": v.standard,
        "players": v.players,
        "sides": v.sides,
    }


def shown_variants() -> Any:
    """The variants lists show: those with games or a season, and the ladders' (configured).

    Not every variant ever asked for: a variant row is stored when something uses it, and a
    challenge whose match was never played is no reason to list one.
    """
    from webui.league.ladder import ladder_variants

    configured = [v.pk for v in ladder_variants()]
    return Variant.objects.filter(
        Q(pk__in=configured)
        | Exists(Game.objects.filter(variant=OuterRef("pk")))
        | Exists(Season.objects.filter(variant=OuterRef("pk")))
    )


def variants_overview() -> list[VariantJson]:
    """The variants lists show (:func:`shown_variants`), with how many entities are rated in
    each (cached with the home page)."""
    return cached("variants", [read_models.HOME], _variants_overview)


def _variants_overview() -> list[VariantJson]:
    rated = dict(
        Rating.objects.values_list("variant_id")
        .annotate(n=Count("id"))
        .values_list("variant_id", "n")
    )
    out = []
    for v in shown_variants():
        row = variant_json(v)
        row["rated"] = rated.get(v.id, 0)
        out.append(row)
    return out


def home_overview() -> HomeOverview:
    """What the home page shows (variants, running and finished seasons, recent games), one
    cached read under the home page's version."""
    return cached(
        "home",
        [read_models.HOME],
        lambda: HomeOverview(
            variants=_variants_overview(),
            running=_seasons(Season.Status.RUNNING, 10),
            finished=_seasons(Season.Status.FINISHED, 5),
            games=_recent_games(12, None),
        ),
    )


def game_row(g: Game, refs: dict[int, VersionRef], season: Season | None = None) -> GameRow:
    """One game as lists show it (no replay)."""
    players = [refs.get(int(p)) or _unknown(int(p)) for p in (g.players or [])]
    sides = max(1, int(g.variant.sides)) if hasattr(g, "variant") else 2
    # A side played by one version in both seats is that version once ("ismcts@1"), not
    # "ismcts@1 & ismcts@1"; two different partners are both named.
    side_names = [
        " & ".join(
            dict.fromkeys(p["label"] for k, p in enumerate(players) if side_of_seat(k, sides) == s)
        )
        for s in range(sides)
    ]
    if g.void:
        outcome = "void"
    elif g.winner_side is None:
        outcome = "draw"
    else:
        outcome = f"{side_names[g.winner_side]} won" if g.winner_side < len(side_names) else "won"
    match = g.match
    season = season or match.season
    return {
        "id": g.id,
        "match": g.match_id,
        "index": g.index,
        "kind": match.kind,
        "season": {"id": season.id, "name": season.name} if season is not None else None,
        "variant": g.variant.slug,
        "players": players,
        "sides": side_names,
        "totals": list(g.totals or []),
        "winner_side": g.winner_side,
        "outcome": outcome,
        "forfeit": bot_forfeit(g.forfeit),
        "void": bot_text(g.void) or None,
        "faults": len(g.faults or []),
        "fault_summary": fault_summary(g.faults, players),
        "duration_ms": g.duration_ms,
        "created": g.created.isoformat(),
    }


def recent_games(limit: int = 12, variant: Variant | None = None) -> list[GameRow]:
    """The latest games, newest first (cached with the home page: every result changes it)."""
    return cached(
        f"games:{limit}:{variant.pk if variant is not None else ''}",
        [read_models.HOME],
        lambda: _recent_games(limit, variant),
    )


def _recent_games(limit: int, variant: Variant | None) -> list[GameRow]:
    qs = Game.objects.select_related("variant", "match__season").defer("replay")
    if variant is not None:
        qs = qs.filter(variant=variant)
    games = list(qs.order_by("-created", "-id")[:limit])
    refs = version_refs(p for g in games for p in (g.players or []))
    return [game_row(g, refs) for g in games]


def season_row(s: Season, counts: tuple[int, int, int] | None = None) -> SeasonRow:
    """A season as lists show it; ``counts`` is (matches, done, entrants) when known."""
    if counts is None:
        done, total = s.progress()
        entrants = s.season_entrants.count()
    else:
        total, done, entrants = counts
    return {
        "id": s.id,
        "name": s.name,
        "variant": s.variant.slug,
        "variant_label": s.variant.label,
        "status": s.status,
        "format": s.format,
        "format_options": dict(s.format_options or {}),
        # The options of the round-robin and the Swiss as clients first read them.
        "knockout_size": int((s.format_options or {}).get("knockout_size") or 0),
        "swiss_rounds": int((s.format_options or {}).get("rounds") or 0),
        "games_per_pairing": s.games_per_pairing,
        "move_time_ms": s.move_time_ms,
        "bank_ms": s.bank_ms,
        # Every seat limit of the season's matches, its own overrides applied (MiB, seconds).
        "seat_limits": describe_seat_limits(s.seat_limits or {}, s.games_per_pairing, s.bank_ms),
        "seat_limit_overrides": dict(s.seat_limits or {}),
        "entrants": entrants,
        "matches_done": done,
        # Every match the season will have (its later rounds are scheduled as it goes).
        "matches_total": max(formats.format_of(s).planned_matches(), total),
        "matches_scheduled": total,
        "created": s.created.isoformat(),
        "started": s.started.isoformat() if s.started else None,
        "finished": s.finished.isoformat() if s.finished else None,
    }


def _count_of(model: Any, **filters: Any) -> Subquery:
    """A correlated COUNT per season: evaluated only for the rows a query returns."""
    return Subquery(
        model.objects.filter(season=OuterRef("pk"), **filters)
        .order_by()
        .values("season")
        .annotate(n=Count("id"))
        .values("n"),
        output_field=IntegerField(),
    )


def seasons(status: str | None = None, limit: int = 100) -> list[SeasonRow]:
    """Seasons, newest first, with their progress counted by the database (cached with the
    home page, which every season's progress bumps)."""
    return cached(
        f"seasons:{status or ''}:{limit}", [read_models.HOME], lambda: _seasons(status, limit)
    )


def _seasons(status: str | None, limit: int) -> list[SeasonRow]:
    qs = Season.objects.select_related("variant")
    if status:
        qs = qs.filter(status=status)
    qs = qs.order_by("-created")[:limit]
    ids = [s.pk for s in qs]
    counted = (
        Season.objects.filter(pk__in=ids)
        .annotate(
            n_matches=Coalesce(_count_of(Match), 0),
            n_done=Coalesce(_count_of(Match, status__in=[Match.Status.DONE, Match.Status.VOID]), 0),
            n_entrants=Coalesce(_count_of(SeasonEntrant), 0),
        )
        .values_list("pk", "n_matches", "n_done", "n_entrants")
    )
    counts = {pk: (m, d, e) for pk, m, d, e in counted}
    return [season_row(season, counts.get(season.pk, (0, 0, 0))) for season in qs]


# ---------------------------------------------------------------------------------------------
# Leaderboard


def rating_figures(r: Rating) -> RatingFigures:
    """A rating's figures, JSON-ready: mu, sigma, record, win rate (draws count half)."""
    return {
        "mu": round(r.mu, 3),
        "sigma": round(r.sigma, 3),
        "conservative": round(r.conservative, 3),
        "games": r.games,
        "wins": r.wins,
        "draws": r.draws,
        "losses": r.losses,
        "win_rate": round((r.wins + 0.5 * r.draws) / r.games, 4) if r.games else None,
        "provisional": is_provisional(r.games, r.sigma),
    }


POOLS = {
    Rating.Pool.SOLO.value: "each side one bot: a bot version plays every seat of its side",
    Rating.Pool.PARTNERS.value: "rotating partnerships: each bot's own rating from games "
    "beside different partners (TrueSkill team updates)",
}
"""The two season pools of a variant, as the leaderboard describes them (its ``ladder``
parameter chooses one)."""


def variant_pools(variant: Variant) -> list[str]:
    """The pools a variant's leaderboard offers: partners only for partnership variants."""
    if variant.players == 4 and variant.sides == 2:
        return [Rating.Pool.SOLO.value, Rating.Pool.PARTNERS.value]
    return [Rating.Pool.SOLO.value]


def leaderboard(
    variant: Variant, pool: str = Rating.Pool.SOLO.value, limit: int = 200
) -> list[LeaderRow]:
    """The ratings of a variant in one pool, best conservative rating first, each with its
    rank 24 hours ago and the change since (:mod:`rank_changes`).

    Cached under the leaderboard's version (bumped as its ratings are updated) and the hour
    the rank changes count from.
    """
    from .rank_changes import since

    hour = since().strftime("%Y%m%d%H")
    return cached(
        f"board:{variant.pk}:{pool}:{limit}:{hour}",
        [read_models.board_scope(variant.pk, pool)],
        lambda: _leaderboard(variant, pool, limit),
    )


def _leaderboard(variant: Variant, pool: str, limit: int) -> list[LeaderRow]:
    rows = (
        Rating.objects.filter(variant=variant, pool=pool)
        .select_related("version__bot")
        .order_by("-conservative", "id")[:limit]
    )
    out: list[LeaderRow] = []
    for rank, r in enumerate(rows, start=1):
        v = r.version
        ref = VersionRef(id=v.id, label=v.label, bot=v.bot.name, number=v.number)
        row: LeaderRow = {
            "rank": rank,
            "key": r.key,
            "rating_id": r.id,
            "label": ref["label"],
            "versions": [ref],
            "ladder": r.pool,
            "rank_before": None,  # both set by add_rank_changes
            "rank_change": None,
            **rating_figures(r),
        }
        out.append(row)
    from .rank_changes import add_rank_changes

    return add_rank_changes(out, variant.pk, pool)


# ---------------------------------------------------------------------------------------------
# Bots


def version_json(v: BotVersion, private: bool = False) -> VersionJson:
    """A bot version; ``private`` adds what only its owner (and staff) may read."""
    out: VersionJson = {
        "id": v.id,
        "label": f"{v.bot.name}@{v.number}",
        "number": v.number,
        "sha256": v.sha256,
        "code_sha256": v.code_sha256,
        "status": v.status,
        "status_reason": bot_text(v.status_reason),
        "manifest": {
            k: bot_text(v.manifest.get(k)) for k in ("name", "version", "author", "variants")
        },
        "created": v.created.isoformat(),
        "validated": v.validated.isoformat() if v.validated else None,
        "validation_games": validation_games(v, private),
    }
    if private:
        out["validation_log"] = printable(v.validation_log, lines=True)
        out["address"] = v.address
        out["promote_on_pass"] = v.promote_on_pass
    return out


def validation_games(v: BotVersion, private: bool = False) -> list[ValidationGame]:
    """The version's validation games: who won, its moves and fallbacks, and the faults (their
    details, which quote the bot's errors, for its owner and staff only)."""
    games = v.validation_games if isinstance(v.validation_games, list) else []
    out: list[ValidationGame] = []
    for game in games:
        faults = [
            {k: f.get(k) for k in ("deal", "move", "seat", "player", "kind")}
            | ({"detail": bot_text(f.get("detail", ""))} if private else {})
            for f in game.get("faults") or []
        ]
        shown = {"forfeit": bot_forfeit(game.get("forfeit")), "void": bot_text(game.get("void"))}
        # As validation stored it (its keys are validation's own), with the bots' words shown
        # as text.
        out.append(cast(ValidationGame, {**game, **shown, "faults": faults}))
    return out


def bot_json(bot: Bot, private: bool = False) -> BotJson:
    """A bot with its versions."""
    versions = list(bot.versions.select_related("bot").order_by("-number"))
    return {
        "name": bot.name,
        "owner": bot.owner.get_username(),
        "description": bot.description,
        "created": bot.created.isoformat(),
        "versions": [version_json(v, private) for v in versions],
    }


def bots(limit: int = 500) -> list[BotListRow]:
    """Every bot with its version count and newest version."""
    qs = (
        Bot.objects.select_related("owner")
        .annotate(n_versions=Count("versions"))
        .order_by("name")[:limit]
    )
    out: list[BotListRow] = []
    for b in qs:
        out.append(
            {
                "name": b.name,
                "owner": b.owner.get_username(),
                "description": b.description,
                "versions": b.n_versions,
            }
        )
    return out


def bot_ratings(bot: Bot) -> list[BotRating]:
    """The ratings of every version of a bot, per variant and ladder."""
    rows = (
        Rating.objects.filter(version__bot=bot)
        .select_related("variant", "version")
        .order_by("variant__slug", "pool", "-version__number")
    )
    return [
        {
            "variant": r.variant.slug,
            "variant_label": r.variant.label
            + (
                " (rotating partnerships)"
                if r.pool == Rating.Pool.PARTNERS
                else " (ladder)"
                if r.pool == Rating.Pool.LADDER
                else ""
            ),
            "ladder": r.pool,
            "version": r.version.number,
            "label": f"{bot.name}@{r.version.number}",
            "rating_id": r.id,
            **rating_figures(r),
        }
        for r in rows
    ]


def bot_summary(bot: Bot) -> BotSummary:
    """A bot's ratings, their charts, its recent matches and its head-to-head records: one
    cached read under the bot's version (its ratings) and its matches' (a result recorded, a
    match claimed). The charts are cached apart, under the ratings' version alone, so a claimed
    match does not draw them again."""

    def build() -> BotSummary:
        ratings = bot_ratings(bot)
        return {
            "ratings": ratings,
            "charts": bot_charts(bot, ratings),
            "recent_matches": _recent_matches(bot, 15),
            "head_to_head": head_to_head(bot),
        }

    return cached(
        f"bot:{bot.pk}", [read_models.bot_scope(bot.pk), read_models.matches_scope(bot.pk)], build
    )


def rating_history(rating_id: int, points: int = CHART_POINTS) -> list[RatingPoint]:
    """A rating's history in rating order, thinned in SQL to about ``points`` points, each
    with its game number among the rating's own games."""
    table = "league_ratinghistory"
    sql = f"""
        SELECT seq, rn, mu, sigma, conservative FROM (
            SELECT seq, mu, sigma, conservative,
                   ROW_NUMBER() OVER (ORDER BY seq) AS rn, COUNT(*) OVER () AS n
            FROM {table} WHERE rating_id = %s
        ) t
        WHERE (rn - 1) %% (CASE WHEN n / %s < 1 THEN 1 ELSE n / %s END) = 0 OR rn = n
        ORDER BY seq
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [rating_id, points, points])
        # "game": the rating's own game number (1 = its first rated game), the chart's axis;
        # "seq" is the variant's rating order, shared by every bot.
        return [
            {"seq": int(seq), "game": int(rn), "mu": mu, "sigma": sigma, "conservative": cons}
            for seq, rn, mu, sigma, cons in cursor.fetchall()
        ]


def bot_charts(bot: Bot, ratings: list[BotRating]) -> list[Chart]:
    """One chart per variant: a series per version of the bot (cached under the bot's version,
    which its rating updates bump)."""
    return cached(f"charts:{bot.pk}", [read_models.bot_scope(bot.pk)], lambda: _bot_charts(ratings))


def _bot_charts(ratings: list[BotRating]) -> list[Chart]:
    charts: dict[tuple[str, str], Chart] = {}
    for r in ratings:
        chart = charts.setdefault(
            (r["variant"], r["ladder"]),
            {
                "variant": r["variant"],
                "ladder": r["ladder"],
                "label": r["variant_label"],
                "series": [],
            },
        )
        chart["series"].append({"label": r["label"], "points": rating_history(r["rating_id"])})
    return list(charts.values())


def recent_matches(bot: Bot, limit: int = 15) -> list[MatchRow]:
    """The bot's latest matches, newest first, with every entrant (cached under the version
    of its matches, which creating, claiming, giving back, recording and voiding bump)."""
    return cached(
        f"matches:{bot.pk}:{limit}",
        [read_models.matches_scope(bot.pk)],
        lambda: _recent_matches(bot, limit),
    )


def _recent_matches(bot: Bot, limit: int) -> list[MatchRow]:
    # Newest first straight from the seats' index, then those few matches by key.
    ids = list(
        MatchSeat.objects.filter(version__bot=bot)
        .order_by("-match_id")
        .values_list("match_id", flat=True)[: limit * 2]
    )
    return _newest_match_rows(Match.objects.filter(id__in=list(dict.fromkeys(ids))[:limit]), limit)


def recent_open_matches(variant: Variant, limit: int = 15) -> list[MatchRow]:
    """A variant's latest ladder matches and challenges, newest first, with their entrants
    (three queries, whatever the limit)."""
    return _newest_match_rows(
        Match.objects.filter(variant=variant).exclude(kind=Match.Kind.SEASON), limit
    )


def _newest_match_rows(matches: QuerySet[Match], limit: int) -> list[MatchRow]:
    """The newest ``limit`` of ``matches`` as lists show them, with their entrants (a query
    for the matches, one for their seats with versions and bots, whatever the limit)."""
    out = []
    for m in (
        matches.select_related("season", "round")
        .prefetch_related(
            Prefetch(
                "seats", queryset=MatchSeat.objects.select_related("version__bot").order_by("index")
            )
        )
        .order_by("-id")[:limit]
    ):
        seats = list(m.seats.all())
        refs = {
            s.version_id: VersionRef(
                id=s.version_id,
                label=s.version.label,
                bot=s.version.bot.name,
                number=s.version.number,
            )
            for s in seats
        }
        out.append(match_row(m, seats, refs))
    return out


def match_row(m: Match, seats: list[MatchSeat], refs: dict[int, VersionRef]) -> MatchRow:
    """A match as lists show it."""
    entrants = [refs.get(s.version_id) or _unknown(s.version_id) for s in seats]
    score = match_score(m.summary or {}, len(entrants))
    return {
        "id": m.id,
        "kind": m.kind,
        "season": SeasonRef(id=m.season.id, name=m.season.name) if m.season else None,
        "round": m.round.number if m.round else None,
        "phase": m.round.phase if m.round else None,
        "rated": m.rated,
        "board": m.board,
        "status": m.status,
        "entrants": entrants,
        "score": None if score is None else MatchScore(wins=score["wins"], points=score["points"]),
        "winner": refs[m.winner_id]["label"] if m.winner_id and m.winner_id in refs else None,
        "games_planned": m.games_planned,
        "finished": m.finished.isoformat() if m.finished else None,
        "error": m.error or None,
    }


def head_to_head(bot: Bot) -> list[HeadToHeadRow]:
    """The bot's record (games won, drawn, lost) against each opponent bot: its head-to-head
    read model (:class:`~webui.league.models.HeadToHead`, a row per opponent), one query."""
    rows = HeadToHead.objects.filter(bot=bot).values_list(
        "opponent__name", "games", "wins", "losses", "draws"
    )
    out: list[HeadToHeadRow] = []
    for name, games, wins, losses, draws in rows:
        out.append(
            {
                "opponent": name,
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": round((wins + 0.5 * draws) / games, 4) if games else None,
            }
        )
    out.sort(key=lambda r: (-r["games"], r["opponent"]))
    return out


# ---------------------------------------------------------------------------------------------
# Seasons


def season_detail(season: Season, match_limit: int | None = None) -> SeasonPage:
    """A season: its standings, cross-table, rounds, matches and knockout bracket.

    ``match_limit`` keeps only the latest league matches (the knockout ones are all kept).
    The standings, cross-table, rounds and progress are cached under the season's version
    (:func:`season_tables`); the matches and the bracket are read here.
    """
    tables = season_tables(season)
    entrant_refs = {e["version"]["id"]: e["version"] for e in tables["entrants"]}

    def ref(vid: Any) -> VersionRef | None:
        """An entrant by version id, for the format's bracket."""
        return None if vid is None else entrant_refs.get(int(vid)) or _unknown(int(vid))

    knockout, shown = _season_match_rows(season, match_limit)
    matches = sorted(knockout + shown, key=lambda m: (m.round.number if m.round else 0, m.board))
    seats = defaultdict(list)
    for s in MatchSeat.objects.filter(match_id__in=[m.pk for m in matches]).order_by("index"):
        seats[s.match_id].append(s)
    refs = version_refs(s.version_id for lst in seats.values() for s in lst)
    match_rows = [match_row(m, seats[m.id], refs) for m in matches]
    season_format = formats.format_of(season)
    return {
        "season": tables["season"],
        "entrants": tables["entrants"],
        "standings": tables["standings"],
        "crosstable": tables["crosstable"],
        "rounds": tables["rounds"],
        "format": tables["format"],
        "schedule": tables["schedule"],
        "matches": match_rows,
        "bracket": season_format.bracket(match_rows, tables["table"], ref),
    }


def _season_match_rows(season: Season, match_limit: int | None) -> tuple[list[Match], list[Match]]:
    """A season's knockout matches and its league ones, the latest round first
    (``match_limit`` of them at most).

    The season's rounds are read first (a few rows), the matches then by their rounds' ids:
    when those ids grow with the rounds' numbers (rounds are created one after the other),
    the league matches come off the season's match index in order, without a join or a sort
    of all of them.
    """
    rounds = list(Round.objects.filter(season=season).order_by("-number"))
    by_id = {r.pk: r for r in rounds}
    knockout_ids = [r.pk for r in rounds if r.phase == Round.Phase.KNOCKOUT]
    league_ids = [r.pk for r in rounds if r.phase == Round.Phase.LEAGUE]
    base = Match.objects.filter(season=season)
    knockout = list(base.filter(round_id__in=knockout_ids)) if knockout_ids else []
    if league_ids == sorted(league_ids, reverse=True):
        league = base.filter(round_id__in=league_ids).order_by("-round_id", "board", "id")
    else:
        league = base.filter(round_id__in=league_ids).order_by("-round__number", "board", "id")
    shown = list(league[:match_limit] if match_limit is not None else league) if league_ids else []
    for m in (*knockout, *shown):
        m.round = by_id[m.round_id]  # type: ignore[index]  # filtered by round: never null
        m.season = season
    return knockout, shown


def season_tables(season: Season) -> SeasonTables:
    """A season's row, entrants, standings, cross-table, rounds, format summary and schedule
    (``table``: its format's standing rows, for the bracket), cached under the season's
    version: a recorded result, a claimed match or a new round makes it fresh."""
    return cached(
        f"season:{season.pk}", [read_models.season_scope(season.pk)], lambda: _season_tables(season)
    )


def _season_tables(season: Season) -> SeasonTables:
    entrants = list(
        SeasonEntrant.objects.filter(season=season)
        .select_related("version__bot")
        .order_by("number")
    )
    by_number = {
        e.number: VersionRef(
            id=e.version_id,
            label=e.version.label,
            bot=e.version.bot.name,
            number=e.version.number,
        )
        for e in entrants
    }
    entrant_refs = {ref["id"]: ref for ref in by_number.values()}

    def ref(vid: Any) -> VersionRef | None:
        """An entrant by version id, for the format's schedule and bracket."""
        return None if vid is None else entrant_refs.get(int(vid)) or _unknown(int(vid))

    season_format = formats.format_of(season)
    table = season_format.standings()
    # The format's one JSON form of a row (StandingRow.to_json), with the entrant's reference:
    # the shape StandingRow declares (the API's schema of it is checked against its answers).
    standing_rows = [
        cast(StandingRow, row.to_json(version=by_number.get(row.number))) for row in table
    ]
    scores = season_format.cross_table()
    order = [row.number for row in table]
    rounds: list[RoundRow] = []
    for r in (
        Round.objects.filter(season=season)
        .annotate(
            n_matches=Count("matches"),
            n_done=Count(
                "matches", filter=Q(matches__status__in=[Match.Status.DONE, Match.Status.VOID])
            ),
            n_running=Count("matches", filter=Q(matches__status=Match.Status.RUNNING)),
        )
        .order_by("number")
    ):
        rounds.append(
            {
                "number": r.number,
                "phase": r.phase,
                "status": r.status,
                "matches": r.n_matches,
                "done": r.n_done,
                "running": r.n_running,
            }
        )
    return {
        "table": table,
        "season": season_row(season),
        "entrants": [{"number": n, "version": ref} for n, ref in sorted(by_number.items())],
        "standings": standing_rows,
        "crosstable": None
        if scores is None
        else {
            "order": order,
            "rows": [
                {"entrant": a, "cells": [None if a == b else scores.get((a, b)) for b in order]}
                for a in order
            ],
        },
        "rounds": rounds,
        "format": season_format.summary(),
        "schedule": season_format.schedule(ref),
    }


# ---------------------------------------------------------------------------------------------
# Matches and games


def match_detail(match: Match) -> MatchRow:
    """A match with its entrants and games."""
    seats = list(match.seats.order_by("index"))
    games = list(match.games.select_related("variant", "match__season").defer("replay"))
    refs = version_refs(
        [s.version_id for s in seats] + [p for g in games for p in (g.players or [])]
    )
    row = match_row(match, seats, refs)
    row["games"] = [game_row(g, refs, match.season) for g in games]
    row["variant"] = match.play_variant().slug
    row["duration_ms"] = match.duration_ms
    row["summary"] = match.summary
    return row


def game_detail(game: Game) -> GameRow:
    """A game with everything but its replay."""
    refs = version_refs(game.players or [])
    row = game_row(game, refs)
    row["seats"] = list(game.seats or [])
    row["fault_list"] = bot_faults(game.faults)
    return row
