"""``manage.py list_seasons``: lists the seasons with their progress."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Lists the seasons with their progress."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_list_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.list_seasons(argparse.Namespace(**options))
        if status:
            raise CommandError("list_seasons failed", returncode=status)
