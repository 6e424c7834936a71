"""The arena's games as training data: a file of ``arena games download`` read as engine games.

A download is gzip-compressed JSON Lines (``.jsonl.gz``, one gzip member per page, so
``zcat`` reads it whole; a plain ``.jsonl`` reads too), one game a line: its ``id``,
``match``, ``kind``, ``variant``, ``rated``, ``created``, ``players`` and ``replay``
(REPLAY.md). :func:`read_games` gives each line as an :class:`ExportedGame`;
:meth:`ExportedGame.decisions` walks its replay through the engine (as ``arena replay
verify`` does) and gives every decision a seat took: the seat's :class:`Observation`, the
legal moves in the engine's order, and the move played, ready for supervised learning.
:func:`read_decisions` does both for a whole file.

A file cut short (a download stopped while it wrote) reads up to its last whole page:
:func:`scan` says where that is, and the download resumes from there. A download's first
gzip member is empty and carries its filters in the gzip header's comment
(:func:`filters_member`; ``zcat`` and the readers here see no line of it): a resume with
other filters is refused. Not a data loader of any learning library: what to make of an
observation (tensors, masks) is the caller's (``arena.env`` has an encoding).

>>> from arena.engine import rules_for, random_game_replay
>>> line = {"id": 7, "variant": "scopa", "replay": random_game_replay(rules_for("scopa"), 3)}
>>> game = ExportedGame.from_json(line)
>>> first = next(game.decisions())
>>> first.played in first.legal_moves, first.seat == first.observation.seat
(True, True)
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from arena.engine import EngineError, Game, Move, Observation, ReplayError, Rules, Seat
from arena.engine.replay import check_replay, deal_of

GZIP_MAGIC = b"\x1f\x8b"
READ_BYTES = 1024 * 1024
FILTERS_MARK = "arena-export-filters "
"""How the gzip comment of a download's first member begins (then its filters as JSON)."""
_FCOMMENT, _FEXTRA, _FNAME, _FHCRC = 0x10, 0x04, 0x08, 0x02


class GamesFileError(ValueError):
    """A games file that cannot be read (the message names the file and the line)."""


@dataclass(frozen=True)
class Decision:
    """One move a seat chose: what it saw, what it could play, and what it played.

    ``auto`` is why the arena played the move for the seat (``"timeout"``), else None: such
    a move is no choice of the bot's, and a learner may skip it.
    """

    game: int
    deal: int
    move: int
    seat: Seat
    observation: Observation
    legal_moves: tuple[Move, ...]
    played: Move
    auto: str | None = None

    @property
    def index(self) -> int:
        """The played move's index among :attr:`legal_moves`."""
        return self.legal_moves.index(self.played)


@dataclass(frozen=True)
class ExportedGame:
    """One game of a download: who played, where, and its replay."""

    id: int
    variant: str
    replay: Mapping[str, Any]
    match: int | None = None
    kind: str = ""
    rated: bool | None = None
    created: str = ""
    players: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def from_json(cls, line: Mapping[str, Any]) -> ExportedGame:
        """A game from its line's JSON object."""
        if not isinstance(line, Mapping) or not isinstance(line.get("replay"), Mapping):
            raise GamesFileError("a line is a JSON object with a 'replay'")
        return cls(
            id=int(line.get("id") or 0),
            variant=str(line.get("variant") or ""),
            replay=line["replay"],
            match=line.get("match"),
            kind=str(line.get("kind") or ""),
            rated=line.get("rated"),
            created=str(line.get("created") or ""),
            players=tuple(str(p) for p in line.get("players") or ()),
        )

    @property
    def rules(self) -> Rules:
        """The game's rules (its replay's variant and options)."""
        return check_replay(self.replay)

    def decisions(self) -> Iterator[Decision]:
        """Every move of the game in order, each with the observation of the seat that played
        it and the legal moves it had; raises :class:`ReplayError` at a move the engine
        refuses (a replay that ``arena replay verify`` would reject)."""
        rules = check_replay(self.replay)
        game = Game(rules, self.replay.get("seed") or 0)
        for i, raw in enumerate(self.replay["deals"]):
            if i == 0:
                game.dealer = raw["dealer"]
            deal = game.prepare(deal_of(rules, raw, i))
            for j, raw_move in enumerate(raw["moves"]):
                seat = raw_move["seat"]
                if deal.is_over() or seat != deal.to_move:
                    raise ReplayError(f"seat {seat} cannot play now", i, j)
                observation = deal.observation(seat)
                legal = tuple(deal.legal_moves())
                played = Move.from_json(raw_move)
                try:
                    deal.apply(played)
                except EngineError as exc:
                    raise ReplayError(f"seat {seat}: {exc}", i, j) from None
                auto = raw_move.get("auto")
                yield Decision(
                    self.id, i, j, seat, observation, legal, played, str(auto) if auto else None
                )
            if not deal.is_over():
                break  # a game stopped part way (a forfeit)
            game.finish_deal(deal)


