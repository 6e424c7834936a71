"""What the fork server imports before its first fork (:func:`arena.runner.forkserver._preload`)
is everything a Python seat's gRPC start imports: a forked seat imports nothing more on its way
to ``LISTENING`` (each import there was paid again by every seat of every game: the first
``grpc.server()`` alone imported ``grpc._server``, ``grpc._interceptor`` and
``concurrent.futures.thread``, 6 ms of CPU a seat)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SEAT_START = r"""
import json
import sys

from arena.runner import forkserver

forkserver._preload()
before = set(sys.modules)
forkserver._start_grpc("unix://" + sys.argv[1])  # what a waiting seat does
from arena.sdk import Bot
from arena.sdk.server import create_server


class Quiet(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


server, bound = create_server(Quiet(), "unix://" + sys.argv[1])
server.stop(None)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_a_forked_seat_imports_nothing_on_its_way_to_listening(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SEAT_START, str(tmp_path / "bot.sock")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []


def test_without_the_preload_the_first_grpc_server_imports_modules(tmp_path: Path) -> None:
    """The control: the same start after importing only the SDK imports what the preload
    takes care of (so the test above can fail)."""
    script = SEAT_START.replace("forkserver._preload()", "import arena.sdk")
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "bot.sock")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "grpc._server" in json.loads(done.stdout.splitlines()[-1])
