"""The league's data: bots and their versions, variants, seasons, rounds, matches, games, ratings.

These models hold state and answer questions about it; the changes that must happen together
live in the league's modules by capability (:mod:`~webui.league.versions`,
:mod:`~webui.league.seasons`, :mod:`~webui.league.matches`, :mod:`~webui.league.ratings`,
:mod:`~webui.league.ladder`, :mod:`~webui.league.challenges`), which import these models and
nothing imports back. Nothing here plays a game.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from arena.engine import side_of_seat


class Bot(models.Model):
    """A bot, owned by one user; its code lives in its versions."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots"
    )
    name = models.SlugField(max_length=40, unique=True)
    description = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def latest_version(self) -> BotVersion | None:
        """The newest version of this bot, whatever its status."""
        return self.versions.order_by("-number").first()

    def latest_ready_version(self) -> BotVersion | None:
        """The newest version that passed validation (may enter seasons)."""
        return self.versions.filter(status=BotVersion.Status.READY).order_by("-number").first()


class BotArchive(models.Model):
    """The bytes of an uploaded bot archive, content-addressed by their sha256.

    The source of truth for uploaded versions: a worker on any host unpacks its own copy of a
    version's folder from here (:mod:`webui.league.bot_files`). Written once, with the version
    that first brings it; the same archive is never stored twice.
    """

    class Kind(models.TextChoices):
        ZIP = "zip", "zip"
        TAR_GZ = "tar.gz", "tar.gz"

    sha256 = models.CharField(max_length=64, primary_key=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    data = models.BinaryField()
    size = models.PositiveIntegerField()  # bytes, as uploaded
    created = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.sha256[:12]}.{self.kind}"


class BotVersion(models.Model):
    """One immutable version of a bot, content-addressed by the sha256 of its archive.

    ``source_dir`` is the unpacked bot folder (relative to ``ARENA_DATA_DIR`` or absolute);
    an uploaded version's archive is the :class:`BotArchive` of the same ``sha256`` (a sample
    bot's ``sha256`` is its folder's content hash, and it has no archive). ``archive_path`` is
    where versions uploaded before archives moved into the database kept theirs (``manage.py
    load_archives`` reads it). ``address`` (``grpc://host:port``) is set instead for a bot its
    author runs himself.
    """

    class Status(models.TextChoices):
        VALIDATING = "validating", "validating"
        READY = "ready", "ready"
        FAILED = "failed", "failed"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()  # 1, 2, 3 ... per bot
    sha256 = models.CharField(max_length=64)
    code_sha256 = models.CharField(max_length=64, blank=True)  # the unpacked files' hash
    promote_on_pass = models.BooleanField(default=False)
    manifest = models.JSONField(default=dict)  # bot.toml as parsed
    archive_path = models.CharField(max_length=500, blank=True)
    source_dir = models.CharField(max_length=500, blank=True)
    address = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.VALIDATING)
    status_reason = models.TextField(blank=True)  # why validation failed, one line
    validation_log = models.TextField(blank=True)  # the bot's own log of its validation game
    validation_replay = models.JSONField(null=True, blank=True)
    # Each validation game: players, score, winner, the version's moves and fallbacks, faults.
    validation_games = models.JSONField(default=list, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    validated = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot__name", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.UniqueConstraint(fields=["bot", "sha256"], name="botversion_unique_sha256"),
        ]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        """The name players see in replays: ``greedy@3``."""
        return f"{self.bot.name}@{self.number}"

    @property
    def is_ready(self) -> bool:
        """Whether this version passed validation and may enter seasons."""
        return self.status == self.Status.READY

    def bot_ref_text(self) -> str:
        """This version's address, or its folder as registered (relative ones on this host).

        Workers ask :func:`webui.league.bot_files.bot_ref_text`, which unpacks a folder this
        host lacks from the database.
        """
        if self.address:
            return self.address
        from pathlib import Path

        path = Path(self.source_dir)
        if not path.is_absolute():
            path = Path(settings.ARENA_DATA_DIR) / path
        return str(path)


