"""A season's seat limits: checked wherever a season is made, shown, and given to the runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"
MIB = 1024**2


@pytest.fixture
def staff(db: Any) -> Any:
    from django.contrib.auth.models import User

    return User.objects.create_user("boss", password="boss-pass-123", is_staff=True)


@pytest.fixture
def versions(staff: Any) -> list[Any]:
    from webui.league import versions

    return [
        versions.register_folder_bot(staff, SAMPLES / name, validate=False)
        for name in ("random", "greedy")
    ]


def create(versions: list[Any], **extra: Any) -> Any:
    from webui.league import seasons, variants

    return seasons.create_season(
        name="limited", variant=variants.get_variant("scopa"), entrants=versions, **extra
    )


def test_a_seasons_limits_reach_the_runner_with_the_defaults_for_the_rest(
    versions: list[Any],
) -> None:
    from arena.runner import Limits
    from webui.league import seasons
    from webui.league.models import Match
    from workers.tasks import match_spec

    season = create(versions, seat_limits={"memory_mb": 512, "tmp_mb": 8}, bank_ms=20_000)
    assert season.seat_limits == {"memory_mb": 512, "tmp_mb": 8}
    seasons.start_season(season)
    spec = match_spec(Match.objects.filter(season=season).first())
    assert spec.limits.memory_bytes == 512 * MIB and spec.limits.tmp_bytes == 8 * MIB
    assert spec.limits.processes == Limits().processes
    assert spec.limits.cpu_seconds == 60 + 60  # the default for two games of a 20 s bank


@pytest.mark.parametrize(
    ("limits", "message"),
    [
        ({"memory_mb": 10}, "limits.memory_mb must be between 64 and 65536 MiB, not 10"),
        ({"processes": "many"}, "limits.processes must be a whole number between 8 and 4096"),
        ({"gpu": 1}, "limits.gpu is not a seat limit; there are memory_mb, processes"),
        ([512], "limits must be an object"),
    ],
)
def test_bad_seat_limits_are_refused_by_name_and_nothing_is_created(
    versions: list[Any], limits: Any, message: str
) -> None:
    from webui.league import errors
    from webui.league.models import Season

    with pytest.raises(errors.LeagueError, match="^" + message.replace("(", r"\(")):
        create(versions, seat_limits=limits)
    assert not Season.objects.exists()


def test_the_api_takes_limits_names_a_bad_one_and_shows_them(
    client: Any, staff: Any, versions: list[Any]
) -> None:
    from webui.web.models import ApiToken

    auth = {"HTTP_AUTHORIZATION": "Bearer " + ApiToken.issue(staff, "t")[1]}
    body = {"name": "api-limited", "variant": "scopa", "entrants": ["random@1", "greedy@1"]}
    refused = client.post(
        "/api/seasons", {**body, "limits": {"tmp_mb": 0}}, content_type="application/json", **auth
    )
    assert refused.status_code == 400
    assert refused.json() == {"error": "limits.tmp_mb must be between 1 and 4096 MiB, not 0"}
    made = client.post(
        "/api/seasons",
        {**body, "limits": {"processes": 32}},
        content_type="application/json",
        **auth,
    )
    assert made.status_code == 201, made.json()
    season = made.json()["season"]
    assert season["seat_limit_overrides"] == {"processes": 32}
    assert season["seat_limits"]["processes"] == 32 and season["seat_limits"]["memory_mb"] == 2048
    page = client.get(f"/seasons/{season['id']}/").content.decode()
    assert "32 processes*" in page and "2048 MiB of memory," in page


def test_the_command_line_names_the_flag_of_a_bad_limit(
    versions: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import main

    status = main(
        [
            "season",
            "create",
            "cli-limited",
            "--bot",
            "random@1",
            "--bot",
            "greedy@1",
            "--memory",
            "32",
        ]
    )
    assert status == 2
    assert "--memory must be between 64 and 65536 MiB, not 32" in capsys.readouterr().err
    assert (
        main(
            [
                "season",
                "create",
                "cli-limited",
                "--bot",
                "random@1",
                "--bot",
                "greedy@1",
                "--memory",
                "300",
                "--json",
            ]
        )
        == 0
    )
    from webui.league.models import Season

    assert Season.objects.get(name="cli-limited").seat_limits == {"memory_mb": 300}
