"""The shapes of what the pages and the JSON API show, declared once as typed dicts.

:mod:`webui.web.reads` returns these (mypy holds every read to its shape), and the API's
JSON Schemas are generated from them (:func:`webui.web.schema.schema_of`): a field added to a
read is in the OpenAPI document without a second, hand-written description. A shape named in
:data:`NAMED` becomes a component of the document (``#/components/schemas/<name>``) and is
referred to by name wherever another shape holds it; any other nested shape is written inline.

No ``from __future__ import annotations`` here: Python 3.11 reads ``NotRequired`` only in
annotations it evaluates.

Values the bots wrote (a forfeit's reason, a fault's detail) are stored JSON of the replay
format (docs/REPLAY.md) and typed ``Any`` here, as the schema's "any value".
"""

from typing import Any, Literal, NotRequired, TypedDict


class VersionRef(TypedDict):
    """A bot version as links show it."""

    id: int
    label: str
    bot: str
    number: int


class SeasonRef(TypedDict):
    """A season as a match or a game names it."""

    id: int
    name: str


class VariantJson(TypedDict):
    """A variant as the API shows it; ``rated`` (how many entities are rated in it) where
    variants are listed."""

    slug: str
    name: str
    label: str
    options: dict[str, Any]
    standard: bool
    players: int
    sides: int
    rated: NotRequired[int]


class VariantList(TypedDict):
    variants: list[VariantJson]


class Fault(TypedDict):
    """A bot's fault in a game (docs/REPLAY.md); ``detail`` quotes the bot."""

    deal: int
    move: int
    seat: int
    kind: str
    detail: str


class GameRow(TypedDict):
    """One game as lists show it (no replay); a game's own page adds its seats and faults."""

    id: int
    match: int
    index: int
    kind: str
    season: SeasonRef | None
    variant: str
    players: list[VersionRef]
    sides: list[str]
    totals: list[int]
    winner_side: int | None
    outcome: str
    forfeit: Any
    void: str | None
    faults: int
    fault_summary: str
    duration_ms: int
    created: str
    seats: NotRequired[list[int]]
    fault_list: NotRequired[list[Fault]]


class RatingFigures(TypedDict):
    """A rating's figures: mu, sigma, record, win rate (draws count half)."""

    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float | None
    provisional: bool


class LeaderRow(RatingFigures):
    """A leaderboard's row: a rating with its rank, and its rank a day ago."""

    rank: int
    key: str
    rating_id: int
    label: str
    versions: list[VersionRef]
    ladder: str
    rank_before: int | None
    rank_change: int | None


class Leaderboard(TypedDict):
    variant: VariantJson
    ladder: str
    ladders: dict[str, str]
    ratings: list[LeaderRow]
    recent_games: list[GameRow]


class BotListRow(TypedDict):
    name: str
    owner: str
    description: str
    versions: int


class BotList(TypedDict):
    bots: list[BotListRow]


class ValidationGame(TypedDict):
    """A validation game of a version, as stored by validation (its faults' details for the
    owner and staff only)."""

    index: int
    players: list[str]
    totals: list[int]
    winner: str | None
    forfeit: Any
    void: str | None
    answered: int
    fallbacks: int
    faults: list[dict[str, Any]]


class VersionJson(TypedDict):
    """A bot version; its log, address and ``promote_on_pass`` for its owner and staff only;
    ``created_now`` and ``warning`` on an upload's answer (False: the same archive was
    uploaded before; the warning names a version of identical code, else it is empty).
    ``code_sha256`` is the unpacked files' hash (empty for versions stored before it was
    kept)."""

    id: int
    label: str
    number: int
    sha256: str
    code_sha256: str
    status: str
    status_reason: str
    manifest: dict[str, Any]
    created: str
    validated: str | None
    validation_games: list[ValidationGame]
    validation_log: NotRequired[str]
    address: NotRequired[str]
    promote_on_pass: NotRequired[bool]
    created_now: NotRequired[bool]
    warning: NotRequired[str]


class BotJson(TypedDict):
    name: str
    owner: str
    description: str
    created: str
    versions: list[VersionJson]


class BotRating(RatingFigures):
    """A rating of one of a bot's versions, per variant and pool."""

    variant: str
    variant_label: str
    ladder: str
    version: int
    label: str
    rating_id: int


class RatingPoint(TypedDict):
    """A point of a rating's history: ``seq`` the variant's rating order, ``game`` the
    rating's own game number."""

    seq: int
    game: int
    mu: float
    sigma: float
    conservative: float


class ChartSeries(TypedDict):
    label: str
    points: list[RatingPoint]


class Chart(TypedDict):
    variant: str
    ladder: str
    label: str
    series: list[ChartSeries]


class MatchScore(TypedDict):
    wins: list[int]
    points: list[int]


class MatchRow(TypedDict):
    """A match as lists show it; a match's own page adds its games and summary."""

    id: int
    kind: str
    season: SeasonRef | None
    round: int | None
    phase: str | None
    rated: bool
    board: int
    status: str
    entrants: list[VersionRef]
    score: MatchScore | None
    winner: str | None
    games_planned: int
    finished: str | None
    error: str | None
    games: NotRequired[list[GameRow]]
    variant: NotRequired[str]
    duration_ms: NotRequired[int | None]
    summary: NotRequired[dict[str, Any]]


class HeadToHeadRow(TypedDict):
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float | None


class BotSummary(TypedDict):
    ratings: list[BotRating]
    charts: list[Chart]
    recent_matches: list[MatchRow]
    head_to_head: list[HeadToHeadRow]


class BotPage(BotSummary):
    bot: BotJson


