"""Without the sandbox, a worker runs only the sample bots: an uploaded bot's validation fails
and its match is void, each with the reason in one line, and its code never starts; unless the
operator opts in with ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED=1. The task bodies run in this
process with the real runner."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
REFUSED = (
    "refused to run {label} without the sandbox (ARENA_SANDBOX=0 on this worker): only "
    "the sample bots run unsandboxed unless ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED=1"
)

MARKING_BOT = """import pathlib
pathlib.Path({marker!r}).write_text("this bot's code ran")
from arena.sdk import Bot, serve


class First(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(First())
"""


def marking_zip(name: str, marker: Path) -> bytes:
    """A playable bot that leaves ``marker`` behind as soon as its code runs."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(
            "bot.toml",
            f'name = "{name}"\nversion = "1.0.0"\nauthor = "t"\ncommand = ["python", "bot.py"]\n',
        )
        archive.writestr("bot.py", MARKING_BOT.format(marker=str(marker)))
    return buffer.getvalue()


@pytest.fixture
def owner(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("owner")


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_SANDBOX", "0")
    monkeypatch.delenv("ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED", raising=False)


def uploaded(owner: Any, name: str, marker: Path) -> Any:
    from webui.league import versions
    from webui.web.submission import add_version

    version, _ = add_version(versions.create_bot(owner, name), marking_zip(name, marker))
    return version


def test_an_uploaded_bot_fails_validation_without_the_sandbox_and_never_runs(
    owner: Any,
    no_sandbox: None,
    tmp_path: Path,
) -> None:
    from webui.league.models import BotVersion
    from workers import tasks

    marker = tmp_path / "ran"
    version = uploaded(owner, "uploaded", marker)
    result = tasks.validate_version.run(version.pk)
    version.refresh_from_db()
    assert version.status == BotVersion.Status.FAILED, result
    assert version.status_reason == REFUSED.format(label="uploaded@1")
    assert version.validation_replay is None
    assert not marker.exists()


def test_the_operator_can_opt_in_to_run_uploads_unsandboxed(
    owner: Any,
    no_sandbox: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from webui.league.models import BotVersion
    from workers import tasks

    monkeypatch.setenv("ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED", "1")
    marker = tmp_path / "ran"
    version = uploaded(owner, "uploaded", marker)
    assert tasks.validate_version.run(version.pk) == f"version {version.pk}: ready"
    version.refresh_from_db()
    assert version.status == BotVersion.Status.READY
    assert marker.read_text() == "this bot's code ran"  # it ran, outside any sandbox


def season_of(owner: Any, versions: list[Any]) -> Any:
    from webui.league import seasons, variants
    from webui.league.models import Match

    season = seasons.create_season(
        name="unsandboxed",
        variant=variants.get_variant("scopa", {"target": 1}),
        entrants=versions,
        games_per_pairing=2,
        move_time_ms=1000,
        bank_ms=5000,
        seed=5,
    )
    seasons.start_season(season)
    return Match.objects.get(season=season)


def test_a_match_with_an_uploaded_bot_is_void_without_the_sandbox_and_never_runs_it(
    owner: Any,
    no_sandbox: None,
    tmp_path: Path,
) -> None:
    from webui.league import versions
    from webui.league.models import BotVersion, Game
    from workers import tasks

    marker = tmp_path / "ran"
    version = uploaded(owner, "uploaded", marker)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    version.refresh_from_db()
    match = season_of(owner, [version, versions.register_folder_bot(owner, SAMPLES / "random")])
    reason = REFUSED.format(label="uploaded@1")
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: void ({reason})"
    match.refresh_from_db()
    assert match.status == "void"
    assert match.error == f"cannot be played: {reason}"
    assert not Game.objects.filter(match=match).exists()
    assert not marker.exists()


def test_sample_bots_still_play_without_the_sandbox(owner: Any, no_sandbox: None) -> None:
    from webui.league import versions
    from webui.league.models import Game
    from workers import tasks

    match = season_of(
        owner,
        [versions.register_folder_bot(owner, SAMPLES / name) for name in ("random", "greedy")],
    )
    assert tasks.play_match.run(match.pk) == f"match {match.pk}: recorded"
    assert Game.objects.filter(match=match).count() == 2


def test_the_policy_spares_sample_and_remote_bots_and_names_the_refused() -> None:
    from arena.runner import BotRef
    from workers.sandbox_policy import refusal

    sample = BotRef.parse("random")
    remote = BotRef.parse("grpc://127.0.0.1:50051")
    folder = BotRef.parse(str(Path(__file__).resolve().parents[1] / "hostile" / "bots" / "illegal"))
    assert sample.trusted and not folder.trusted
    assert refusal({"random@1": sample, "far@2": remote}, sandbox=False) is None
    assert refusal({"random@1": sample, "illegal@3": folder}, sandbox=True) is None
    message = refusal({"random@1": sample, "illegal@3": folder}, sandbox=False)
    assert message is not None and message.startswith("refused to run illegal@3 without")


def test_a_bad_opt_in_value_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.sandbox_policy import unsafe_uploads_allowed

    monkeypatch.setenv("ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED", "maybe")
    with pytest.raises(
        ValueError, match="ARENA_UNSAFE_RUN_UPLOADS_UNSANDBOXED='maybe': expected 1 or 0"
    ):
        unsafe_uploads_allowed()
