"""Workers publish the moves they play; the site reads them from its own process.

Production (Redis) is followed in Chromium (``tests/webui/browser/test_live_progress.py``); here the
embedded setup of ``arena demo``: a real local worker process on the embedded broker, the
``live`` cache in files under the data folder it shares with the site. And the publisher's
throttle: the runner's callback only touches memory, the cache sees a bounded number of writes.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]

SLOW_BOT = """import time

from arena.sdk import Bot, serve


class Slow(Bot):
    def choose(self, observation, legal_moves):
        time.sleep(0.1)
        return legal_moves[0]


serve(Slow())
"""


def test_the_embedded_setup_shares_the_live_moves_through_the_data_folder(
    transactional_db: Any,
    postgres_available: bool,
    bwrap: str,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    client: Any,
) -> None:
    from django.conf import settings as django_settings
    from django.contrib.auth.models import User
    from django.core.cache import caches
    from django.db import connection

    from webui.league import queue as league_queue
    from webui.league import seasons, variants
    from webui.league.models import Match
    from webui.league.versions import register_folder_bot
    from webui.local_workers import LocalWorkers

    # The site of this test is the demo's: no broker server, no Redis cache.
    assert caches["live"].__class__.__name__ == "FileBasedCache"
    queue = f"{django_settings.ARENA_QUEUE}-{uuid.uuid4().hex[:10]}"
    settings.ARENA_BROKER_URL = ""
    settings.ARENA_EMBEDDED_BROKER = True
    settings.ARENA_QUEUE = queue
    app = league_queue.make_app()
    monkeypatch.setattr(league_queue, "app", app)
    env = {
        "ARENA_DATABASE_URL": "postgresql://postgres@127.0.0.1:5432/"
        f"{connection.settings_dict['NAME']}",
        "ARENA_BROKER_URL": "",
        "ARENA_CACHE_URL": "",
        "ARENA_QUEUE": queue,
        "ARENA_DATA_DIR": str(django_settings.ARENA_DATA_DIR),  # the site's, as in the demo
        "ARENA_SANDBOX": "auto",
    }
    bot = tmp_path / "slowpoke"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "slowpoke"\nversion = "1.0.0"\nauthor = "Tester"\n'
        'command = ["python", "bot.py"]\nvariants = ["*"]\n'
    )
    (bot / "bot.py").write_text(SLOW_BOT)
    owner = User.objects.create_user("owner")
    versions = [
        register_folder_bot(owner, bot),
        register_folder_bot(owner, ROOT / "sample_bots" / "random"),
    ]
    season = seasons.create_season(
        name="Demo live",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=versions,
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=20_000,
    )
    pool = LocalWorkers(1, env=env, log_dir=tmp_path / "logs").start()
    try:
        seasons.start_season(season)
        match = Match.objects.get(season=season)
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            data = client.get(f"/api/matches/{match.pk}/live").json()
            if data["current"] is not None:
                seen.append(data)
            if data["finished"]:
                break
            time.sleep(0.2)
        logs = "\n".join(p.read_text()[-3000:] for p in (tmp_path / "logs").glob("*"))
        assert seen, f"no live move was ever read\n{logs}"
        assert data["finished"] and data["games_done"] == 2, (data, logs)
    finally:
        pool.stop()
        app.close()
    moves = seen[-1]["current"]["moves"]
    assert moves and all(m["text"].split(" plays ")[0] in {"slowpoke@1", "random@1"} for m in moves)
    assert seen[-1]["current"]["players"] in (
        ["slowpoke@1", "random@1"],
        ["random@1", "slowpoke@1"],
    )
    # Moves were read while the match was being played, and they moved on between reads.
    assert (
        len(
            {
                (
                    d["current"]["game"],
                    d["current"]["deal"],
                    len(d["current"]["moves"]),
                    d["current"]["moves"][-1]["text"],
                )
                for d in seen
            }
        )
        > 1
    )
    # The worker lists each game as it ends, before the match is recorded.
    listed = [d["games"] for d in seen if d["games"]]
    assert listed, "no finished game was listed while the match was played"
    assert sorted(listed[0][0]["players"]) == ["random@1", "slowpoke@1"]
    assert sum(listed[-1][0]["totals"]) >= 1 and listed[0][0]["index"] == 0
    # A game counts as done once it is over: the one being played does not, the last one
    # does as soon as it ends (before the match is recorded).
    assert all(
        d["status"] == "running" and d["games_done"] - d["current"]["game"] in (0, 1) for d in seen
    )


def test_the_publisher_writes_at_its_pace_not_the_runners(db: Any) -> None:
    from arena.runner import LiveMove
    from webui.league.live import KEPT_MOVES, LivePublisher, read_state

    publisher = LivePublisher(987654, 2, ["a@1", "b@1"], interval=600)  # no write between
    with publisher:
        assert read_state(987654)["played"] == 0  # written once on entry
        for n in range(100):
            publisher.on_move(
                LiveMove(
                    game=n // 60,
                    deal=0,
                    move=n % 60,
                    record={"seat": n % 2, "card": "7d", "capture": []},
                    players=["a@1.0", "b@2.0"],
                    totals=[0, 0],
                    seats=[n % 2, 1 - n % 2],
                )
            )
        assert read_state(987654)["played"] == 0  # the runner's calls only touched memory
    state = read_state(987654)
    assert publisher.writes == 2
    assert state["played"] == 100 and state["game"] == 1
    assert state["players"] == ["b@1", "a@1"]  # the site's names, seated as in the last move
    # Every move of the game being played, from its first: a new game starts a new list.
    assert KEPT_MOVES >= 400 and len(state["moves"]) == 40
    assert [state["moves"][0]["move"], state["moves"][-1]["move"]] == [0, 39]
