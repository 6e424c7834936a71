"""Django admin for the league: staff browse everything, and manage bots, variants and seasons."""

# Django's admin classes are not generic at run time, so they take no type arguments here.
# mypy: disable-error-code="type-arg"

from __future__ import annotations

from django.contrib import admin

from . import models


class VersionInline(admin.TabularInline):
    model = models.BotVersion
    fields = ("number", "sha256", "status", "status_reason", "created")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(models.Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "created")
    search_fields = ("name", "owner__username")
    inlines = [VersionInline]


@admin.register(models.BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "sha256", "created")
    list_filter = ("status",)
    search_fields = ("bot__name", "sha256")
    # Versions are immutable: only their validation state is written, by the workers.
    readonly_fields = (
        "bot",
        "number",
        "sha256",
        "manifest",
        "archive_path",
        "source_dir",
        "address",
        "status",
        "status_reason",
        "validation_log",
        "validated",
        "created",
    )


@admin.register(models.BotArchive)
class BotArchiveAdmin(admin.ModelAdmin):
    list_display = ("sha256", "kind", "size", "created")
    search_fields = ("sha256",)
    # Archives are content-addressed: what is stored is what was uploaded. The bytes stay out
    # of the page.
    fields = readonly_fields = ("sha256", "kind", "size", "created")

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False


@admin.register(models.Variant)
class VariantAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "label", "standard", "players")


class EntrantInline(admin.TabularInline):
    model = models.SeasonEntrant
    extra = 0


@admin.register(models.Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "variant", "format", "status", "created")
    list_filter = ("status", "format", "variant")
    inlines = [EntrantInline]
    actions = ["start_seasons"]

    @admin.action(description="Start the selected draft seasons")
    def start_seasons(self, request, queryset):  # type: ignore[no-untyped-def]
        from . import seasons

        started = 0
        for season in queryset.filter(status=models.Season.Status.DRAFT):
            seasons.start_season(season)
            started += 1
        self.message_user(request, f"{started} season(s) started")


@admin.register(models.Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("__str__", "kind", "pairing", "status", "attempts", "claimed_by", "finished")
    list_filter = ("kind", "status", "season")
    readonly_fields = ("claim_token", "claimed_by", "claimed_at", "lease_until")


@admin.register(models.Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("__str__", "winner_side", "void", "duration_ms", "rating_seq")
    list_filter = ("variant",)
    raw_id_fields = ("match",)


@admin.register(models.Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("key", "variant", "pool", "mu", "sigma", "conservative", "games")
    list_filter = ("variant", "pool")


@admin.register(models.LadderEntry)
class LadderEntryAdmin(admin.ModelAdmin):
    list_display = ("bot", "version", "status", "updated")
    list_filter = ("status",)
    search_fields = ("bot__name",)
    raw_id_fields = ("bot", "version")
