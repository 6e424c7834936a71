"""What a BOT argument names: a sample bot, a bot folder with ``bot.toml``, or a running bot.

:meth:`BotRef.parse` turns ``"greedy"``, ``"path/to/folder"`` or ``"grpc://host:port"`` into a
:class:`BotRef`; :func:`read_manifest` reads and checks a folder's ``bot.toml`` with the one parser
of :mod:`arena.manifest`, raising :class:`BotError`. Nothing here starts a process or opens a
connection.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena import manifest as manifests
from arena.manifest import MANIFEST_FILE as MANIFEST
from arena.manifest import NAME_PATTERN, Manifest, ManifestError
from arena.runner.sandbox import PROJECT_ROOT

SAMPLE_BOTS = PROJECT_ROOT / "sample_bots"
"""The arena's own bots; they are trusted (may run without a sandbox)."""


class BotError(ValueError):
    """A BOT argument or a bot manifest is not usable; the message says what and where."""


def read_manifest(folder: Path) -> Manifest:
    """Reads ``folder/bot.toml`` (see :mod:`arena.manifest`); BotError naming file and field."""
    try:
        return manifests.read_manifest(folder)
    except ManifestError as error:
        raise BotError(str(error)) from None


@dataclass(frozen=True)
class BotRef:
    """One entrant as given on the command line or by the league."""

    text: str
    folder: Path | None = None
    address: str | None = None  # host:port of a bot its author runs
    manifest: Manifest | None = field(default=None, compare=False)
    trusted: bool = False

    @classmethod
    def parse(cls, text: str) -> BotRef:
        """A sample bot's name, a bot folder, or ``grpc://HOST:PORT``. Raises BotError."""
        if text.startswith("grpc://"):
            target = text[len("grpc://") :]
            host, sep, port = target.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise BotError(f"bad bot address {text!r}: expected grpc://HOST:PORT")
            return cls(text=text, address=target)
        path = Path(text)
        is_name = NAME_PATTERN.fullmatch(text) is not None
        if is_name and not path.exists():
            path = SAMPLE_BOTS / text
            if not path.is_dir():
                known = ", ".join(sample_bot_names()) or "none installed"
                raise BotError(f"unknown bot {text!r}: not a folder nor a sample bot ({known})")
        if not path.is_dir():
            raise BotError(f"bot {text!r}: no such folder")
        folder = path.resolve()
        manifest = read_manifest(folder)
        trusted = folder.parent == SAMPLE_BOTS.resolve()
        return cls(text=text, folder=folder, manifest=manifest, trusted=trusted)

    @property
    def is_remote(self) -> bool:
        """Whether the bot is run by its author and reached over the network."""
        return self.address is not None

    @property
    def label(self) -> str:
        """``name (version)`` for a folder bot (:attr:`Manifest.label`), the address for a
        remote one."""
        if self.manifest is not None:
            return self.manifest.label
        return self.text


def sample_bot_names() -> list[str]:
    """The names of the sample bots installed with the arena."""
    if not SAMPLE_BOTS.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_BOTS.iterdir() if (p / MANIFEST).is_file())


__all__ = ["SAMPLE_BOTS", "BotError", "BotRef", "Manifest", "read_manifest", "sample_bot_names"]
