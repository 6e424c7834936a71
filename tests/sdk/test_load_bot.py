"""``arena.sdk.launch.load_bot``: a Python SDK bot made in this process by its own script."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from arena.engine import Game, rules_for
from arena.sdk import Bot
from arena.sdk.launch import load_bot

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"


def positions(count: int) -> list[tuple[object, list[object]]]:
    """Observations and legal moves met in random games of scopa."""
    out = []
    for seed in range(count):
        game = Game(rules_for("scopa"), seed)
        rng = random.Random(seed)
        deal = game.new_deal()
        while not deal.is_over():
            out.append((deal.observation(deal.to_move), deal.legal_moves()))
            deal.apply(rng.choice(deal.legal_moves()))
    return out


def test_the_greedy_bot_loaded_chooses_as_its_policy() -> None:
    from sample_bots.greedy.policy import choose_move

    bot = load_bot(SAMPLES / "greedy")
    assert isinstance(bot, Bot) and bot.name == "greedy"
    for obs, legal in positions(20):
        assert bot.choose(obs, legal) == choose_move(obs, legal)  # type: ignore[arg-type]


def test_it_passes_the_commands_arguments_or_the_ones_given() -> None:
    from_manifest = load_bot(SAMPLES / "ismcts")  # bot.toml: --time 0.25
    assert from_manifest.config.time_limit == 0.25  # type: ignore[attr-defined]
    given = load_bot(SAMPLES / "ismcts", ["--iterations", "30"])
    assert given.config.iterations == 30  # type: ignore[attr-defined]
    assert given.config.time_limit is None  # type: ignore[attr-defined]


def test_it_leaves_the_process_arguments_as_they_were() -> None:
    before = list(sys.argv)
    load_bot(SAMPLES / "random", ["--seed", "3"])
    assert sys.argv == before


def test_it_refuses_a_bot_that_is_not_python() -> None:
    with pytest.raises(ValueError, match="is not a Python bot"):
        load_bot(SAMPLES / "js-random")


def test_it_refuses_a_script_that_serves_no_bot(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        'name = "quiet"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (tmp_path / "bot.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match=r"did not call arena\.sdk\.serve"):
        load_bot(tmp_path)


def test_it_refuses_a_script_that_exits(tmp_path: Path) -> None:
    (tmp_path / "bot.toml").write_text(
        'name = "exits"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (tmp_path / "bot.py").write_text("raise SystemExit(3)\n")
    with pytest.raises(ValueError, match=r"exited \(3\)"):
        load_bot(tmp_path)
