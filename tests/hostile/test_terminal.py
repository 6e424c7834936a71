"""A bot that writes terminal escapes into everything it says: ``arena match`` shows it as text.

The terminal-escape bot puts cursor moves, line erases, a window title, a carriage return and a
forged result line, C1 controls, bidirectional overrides and ``rich`` markup into its
``Describe`` fields, the reason of each fallback, the status it ends its stream with and its
log. The command line's output (with and without ``--json``), the replays and the log files
must hold none of those characters, and show the bot's words as escapes, as written.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hostile_helpers import hostile, verify_replays

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SHOWN = "\\x1b[2J\\x1b[H\\x1b]0;owned by terminal-escape\\x07"
MARKUP = "[bold red]FORGED[/] [link=https://evil.example/]click[/link]\\u202eevil\\u2066"


def controls(data: bytes) -> list[str]:
    """Every control, format or separator character of ``data`` (UTF-8) but newlines."""
    text = data.decode("utf-8")
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c != "\n" and unicodedata.category(c) in {"Cc", "Cf", "Cs", "Zl", "Zp"}
    ]


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """Runs the ``arena`` command as an operator would, in a wide terminal-less console."""
    env = {**os.environ, "COLUMNS": "1000", "TERM": "xterm-256color"}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done


def test_a_bots_escapes_reach_the_terminal_only_as_text(bwrap: str, tmp_path: Path) -> None:
    bot = str(hostile("terminal-escape").folder)
    done = arena("match", bot, "random", "--games", "2", "--replays", str(tmp_path))
    assert controls(done.stdout) == [] and controls(done.stderr) == []
    out = done.stdout.decode()
    # The faults are shown, with the bot's words as escapes and its markup as brackets.
    fallbacks = [line for line in out.splitlines() if "fallback not chosen by the bot:" in line]
    assert len(fallbacks) == 6
    assert all(SHOWN in line and MARKUP in line for line in fallbacks)
    assert out.count(f"crash UNKNOWN: {SHOWN}") == 2
    assert "\\x0d| random@1.0.0 | 2 | 0 | 2 | 0 | forged |\\x0a" in out  # not a line of its own
    # The replays and the logs keep the same words, as text.
    verify_replays(tmp_path)
    for path in sorted(tmp_path.glob("game-*.json")):
        replay = json.loads(path.read_text())
        reason = replay["result"]["forfeit"]["reason"]
        assert reason.startswith(f"crash: UNKNOWN: {SHOWN}"), reason
        assert [f["kind"] for f in replay["faults"]] == ["fallback"] * 3 + ["crash"]
        assert controls(path.read_bytes()) == []
    logs = sorted((tmp_path / "logs").glob("entrant0-*.log"))
    assert logs
    for path in logs:
        text = path.read_bytes()
        assert controls(text.replace(b"\t", b"")) == []
        assert f"terminal-escape: starting {SHOWN}".encode() in text


def test_the_json_report_carries_the_bots_words_as_text(bwrap: str) -> None:
    done = arena(
        "match", str(hostile("terminal-escape").folder), "random", "--games", "2", "--json"
    )
    assert b"\x1b" not in done.stdout and controls(done.stdout) == []
    report = json.loads(done.stdout)
    for game in report["games"]:
        for fault in game["faults"]:
            assert not any(unicodedata.category(c) == "Cc" for c in fault["detail"]), fault
            assert SHOWN in fault["detail"]
        assert game["forfeit"]["reason"].startswith(f"crash: UNKNOWN: {SHOWN}")


def test_what_a_bot_says_of_itself_is_shown_as_text(bwrap: str, tmp_path: Path) -> None:
    # A bot its author runs (grpc://) is named by its Describe answer: name, version, author.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SCOPA_BOT_ADDRESS": f"127.0.0.1:{port}"}
    folder = hostile("terminal-escape").folder
    assert folder is not None
    process = subprocess.Popen(
        [sys.executable, "bot.py"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith(b"LISTENING")
        described = arena("bot", "describe", f"grpc://127.0.0.1:{port}")
        assert controls(described.stdout) == []
        lines = described.stdout.decode().splitlines()
        assert lines[:3] == [
            "name: terminal-escape\\x1b]0;title\\x07",
            "version: 1\\x1b[31m\\u202e0",
            "author: [bold]me[/]\\x1b[2J",
        ]
        done = arena("match", f"grpc://127.0.0.1:{port}", "random", "--games", "2")
        assert controls(done.stdout) == [] and controls(done.stderr) == []
        assert "terminal-escape\\x1b]0;title\\x07 (1\\x1b[31m\\u202e0)" in done.stdout.decode()
    finally:
        process.kill()
        process.wait()
