"""The Play page's games in the Django admin (read mostly: a game is the worker's to change)."""

# mypy: disable-error-code="type-arg"

from __future__ import annotations

from django.contrib import admin

from webui.play.models import PlayGame, PlayMove


@admin.register(PlayGame)
class PlayGameAdmin(admin.ModelAdmin):
    """A person's games against bots."""

    list_display = ("id", "user", "version", "variant", "status", "winner_side", "created")
    list_filter = ("status", "variant")
    raw_id_fields = ("user", "version")
    readonly_fields = ("replay", "view", "legal", "turn", "awaiting", "deadline")


@admin.register(PlayMove)
class PlayMoveAdmin(admin.ModelAdmin):
    """The moves people sent, one per turn."""

    list_display = ("game", "turn", "move", "created")
    raw_id_fields = ("game",)
