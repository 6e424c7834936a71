"""The learned sample bot: trained with the environment, checked, accepted for upload, and
stronger than random through the real, sandboxed runner."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.runner import BotRef, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[2]
LEARNED = ROOT / "sample_bots" / "learned"
sys.path.insert(0, str(LEARNED))
import train  # noqa: E402  (sample_bots/learned/train.py)

TRAIN_DEALS = 400  # about 2 s on one core of the development machine
TRAIN_SEED = 1


@pytest.fixture(scope="module")
def trained() -> tuple[Any, dict[str, Any]]:
    """Weights trained from zero on a few hundred deals (deterministic for a seed)."""
    return train.train(deals=TRAIN_DEALS, seed=TRAIN_SEED)


@pytest.fixture(scope="module")
def trained_bot(
    trained: tuple[Any, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The bot folder with the freshly trained weights instead of the committed ones."""
    folder = tmp_path_factory.mktemp("learned") / "learned"
    shutil.copytree(LEARNED, folder, ignore=shutil.ignore_patterns("__pycache__"))
    weights, report = trained
    train.save(weights, report, folder / "weights.json")
    yield folder


def test_a_few_seconds_of_training_turn_a_first_move_bot_into_one_that_beats_random(
    trained: tuple[Any, dict[str, Any]],
) -> None:
    weights, report = trained
    assert report["deals"] == TRAIN_DEALS
    # Zero weights score every move alike: the bot plays the first legal move.
    untrained = train.evaluate([0.0] * len(weights), "random", games=40)
    learned = train.evaluate(weights, "random", games=40)
    # The same 80 games (40 seeds, both seats): deterministic figures, far apart.
    assert untrained["points_per_deal"] < 0 < 1.0 < learned["points_per_deal"]
    assert learned["win_rate"] > 0.75 > 0.3 > untrained["win_rate"]


@pytest.mark.sandbox
@pytest.mark.slow
def test_the_trained_bot_beats_random_through_the_sandboxed_runner(
    bwrap: str, trained_bot: Path
) -> None:
    # 8 duplicate pairs.  The trained weights win 92% of games against random (800 games in
    # process, 90-94%); losing 8 of 16 then has a probability of about 1e-5, and the points
    # margin (about +7 a game, spread about 5) is further still from zero.
    report = run_match(
        MatchSpec([BotRef.parse(str(trained_bot)), BotRef.parse("random")], "scopa", games=16)
    )
    assert report.sandboxed == [True, True]
    learned, random_bot = report.summary()
    assert learned.label == "learned (1.0.0)" and learned.games == 16
    assert learned.faults == 0 and learned.fallbacks == 0
    assert learned.wins > learned.losses
    assert learned.points > random_bot.points


def test_the_committed_weights_beat_random_and_greedy() -> None:
    weights = json.loads((LEARNED / "weights.json").read_text())["weights"]
    against_random = train.evaluate(weights, "random", games=30)
    against_greedy = train.evaluate(weights, "greedy", games=30)
    assert against_random["win_rate"] > 0.8
    assert against_greedy["points_per_deal"] > 0


def test_the_bot_passes_arena_bot_check() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "bot", "check", str(LEARNED), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"], done.stdout
    assert {c["name"] for c in report["checks"]} >= {
        "full game: scopa",
        "full game: quindici",
        "full game: scopa-assi",
    }


def test_the_bot_folder_passes_the_sites_upload_checks() -> None:
    from arena.commands.submit import _pack

    packed = _pack(str(LEARNED))
    assert packed.manifest.name == "learned"
    names = [path for path, _ in packed.files]
    assert names[0] == "bot.toml"
    assert {"bot.py", "features.py", "weights.json"} <= set(names)
    assert packed.unpacked_bytes < 100_000


def test_the_bot_plays_without_numpy() -> None:
    # The sandbox promises the interpreter and the arena package, not numpy: the bot must play
    # a whole game with numpy impossible to import.
    script = (
        "import sys; sys.modules['numpy'] = None\n"
        f"sys.path.insert(0, {str(LEARNED)!r})\n"
        "import random\n"
        "from bot import LearnedBot, load_weights\n"
        "from arena.engine import Game, rules_for\n"
        "bot = LearnedBot(load_weights()); pick = random.Random(1)\n"
        "game = Game(rules_for('scopone'), 3)\n"
        "while not game.is_over():\n"
        "    deal = game.new_deal()\n"
        "    while not deal.is_over():\n"
        "        legal = deal.legal_moves()\n"
        "        seat = deal.to_move\n"
        "        deal.apply(bot.choose(deal.observation(seat), legal) if seat % 2 == 0 else\n"
        "                   pick.choice(legal))\n"
        "    game.finish_deal(deal)\n"
        "print('numpy' in sys.modules and sys.modules['numpy'] is not None, game.winner)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "False"
