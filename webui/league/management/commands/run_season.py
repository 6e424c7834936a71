"""``manage.py run_season``: runs a season to its end on workers and prints the table."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Runs a season to its end on workers, with a progress bar, and prints the table."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_run_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.run(argparse.Namespace(**options))
        if status:
            raise CommandError("run_season failed", returncode=status)
