"""A game between a person and a bot (:class:`PlayGame`), and the moves the person sends.

The row is the meeting point of the page and the worker: the worker publishes the person's
view of the table in it (``view``, ``turn``, ``legal``, ``deadline``) and the page claims a
turn with one conditional update and records its move as a :class:`PlayMove`, which the worker
reads. Only the person's own hand and what every seat sees are ever written here before the
game ends; the replay (with the deck and the bot's hand) is stored once it is over.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from webui.league.models import BotVersion, Variant


class PlayGame(models.Model):
    """One game of a person against a bot version, played by a worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", "waiting for a worker"
        PLAYING = "playing", "playing"
        OVER = "over", "over"
        VOID = "void", "void"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="play_games"
    )
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="+")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="+")
    human_seat = models.PositiveSmallIntegerField(default=0)
    move_time_ms = models.PositiveIntegerField()
    bank_ms = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # The person's turn: its number (from 1), whether it is still to be played, its legal moves
    # (REPLAY.md move names, "7d:3b+4d") and when its clock runs out.
    turn = models.PositiveIntegerField(default=0)
    awaiting = models.BooleanField(default=False)
    legal = models.JSONField(default=list, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    view = models.JSONField(default=dict, blank=True)  # what the person's seat sees
    replay = models.JSONField(null=True, blank=True)  # REPLAY.md, once the game is over
    totals = models.JSONField(default=list, blank=True)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    forfeit = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)  # why the game is void
    # Liveness, for the sweep and the worker: when the game was last sent to the queue, when
    # the page last checked in (its heartbeat), when the worker playing it last did, and
    # whether the person asked to resign.
    enqueued_at = models.DateTimeField(null=True, blank=True)
    seen = models.DateTimeField(null=True, blank=True)
    worker_seen = models.DateTimeField(null=True, blank=True)
    resign_requested = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created"]
        indexes = [
            models.Index(fields=["user", "-created"], name="playgame_user_recent"),
            models.Index(
                fields=["status"],
                name="playgame_open",
                condition=models.Q(status__in=["queued", "playing"]),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} v {self.version.label} ({self.variant.label})"

    OPEN = (Status.QUEUED, Status.PLAYING)
    """The statuses of a game that is not over: it counts against its person's limit."""

    @property
    def is_finished(self) -> bool:
        """Whether the game is over or void (nothing more can be played)."""
        return self.status in {self.Status.OVER, self.Status.VOID}

    @property
    def bot_seat(self) -> int:
        """The bot's seat (two-player variants only)."""
        return 1 - self.human_seat

    def outcome(self) -> str:
        """``you won``, ``you lost``, ``a draw`` or the status, from the person's side."""
        if self.status == self.Status.VOID:
            return "void"
        if self.status != self.Status.OVER:
            return str(self.get_status_display())
        if self.winner_side is None:
            return "a draw"
        return "you won" if self.winner_side == self.human_seat else "you lost"


class PlayMove(models.Model):
    """The move the person chose at one turn: at most one per turn, written by the page."""

    game = models.ForeignKey(PlayGame, on_delete=models.CASCADE, related_name="moves")
    turn = models.PositiveIntegerField()
    move = models.CharField(max_length=64)  # REPLAY.md move name, one of the turn's legal moves
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "turn"]
        constraints = [
            models.UniqueConstraint(fields=["game", "turn"], name="playmove_unique_turn"),
        ]

    def __str__(self) -> str:
        return f"turn {self.turn}: {self.move}"
