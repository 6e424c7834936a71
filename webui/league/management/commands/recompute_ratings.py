"""``manage.py recompute_ratings``: recomputes every rating from the results, in rating order."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.league import cli


class Command(BaseCommand):
    help = "Recomputes every rating from the results, in rating order."

    def add_arguments(self, parser: CommandParser) -> None:
        cli.add_recompute_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        import argparse

        status = cli.recompute(argparse.Namespace(**options))
        if status:
            raise CommandError("recompute_ratings failed", returncode=status)
