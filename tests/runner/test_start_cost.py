"""What a sandboxed Python seat does before ``LISTENING`` that is the arena's part: it reads the
bytecode the runner wrote (the sandbox cannot write its own), never imports the editable
install's finder nor the engine's replays, and runs with frozen standard modules."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest
from runner_helpers import require

from arena.runner.process import BotProcess
from arena.runner.sandbox import Limits

pytestmark = [pytest.mark.sandbox]

PROBE_BOT = """
import importlib.util
import os
import sys

import helper
import arena.sdk.server
from arena.sdk import Bot, serve


def cached(module):
    return os.path.exists(importlib.util.cache_from_source(module.__file__))


print("CHECK arena_cached", cached(arena.sdk.server), file=sys.stderr)
print("CHECK helper_cached", cached(helper), file=sys.stderr)
print("CHECK finder", any(name.startswith("__editable__") for name in sys.modules),
      file=sys.stderr)
print("CHECK replay", "arena.engine.replay" in sys.modules, file=sys.stderr)
print("CHECK frozen", sys._xoptions.get("frozen_modules"), file=sys.stderr, flush=True)


class Probe(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


if __name__ == "__main__":
    serve(Probe())
"""


def checks(log: str) -> dict[str, str]:
    return dict(re.findall(r"CHECK (\w+) (\S+)", log))


@pytest.mark.parametrize("fork", [False, True], ids=["exec", "forked"])
def test_a_sandboxed_python_seat_starts_on_the_runners_bytecode_and_no_more(
    bwrap: str, tmp_path: Path, fork: bool
) -> None:
    folder = tmp_path / "probe"
    folder.mkdir()
    (folder / "bot.py").write_text(PROBE_BOT)
    (folder / "helper.py").write_text("VALUE = 1\n")
    process = BotProcess(
        label="probe",
        command=["python", "bot.py"],
        folder=folder,
        limits=Limits(),
        sandboxed=True,
        python=True,
        fork=fork,
    )
    try:
        process.start()
        deadline = time.monotonic() + 10
        while len(checks(process.log.text())) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        process.close()
    if fork:  # where the runner can fork seats (root, a freezer group): the CI's machine
        require(process.forked, "a runner that forks Python seats")
    assert checks(process.log.text()) == {
        "arena_cached": "True",
        "helper_cached": "True",
        # A forked seat has what the fork server imported (the editable install's finder
        # among them, at no cost to the seat); one started by exec does without it.
        "finder": str(process.forked),
        "replay": "False",
        "frozen": "on",
    }, process.log.text()
    # The bytecode went to the seat's private copy: the bot's own folder is left as it was.
    assert not (folder / "__pycache__").exists()


def test_compiling_a_bots_copy_follows_none_of_its_links(tmp_path: Path) -> None:
    from arena.runner.sandbox import compile_bot_folder

    host = tmp_path / "host"
    host.mkdir()
    (host / "settings.py").write_text('SECRET_KEY = "of the host"\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    bot = tmp_path / "bot"
    (bot / "pkg").mkdir(parents=True)
    (bot / "bot.py").write_text("import helper\n")
    (bot / "helper.py").write_text("VALUE = 1\n")
    (bot / "secret.py").symlink_to(host / "settings.py")  # a host file, compiled as root
    (bot / "pkg" / "mod.py").write_text("VALUE = 2\n")
    (bot / "pkg" / "__pycache__").symlink_to(outside)  # writing here would write outside
    (bot / "hostdir").symlink_to(host)  # a linked folder: never entered

    compile_bot_folder(bot, "bot.py")

    cached = sorted(p.name for p in (bot / "__pycache__").iterdir())
    assert cached == [f"helper.{sys.implementation.cache_tag}.pyc"]  # not the main script
    assert list(outside.iterdir()) == []
    assert not (host / "__pycache__").exists()


def test_a_bot_with_only_its_main_script_starts_no_compiler(tmp_path: Path) -> None:
    from arena.runner.sandbox import compile_bot_folder

    (tmp_path / "bot.py").write_text("VALUE = 1\n")
    compile_bot_folder(tmp_path, "bot.py")
    assert not (tmp_path / "__pycache__").exists()
