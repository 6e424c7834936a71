"""Plays one game of the Play page as ``arena demo`` runs it: SQLite, the embedded broker and
a local Play worker process (run by ``test_embedded.py`` in a fresh environment). The person's side
always plays its last legal move through :func:`webui.play.games.submit_move`; prints the
game's end as JSON."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")


def main() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from play_helpers import descendants

    from webui.league import versions
    from webui.local_workers import LocalWorkers
    from webui.play import games
    from webui.play.models import PlayGame

    assert settings.ARENA_EMBEDDED_BROKER and "sqlite" in settings.DATABASES["default"]["ENGINE"]
    call_command("migrate", verbosity=0)
    owner = User.objects.create_user("owner")
    versions.register_folder_bot(owner, ROOT / "sample_bots" / "random", validate=False)
    person = User.objects.create_user("ada")
    game = games.start_game(person, "random", "scopa", "second")
    moves = 0
    with LocalWorkers(1, concurrency=None, play=True, log_dir=settings.ARENA_LOGS_DIR) as pool:
        worker_pid = pool.processes[0].pid
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            game.refresh_from_db()
            if game.is_finished:
                break
            if game.awaiting:
                games.submit_move(game.pk, person, game.turn, game.legal[-1])
                moves += 1
            time.sleep(0.05)
        left = [
            pid
            for pid in descendants(worker_pid)
            if b"bot.py" in Path(f"/proc/{pid}/cmdline").read_bytes()
        ]
        print(
            json.dumps(
                {
                    "status": game.status,
                    "moves": moves,
                    "left": left,
                    "players": (game.replay or {}).get("players"),
                    "games": PlayGame.objects.count(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
