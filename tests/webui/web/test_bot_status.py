"""``arena bot status NAME [--follow]`` against a live site: a bot's validations, ladder entry,
ratings and games, then each change as it comes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from arena.cli import build_parser, main

pytestmark = pytest.mark.django_db(transaction=True)


def test_status_shows_validations_ratings_and_games(
    home: Path,
    played_season: Any,
    users: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from webui.league import versions

    bot = users["owner"].bots.get(name="my-bot")
    one, _ = versions.register_version(
        bot, sha256="1" * 64, manifest={"name": "my-bot"}, source_dir="bots/x"
    )
    versions.finish_validation(one.pk, False, "crash: exit status 1 before the first move")
    assert main(["bot", "status", "my-bot", "--server", live_server.url]) == 0
    out = capsys.readouterr().out
    assert f"my-bot by owner: {live_server.url}/bots/my-bot/" in out
    assert "my-bot@1: refused: crash: exit status 1 before the first move" in out
    assert "ladder: not yet" in out and "rating: none yet" in out

    assert main(["bot", "status", "greedy", "--server", live_server.url]) == 0
    out = capsys.readouterr().out
    assert "greedy@1: ready" in out
    assert "rating greedy@1 scopa: " in out and "games" in out
    assert "latest games:" in out and "(scopa, season): " in out

    assert main(["bot", "status", "nobody", "--server", live_server.url]) == 1
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith(f"arena bot status: {live_server.url} has no bot 'nobody'")
    )
    assert main(["bot", "status", "greedy", "--server", "http://127.0.0.1:9"]) == 2


def test_follow_prints_each_new_game_and_rating_as_it_comes(
    home: Path,
    played_season: Any,
    users: dict[str, Any],
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from webui.league import seasons, variants
    from webui.league.models import BotVersion
    from webui.web.sampledata import play_season

    args = build_parser("bot").parse_args(
        [
            "bot",
            "status",
            "greedy",
            "--server",
            live_server.url,
            "--follow",
            "--json",
            "--until-games",
            "2",
            "--interval",
            "0.3",
        ]
    )
    done: list[int] = []
    follow = threading.Thread(target=lambda: done.append(args.func(args)))
    follow.start()
    try:
        first = ""
        deadline = time.monotonic() + 60  # a bound on a hang, not a measure
        while not first and follow.is_alive() and time.monotonic() < deadline:
            first = capsys.readouterr().out  # the snapshot: what comes next is a change
            time.sleep(0.05)
        assert json.loads(first.splitlines()[0])["bot"] == "greedy"
        versions = [
            BotVersion.objects.get(bot__name=name, number=1) for name in ("greedy", "random")
        ]
        season = seasons.create_season(
            name="Another",
            variant=variants.get_variant("scopa"),
            entrants=versions,
            games_per_pairing=2,
            seed=11,
        )
        seasons.start_season(season)
        play_season(season)
    finally:
        follow.join(timeout=60)
    assert done == [0], capsys.readouterr()
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    lines = [line for e in events for line in e["changes"]]
    assert sum(1 for line in lines if line.startswith("game ")) == 2, lines
    # The rating moved with those games (it may be rated a moment after they show up, so it is
    # read here, once both are in, as the next look of --follow would read it).
    from arena.commands.bot_status import changes, snapshot
    from arena.sdk.client import ArenaClient

    before = json.loads(first.splitlines()[0])
    after = snapshot(ArenaClient(live_server.url), "greedy")
    assert after is not None
    assert any(line.startswith("rating greedy@1 scopa") for line in changes(before, after)), (
        before,
        after,
    )


def test_scores_read_from_the_bots_side_and_the_rating_line_agrees_with_its_games(
    home: Path,
    played_season: Any,
    live_server: Any,
) -> None:
    from arena.commands.bot_status import game_line, no_rating_line, snapshot
    from arena.sdk.client import ArenaClient

    state = snapshot(ArenaClient(live_server.url), "random")
    assert state is not None and state["games"]
    for game in state["games"]:
        assert game["sides"][0] == "random@1", game  # the bot's own side first
        if game["result"] in ("win", "loss") and not game["faults"]:
            own, other = game["totals"]
            assert (own > other) == (game["result"] == "win"), game
            assert f": {game['result']} {own}-{other} random@1 v " in game_line(game)
    rated = [{"kind": "ladder", "result": "win"}, {"kind": "season", "result": "loss"}]
    assert no_rating_line(rated).startswith("rating: not computed yet (2 rated games below")
    assert no_rating_line([{"kind": "challenge", "result": "win"}]).startswith("rating: none yet")
