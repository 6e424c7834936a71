"""``manage.py create_season``: creates a season: entrants, variant, format, time control."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Creates a season: entrants, variant, format, time control."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_create_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.create(argparse.Namespace(**options))
        if status:
            raise CommandError("create_season failed", returncode=status)
