"""Play games on their own workers: they never hold the process that plays bot matches, a game
its person resigns or abandons is forfeited and its bot process stopped, and a broker restart
leaves no game waiting for good.

Real workers throughout: one ``arena worker`` process for matches (concurrency 1) and one
``arena worker --play`` (a pool of threads), on this run's Redis or on a private
``redis-server`` the test restarts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from live_workers import Live, live_workers
from play_helpers import WAIT_S, bot_processes

pytestmark = [pytest.mark.services, pytest.mark.slow]

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"
ABANDON_S = 4.0
"""The page's heartbeat window in these tests (30 s in production)."""


def short_abandon(live: Live, settings: Any) -> None:
    """The test's window, for its workers and for its own process alike."""
    live.env["ARENA_PLAY_ABANDON_S"] = f"{ABANDON_S:g}"
    settings.ARENA_PLAY_ABANDON_S = ABANDON_S


def start(client: Any, seat: str = "first") -> int:
    response = client.post("/play/", {"variant": "scopa", "bot": "random", "seat": seat})
    assert response.status_code == 302, response.content
    return int(response["Location"].strip("/").split("/")[-1])


def until(
    check: Callable[[], bool],
    why: str,
    logs: Callable[[], str],
    beat: Callable[[], None] = lambda: None,
) -> None:
    """Waits until ``check()`` holds, calling ``beat()`` meanwhile (a page's poll)."""
    deadline = time.monotonic() + WAIT_S * 2
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never {why}\n{logs()}")
        beat()
        time.sleep(0.2)


def state_of(game_id: int) -> Any:
    from webui.play.models import PlayGame

    return PlayGame.objects.get(pk=game_id)


def test_resigned_and_abandoned_games_end_at_once_while_a_match_plays_beside_them(
    play_workers: Live,
    person: Any,
    client: Any,
    settings: Any,
) -> None:
    from django.contrib.auth.models import User

    from webui.league import seasons, variants, versions
    from webui.league.models import Match, Season

    settings.ARENA_PLAY_MOVE_TIME_MS = 120_000  # no move clock runs out in this test
    short_abandon(play_workers, settings)
    client.force_login(person)
    resigned, abandoned = start(client, "first"), start(client, "first")
    play_workers.workers(1, concurrency=1)  # the one process that plays matches
    play_workers.workers(play=True)

    def polls() -> None:  # both pages open
        for game_id in (resigned, abandoned):
            assert client.get(f"/play/{game_id}/state").status_code == 200

    until(
        lambda: all(state_of(g).awaiting for g in (resigned, abandoned)),
        "both games at the person's turn",
        play_workers.logs,
        polls,
    )
    assert bot_processes(play_workers), "the games' bots play in processes of their own"

    # A season's match is played at once by the match worker, beside the two games.
    owner = User.objects.get(username="owner")
    greedy = versions.register_folder_bot(owner, SAMPLES / "greedy", validate=False)
    random = versions.register_folder_bot(owner, SAMPLES / "random", validate=False)
    season = seasons.create_season(
        name="beside",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=[random, greedy],
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=10_000,
    )
    seasons.start_season(season)
    until(
        lambda: Season.objects.get(pk=season.pk).status == "finished",
        "the season finished",
        play_workers.logs,
        polls,
    )
    assert [m.status for m in Match.objects.filter(season=season)] == ["done"]
    assert [state_of(g).status for g in (resigned, abandoned)] == ["playing", "playing"]

    # The person resigns one game (the button) and closes the other's page.
    answer = client.post(f"/play/{resigned}/resign", HTTP_ACCEPT="application/json")
    assert answer.status_code == 200, answer.content
    until(
        lambda: state_of(resigned).status == "over",
        "the resigned game over",
        play_workers.logs,
        lambda: client.get(f"/play/{resigned}/state"),
    )
    game = state_of(resigned)
    assert game.forfeit == {"side": 0, "reason": "resigned"}, game.forfeit
    assert game.winner_side == 1 and game.replay["result"]["forfeit"] == game.forfeit
    until(
        lambda: state_of(abandoned).status == "over", "the abandoned game over", play_workers.logs
    )  # no poll: the page is closed
    game = state_of(abandoned)
    assert game.forfeit == {"side": 0, "reason": "abandoned: the page was closed"}, game.forfeit
    until(lambda: not bot_processes(play_workers), "both bots' processes gone", play_workers.logs)


@pytest.fixture
def play_private(
    transactional_db: Any,
    postgres_available: bool,
    private_redis: Any,
    tmp_path: Path,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Live]:
    """Workers on a private redis-server (``play_private.redis``), which the test restarts."""
    from django.db import connection

    assert connection.vendor == "postgresql", "the Play tests run on PostgreSQL"
    with live_workers(private_redis.url, tmp_path, settings, monkeypatch) as state:
        state.redis = private_redis
        yield state


def test_games_queued_when_the_broker_restarts_empty_are_sent_again_or_ended(
    play_private: Live,
    person: Any,
    client: Any,
    settings: Any,
) -> None:
    import datetime

    import redis
    from django.utils import timezone

    from webui.league.queue import play_queue, queue_depth
    from webui.play import games
    from webui.play.models import PlayGame

    broker = redis.Redis.from_url(play_private.redis.url)

    def waiting() -> int:  # the Play queue's messages in Redis
        return int(broker.llen(settings.ARENA_BROKER_PREFIX + play_queue()))

    short_abandon(play_private, settings)
    client.force_login(person)
    kept, old = start(client), start(client)
    assert waiting() == 2
    play_private.redis.restart()  # no persistence: both messages are gone
    assert waiting() == 0
    # One of them has waited past the start timeout by the time the sweep runs.
    PlayGame.objects.filter(pk=old).update(
        created=timezone.now() - datetime.timedelta(seconds=settings.ARENA_PLAY_START_TIMEOUT_S + 1)
    )
    client.get(f"/play/{kept}/state")  # its page is open

    assert games.sweep(grace_s=0, waiting=queue_depth(play_queue())) == 2
    assert waiting() == 1
    gone = state_of(old)
    assert gone.status == "void" and "no worker started the game within" in gone.error
    play_private.workers(play=True)
    until(
        lambda: state_of(kept).status == "playing",
        "the game sent again started",
        play_private.logs,
        lambda: client.get(f"/play/{kept}/state"),
    )
    assert not PlayGame.objects.filter(status="queued").exists()
    assert client.post(f"/play/{kept}/resign").status_code == 302
    until(
        lambda: state_of(kept).status == "over",
        "the game over",
        play_private.logs,
        lambda: client.get(f"/play/{kept}/state"),
    )
    assert state_of(kept).forfeit == {"side": 0, "reason": "resigned"}
    broker.close()
