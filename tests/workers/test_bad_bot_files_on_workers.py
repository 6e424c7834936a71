"""A version whose own files the sandbox cannot take fails its validation once, on a real worker:
an archive stored before the bounds existed (2,000 nested folders), a bot folder nested past
them, and one holding a named pipe. Each is the bot's fault, recorded with the bound it passed,
never retried as a failure of the host (the sandbox's copy failed: a void game, retried, and
re-sent by the sweep)."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any

from archive_samples import deep_zip

MANIFEST = {"name": "deep", "version": "1", "command": ["python", "bot.py"], "variants": ["*"]}


def settled(version: Any, live: Any, timeout_s: float = 120.0) -> Any:
    """The version once a worker has recorded its validation."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        version.refresh_from_db()
        if version.status != "validating":
            return version
        time.sleep(0.3)
    raise AssertionError(f"{version.label} still validating\n{live.logs()}")


def test_deep_or_piped_bot_files_each_fail_once_as_the_bots_fault(
    live: Any, tmp_path: Path
) -> None:
    from django.contrib.auth.models import User

    from arena.archives import MAX_PATH_DEPTH
    from webui.league import versions

    owner = User.objects.create_user("owner")
    data = deep_zip()
    sha256 = hashlib.sha256(data).hexdigest()
    versions.store_archive(sha256, "zip", data)  # as an upload stored before the bounds
    stored, _ = versions.register_version(
        versions.create_bot(owner, "deep"),
        sha256=sha256,
        manifest=MANIFEST,
        source_dir=f"bots/{sha256}",
    )
    folder = tmp_path / "folder-bot"
    (folder / "/".join(["d"] * (MAX_PATH_DEPTH + 10))).mkdir(parents=True)
    (folder / "bot.toml").write_text(
        'name = "deep-folder"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    (folder / "bot.py").write_text("print(1)\n")
    given, _ = versions.register_version(
        versions.create_bot(owner, "deep-folder"),
        sha256="f" * 64,
        manifest={**MANIFEST, "name": "deep-folder"},
        source_dir=str(folder),
    )
    piped = tmp_path / "piped-bot"
    piped.mkdir()
    (piped / "bot.toml").write_text((folder / "bot.toml").read_text().replace("deep-", "piped-"))
    (piped / "bot.py").write_text("print(1)\n")
    os.mkfifo(piped / "pipe")  # the sandbox's copy fails on it: it was a void game, retried
    with_pipe, _ = versions.register_version(
        versions.create_bot(owner, "piped-folder"),
        sha256="e" * 64,
        manifest={**MANIFEST, "name": "piped-folder"},
        source_dir=str(piped),
    )
    live.workers(1)
    for version, words in (
        (stored, "MAX_PATH_DEPTH"),
        (given, "MAX_PATH_DEPTH"),
        (with_pipe, "'pipe', which is not a regular file"),
    ):
        version = settled(version, live)
        assert version.status == "failed", version.status_reason
        assert words in version.status_reason
    logs = live.logs()
    assert logs.count("arena.validate_version") >= 3
    assert "Retry in" not in logs and "RecursionError" not in logs
