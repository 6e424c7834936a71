"""The export's cursor follows commit order, on PostgreSQL: a round's result waits for its
round's row (held by another connection, as another result of the round holds it) while a
challenge's result commits and a download runs; the resumed download still holds every game
once. A download refuses to resume with other filters."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from report_fakes import FakeGame, fake_match_report

from arena.cli import main
from arena.sdk.games import read_games, scan

pytestmark = pytest.mark.django_db(transaction=True)

WAIT_ROUNDS = 1000
"""Checks (10 ms apart) for another connection to reach a point before the test gives up."""


def report(first_seed: int, games: int = 2) -> Any:
    """A runner's report of ``games`` engine-played games (the runner's own record of them)."""
    from arena.engine import random_game_replay, rules_for

    rules = rules_for("scopa")
    played = []
    for k in range(games):
        replay = random_game_replay(rules, first_seed + k, ["a", "b"])
        result = replay["result"]
        played.append(FakeGame([0, 1], list(result["totals"]), result["winner"], replay=replay))
    return fake_match_report("scopa", played, entrants=2)


def claimed_match(versions: list[Any]) -> Any:
    """A rated challenge of the two versions, claimed as a worker claims it."""
    from webui.league import matches, variants
    from webui.league.models import Match

    match = matches.create_open_match(
        Match.Kind.CHALLENGE, variants.get_variant("scopa"), versions, games=2, rated=True
    )
    claim = matches.claim_match(match.pk, "test-worker")
    assert claim is not None
    return claim


def other_versions(owner: Any) -> list[Any]:
    """Two versions of bots of their own (no read model shared with the sample bots')."""
    from webui.league.versions import create_bot, register_version

    made = []
    for name in ("north", "south"):
        version, _ = register_version(
            create_bot(owner, name, ""),
            sha256=name[0] * 64,
            manifest={"name": name, "version": "1", "command": ["x"]},
            source_dir="sample_bots/random",
            validate=False,
        )
        made.append(version)
    return made


def waiting_on_a_lock() -> bool:
    """Whether a connection to this database waits for a lock another one holds."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # fresh, not the first of the transaction
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        row = cursor.fetchone()
        return bool(row and row[0])


def wait_for(condition: Any, what: str) -> None:
    import time

    for _ in range(WAIT_ROUNDS):
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"gave up waiting for {what}")


def test_a_result_committed_after_a_higher_id_is_still_downloaded(
    ready_versions: list[Any],
    users: dict[str, Any],
    live_server: Any,
    home: Path,
    tmp_path: Path,
    settings: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A round's result waits for its round's row (held here, as another result of the round
    holds it) while a challenge's result commits; a download runs between the two."""
    from django.db import connection, transaction

    from webui.league import matches, seasons, variants
    from webui.league.models import Game, Match, Round

    if connection.vendor != "postgresql":
        pytest.skip("two connections committing out of order: PostgreSQL's")
    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 10_000
    season = seasons.create_season(
        name="Commit order", variant=variants.get_variant("scopa"), entrants=ready_versions, seed=7
    )
    assert seasons.start_season(season)
    round_match = Match.objects.filter(season=season).order_by("id").first()
    assert round_match is not None and round_match.round_id is not None
    in_round = matches.claim_match(round_match.pk, "test-worker")
    assert in_round is not None
    others = other_versions(users["owner"])
    assert matches.record_result(claimed_match(others), report(1))
    challenge = claimed_match(others)
    failures: list[BaseException] = []

    def record(claim: Any, first_seed: int) -> None:
        try:
            assert matches.record_result(claim, report(first_seed))
        except BaseException as exc:
            failures.append(exc)
        finally:
            connection.close()

    out = tmp_path / "games.jsonl.gz"
    args = ["games", "download", live_server.url, "-o", str(out), "--json"]
    round_result = threading.Thread(target=record, args=(in_round, 10))
    with transaction.atomic():
        Round.objects.select_for_update().filter(pk=round_match.round_id).first()
        round_result.start()
        wait_for(
            lambda: waiting_on_a_lock() or not round_result.is_alive(),
            "the round's result to wait for its round",
        )
        assert round_result.is_alive(), failures
        challenge_result = threading.Thread(target=record, args=(challenge, 20))
        challenge_result.start()
        challenge_result.join()
        assert not failures, failures
        assert main(args) == 0
        first = json.loads(capsys.readouterr().out)
        assert first["complete"] is True and first["games"] == 4
    round_result.join()
    assert not failures, failures
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["resumed"] is True and second["complete"] is True and second["new"] == 2
    ids = [game.id for game in read_games(out)]
    assert len(ids) == len(set(ids)), "a game came twice"
    assert set(ids) == set(Game.objects.values_list("id", flat=True))
    assert len(ids) == 6
    # The round's games, committed last, have the highest ids.
    in_round_ids = Game.objects.filter(match_id=in_round.match_id).values_list("id", flat=True)
    assert min(in_round_ids) > max(
        Game.objects.filter(match_id=challenge.match_id).values_list("id", flat=True)
    )


def test_a_download_refuses_to_resume_with_other_filters(
    ready_versions: list[Any],
    live_server: Any,
    home: Path,
    tmp_path: Path,
    settings: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from webui.league import matches

    settings.ARENA_EXPORT_PAGES_PER_MINUTE = 10_000
    assert matches.record_result(claimed_match(ready_versions), report(1))
    out = tmp_path / "games.jsonl.gz"
    args = ["games", "download", live_server.url, "-o", str(out), "--json"]
    assert main([*args, "--variant", "scopa"]) == 0
    capsys.readouterr()
    assert scan(out).filters == {"variant": "scopa", "rated": "true"}
    before = out.read_bytes()
    assert main([*args, "--rated", "any"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == (
        f"arena games download: {out} holds games downloaded with --rated true --variant "
        "scopa, not --rated any: resume with the same filters, or write another file"
    )
    assert out.read_bytes() == before
    assert main([*args, "--variant", "scopa"]) == 0
    assert json.loads(capsys.readouterr().out)["new"] == 0
    assert len(list(read_games(out))) == 2
