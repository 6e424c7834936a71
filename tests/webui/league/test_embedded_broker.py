"""The embedded broker (kombu's ``filesystem://`` transport under ``$ARENA_DATA_DIR/broker``):
a message is never seen half-written, and a message a worker cannot read costs that message,
never the worker (which would leave a season waiting for ever)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from queue import Empty

import pytest
from kombu import Connection
from kombu.transport import filesystem as kombu_filesystem

from webui.league.queue import FilesystemTransport
from webui.local_workers import LocalWorkers


def connection(folder: Path, transport: type = FilesystemTransport) -> Connection:
    folder.mkdir(parents=True, exist_ok=True)
    return Connection(
        transport=transport,
        transport_options={
            "data_folder_in": str(folder),
            "data_folder_out": str(folder),
            "control_folder": str(folder.parent / "control"),
            "polling_interval": 0.01,
        },
    )


def test_a_message_is_written_aside_and_renamed_into_place_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "queue"
    written: list[tuple[str, int]] = []  # (name, size) of each file a reader could take
    with connection(folder) as conn:
        channel = conn.default_channel
        channel.queue_declare(queue="q")
        real_replace = os.replace

        def replace(source: str, target: str) -> None:
            # Up to the rename, no file a reader takes exists: only the hidden one, whole.
            assert [p.name for p in folder.iterdir() if not p.name.startswith(".")] == []
            hidden = Path(source)
            assert hidden.name.startswith(".") and hidden.parent == folder
            written.append((Path(target).name, hidden.stat().st_size))
            real_replace(source, target)

        monkeypatch.setattr(os, "replace", replace)  # a spy: the real rename still happens
        channel._put("q", {"body": "x" * 10_000})
        monkeypatch.undo()
        names = [p.name for p in folder.iterdir()]
        assert len(names) == 1 and names == [written[0][0]] and names[0].endswith(".q.msg")
        assert written[0][1] == (folder / names[0]).stat().st_size > 10_000
        assert channel._size("q") == 1
        assert channel._get("q") == {"body": "x" * 10_000}
        assert list(folder.iterdir()) == []


def test_a_hidden_file_is_neither_counted_nor_taken(tmp_path: Path) -> None:
    folder = tmp_path / "queue"
    with connection(folder) as conn:
        channel = conn.default_channel
        (folder / ".1_half-written.q.msg").write_bytes(b'{"bo')
        assert channel._size("q") == 0
        with pytest.raises(Empty):
            channel._get("q")
        assert (folder / ".1_half-written.q.msg").exists()


def test_an_unreadable_message_is_dropped_and_the_next_one_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "queue"
    with connection(folder) as conn:
        channel = conn.default_channel
        # Read in name order: both come before any message _put names (by the clock).
        (folder / "00_empty.q.msg").write_bytes(b"")
        (folder / "0_garbage.q.msg").write_bytes(b"\xff not json")
        channel._put("q", {"body": "after"})
        assert channel._size("q") == 3
        assert channel._get("q") == {"body": "after"}
        assert list(folder.iterdir()) == []
    dropped = [r for r in caplog.records if "cannot read" in r.getMessage()]
    assert len(dropped) == 2


def test_the_stock_channel_fails_on_the_empty_file_it_can_meet(tmp_path: Path) -> None:
    """The control: kombu's own channel raises where the arena's drops the message, and the
    exception ends a worker's consumer."""
    folder = tmp_path / "queue"
    with connection(folder, kombu_filesystem.Transport) as conn:
        (folder / "1_empty.q.msg").write_bytes(b"")
        with pytest.raises(ValueError):
            conn.default_channel._get("q")


@pytest.mark.slow
def test_a_worker_lives_through_messages_it_cannot_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {
        "ARENA_DATA_DIR": str(data),
        "ARENA_BROKER_URL": "",
        "ARENA_QUEUE": "embedded-q",
        "ARENA_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    logs = tmp_path / "logs"
    pool = LocalWorkers(1, env=env, log_dir=logs, loglevel="INFO").start()
    queue = data / "broker" / "queue"
    worker = pool.processes[0]

    def log() -> str:
        return "".join(p.read_text(errors="replace") for p in logs.glob("*.log"))

    try:
        deadline = time.monotonic() + 60
        while " ready." not in log():
            assert worker.poll() is None, log()
            assert time.monotonic() < deadline, f"the worker never got ready:\n{log()}"
            time.sleep(0.1)
        # What stock kombu left for a moment at each message: a file of that name, empty.
        for step, body in enumerate([b"", b"[1, 2", json.dumps({"no": "envelope"}).encode()]):
            (queue / f"{step}_bad.embedded-q.msg").write_bytes(body)
            deadline = time.monotonic() + 30
            while any(queue.glob("*.msg")):
                assert worker.poll() is None, log()
                assert time.monotonic() < deadline, f"the worker stopped reading:\n{log()}"
                time.sleep(0.05)
        time.sleep(1.0)
        assert worker.poll() is None, log()
        assert log().count("dropped a message it cannot read") == 2
    finally:
        pool.stop()
