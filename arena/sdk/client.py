"""A small client of the site's JSON API for bot authors: who am I, create a bot, upload a
version (with progress), follow its validation.

Standard library only (``http.client``), so ``arena login`` and ``arena bot submit`` need
nothing the arena does not have. Every failure is a :class:`ClientError` with one line: the
site's own ``{"error": ...}`` when it answered, else what went wrong on the way (no answer,
not the site's API). It never retries a write: an upload that may have happened is reported,
and uploading the same archive again is harmless (the site keeps one version per archive).
"""

from __future__ import annotations

import http.client
import json
import socket
import ssl
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

CHUNK = 64 * 1024
TIMEOUT_S = 30.0


class ClientError(ValueError):
    """A request that failed; ``status`` is the site's HTTP status (0: no answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = 0.0


class ArenaClient:
    """The API of the site at ``server`` (``http://host:port``), as the token's user."""

    def __init__(self, server: str, token: str = "", timeout: float = TIMEOUT_S) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        parts = urlsplit(self.server)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")

    def url(self, path: str) -> str:
        """The full address of a path of the site."""
        return self.server + path

    # --- the calls -------------------------------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The token's user: ``username``, ``staff`` and the names of their ``bots``."""
        return self.request("GET", "/api/me")

    def bot(self, name: str) -> dict[str, Any] | None:
        """A bot's page data, or None when there is no such bot."""
        try:
            return self.request("GET", f"/api/bots/{quote(name)}")
        except ClientError as exc:
            if exc.status == 404:
                return None
            raise

    def create_bot(self, name: str, description: str = "") -> dict[str, Any]:
        """Creates a bot owned by the token's user."""
        body = json.dumps({"name": name, "description": description}).encode()
        return self.request("POST", "/api/bots", body, "application/json")

    def upload_version(
        self,
        name: str,
        archive: bytes,
        progress: Callable[[int, int], None] | None = None,
        *,
        test_then_promote: bool = False,
    ) -> dict[str, Any]:
        """Uploads a ``.tar.gz`` as a new version of bot ``name``; ``progress(sent, total)``
        is called as the bytes go. The answer has ``created_now`` False when the site already
        had this archive as a version, and a ``warning`` naming a version of identical code.
        ``test_then_promote``: the site promotes the version to the ladder when a version test
        of it accepts H1."""
        path = f"/api/bots/{quote(name)}/versions"
        if test_then_promote:
            path += "?test_then_promote=true"
        return self.request("POST", path, archive, "application/gzip", progress)

    def promote(self, name: str, number: int) -> dict[str, Any]:
        """Makes version ``number`` bot ``name``'s ladder version (the owner's token); the
        answer is the bot's ladder entry."""
        body = json.dumps({"version": int(number)}).encode()
        return self.request("POST", f"/api/bots/{quote(name)}/promote", body, "application/json")

    def version(self, name: str, number: int) -> dict[str, Any]:
        """A version, with its validation log when the token's user owns it."""
        return self.request("GET", f"/api/bots/{quote(name)}/versions/{number}")

    def games(self, name: str, limit: int = 10) -> list[dict[str, Any]]:
        """A bot's latest games, newest first, each with the bot's ``result``."""
        answer = self.request("GET", f"/api/bots/{quote(name)}/games?limit={int(limit)}")
        return list(answer.get("games") or [])

    def ladder_entry(self, name: str) -> dict[str, Any]:
        """A bot's ladder entry (``entry`` None before a version passed validation) and the
        status of each of its versions."""
        return self.request("GET", f"/api/bots/{quote(name)}/ladder")

    def validation_frames(self, name: str, number: int) -> dict[str, Any] | None:
        """The version's validation game as viewer frames, or None when it has none."""
        try:
            return self.request(
                "GET", f"/api/bots/{quote(name)}/versions/{number}/validation/frames"
            )
        except ClientError as exc:
            if exc.status == 404:
                return None
            raise

    def export_page(self, query: Mapping[str, str | int]) -> tuple[bytes, dict[str, str]]:
        """One page of ``/api/games/export`` (gzip JSON Lines) and its headers (lower-case
        names). A refusal is a :class:`ClientError`; a 429's ``retry_after`` says when to ask
        again."""
        path = "/api/games/export?" + urlencode({k: str(v) for k, v in query.items()})
        headers = {"Accept": "application/gzip", "User-Agent": "arena-cli"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        connection = self._connection()
        try:
            connection.request("GET", self._prefix + path, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            answer = {name.lower(): value for name, value in response.getheaders()}
        except (OSError, http.client.HTTPException) as exc:
            raise ClientError(f"cannot reach {self.server}: {_reason(exc)}") from None
        finally:
            connection.close()
        if response.status == 200:
            return raw, answer
        try:
            _answer(self.server, "GET", path, response.status, raw)
        except ClientError as exc:
            exc.retry_after = float(answer.get("retry-after") or 0)
            raise
        raise ClientError(
            f"{self.server}{path} answered GET with HTTP {response.status}", response.status
        )

    # --- the transport ---------------------------------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(
                self._host, self._port, timeout=self.timeout, context=ssl.create_default_context()
            )
        return http.client.HTTPConnection(self._host, self._port, timeout=self.timeout)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Any]:
        """Sends one request and returns its JSON object, or raises :class:`ClientError`."""
        headers = {"Accept": "application/json", "User-Agent": "arena-cli"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            headers["Content-Type"] = content_type or "application/octet-stream"
            headers["Content-Length"] = str(len(body))
        connection = self._connection()
        try:
            connection.request(
                method,
                self._prefix + path,
                body=None if body is None else _chunks(body, progress),
                headers=headers,
            )
            response = connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise ClientError(f"cannot reach {self.server}: {_reason(exc)}") from None
        finally:
            connection.close()
        return _answer(self.server, method, path, response.status, raw)


def _chunks(body: bytes, progress: Callable[[int, int], None] | None) -> Iterator[bytes]:
    total = len(body)
    if progress is not None:
        progress(0, total)
    for start in range(0, total, CHUNK):
        chunk = body[start : start + CHUNK]
        yield chunk
        if progress is not None:
            progress(start + len(chunk), total)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, socket.timeout | TimeoutError):
        return "no answer in time"
    if isinstance(exc, ssl.SSLError):
        return f"TLS failed ({exc.reason or exc})"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def _answer(server: str, method: str, path: str, status: int, raw: bytes) -> dict[str, Any]:
    """The JSON object of a success, or the site's one-line error as a :class:`ClientError`."""
    try:
        data = json.loads(raw) if raw else None
    except ValueError:
        data = None
    if 200 <= status < 300 and isinstance(data, dict):
        return data
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        raise ClientError(data["error"], status)
    if 200 <= status < 300:
        raise ClientError(
            f"{server}{path} answered {method} with something that is not JSON; "
            "is this a Scopa Arena site?",
            status,
        )
    raise ClientError(
        f"{server}{path} answered {method} with HTTP {status}; is this a Scopa Arena site?", status
    )
