"""The games as a data set: ``/api/games/export`` (filters, cursor, limits) and ``arena games
download`` against a live site, stopped and resumed, read back by the SDK's loader."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.sdk.games import filters_member, read_decisions, read_games, scan

pytestmark = pytest.mark.django_db(transaction=True)

EXTRA = 37
"""Games added to the played season's (enough for several pages)."""


@pytest.fixture
def many_games(played_season: Any, settings: Any) -> dict[str, Any]:
    """The played season's games and :data:`EXTRA` more engine-played ones in its first match,
    and an unrated challenge's game; ids of the rated, the unrated, and a void one."""
    from arena.engine import random_game_replay, rules_for
    from webui.league.models import Game, Match

    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 10_000
    match = Match.objects.filter(season=played_season).order_by("id").first()
    assert match is not None
    template = match.games.first()
    assert template is not None
    rules = rules_for("scopa")
    for k in range(EXTRA):
        replay = random_game_replay(rules, 1000 + k, ["random@1", "greedy@1"])
        Game.objects.create(
            match=match,
            index=100 + k,
            variant=template.variant,
            replay=replay,
            seats=[0, 1],
            players=template.players,
            totals=replay["result"]["totals"],
        )
    void = Game.objects.create(
        match=match,
        index=99,
        variant=template.variant,
        replay=template.replay,
        players=template.players,
        void="the worker died",
    )
    unrated = Match.objects.create(
        kind=Match.Kind.CHALLENGE,
        variant=template.variant,
        rated=False,
        pairing="1-2",
        status=Match.Status.DONE,
    )
    other = Game.objects.create(
        match=unrated,
        index=0,
        variant=template.variant,
        replay=template.replay,
        players=template.players,
    )
    rated = set(Game.objects.filter(match__rated=True, void="").values_list("id", flat=True))
    greedy = set(
        Game.objects.filter(
            match__rated=True, void="", match__seats__version__bot__name="greedy"
        ).values_list("id", flat=True)
    )
    return {"rated": rated, "unrated": {other.pk}, "void": void.pk, "greedy": greedy}


def export(client: Any, **query: Any) -> tuple[Any, list[dict[str, Any]]]:
    response = client.get("/api/games/export", query)
    body = b"".join(response.streaming_content) if response.status_code == 200 else b""
    lines = [json.loads(x) for x in gzip.decompress(body).splitlines()] if body else []
    return response, lines


def test_it_pages_by_cursor_and_filters(many_games: dict[str, Any], client: Any) -> None:
    seen: list[int] = []
    after = 0
    while True:
        response, lines = export(client, after=after, limit=10)
        assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
        assert int(response["X-Export-Count"]) == len(lines)
        seen += [line["id"] for line in lines]
        if "X-Export-Next" not in response:
            break
        after = int(response["X-Export-Next"])
        assert after == lines[-1]["id"]
    assert seen == sorted(many_games["rated"])
    _, lines = export(client, rated="false")
    assert {line["id"] for line in lines} == many_games["unrated"]
    assert lines[0]["rated"] is False and lines[0]["replay"]["format"] == "scopa-replay"
    _, lines = export(client, rated="any", limit=1000)
    assert many_games["void"] not in {line["id"] for line in lines}
    _, lines = export(client, bot="my-bot")
    assert lines == []
    _, lines = export(client, bot="greedy", since="2000-01-01", until="2999-01-01T00:00:00Z")
    assert {line["id"] for line in lines} == many_games["greedy"] != many_games["rated"]
    _, lines = export(client, until="2000-01-01")
    assert lines == []


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"limit": "0"}, "'limit'"),
        ({"limit": "2001"}, "'limit'"),
        ({"after": "-1"}, "'after'"),
        ({"variant": "nope"}, "'variant'"),
        ({"bot": "nobody"}, "'bot'"),
        ({"since": "yesterday"}, "'since'"),
        ({"until": "2026-13-45"}, "'until'"),
        ({"rated": "maybe"}, "'rated'"),
        ({"colour": "red"}, "'colour'"),
    ],
)
def test_it_rejects_bad_parameters_naming_them(
    many_games: dict[str, Any], client: Any, query: dict[str, str], words: str
) -> None:
    response = client.get("/api/games/export", query)
    assert response.status_code == 400
    assert words in response.json()["error"]


