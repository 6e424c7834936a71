"""``manage.py load_archives``: stores in the database the archive files of older uploads."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from webui.league.bot_files import load_archive_files


class Command(BaseCommand):
    help = (
        "Stores in the database the archive files of versions uploaded before archives lived "
        "there (ARENA_ARCHIVES_DIR), so workers on any host can unpack them. Safe to run again."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = load_archive_files()
        self.stdout.write(
            f"loaded {len(report.loaded)} archive(s) into the database; "
            f"{report.present} version(s) had theirs there already"
        )
        for label in report.loaded:
            self.stdout.write(f"  loaded {label}")
        if report.missing:
            for line in report.missing:
                self.stderr.write(f"  missing {line}")
            raise CommandError(f"{len(report.missing)} version(s) have no archive file here")
