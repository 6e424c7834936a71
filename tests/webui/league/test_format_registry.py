"""A format declares itself once: a toy format in a module of its own, added to the registry for
one test, is offered by the model, the season form, the API's description and the command line,
none of which names it."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from league_helpers import SAMPLES

from webui.league import cli, formats, seasons, variants, versions
from webui.league.errors import LeagueError
from webui.league.formats.options import FormatOptions, option
from webui.league.formats.round_robin import RoundRobinOptions
from webui.league.formats.swiss import SwissOptions
from webui.league.models import BotVersion, Season
from webui.web.forms import SeasonForm

TOY_MODULE = """
from dataclasses import dataclass

from webui.league.formats.base import SeasonFormat
from webui.league.formats.options import FormatOptions, option


@dataclass(frozen=True)
class ToyOptions(FormatOptions):
    laps: int = option(
        1, label="Laps", help="times round the toy track", lo=1, hi=9,
        refused="only a toy season runs laps",
    )


class Toy(SeasonFormat):
    key = "toy"
    labels = (("toy", "a toy of a format"),)
    description = "Toy (made up by a test: two sides, some laps)"
    Options = ToyOptions
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type[formats.SeasonFormat]]:
    """The toy format, imported from a module written for the test and registered for it."""
    path = tmp_path / "toy_format.py"
    path.write_text(textwrap.dedent(TOY_MODULE))
    spec = importlib.util.spec_from_file_location("toy_format", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_format", module)
    spec.loader.exec_module(module)
    monkeypatch.setitem(formats.FORMATS, "toy", module.Toy)
    yield module.Toy


@pytest.fixture
def entrants(db: Any) -> list[BotVersion]:
    """Two ready versions of two bots."""
    from django.contrib.auth.models import User

    owner = User.objects.create_user("owner")
    out = []
    for i in range(2):
        bot = versions.create_bot(owner, f"bot-{i + 1}")
        version, _ = versions.register_version(
            bot,
            sha256=f"{i:064x}",
            manifest={"name": bot.name, "variants": ["*"]},
            source_dir=str(SAMPLES / "random"),
            validate=False,
        )
        out.append(version)
    return out


def test_a_new_format_is_offered_by_the_model_the_form_the_api_and_the_command_line(
    toy: type[formats.SeasonFormat], client: Any, db: Any
) -> None:
    field = Season._meta.get_field("format")
    assert ("toy", "a toy of a format") in list(field.choices or [])
    assert Season(format="toy").get_format_display() == "a toy of a format"

    form = SeasonForm()
    assert ("toy", toy.description) in form.fields["format"].choices  # type: ignore[attr-defined]
    laps = form.fields["laps"]
    assert (laps.label, laps.min_value, laps.max_value) == ("Laps", 1, 9)  # type: ignore[attr-defined]

    spec = client.get("/api/openapi.json").json()
    body = spec["components"]["schemas"]["SeasonCreate"]["properties"]
    assert "toy" in body["format"]["enum"]
    assert body["laps"]["minimum"] == 1 and body["laps"]["maximum"] == 9
    page_form = spec["paths"]["/seasons/new/"]["post"]["requestBody"]["content"]
    assert "laps" in page_form["application/x-www-form-urlencoded"]["schema"]["properties"]

    parser = argparse.ArgumentParser(prog="season create")
    cli.add_create_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "toy: Toy (made up by a test: two sides, some laps)" in text
    assert "options of format toy: --laps N times round the toy track" in text
    assert parser.parse_args(["x", "--bot", "a", "--format", "toy", "--laps", "3"]).laps == 3


def test_a_new_format_s_options_are_stored_and_refused_to_the_others(
    toy: type[formats.SeasonFormat], entrants: list[BotVersion]
) -> None:
    scopa = variants.get_variant("scopa")
    season = seasons.create_season(
        name="toy", variant=scopa, entrants=entrants, format="toy", laps=3
    )
    assert (season.format, season.format_options) == ("toy", {"laps": 3})
    with pytest.raises(
        LeagueError, match="laps 3: only a toy season runs laps, not format 'swiss'"
    ):
        seasons.create_season(
            name="swiss", variant=scopa, entrants=entrants, format="swiss", laps=3
        )
    with pytest.raises(LeagueError, match="laps must be between 1 and 9, not 10"):
        seasons.create_season(name="long", variant=scopa, entrants=entrants, format="toy", laps=10)
    assert list(Season.objects.values_list("name", flat=True)) == ["toy"]


def test_an_option_of_another_format_left_at_its_default_is_ignored_and_else_refused() -> None:
    every = formats.every_option()
    swiss = formats.FORMATS["swiss"]
    given = {"knockout_size": 0, "double_round_robin": False, "rounds": 4}
    assert swiss.options_from(given, every) == SwissOptions(rounds=4)
    with pytest.raises(
        formats.FormatError,
        match=r"^double_round_robin True: a double round-robin is a round-robin, not format "
        r"'swiss'$",
    ):
        swiss.options_from({"double_round_robin": True}, every)
    with pytest.raises(formats.FormatError, match=r"^option 'laps': no format takes it \(the "):
        swiss.options_from({"laps": 2}, every)
    with pytest.raises(formats.FormatError, match=r"^rounds must be between 1 and 255, not 0$"):
        swiss.options_from({"rounds": 0}, every)
    tables = formats.FORMATS["tables"]
    assert tables.options_from({"rounds": None}, every) == formats.FormatOptions()


def test_options_are_stored_as_json_and_read_back_with_their_defaults() -> None:
    chosen = RoundRobinOptions(knockout_size=4)
    assert chosen.to_json() == {"knockout_size": 4, "double_round_robin": False}
    assert RoundRobinOptions.from_json({"knockout_size": 4, "gone": 1}) == chosen
    assert RoundRobinOptions.from_json(None) == RoundRobinOptions()
    assert [(o.name, o.flag, o.kind) for o in RoundRobinOptions.declared()] == [
        ("knockout_size", "--knockout", int),
        ("double_round_robin", "--double", bool),
    ]


def test_two_formats_may_not_declare_one_option_differently(
    toy: type[formats.SeasonFormat], monkeypatch: pytest.MonkeyPatch
) -> None:
    @dataclass(frozen=True)
    class Clash(FormatOptions):
        rounds: int = option(1, label="Rounds", help="not the Swiss's", lo=1, hi=3)

    monkeypatch.setattr(toy, "Options", Clash)
    with pytest.raises(TypeError, match="option 'rounds' is declared twice, differently"):
        formats.every_option()