@dataclass(frozen=True)
class Scan:
    """What a games file holds: its games, the last game's id (the download's cursor), the
    bytes up to the end of its last whole page (what follows is a page cut short), and the
    filters it was downloaded with (None: the file does not say)."""

    games: int
    last_id: int
    good_bytes: int
    size: int
    filters: dict[str, str] | None = None


def filters_member(filters: Mapping[str, str]) -> bytes:
    """An empty gzip member whose header's comment records a download's ``filters``.

    >>> member = filters_member({"rated": "true"})
    >>> import gzip; gzip.decompress(member), _member_filters(member)
    (b'', {'rated': 'true'})
    """
    comment = (FILTERS_MARK + json.dumps(dict(sorted(filters.items())))).encode("ascii")
    packer = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    body = packer.compress(b"") + packer.flush()
    header = GZIP_MAGIC + bytes([8, _FCOMMENT, 0, 0, 0, 0, 0, 255])
    trailer = zlib.crc32(b"").to_bytes(4, "little") + (0).to_bytes(4, "little")
    return header + comment + b"\0" + body + trailer


def _member_filters(head: bytes) -> dict[str, str] | None:
    """The filters recorded in the comment of the gzip member ``head`` begins with."""
    if len(head) < 10 or head[:3] != GZIP_MAGIC + b"\x08" or not head[3] & _FCOMMENT:
        return None
    flags, at = head[3], 10
    if flags & _FEXTRA:
        at += 2 + int.from_bytes(head[at : at + 2], "little")
    if flags & _FNAME:
        at = head.find(b"\0", at) + 1
        if at == 0:
            return None
    end = head.find(b"\0", at)
    comment = head[at:end].decode("latin-1") if end >= 0 else ""
    if not comment.startswith(FILTERS_MARK):
        return None
    try:
        found = json.loads(comment[len(FILTERS_MARK) :])
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    return {str(k): str(v) for k, v in found.items()}


def _pages(handle: BinaryIO) -> Iterator[tuple[int, bytes]]:
    """The gzip members read from ``handle``: each one's end offset and its text; stops at
    one cut short or damaged (memory: one page at a time)."""
    offset = 0
    buffer = b""
    while True:
        unpacker = zlib.decompressobj(16 + zlib.MAX_WBITS)
        parts: list[bytes] = []
        consumed = 0
        while not unpacker.eof:
            if not buffer:
                buffer = handle.read(READ_BYTES)
                if not buffer:
                    return
            try:
                parts.append(unpacker.decompress(buffer))
            except zlib.error:
                return
            consumed += len(buffer) - len(unpacker.unused_data)
            buffer = unpacker.unused_data
        offset += consumed
        yield offset, b"".join(parts)


def _lines(path: Path) -> Iterator[tuple[int, dict[str, Any] | None]]:
    """Each whole page's lines as JSON objects, with the byte offset where the page ends;
    then None with that offset, the page's end (a page may hold no line)."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise GamesFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    with handle:
        if handle.read(2) == GZIP_MAGIC:
            handle.seek(0)
            pages = _pages(handle)
        else:  # plain JSON Lines (zcat'ed): whole lines only
            handle.seek(0)
            data = handle.read()
            end = data.rfind(b"\n") + 1
            pages = iter([(end, data[:end])])
        number = 0
        for end, text in pages:
            for raw in text.splitlines():
                number += 1
                if not raw.strip():
                    continue
                try:
                    line = json.loads(raw)
                except ValueError as exc:
                    raise GamesFileError(f"{path}: line {number} is not JSON: {exc}") from None
                yield end, line
            yield end, None


def scan(path: str | Path) -> Scan:
    """How far a games file got (a missing file holds nothing)."""
    path = Path(path)
    if not path.exists():
        return Scan(0, 0, 0, 0)
    try:
        with path.open("rb") as handle:
            head = handle.read(READ_BYTES)
    except OSError as exc:
        raise GamesFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    games = last = good = 0
    for end, line in _lines(path):
        good = end
        if line is not None:
            games += 1
            last = max(last, int(line.get("id") or 0))
    return Scan(games, last, good, path.stat().st_size, _member_filters(head))


def read_games(path: str | Path) -> Iterator[ExportedGame]:
    """Every game of a download, in the file's order (a page cut short is left out)."""
    for _, line in _lines(Path(path)):
        if line is not None:
            yield ExportedGame.from_json(line)


def read_decisions(path: str | Path) -> Iterator[Decision]:
    """Every decision of every game of a download, game after game."""
    for game in read_games(path):
        yield from game.decisions()


def open_text(path: str | Path) -> Any:
    """A games file as text lines (gzip or not): for a quick look, ``gzip.open`` semantics."""
    path = Path(path)
    with path.open("rb") as handle:
        magic = handle.read(2)
    return (
        gzip.open(path, "rt", encoding="utf-8")
        if magic == GZIP_MAGIC
        else path.open(encoding="utf-8")
    )
