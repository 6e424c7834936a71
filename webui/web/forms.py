"""Forms of the site: signup, a new bot, a new version, a bot's description, a new season."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from arena.engine import VARIANTS
from webui.league.archives import MAX_ARCHIVE_BYTES
from webui.league.models import BotVersion


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account: a user name and a password twice."""


class ArchiveField(forms.FileField):
    """A bot archive upload; the size is checked here, the contents by the archive checks."""

    def clean(self, data: Any, initial: Any = None) -> Any:
        upload = super().clean(data, initial)
        if upload is not None and upload.size > MAX_ARCHIVE_BYTES:
            raise forms.ValidationError(
                f"the archive is {upload.size:,} bytes; the limit is {MAX_ARCHIVE_BYTES:,} bytes"
            )
        return upload


ARCHIVE_HELP = (
    "A .zip or .tar.gz (at most 5 MB) with bot.toml at its top: name, version, author, "
    "command and variants."
)


class BotForm(forms.Form):
    """A new bot, and optionally its first version."""

    name = forms.SlugField(
        max_length=40,
        help_text="1 to 40 lowercase letters, digits or dashes; the name in bot.toml.",
    )
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False,
                                  max_length=2000)
    archive = ArchiveField(required=False, help_text=ARCHIVE_HELP)

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"])
        if name != name.lower():
            raise forms.ValidationError("use lowercase letters, digits and dashes only")
        return name


class VersionForm(forms.Form):
    """A new version of a bot."""

    archive = ArchiveField(help_text=ARCHIVE_HELP)


class DescriptionForm(forms.Form):
    """A bot's description."""

    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False,
                                  max_length=2000)


class SeasonForm(forms.Form):
    """A new season (staff)."""

    name = forms.CharField(max_length=100)
    variant = forms.ChoiceField(choices=[], initial="scopa",
                                help_text="Seasons pair two sides: one bot, or a partnership.")
    entrants = forms.ModelMultipleChoiceField(
        queryset=BotVersion.objects.none(),
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="Validated bot versions (Ctrl or Cmd to pick several); they are numbered "
        "for the Berger tables in the order of this list.",
    )
    games_per_pairing = forms.IntegerField(min_value=1, max_value=100, initial=2)
    double_round_robin = forms.BooleanField(required=False)
    knockout_size = forms.IntegerField(
        min_value=0, max_value=64, initial=0,
        help_text="The top N of the table play a knockout bracket; 0 for none.",
    )
    move_time_ms = forms.IntegerField(min_value=1, max_value=600_000, initial=1000,
                                      label="Time per move (ms)")
    bank_ms = forms.IntegerField(min_value=0, max_value=36_000_000, initial=30_000,
                                 label="Time bank per game (ms)")
    start = forms.BooleanField(required=False, initial=True, label="Start at once")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["variant"].choices = [  # type: ignore[attr-defined]
            (name, name) for name, rules in sorted(VARIANTS.items()) if rules.num_sides == 2
        ]
        self.fields["entrants"].queryset = (  # type: ignore[attr-defined]
            BotVersion.objects.filter(status=BotVersion.Status.READY)
            .select_related("bot")
            .order_by("bot__name", "-number")
        )
        self.fields["entrants"].label_from_instance = lambda v: v.label  # type: ignore[attr-defined]
