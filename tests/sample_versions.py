"""A bot whose versions are sample bots, for tests of what compares a bot's versions."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

SAMPLES = Path(__file__).resolve().parents[1] / "sample_bots"


def sample_versions(owner: Any, bot_name: str, samples: tuple[str, ...]) -> tuple[Any, list[Any]]:
    """Bot ``bot_name`` of ``owner`` with one version per sample folder, in order (unvalidated),
    the first on the ladder; returns the bot and its versions."""
    from webui.league.models import LadderEntry
    from webui.league.versions import create_bot, folder_sha256, register_version

    bot = create_bot(owner, bot_name, "")
    made = []
    for name in samples:
        folder = SAMPLES / name
        version, _ = register_version(
            bot,
            sha256=folder_sha256(folder),
            manifest=tomllib.loads((folder / "bot.toml").read_text()),
            source_dir=str(folder),
            validate=False,
        )
        made.append(version)
    LadderEntry.objects.update_or_create(bot=bot, defaults={"version": made[0]})
    return bot, made
