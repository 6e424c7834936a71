"""What a bot said, as the site shows it: text, never control or format characters.

The runner records a bot's words escaped (:func:`arena.text.printable`); games and versions
stored before it did may still hold raw escapes, bidirectional overrides and the like. Every
page and API answer that shows a fault's detail, a forfeit's reason, a void game's cause,
bot.toml's version and author, a validation's reason and log, or a replay's players shows
them escaped.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from django.utils import timezone

from webui.league.models import BotVersion, Game, Season

pytestmark = [pytest.mark.django_db]

RAW = "\x1b[2J\x1b]0;owned\x07\r| forged |\u202eevil"
SHOWN = "\\x1b[2J\\x1b]0;owned\\x07\\x0d| forged |\\u202eevil"


def controls(text: str) -> list[str]:
    """Control, format and separator characters of ``text`` but newlines."""
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c != "\n" and unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp"}
    ]


def strings(value: Any) -> list[str]:
    """Every string of a JSON value, keys included."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def decoded(response: Any) -> str:
    """A page's text, or every string of an API answer (its JSON escapes decoded)."""
    assert response.status_code == 200, response.content[:300]
    if response["Content-Type"].startswith("application/json"):
        return "\n".join(strings(json.loads(response.content)))
    return str(response.content.decode())


def test_an_old_games_raw_fault_forfeit_and_players_are_shown_as_text(
    client: Any, played_season: Season
) -> None:
    game = Game.objects.filter(match__season=played_season).order_by("id").first()
    assert game is not None
    faults = [{"deal": 0, "move": 0, "seat": 0, "kind": "crash", "detail": RAW}]
    forfeit = {"side": 0, "reason": f"crash: {RAW}"}
    replay = dict(game.replay, faults=faults, players=[f"bot{RAW}", "other"])
    replay["result"] = dict(replay["result"], forfeit=forfeit)
    # A recorded game never changes: its frames are kept (in Redis, beyond this test's
    # savepoint) by its id and the moment it was recorded, which another reader of the shared
    # season may have asked for already. The game altered here is one recorded now.
    Game.objects.filter(pk=game.pk).update(
        faults=faults, forfeit=forfeit, replay=replay, created=timezone.now()
    )
    for url in (f"/games/{game.pk}/", f"/api/games/{game.pk}", f"/api/games/{game.pk}/frames"):
        text = decoded(client.get(url))
        assert controls(text) == [], url
        assert SHOWN in text, url


def test_an_old_versions_raw_manifest_reason_and_log_are_shown_as_text(
    client: Any, played_season: Season, users: dict[str, Any]
) -> None:
    version = BotVersion.objects.select_related("bot").get(bot__name="third")
    manifest = dict(version.manifest, version=f"1{RAW}", author=f"me{RAW}")
    games = [
        {
            "index": 0,
            "players": ["third@1", "random@1"],
            "totals": [0, 11],
            "winner": None,
            "forfeit": {"side": 0, "reason": f"crash: {RAW}"},
            "void": None,
            "answered": 1,
            "fallbacks": 0,
            "faults": [
                {
                    "deal": 0,
                    "move": 0,
                    "seat": 0,
                    "player": "third@1",
                    "kind": "crash",
                    "detail": RAW,
                }
            ],
        }
    ]
    BotVersion.objects.filter(pk=version.pk).update(
        manifest=manifest,
        status="failed",
        status_reason=f"crash: {RAW}",
        validation_log=f"line one\n{RAW}\n",
        validation_games=games,
    )
    client.force_login(users["owner"])  # the owner sees the details and the log
    for url in ("/bots/third/v1/", "/api/bots/third/versions/1", "/api/bots/third"):
        text = decoded(client.get(url))
        assert controls(text) == [], url
        assert SHOWN in text, url
