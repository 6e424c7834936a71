"""``manage.py standings``: prints a season's standings."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Prints a season's standings."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_standings_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.standings(argparse.Namespace(**options))
        if status:
            raise CommandError("standings failed", returncode=status)
