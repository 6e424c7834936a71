"""Each task run twice counts once: the task bodies called in this process, with the real runner
and the sample bots (trusted, so no sandbox is needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


@pytest.fixture
def owner(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("owner")


def short_season(owner: Any) -> Any:
    from webui.league import seasons, variants, versions

    entrants = [
        versions.register_folder_bot(owner, SAMPLES / name) for name in ("random", "greedy")
    ]
    season = seasons.create_season(
        name="tasks",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=entrants,
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=5000,
        seed=5,
    )
    seasons.start_season(season)
    return season


def test_play_match_twice_plays_and_records_once(owner: Any) -> None:
    from webui.league.models import Game, Match
    from workers import tasks

    season = short_season(owner)
    match = Match.objects.get(season=season)
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: recorded"
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: done, nothing to do"
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("done", 1)
    games = Game.objects.filter(match=match)
    assert games.count() == 2
    labels = [v.label for v in match.entrants()]
    assert labels == ["random@1", "greedy@1"]  # the platform's numbers, not bot.toml's 1.0.0
    for game in games:  # the replay names each seat by its version, as the site does
        assert game.replay["players"] == [labels[e] for e in game.seats]
    assert {tuple(g.seats) for g in games} == {(0, 1), (1, 0)}  # seats swapped


def test_record_match_refuses_a_stale_token_and_a_second_recording(owner: Any) -> None:
    from webui.league import matches
    from webui.league.models import Game, Match
    from workers import tasks

    season = short_season(owner)
    match = Match.objects.get(season=season)
    claim = matches.claim_match(match.pk)
    assert claim is not None
    from arena.runner import run_match

    report = run_match(tasks.match_spec(match)).to_json(replays=True, logs=True)
    assert not tasks.record_match.run(match.pk, "not-the-token", report)
    assert tasks.record_match.run(match.pk, claim.token, report)
    assert not tasks.record_match.run(match.pk, claim.token, report)
    assert Game.objects.filter(match=match).count() == 2


def test_schedule_round_and_update_ratings_twice_change_nothing_more(owner: Any) -> None:
    from webui.league.models import Match, RatingHistory, Round
    from workers import tasks

    season = short_season(owner)
    match = Match.objects.get(season=season)
    tasks.play_match.run(match.pk)
    assert tasks.update_ratings.run(season.variant_id) == 2
    assert tasks.update_ratings.run(season.variant_id) == 0
    assert RatingHistory.objects.count() == 4
    assert tasks.schedule_round.run(season.pk) is None  # two entrants: one round, then done
    assert tasks.schedule_round.run(season.pk) is None
    season.refresh_from_db()
    assert season.status == "finished"
    assert Round.objects.filter(season=season).count() == 1


def test_validate_version_twice_validates_once(owner: Any) -> None:
    from webui.league import versions
    from webui.league.models import BotVersion
    from workers import tasks

    bot = versions.create_bot(owner, "candidate")
    version, _ = versions.register_version(
        bot,
        sha256="d" * 64,
        manifest={"name": "greedy", "variants": ["*"]},
        source_dir=str(SAMPLES / "greedy"),
    )
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: ready"
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: nothing to do"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY
    assert version.validation_replay is not None
    assert sorted(version.validation_replay["players"]) == ["candidate@1", "random (sample bot)"]
    assert version.validated is not None


def test_a_validation_game_names_a_registered_sample_bot_by_its_version(owner: Any) -> None:
    from webui.league import versions
    from workers import tasks

    versions.register_folder_bot(owner, SAMPLES / "random")
    versions.register_folder_bot(owner, SAMPLES / "greedy")  # random@1, then greedy@1
    bot = versions.create_bot(owner, "candidate")
    version, _ = versions.register_version(
        bot,
        sha256="d" * 64,
        manifest={"name": "greedy", "variants": ["*"]},
        source_dir=str(SAMPLES / "greedy"),
    )
    tasks.validate_version.run(version.pk)
    version.refresh_from_db()
    assert sorted(version.validation_replay["players"]) == ["candidate@1", "random@1"]


def test_a_version_that_cannot_start_fails_validation_with_a_reason(
    owner: Any, tmp_path: Path
) -> None:
    from webui.league import versions
    from webui.league.models import BotVersion
    from workers import tasks

    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "broken"\nversion = "1"\nauthor = "t"\n'
        'command = ["python", "-c", "raise SystemExit(3)"]\n'
    )
    bot = versions.create_bot(owner, "broken")
    version, _ = versions.register_version(
        bot, sha256="e" * 64, manifest={"name": "broken"}, source_dir=str(folder)
    )
    result = tasks.validate_version.run(version.pk)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED, result
    assert version.status_reason


def test_a_version_whose_folder_is_too_deep_fails_once_as_its_own_fault(
    owner: Any, tmp_path: Path
) -> None:
    from arena.archives import MAX_PATH_DEPTH
    from webui.league import versions
    from webui.league.models import BotVersion
    from workers import tasks

    folder = tmp_path / "deep"
    (folder / "/".join(["d"] * (MAX_PATH_DEPTH + 5))).mkdir(parents=True)
    (folder / "bot.toml").write_text(
        'name = "deep"\nversion = "1"\nauthor = "t"\ncommand = ["python", "bot.py"]\n'
    )
    bot = versions.create_bot(owner, "deep")
    version, _ = versions.register_version(
        bot, sha256="d" * 64, manifest={"name": "deep"}, source_dir=str(folder)
    )
    # Run as a worker runs it, with retries left: a bot's own files are not a host failure.
    result = tasks.validate_version.apply(args=(version.pk,)).get()
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED, result
    assert "MAX_PATH_DEPTH" in version.status_reason
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: nothing to do"
