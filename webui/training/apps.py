"""Django application config of the version tests (``webui.training``)."""

from __future__ import annotations

from django.apps import AppConfig


class TrainingConfig(AppConfig):
    """An owner's SPRT version tests."""

    name = "webui.training"
    label = "training"
    verbose_name = "Version tests"
    default_auto_field = "django.db.models.BigAutoField"
