"""Forms of the site: signup, a new bot, a new version, a bot's description, a new token, a new
season. Numbers come from :mod:`webui.league.ranges`, as the API's do; the lengths of names
from their columns (:func:`webui.league.inputs.column_max`)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from arena.archives import MAX_ARCHIVE_BYTES
from arena.engine import VARIANTS
from webui.league import formats, inputs, ranges
from webui.league.formats import Option
from webui.league.models import BotVersion, Season
from webui.league.seat_limits import SEAT_LIMITS

from .models import ApiToken


def no_control_characters(value: str) -> None:
    """A name holds no control character (Django's fields already refuse NUL)."""
    problem = inputs.bad_character(value, name=True)
    if problem:
        raise forms.ValidationError(f"holds {problem}")


def _bounded(field: str, **kwargs: Any) -> forms.IntegerField:
    """An integer field with the range :mod:`webui.league.ranges` gives ``field``."""
    lo, hi = ranges.SEASON_NUMBERS[field]
    return forms.IntegerField(min_value=lo, max_value=hi, **kwargs)


def _seat_limit(name: str, label: str, help_text: str) -> forms.IntegerField:
    """An optional seat limit with the range :mod:`webui.league.seat_limits` gives it; empty
    keeps the runner's default (shown as the placeholder)."""
    from arena.runner.sandbox import Limits

    lo, hi, _, field, scale = SEAT_LIMITS[name]
    default = getattr(Limits(), field) // scale
    return forms.IntegerField(
        min_value=lo,
        max_value=hi,
        required=False,
        label=label,
        help_text=help_text,
        widget=forms.NumberInput(
            attrs={"placeholder": "" if name == "cpu_seconds" else f"default {default}"}
        ),
    )


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account: a user name and a password twice."""


def checked_username(form: AuthenticationForm) -> str:
    """A login's user name, refused (a field error) when no account could have it: longer than
    the column or holding a control character. Django's login form checks neither, and the
    failed-login records of django-axes would then get text their column cannot hold."""
    from django.contrib.auth import get_user_model

    name = str(form.cleaned_data.get("username") or "")
    most = inputs.column_max(get_user_model(), "username")
    if len(name) > most:
        raise forms.ValidationError(f"at most {most} characters, not {len(name)}", code="bad_text")
    problem = inputs.bad_character(name, name=True)
    if problem:
        raise forms.ValidationError(f"holds {problem}", code="bad_text")
    return name


class LoginForm(AuthenticationForm):
    """The site's login form: Django's, with the user name checked (:func:`checked_username`)."""

    def clean_username(self) -> str:
        return checked_username(self)


class AdminLoginForm(AdminAuthenticationForm):
    """The admin's login form, with the same check of the user name."""

    def clean_username(self) -> str:
        return checked_username(self)


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
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=ranges.DESCRIPTION_MAX
    )
    archive = ArchiveField(required=False, help_text=ARCHIVE_HELP)

    def clean_name(self) -> str:
        name = str(self.cleaned_data["name"])
        if name != name.lower():
            raise forms.ValidationError("use lowercase letters, digits and dashes only")
        return name


class VersionForm(forms.Form):
    """A new version of a bot."""

    archive = ArchiveField(help_text=ARCHIVE_HELP)
    test_then_promote = forms.BooleanField(
        required=False,
        help_text="Promote this version to the ladder by itself when a version test (SPRT) of "
        "it against the ladder version accepts H1. Without it, a new version waits for you "
        "to promote it.",
    )


class DescriptionForm(forms.Form):
    """A bot's description."""

    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=ranges.DESCRIPTION_MAX
    )


class TokenForm(forms.Form):
    """A new API token's name."""

    name = forms.CharField(
        max_length=inputs.column_max(ApiToken, "name"),
        required=False,
        strip=True,
        validators=[no_control_characters],
    )


