"""One fair-play audit of a bot: the games it read, each test's statistic, the decisions that
weigh most (docs/SECURITY.md, "Fair-play audit")."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from webui.league.models import Bot


class FairPlayAudit(models.Model):
    """An audit of a bot's recent rated games, queued, running, done or failed.

    ``tests`` holds one entry per test (``hidden``, ``partner``, ``second_game``): decisions,
    exact decisions, matches, the honest expectation's sum, the excess a decision, the e-value's
    log10 and whether (and at which game) it flagged;
    ``top`` the decisions that moved the evidence most, each with its game, cards and moves.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "queued"
        RUNNING = "running", "running"
        DONE = "done", "done"
        FAILED = "failed", "failed"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="fairplay_audits")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    requested_by = models.ForeignKey(  # staff who asked; null for the periodic audit
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    max_games = models.PositiveIntegerField(default=50)
    alpha = models.FloatField(default=0.001)
    samples = models.PositiveSmallIntegerField(default=32)
    games = models.JSONField(default=list, blank=True)  # the game ids read, newest first
    decisions = models.PositiveIntegerField(default=0)
    tests = models.JSONField(default=dict, blank=True)
    top = models.JSONField(default=list, blank=True)
    flagged = models.BooleanField(default=False)
    cpu_seconds = models.FloatField(default=0.0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["bot", "-created"], name="fairplay_bot_recent")]

    def __str__(self) -> str:
        return f"fair-play audit {self.pk} of {self.bot_id}"