class Variant(models.Model):
    """A RULES.md preset plus option overrides: what a season and a leaderboard are about."""

    slug = models.SlugField(max_length=120, unique=True)  # "scopa", "scopa--target-21"
    name = models.CharField(max_length=40)  # the RULES.md preset
    options = models.JSONField(default=dict)  # overrides, as rules.options()
    label = models.CharField(max_length=500)  # "scopa (napoli=True, target=21)"
    standard = models.BooleanField(default=True)  # no overrides
    players = models.PositiveSmallIntegerField(default=2)
    sides = models.PositiveSmallIntegerField(default=2)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "slug"]

    def __str__(self) -> str:
        return self.label


FORMAT_CHOICES: list[Callable[[], list[tuple[str, str]]]] = []
"""Where ``Season.format``'s choices come from: the format registry's
:func:`~webui.league.formats.format_choices`, connected when the app is ready
(:meth:`webui.league.apps.LeagueConfig.ready`; the formats import these models, not the other
way round)."""


def season_formats() -> list[tuple[str, str]]:
    """``Season.format``'s choices: every format's stored names and labels, read from the
    registry when asked, so no migration lists them."""
    return [choice for source in FORMAT_CHOICES for choice in source()]


class Season(models.Model):
    """A league: entrants of one variant, played in one format.

    Formats (the pure schedules are in :mod:`arena.scheduling`, the league's side of them, one
    class each, in :mod:`webui.league.formats`): a round-robin of two sides with an optional
    knockout for the top N; a Swiss of a number of rounds; three-seat (or larger) tables for
    variants of more than two sides; rotating partnerships (whist tournaments) for four-player
    partnership variants. ``format_options`` holds what the format was asked for beyond its
    name (its options dataclass as JSON: ``{"knockout_size": 4, "double_round_robin":
    false}``, ``{"rounds": 5}``).
    """

    class Status(models.TextChoices):
        DRAFT = "draft", "draft"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"

    name = models.CharField(max_length=100, unique=True)
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="seasons")
    entrants = models.ManyToManyField(BotVersion, through="SeasonEntrant", related_name="seasons")
    format = models.CharField(max_length=24, choices=season_formats, default="round-robin")
    format_options = models.JSONField(default=dict, blank=True)
    games_per_pairing = models.PositiveSmallIntegerField(default=2)  # a duplicate set
    move_time_ms = models.PositiveIntegerField(default=1000)
    bank_ms = models.PositiveIntegerField(default=30_000)
    seed = models.BigIntegerField(default=0)
    # Overrides of the runner's seat limits, in MiB and seconds (webui.league.seat_limits).
    seat_limits = models.JSONField(default=dict, blank=True, db_column="limits")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return self.name

    def entrant_versions(self) -> list[BotVersion]:
        """The entrants in their number order (Berger numbers 1..n)."""
        return [
            e.version
            for e in self.season_entrants.select_related("version__bot").order_by("number")
        ]

    def progress(self) -> tuple[int, int]:
        """(matches done or void, matches scheduled so far)."""
        matches = Match.objects.filter(round__season=self)
        total = matches.count()
        done = matches.filter(status__in=[Match.Status.DONE, Match.Status.VOID]).count()
        return done, total


