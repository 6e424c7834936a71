"""Where ``arena login`` keeps the site's address and an API token, and how commands find them.

The token is one made on the site's account page (``/accounts/``): the command line never
handles a password. It is kept in ``$XDG_CONFIG_HOME/scopa-arena/credentials.json`` (else
``~/.config/scopa-arena/credentials.json``), readable by its owner only (mode 0600, in a folder
of mode 0700), written atomically. ``ARENA_TOKEN`` and ``ARENA_SERVER`` win over the file, and
a ``--server`` option over both. This module reads and writes that file; it makes no request.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

DEFAULT_SERVER = "http://127.0.0.1:8000"
"""The site ``arena web`` and ``arena demo`` serve."""
TOKEN_ENV = "ARENA_TOKEN"
SERVER_ENV = "ARENA_SERVER"


class CredentialsError(ValueError):
    """No usable server address or token; the message says what to do, in one line."""


@dataclass(frozen=True)
class Credentials:
    """A site's address and a token for it (``token`` may be empty: not logged in)."""

    server: str
    token: str
    source: str
    """Where the token came from: ``ARENA_TOKEN``, the file's path, or ``""`` for none."""


def config_file(env: Mapping[str, str] | None = None) -> Path:
    """The credentials file of this user."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "scopa-arena" / "credentials.json"


def normalize_server(url: str) -> str:
    """``url`` without a trailing slash, or :class:`CredentialsError` when it is no site URL.

    >>> normalize_server("http://127.0.0.1:8000/")
    'http://127.0.0.1:8000'
    """
    text = url.strip().rstrip("/")
    parts = urlsplit(text)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise CredentialsError(
            f"server {url!r}: give the site's address, such as "
            f"{DEFAULT_SERVER} or https://arena.example.org"
        )
    if parts.query or parts.fragment:
        raise CredentialsError(f"server {url!r}: the site's address takes no ?query or #part")
    return text


def read_file(path: Path) -> dict[str, str]:
    """The saved ``server`` and ``token`` (empty when there is no file)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise CredentialsError(f"{path}: cannot read it ({exc}); run arena login again") from None
    if not isinstance(data, dict):
        raise CredentialsError(f"{path}: not what arena login writes; run arena login again")
    return {k: str(data[k]) for k in ("server", "token") if isinstance(data.get(k), str)}


def save(server: str, token: str, env: Mapping[str, str] | None = None) -> Path:
    """Writes the file atomically, readable by its owner only, and returns its path."""
    path = config_file(env)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, scratch = tempfile.mkstemp(prefix=".credentials-", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"server": normalize_server(server), "token": token}, handle)
            handle.write("\n")
        os.replace(scratch, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(scratch)
        raise
    return path


def resolve(server: str | None = None, env: Mapping[str, str] | None = None) -> Credentials:
    """The server to talk to and its token: ``server``, else ``ARENA_SERVER``, else the file's,
    else :data:`DEFAULT_SERVER`; the token from ``ARENA_TOKEN``, else the file's when it was
    saved for that same server."""
    env = os.environ if env is None else env
    path = config_file(env)
    saved = read_file(path)
    chosen = normalize_server(
        server or env.get(SERVER_ENV) or saved.get("server") or DEFAULT_SERVER
    )
    if env.get(TOKEN_ENV):
        return Credentials(chosen, env[TOKEN_ENV].strip(), TOKEN_ENV)
    if saved.get("token") and saved.get("server") == chosen:
        return Credentials(chosen, saved["token"], str(path))
    return Credentials(chosen, "", "")
