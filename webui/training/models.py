"""The data of version tests: an :class:`SprtTest` and the duplicate pairs it played.

Kept apart from the league's tables (a test is unrated and moves no rating): the league's
matches, games and ratings know nothing of them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from webui.league.models import Bot, BotVersion, Variant


class SprtTest(models.Model):
    """A new version of a bot against its ladder version, pair by pair, until the SPRT of
    :mod:`arena.sprt` decides (``h1``: the new one is stronger by ``elo1``, ``h0``: not by
    ``elo0``) or ``max_pairs`` are played (``undecided``).

    ``counts`` is the pentanomial (pairs that scored 0, 0.5, 1, 1.5, 2 for the new version),
    ``history`` the LLR after each counted pair; ``pairs_started`` hands out pair numbers to
    the workers (a conditional update each), so a pair is played and counted once.
    """

    class Status(models.TextChoices):
        RUNNING = "running", "running"
        H1 = "h1", "H1 accepted"
        H0 = "h0", "H0 accepted"
        UNDECIDED = "undecided", "undecided"
        STOPPED = "stopped", "stopped"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="sprt_tests")
    new_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    old_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    variant = models.ForeignKey(Variant, on_delete=models.PROTECT, related_name="+")
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=10.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_pairs = models.PositiveIntegerField(default=500)
    seed = models.BigIntegerField(default=0)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    pairs_started = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=list)
    void_pairs = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0)
    history = models.JSONField(default=list)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)
    promoted = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["status"], name="sprt_test_status")]

    def __str__(self) -> str:
        return f"SPRT {self.new_version.label} vs {self.old_version.label}"

    @property
    def pairs(self) -> int:
        """Pairs counted (void ones left out)."""
        return sum(self.counts or [])


class SprtPair(models.Model):
    """One duplicate pair of a test: the new version's score in each game (None: void)."""

    test = models.ForeignKey(SprtTest, on_delete=models.CASCADE, related_name="pair_rows")
    index = models.PositiveIntegerField()
    scores = models.JSONField(default=list)
    outcome = models.PositiveSmallIntegerField(null=True, blank=True)  # 0..4, None: void
    replays = models.JSONField(default=list)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["test", "index"]
        constraints = [
            models.UniqueConstraint(fields=["test", "index"], name="sprt_pair_unique_index")
        ]
