"""``manage.py recompute_reads``: rebuilds the site's read models, reporting differences."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Rebuilds the site's read models and reports the differences it found."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_recompute_reads_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.recompute_reads(argparse.Namespace(**options))
        if status:
            raise CommandError("recompute_reads failed", returncode=status)