def option_field(declared: Option) -> forms.Field:
    """The form field of a format's option: empty (or unchecked) keeps its default."""
    if declared.kind is bool:
        return forms.BooleanField(required=False, label=declared.label, help_text=declared.help)
    return forms.IntegerField(
        min_value=declared.lo,
        max_value=declared.hi,
        required=False,
        initial=declared.default,
        label=declared.label,
        help_text=declared.help,
    )


class SeasonForm(forms.Form):
    """A new season (staff)."""

    name = forms.CharField(
        max_length=inputs.column_max(Season, "name"), validators=[no_control_characters]
    )
    variant = forms.ChoiceField(choices=[], initial="scopa")
    format = forms.ChoiceField(choices=[], initial="auto", required=False)
    entrants = forms.ModelMultipleChoiceField(
        queryset=BotVersion.objects.none(),
        widget=forms.SelectMultiple(attrs={"size": 8}),
        help_text="Validated bot versions (Ctrl or Cmd to pick several); they are numbered "
        "in the order of this list.",
    )
    games_per_pairing = _bounded(
        "games_per_pairing",
        initial=2,
        label="Games per match",
        help_text="Rounded up to whole rotations: 3 at three-seat tables, 4 at partnership tables.",
    )
    move_time_ms = _bounded("move_time_ms", initial=1000, label="Time per move (ms)")
    bank_ms = _bounded(
        "bank_ms",
        initial=30_000,
        label="Time bank per game (ms)",
        help_text="At least the time per move.",
    )
    memory_mb = _seat_limit(
        "memory_mb", "Memory per seat (MiB)", "Each seat's processes and tmpfs folders together."
    )
    processes = _seat_limit("processes", "Processes per seat", "Threads count too.")
    tmp_mb = _seat_limit("tmp_mb", "Size of /tmp and /dev/shm (MiB)", "")
    cpu_seconds = _seat_limit(
        "cpu_seconds",
        "CPU time per bot process (s)",
        "Default: every game's bank, one and a half times, plus a minute.",
    )
    start = forms.BooleanField(required=False, initial=True, label="Start at once")

    def format_options(self) -> dict[str, object]:
        """The format options filled in, by name (the others keep their formats' defaults)."""
        data = self.cleaned_data
        return {name: data[name] for name in formats.every_option() if data.get(name) is not None}

    def seat_limits(self) -> dict[str, int]:
        """The seat limits filled in (the others keep the runner's defaults)."""
        data = self.cleaned_data
        return {
            name: data[name]
            for name in ("memory_mb", "processes", "tmp_mb", "cpu_seconds")
            if data.get(name) is not None
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        move, bank = data.get("move_time_ms"), data.get("bank_ms")
        if move is not None and bank is not None:
            try:
                ranges.check_bank(move, bank, "the time bank", "the time per move")
            except ranges.RangeError as exc:
                self.add_error("bank_ms", str(exc))
        return data

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The formats and their options, read from the registry.
        self.fields["format"].choices = [  # type: ignore[attr-defined]
            ("auto", "Automatic: a round-robin for two sides, tables for more"),
            *((key, cls.description or key) for key, cls in formats.FORMATS.items()),
        ]
        for name, declared in formats.every_option().items():
            self.fields[name] = option_field(declared)
        names = list(self.fields)
        at = names.index("entrants") + 1
        self.order_fields(names[:at] + list(formats.every_option()) + names[at:])
        self.fields["variant"].choices = [  # type: ignore[attr-defined]
            (name, f"{name} ({rules.players} players" + (", partners)" if rules.partners else ")"))
            for name, rules in sorted(VARIANTS.items())
        ]
        self.fields["entrants"].queryset = (  # type: ignore[attr-defined]
            BotVersion.objects.filter(status=BotVersion.Status.READY)
            .select_related("bot")
            .order_by("bot__name", "-number")
        )
        self.fields["entrants"].label_from_instance = lambda v: v.label  # type: ignore[attr-defined]
