"""What the site's host does in ``arena bench hosts`` and the multi-host tests, over the LAN:
``python -m workers.bench.hosts_admin OPERATION`` on the lab's control host, with the
deployment's environment (its database and broker are on the services host).

- ``setup NAME``: the sample bots ``random`` and ``greedy`` on the ladder, and bot ``NAME``
  uploaded by another author as the site stores an upload (its archive in the database only;
  validated by a worker, which then puts it on the ladder); prints the uploaded version's id;
- ``enqueue MATCH_ID``: sends ``arena.play_match`` for a match once more, as a sweep or a
  redelivered message does.

Prints JSON. Loads Django when it runs (the ``arena`` library never imports the platform).
"""

from __future__ import annotations

import io
import json
import os
import sys
import zipfile
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"

BOT_PY = """from arena.sdk import Bot, serve


class First(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(First())
"""


def bot_archive(name: str) -> bytes:
    """A small uploaded bot (it always plays its first legal move), zipped as a person
    uploads it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "bot.toml",
            f'name = "{name}"\nversion = "1.0.0"\nauthor = "Alice"\n'
            'command = ["python", "bot.py"]\nvariants = ["*"]\n',
        )
        archive.writestr("bot.py", BOT_PY)
    return buffer.getvalue()


def setup(name: str) -> dict[str, int]:
    from django.contrib.auth.models import User

    from webui.league import ladder, versions
    from webui.web.submission import add_version

    # Two owners: the ladder never pairs two bots of one owner, and random and greedy are to
    # play each other beside the upload.
    for owner, sample in (("arena", "random"), ("house", "greedy")):
        user, _ = User.objects.get_or_create(username=owner, defaults={"is_staff": True})
        ladder.enter_version(versions.register_folder_bot(user, SAMPLES / sample))
    alice, _ = User.objects.get_or_create(username="alice")
    version, _ = add_version(versions.create_bot(alice, name), bot_archive(name))
    return {"version": version.pk}


def enqueue(match_id: int) -> dict[str, int]:
    from webui.league.queue import current_app

    current_app().send_task("arena.play_match", args=[match_id])
    return {"sent": match_id}


def main(argv: list[str]) -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
    import django

    django.setup()
    operation, *args = argv
    if operation == "setup":
        result = setup(args[0])
    elif operation == "enqueue":
        result = enqueue(int(args[0]))
    else:
        print(f"hosts_admin: unknown operation {operation!r}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
