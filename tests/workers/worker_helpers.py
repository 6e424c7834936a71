"""Helpers of the worker tests: real worker processes (:class:`Live`) and uploaded bots (a
playable archive, stored as the site stores it)."""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Live:
    """The environment of one test's workers, and the workers it started."""

    env: dict[str, str]
    log_dir: Path
    started: list[Any] = field(default_factory=list)
    redis: Any = None  # the private redis-server, when the test has one

    def workers(self, count: int = 1, concurrency: int = 1) -> Any:
        """Starts ``count`` worker processes (stopped at the end of the test)."""
        from workers.local import LocalWorkers

        pool = LocalWorkers(count, concurrency=concurrency, env=self.env,
                            log_dir=self.log_dir, loglevel="INFO")
        self.started.append(pool)
        return pool.start()

    def logs(self) -> str:
        """Everything the workers logged, for a failing assertion's message."""
        return "\n".join(p.read_text(errors="replace")[-4000:] for p in self.log_dir.glob("*"))

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
        for path in sorted(folder.rglob("*")) if path.is_file()
    }


def archive_files(data: bytes) -> dict[str, bytes]:
    """Every file of an archive by its path, as the site unpacks it."""
    from webui.league.archives import read_archive

    return {f.path: f.data for f in read_archive(data)[1]}
