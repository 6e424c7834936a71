"""Validation that means something: a version whose ``choose`` raises does not pass.

Uploaded as a user uploads (``add_version``), validated by a real ``arena worker`` process on
Redis and PostgreSQL in the sandbox: the SDK answers a fallback move for each failed
``choose`` and says so, the runner counts them, and the verdict
(:mod:`webui.league.validation`) fails a version whose moves were mostly fallbacks, saying why;
the version's page then shows who won each validation game and the faults.
"""

from __future__ import annotations

import io
import time
import zipfile
from dataclasses import dataclass, field
from typing import Any

import pytest

pytestmark = [pytest.mark.services, pytest.mark.slow]

ALWAYS_RAISES = """from arena.sdk import Bot, serve


class Broken(Bot):
    def choose(self, observation, legal_moves):
        raise ValueError("my strategy table is empty")


serve(Broken())
"""

RAISES_ONCE_PER_GAME = """from arena.sdk import Bot, serve


class Shaky(Bot):
    fresh = False

    def on_game_start(self, game):
        self.fresh = True

    def choose(self, observation, legal_moves):
        if self.fresh:
            self.fresh = False
            raise KeyError("cold start")
        return legal_moves[-1]


serve(Shaky())
"""


def bot_zip(name: str, code: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "bot.toml",
            f'name = "{name}"\nversion = "1.0.0"\nauthor = "Tester"\n'
            'command = ["python", "bot.py"]\nvariants = ["*"]\n',
        )
        archive.writestr("bot.py", code)
    return buffer.getvalue()


def validated(version: Any, live: Any, timeout_s: float = 120.0) -> Any:
    """The version once a worker has validated it."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        version.refresh_from_db()
        if version.status != "validating":
            return version
        time.sleep(0.3)
    raise AssertionError(f"{version.label} still validating\n{live.logs()}")


def test_a_version_whose_choose_always_raises_fails_and_its_page_shows_why(
    live: Any,
    bwrap: str,
    client: Any,
) -> None:
    from django.contrib.auth.models import User

    from webui.league import versions
    from webui.web.submission import add_version

    owner = User.objects.create_user("owner", password="owner-pass-123")
    live.workers(1)
    bot = versions.create_bot(owner, "broken")
    version, created = add_version(bot, bot_zip("broken", ALWAYS_RAISES))
    assert created
    version = validated(version, live)

    assert version.status == "failed", version.status_reason
    assert "chose only 0 of its" in version.status_reason
    assert "ValueError: my strategy table is empty" in version.status_reason
    games = version.validation_games
    assert len(games) == 2  # a duplicate set: the seats swapped
    assert {tuple(g["players"]) for g in games} == {
        ("broken@1", "random (sample bot)"),
        ("random (sample bot)", "broken@1"),
    }
    for game in games:
        assert game["answered"] > 0 and game["fallbacks"] == game["answered"]
        assert game["winner"] in {"broken@1", "random (sample bot)", None}
        assert game["faults"] and all(
            f["kind"] == "fallback" and f["player"] == "broken@1" for f in game["faults"]
        )

    # The page says who won each game and lists the faults; their details are the owner's.
    html = client.get(f"/bots/broken/v{version.number}/").content.decode()
    assert "Validation failed: its own code chose only 0 of its" in html
    for game in games:
        assert (game["winner"] or "draw") in html
    assert html.count('badge failed">fallback</span>') == sum(len(g["faults"]) for g in games)
    assert "my strategy table is empty" in html  # in the status reason, shown to all
    api = client.get(f"/api/bots/broken/versions/{version.number}").json()
    assert [g["fallbacks"] for g in api["validation_games"]] == [g["fallbacks"] for g in games]
    assert all("detail" not in f for g in api["validation_games"] for f in g["faults"])
    client.force_login(owner)  # (the login form and its throttle have tests of their own)
    api = client.get(f"/api/bots/broken/versions/{version.number}").json()
    assert all(
        "my strategy table is empty" in f["detail"]
        for g in api["validation_games"]
        for f in g["faults"]
    )


def test_a_version_with_a_few_fallbacks_passes_and_they_are_shown(
    live: Any,
    bwrap: str,
    client: Any,
) -> None:
    from django.contrib.auth.models import User

    from webui.league import versions
    from webui.web.submission import add_version

    owner = User.objects.create_user("owner")
    live.workers(1)
    bot = versions.create_bot(owner, "shaky")
    version, _ = add_version(bot, bot_zip("shaky", RAISES_ONCE_PER_GAME))
    version = validated(version, live)

    assert version.status == "ready", version.status_reason
    games = version.validation_games
    assert [g["fallbacks"] for g in games] == [1, 1]
    assert all(g["answered"] > 2 for g in games)
    html = client.get(f"/bots/shaky/v{version.number}/").content.decode()
    assert html.count(">1 fallback</span>") == 2


@dataclass
class Played:
    seats: list[int]
    answered: list[int]
    fallbacks: list[int]
    winner_side: int | None = 0
    forfeit: dict[str, Any] | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    totals: list[int] = field(default_factory=lambda: [11, 4])
    void: str | None = None


def test_the_verdict_allows_fallbacks_on_half_of_the_moves_and_no_more() -> None:
    from webui.league.validation import judge

    labels = ["me@1", "random"]
    half = [Played([0, 1], [10, 10], [5, 0]), Played([1, 0], [10, 10], [0, 5])]
    verdict = judge(half, labels, 2)
    assert verdict.ok and (verdict.answered, verdict.fallbacks) == (20, 10)
    assert [g["winner"] for g in verdict.games] == ["me@1", "random"]
    more = [Played([0, 1], [10, 10], [5, 0]), Played([1, 0], [10, 10], [0, 6])]
    verdict = judge(more, labels, 2)
    assert not verdict.ok
    assert verdict.reason.startswith("its own code chose only 9 of its 20 moves")
    # The opponent's fallbacks are not the version's.
    assert judge([Played([0, 1], [10, 10], [0, 10])], labels, 2).ok
    # Any other fault fails it, as does a forfeit.
    crash = Played(
        [0, 1],
        [3, 3],
        [0, 0],
        faults=[{"deal": 0, "move": 5, "seat": 0, "kind": "crash", "detail": "exit 1"}],
    )
    assert judge([crash], labels, 2).reason == "crash: exit 1"
    forfeit = Played([1, 0], [3, 3], [0, 0], winner_side=0, forfeit={"side": 1})
    assert judge([forfeit], labels, 2).reason == "forfeit"