def test_it_throttles_pages_per_client(
    many_games: dict[str, Any], client: Any, tokens: dict[str, str], settings: Any
) -> None:
    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 2
    header = {"HTTP_AUTHORIZATION": tokens["other"]}
    assert client.get("/api/games/export", {"limit": 1}, **header).status_code == 200
    assert client.get("/api/games/export", {"limit": 1}, **header).status_code == 200
    refused = client.get("/api/games/export", {"limit": 1}, **header)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "export pages a minute" in refused.json()["error"]
    other = client.get("/api/games/export", {"limit": 1}, HTTP_AUTHORIZATION=tokens["staff"])
    assert other.status_code == 200


def check_file(path: Path, expected: set[int], tmp_path: Path) -> None:
    """Every expected game once, each replay verified by ``arena replay verify``, and every
    decision's move among its legal moves."""
    games = list(read_games(path))
    ids = [g.id for g in games]
    assert len(ids) == len(set(ids)), "a game came twice"
    assert set(ids) == expected
    for game in games:
        one = tmp_path / f"game-{game.id}.json"
        one.write_text(json.dumps(game.replay))
        assert main(["replay", "verify", str(one)]) == 0, game.id
    moves = sum(len(d["moves"]) for g in games for d in g.replay["deals"])
    decisions = list(read_decisions(path))
    assert len(decisions) == moves
    assert all(d.legal_moves[d.index] == d.played for d in decisions)
    assert all(d.observation.seat == d.seat and d.observation.to_move == d.seat for d in decisions)


def test_download_stops_resumes_and_holds_every_game_once(
    many_games: dict[str, Any],
    live_server: Any,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "games.jsonl.gz"
    args = ["games", "download", live_server.url, "-o", str(out), "--page-size", "7", "--json"]
    assert main([*args, "--max-pages", "2"]) == 3
    first = json.loads(capsys.readouterr().out)
    assert first["games"] == 14 and first["complete"] is False and first["resumed"] is False
    # A page cut short at the end, as a download killed while it wrote leaves it (the file
    # begins with its filters, an empty member, then the pages).
    assert scan(out).filters == {"rated": "true"}
    pages = out.read_bytes()[len(filters_member({"rated": "true"})) :]
    cut = pages[: len(pages) // 3]
    with out.open("ab") as handle:
        handle.write(cut)
    assert scan(out).games == 14
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["complete"] is True and second["resumed"] is True
    assert second["dropped_bytes"] == len(cut)
    assert second["games"] == len(many_games["rated"])
    assert second["new"] == len(many_games["rated"]) - 14
    check_file(out, many_games["rated"], tmp_path)
    capsys.readouterr()
    assert main(args) == 0  # nothing new: nothing added
    assert json.loads(capsys.readouterr().out)["new"] == 0
    assert len(list(read_games(out))) == len(many_games["rated"])


def test_a_killed_download_resumes(
    many_games: dict[str, Any],
    live_server: Any,
    home: Path,
    tmp_path: Path,
    tokens: dict[str, str],
    settings: Any,
) -> None:
    """Killed while it waits out the site's limit (4 pages a minute, a game a page), it
    holds 4 games; run again, it ends with every game once."""
    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 4
    out = tmp_path / "killed.jsonl.gz"
    command = [
        str(Path(sys.executable).parent / "arena"),
        "games",
        "download",
        live_server.url,
        "-o",
        str(out),
        "--page-size",
        "1",
        "--rated",
        "any",
        "--json",
    ]
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "ARENA_TOKEN": tokens["other"].removeprefix("Bearer "),
    }
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        for _ in range(3000):
            if scan(out).games >= 4 or child.poll() is not None:
                break
            subprocess.run(["sleep", "0.02"], check=True)
        subprocess.run(["sleep", "0.3"], check=True)  # it would take a fifth now, if it could
        assert child.poll() is None, "it should be waiting out the limit"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
    assert scan(out).games == 4
    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 10_000
    assert subprocess.run(command, stdout=subprocess.DEVNULL, check=False, env=env).returncode == 0
    check_file(out, many_games["rated"] | many_games["unrated"], tmp_path)