class SeasonEntrant(models.Model):
    """A bot version entered in a season, with its number in the schedule (1..n)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="season_entrants")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="entrant_unique_number"),
            models.UniqueConstraint(fields=["season", "version"], name="entrant_unique_version"),
        ]


class Round(models.Model):
    """One round of a season: league rounds of its format, then knockout rounds.

    ``plan`` is the round as scheduled, JSON, its entries bot version ids: for a round-robin
    round ``{"pairings": [[a, b], ...], "bye": v|null}``; for a knockout round ``{"slots":
    [[a, b|null], ...], "seeds": [...]}``, slots in bracket order (``null`` is a bye; ``a``
    advances) and the qualifiers in seed order (league rank); for a Swiss round the pairings
    and bye as in a round-robin, plus ``"scores"`` (each entrant's score when the round was
    paired, by version id) and ``"rematches"``; for tables and rotating partnerships
    ``{"tables": [[a, b, c(, d)], ...], "sitting_out": [v, ...]}`` (a partnership table is
    ``a`` and ``c`` against ``b`` and ``d``).
    """

    class Phase(models.TextChoices):
        LEAGUE = "league", "league"
        KNOCKOUT = "knockout", "knockout"

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        DONE = "done", "done"

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()  # 1.. across both phases
    phase = models.CharField(max_length=10, choices=Phase.choices, default=Phase.LEAGUE)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    plan = models.JSONField(default=dict)
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["season", "number"]
        constraints = [
            models.UniqueConstraint(fields=["season", "number"], name="round_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.season.name} round {self.number}"


class Match(models.Model):
    """A pairing played as one duplicate set of games by one worker.

    ``kind`` says where it comes from: a season's round (``season`` and ``round`` set), the
    continuous ladder, or a challenge (neither set; ``variant``, ``move_time_ms`` and
    ``bank_ms`` say how it is played, ``requested_by`` who asked for a challenge). Only
    ``rated`` matches move ratings: season matches on the season ladders, ladder matches and
    rated challenges on the continuous ladder (:mod:`webui.league.ladder`). ``priority``
    orders the open non-season matches: challenges (1) before ladder matches (0).

    A worker claims it with a conditional update (``scheduled``, or ``running`` with an expired
    lease, to ``running`` with a fresh ``claim_token``) and keeps the lease alive while it
    plays; the result is recorded only by the holder of the current token, once.
    """

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "scheduled"
        RUNNING = "running", "running"
        DONE = "done", "done"
        VOID = "void", "void"

    class Kind(models.TextChoices):
        SEASON = "season", "season"
        LADDER = "ladder", "ladder"
        CHALLENGE = "challenge", "challenge"

    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SEASON)
    round = models.ForeignKey(
        Round, null=True, blank=True, on_delete=models.CASCADE, related_name="matches"
    )
    # Indexed by match_season_list (season first), not on its own: a season's matches are
    # read in that index's order.
    season = models.ForeignKey(
        Season,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="matches",
        db_index=False,
    )
    variant = models.ForeignKey(  # set for every match outside a season
        Variant, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    rated = models.BooleanField(default=True)
    priority = models.PositiveSmallIntegerField(default=0)
    move_time_ms = models.PositiveIntegerField(null=True, blank=True)  # outside a season
    bank_ms = models.PositiveIntegerField(null=True, blank=True)  # outside a season
    requested_by = models.ForeignKey(  # who asked for a challenge
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="challenges",
    )
    created = models.DateTimeField(default=timezone.now)
    pairing = models.CharField(max_length=64)  # "3-1": entrant numbers, first seat first
    board = models.PositiveSmallIntegerField(default=0)  # order within the round / bracket slot
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SCHEDULED)
    seed = models.BigIntegerField(default=0)
    games_planned = models.PositiveSmallIntegerField(default=2)
    claim_token = models.CharField(max_length=36, blank=True)
    claimed_by = models.CharField(max_length=200, blank=True)  # host:pid of the worker
    claimed_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    winner = models.ForeignKey(  # the match winner (knockout), null for a drawn league match
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    summary = models.JSONField(default=dict, blank=True)  # per entrant index: wins, points...
    error = models.TextField(blank=True)  # the last infrastructure error, or why it is void

    class Meta:
        ordering = ["round__number", "board"]
        constraints = [
            models.UniqueConstraint(fields=["round", "pairing"], name="match_unique_pairing"),
        ]
        indexes = [
            models.Index(fields=["status", "lease_until"], name="match_status_lease"),
            models.Index(fields=["kind", "status"], name="match_kind_status"),
            # A season's matches in its list's order (webui.web.match_lists).
            models.Index(fields=["season", "-round", "board", "id"], name="match_season_list"),
        ]

    def __str__(self) -> str:
        if self.round_id is None:
            return f"{self.kind} match {self.pk}"
        return f"{self.round} board {self.board + 1}"

    def play_variant(self) -> Variant:
        """The variant the match is played in: its season's, or its own."""
        if self.season_id is not None:
            return self.season.variant  # type: ignore[union-attr]
        assert self.variant is not None, f"match {self.pk} has neither season nor variant"
        return self.variant

    def clocks(self) -> tuple[int, int]:
        """(move time, bank) in milliseconds: its season's, or its own."""
        if self.season_id is not None:
            season = self.season
            assert season is not None
            return season.move_time_ms, season.bank_ms
        return int(self.move_time_ms or 1000), int(self.bank_ms or 30_000)

    @property
    def is_finished(self) -> bool:
        """Whether the result is in (done) or the match was given up (void)."""
        return self.status in {self.Status.DONE, self.Status.VOID}

    def entrants(self) -> list[BotVersion]:
        """The bot versions in entrant order (as given to the runner)."""
        return [s.version for s in self.seats.select_related("version__bot").order_by("index")]


