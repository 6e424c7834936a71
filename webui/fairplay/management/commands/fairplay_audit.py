"""``manage.py fairplay_audit``: audit bots' recent rated games now, or queue the audits."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from webui.fairplay import audits
from webui.league.models import Bot


class Command(BaseCommand):
    help = (
        "Audits bots' recent rated games for play that uses hidden cards (docs/SECURITY.md): "
        "the named bots, or with --due every bot with rated games since its last audit."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("bots", nargs="*", metavar="BOT", help="bot names")
        parser.add_argument("--due", action="store_true", help="every bot due an audit")
        parser.add_argument("--games", type=int, default=None, help="recent games per bot")
        parser.add_argument(
            "--queue", action="store_true", help="send to the audit queue instead of running here"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        names: list[str] = options["bots"]
        games = options["games"]
        if games is not None and not 1 <= games <= 10_000:
            raise CommandError(f"--games must be 1..10000, not {games}")
        if not names and not options["due"]:
            raise CommandError("name one or more bots, or give --due")
        bots = list(Bot.objects.filter(name__in=names))
        missing = sorted(set(names) - {b.name for b in bots})
        if missing:
            raise CommandError(f"no bot named {', '.join(map(repr, missing))}")
        if options["due"]:
            bots += [b for b in audits.due_bots() if b not in bots]
        for bot in bots:
            audit = audits.request_audit(bot, max_games=games)
            if options["queue"]:
                self.stdout.write(f"{bot.name}: audit {audit.pk} queued")
                continue
            done = audits.run_audit(audit.pk)
            if done is None:
                self.stdout.write(f"{bot.name}: audit {audit.pk} already taken by a worker")
                continue
            verdict = "FLAGGED" if done.flagged else "not flagged"
            tests = ", ".join(
                f"{name} log10 e {t['log10_e']:+.2f} over {t['decisions']}"
                for name, t in done.tests.items()
            )
            self.stdout.write(
                f"{bot.name}: {verdict}: {len(done.games)} games, {done.decisions} decisions"
                f" ({tests or 'none audited'}), {done.cpu_seconds:.1f} s CPU"
            )