class SeasonRow(TypedDict):
    """A season as lists show it: its settings, its seat limits and its progress."""

    id: int
    name: str
    variant: str
    variant_label: str
    status: str
    format: str
    format_options: dict[str, Any]
    knockout_size: int
    swiss_rounds: int
    games_per_pairing: int
    move_time_ms: int
    bank_ms: int
    seat_limits: dict[str, Any]
    seat_limit_overrides: dict[str, Any]
    entrants: int | None
    matches_done: int
    matches_total: int
    matches_scheduled: int
    created: str
    started: str | None
    finished: str | None


class SeasonList(TypedDict):
    seasons: list[SeasonRow]


class EntrantRow(TypedDict):
    number: int
    version: VersionRef


class StandingRow(TypedDict):
    """A row of a season's standings (its format's tie-breaks; ``places`` for table formats)."""

    rank: int
    entrant: int
    version: VersionRef | None
    played: int
    wins: int
    draws: int
    losses: int
    score: float
    head_to_head: float
    sonneborn_berger: float
    points_for: int
    points_against: int
    buchholz: float
    byes: int
    places: list[int]


class CrossRow(TypedDict):
    entrant: int
    cells: list[float | None]


class CrossTable(TypedDict):
    order: list[int]
    rows: list[CrossRow]


class RoundRow(TypedDict):
    number: int
    phase: str
    status: str
    matches: int
    done: int
    running: int


class SeasonTables(TypedDict):
    """A season's cached tables (``table``: its format's standing objects, for the bracket;
    never sent)."""

    table: list[Any]
    season: SeasonRow
    entrants: list[EntrantRow]
    standings: list[StandingRow]
    crosstable: CrossTable | None
    rounds: list[RoundRow]
    format: dict[str, Any]
    schedule: list[dict[str, Any]] | None


class SeasonPage(TypedDict):
    """A season's page: :class:`SeasonTables` but its ``table``, with its matches and its
    knockout bracket (the format's, :mod:`webui.league.formats`)."""

    season: SeasonRow
    entrants: list[EntrantRow]
    standings: list[StandingRow]
    crosstable: CrossTable | None
    rounds: list[RoundRow]
    format: dict[str, Any]
    schedule: list[dict[str, Any]] | None
    matches: list[MatchRow]
    bracket: list[dict[str, Any]] | None


class HomeOverview(TypedDict):
    variants: list[VariantJson]
    running: list[SeasonRow]
    finished: list[SeasonRow]
    games: list[GameRow]


class GameList(TypedDict):
    games: list[GameRow]
    next: str | None
    prev: str | None
    limit: int


GameResult = Literal["win", "loss", "draw", "forfeit", "void"]
"""How a game went for a bot (a draw is no winner; a loss with a forfeit is ``forfeit``)."""


class BotGameRow(GameRow):
    """A game in a bot's list, with how it went for that bot."""

    result: GameResult


class LiveMoveRow(TypedDict):
    """A move of the game being played, in words and as the replay records it."""

    deal: int
    move: int
    seat: int
    text: str
    card: str
    capture: list[str]
    scopa: bool
    auto: str | None
    ms: Any
    clock: Any


class PublicTable(TypedDict):
    """The table after the latest move, as every seat sees it (no hand's cards)."""

    table: Any
    hands: Any
    captured: Any
    scope: Any
    stock: Any
    dealer: Any
    to_move: Any


class LiveGame(TypedDict):
    """The game being played in a match: its deal, its totals and the moves so far."""

    game: int
    deal: int
    players: list[str]
    totals: list[int]
    moves: list[LiveMoveRow]
    table: PublicTable | None
    updated: str


class Progress(TypedDict):
    """How far a match is: games done of planned, and the game being played."""

    status: str
    finished: bool
    games_planned: int
    games_done: int
    current: LiveGame | None


class FinishedLiveGame(TypedDict):
    """A game of the match being played that has finished, listed before it is recorded."""

    index: int
    players: list[str]  # by seat
    sides: list[str]
    totals: list[int]
    winner_side: int | None
    outcome: str
    void: bool
    forfeit: bool
    faults: int


class MatchLive(Progress):
    match: int
    # While the match is played: its finished games (recorded with the match at its end) and
    # the games each entrant won so far; once it is over the recorded games take over.
    games: list[FinishedLiveGame]
    wins: list[int] | None


class PlayingMatch(Progress):
    match: int
    round: int | None
    entrants: list[str]


class SeasonLive(TypedDict):
    """A season's progress: matches done of planned, and the matches being played now."""

    season: int
    status: str
    matches_done: int
    matches_planned: int
    matches_scheduled: int
    playing: list[PlayingMatch]


class TvLive(TypedDict):
    """The game featured live (the home page, ``/tv/``): a match being played, or none."""

    match: int | None
    kind: str | None  # season, ladder or challenge
    variant: str | None  # its label
    season: str | None  # the season's name, for a season's match
    entrants: list[str]
    playing: int  # how many matches are being played now
    live: MatchLive | None


NAMED: dict[str, type] = {
    "VersionRef": VersionRef,
    "Variant": VariantJson,
    "VariantList": VariantList,
    "Game": GameRow,
    "Fault": Fault,
    "LeaderRow": LeaderRow,
    "Leaderboard": Leaderboard,
    "BotList": BotList,
    "ValidationGame": ValidationGame,
    "Version": VersionJson,
    "Bot": BotJson,
    "RatingPoint": RatingPoint,
    "BotPage": BotPage,
    "Match": MatchRow,
    "Season": SeasonRow,
    "SeasonList": SeasonList,
    "GameList": GameList,
    "LiveGame": LiveGame,
    "FinishedLiveGame": FinishedLiveGame,
    "MatchLive": MatchLive,
    "SeasonLive": SeasonLive,
    "TvLive": TvLive,
}
"""The shapes that are components of the OpenAPI document, by their names there."""
