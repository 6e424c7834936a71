"""The site's models in Django's admin: API tokens (their keys are never shown, only hashes)."""

from __future__ import annotations

from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Tokens can be looked up and revoked here; new ones are made by their users."""

    list_display = ("name", "user", "prefix", "created", "last_used")
    list_filter = ("created",)
    search_fields = ("name", "user__username", "prefix")
    readonly_fields = ("user", "name", "prefix", "key_hash", "created", "last_used")

    def has_add_permission(self, request: object) -> bool:
        return False