class MatchSeat(models.Model):
    """One entrant of a match: its index in the runner's entrant list, version and first side.

    ``side`` is the side the entrant takes in the match's first game; the duplicate set swaps
    seats, so each game's own seating is in :attr:`Game.seats`.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="match_seats")
    side = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="matchseat_unique_index"),
        ]
        # A bot's (version's) seats in match order: its game list from a cursor on
        # (webui.web.game_lists).
        indexes = [models.Index(fields=["version", "match"], name="matchseat_version_match")]


class Game(models.Model):
    """One played game of a match: its replay (REPLAY.md) and its result.

    ``seats`` lists the entrant index of each seat and ``players`` the bot version id of each
    seat; ``winner_side`` is null for a draw or a void game; ``rating_seq`` is the game's place
    in its variant's rating order, set once by the rating writer.
    """

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    index = models.PositiveSmallIntegerField()
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="games")
    replay = models.JSONField()
    seats = models.JSONField(default=list)
    players = models.JSONField(default=list)
    totals = models.JSONField(default=list)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    winner_entrant = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit = models.JSONField(null=True, blank=True)  # {"side": s, "reason": "..."}
    void = models.TextField(blank=True)  # why the arena failed this game; counts for nobody
    faults = models.JSONField(default=list)
    duration_ms = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    rating_seq = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["match", "index"]
        constraints = [
            models.UniqueConstraint(fields=["match", "index"], name="game_unique_index"),
            models.UniqueConstraint(
                fields=["variant", "rating_seq"],
                condition=Q(rating_seq__isnull=False),
                name="game_unique_rating_seq",
            ),
        ]
        indexes = [
            models.Index(fields=["variant", "rating_seq"], name="game_variant_seq"),
            models.Index(fields=["-created"], name="game_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.match} game {self.index + 1}"

    @property
    def is_void(self) -> bool:
        """Whether the arena failed this game (it counts for nobody)."""
        return bool(self.void)

    @property
    def is_draw(self) -> bool:
        """Whether the game ended without a winner (and was not void)."""
        return not self.void and self.winner_side is None

    def places(self, sides: int) -> tuple[int, ...] | None:
        """Each side's place in this game (0 first; ties share), None when void: the engine's
        winner first, a forfeiting side last, the others by their points
        (:func:`arena.scheduling.placement.places_of`)."""
        from arena.scheduling.placement import places_of

        totals = tuple(int(t) for t in self.totals) if self.totals else ()
        forfeit = self.forfeit.get("side") if isinstance(self.forfeit, dict) else None
        return places_of(
            sides,
            totals or (0,) * sides,
            self.winner_side,
            int(forfeit) if forfeit is not None else None,
            bool(self.void),
        )

    def side_versions(self) -> list[list[int]]:
        """The bot version ids of each side, e.g. ``[[3, 3], [5, 5]]`` in a partnership game."""
        sides = int(self.variant.sides)
        players: list[int] = list(self.players)
        out: list[list[int]] = [[] for _ in range(sides)]
        for seat, version_id in enumerate(players):
            out[side_of_seat(seat, sides)].append(version_id)
        return out


class GameLog(models.Model):
    """What one bot process wrote during one game (its stderr and stdout), with where each of
    its turns starts: its owner's and staff's only, never part of the replay.

    A table of its own, so that reading a game never reads its logs. ``seat`` is the first
    seat the process played (``seats`` every one: a bot in two seats of a game has one
    process); ``turns`` holds ``[deal, move of the deal, seat, offset in text]`` per turn,
    ``cut`` the characters left out over the runner's cap (its note ends the text).
    """

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="logs")
    seat = models.PositiveSmallIntegerField()
    seats = models.JSONField(default=list)
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="game_logs")
    text = models.TextField(blank=True)
    turns = models.JSONField(default=list)
    cut = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="gamelog_unique_seat"),
        ]

    def __str__(self) -> str:
        return f"{self.game} seat {self.seat} log"


class Rating(models.Model):
    """The TrueSkill rating of one bot version in a variant, in one of its rating pools.

    ``key`` is ``v:<version id>`` in the ``solo`` pool (the version played every seat of its
    side) and ``p:<version id>`` in the ``partners`` pool (rated as one of two different
    partners of a side, from team updates), both from season games; ``l:<version id>`` in the
    pool of the continuous ``ladder`` (ladder matches and rated challenges); see
    :mod:`arena.rating`. (The pool's column is named ``ladder``, as the API's parameter is.)
    """

    class Pool(models.TextChoices):
        SOLO = "solo", "each side one bot"
        PARTNERS = "partners", "rotating partnerships"
        LADDER = "ladder", "the continuous ladder"

    variant = models.ForeignKey(Variant, on_delete=models.CASCADE, related_name="ratings")
    key = models.CharField(max_length=64)
    pool = models.CharField(
        max_length=10, choices=Pool.choices, default=Pool.SOLO, db_column="ladder"
    )
    version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField(db_index=True)  # mu - 3 sigma
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["variant", "-conservative"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "key"], name="rating_unique_key"),
        ]
        indexes = [
            models.Index(fields=["variant", "-conservative"], name="rating_leaderboard"),
            models.Index(fields=["variant", "pool", "-conservative"], name="rating_ladder_board"),
        ]

    def __str__(self) -> str:
        return f"{self.key} in {self.variant.slug}: {self.mu:.2f} ± {self.sigma:.2f}"

    @property
    def provisional(self) -> bool:
        """Too few games or too wide a sigma to trust the rank yet."""
        from arena.rating import is_provisional

        return is_provisional(self.games, self.sigma)

    @property
    def win_rate(self) -> float | None:
        """Wins per game played (draws count half), or None before any game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else None

    def label(self) -> str:
        """``greedy@3``."""
        return self.version.label


