"""Helpers of the worker tests: uploaded bots (a playable archive, stored as the site stores
it). Worker processes are :mod:`live_workers`'s."""

from __future__ import annotations

import io
import zipfile
from typing import Any

BOT_PY = """from arena.sdk import Bot, serve


class First(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(First())
"""


def playable_zip(name: str) -> bytes:
    """A bot archive that passes the upload checks and plays (always its first legal move)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "bot.toml",
            f'name = "{name}"\nversion = "1.0.0"\nauthor = "Tester"\n'
            'command = ["python", "bot.py"]\nvariants = ["*"]\n',
        )
        archive.writestr("lib/notes.txt", "a file in a subfolder\n")
        archive.writestr("bot.py", BOT_PY)
    return buffer.getvalue()


def folder_files(folder: Any) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def archive_files(data: bytes) -> dict[str, bytes]:
    """Every file of an archive by its path, as the site unpacks it."""
    from arena.archives import read_archive

    return {f.path: f.data for f in read_archive(data)[1]}