class RatingHistory(models.Model):
    """A rating right after one game: the chart of a bot's rating, in rating order."""

    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="history")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_events")
    seq = models.PositiveBigIntegerField()  # the game's rating_seq
    mu = models.FloatField()
    sigma = models.FloatField()
    conservative = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["rating", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["rating", "game"], name="history_unique_game"),
        ]
        indexes = [models.Index(fields=["rating", "seq"], name="history_rating_seq")]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready point of a rating chart."""
        return {
            "seq": self.seq,
            "game": self.game_id,
            "mu": self.mu,
            "sigma": self.sigma,
            "conservative": self.conservative,
            "at": self.created.isoformat(),
        }


class LadderEntry(models.Model):
    """A bot on the continuous ladder: which of its versions plays, and whether it plays.

    A bot's first version to pass validation enters at once; a later one is a candidate until
    its owner promotes it (or a version test it was uploaded for accepts H1): the owner may
    choose another ready version, pause the bot (no new matches) or retire it (for good: no
    matches, no challenges). Its games and ratings stay whatever the status.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", "active"
        PAUSED = "paused", "paused"
        RETIRED = "retired", "retired"

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="ladder_entry")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot__name"]

    def __str__(self) -> str:
        return f"{self.version.label} ({self.status})"

    @property
    def is_active(self) -> bool:
        """Whether the ladder schedules matches for it."""
        return self.status == self.Status.ACTIVE


class ReadVersion(models.Model):
    """The version of one scope of what the site shows (a leaderboard, a bot, a season, the
    home page), bumped in the transaction of every write that changes it.

    The site's shared cache keys each read by the versions of exactly the scopes it shows
    (:mod:`webui.league.read_models`), so a committed write makes the next read fresh and
    leaves every other scope's cached reads alone. A new scope starts at a random number, so
    a database made afresh (or restored) never meets a cached read of another one's numbers.
    """

    scope = models.CharField(max_length=64, primary_key=True)  # "bot:12", "board:3:ladder"
    number = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.scope}={self.number}"


class HeadToHead(models.Model):
    """A bot's record against one opponent bot: games, wins, draws, losses (a read model).

    Added to in :func:`webui.league.matches.record_result`'s transaction from the games it
    records, so the bot page reads a row per opponent however many games were played;
    :func:`webui.league.read_models.recompute_reads` rebuilds it from the games.
    """

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="head_to_head")
    opponent = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="+")
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bot", "opponent"], name="headtohead_unique_pair"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_id} v {self.opponent_id}: {self.wins}-{self.draws}-{self.losses}"
