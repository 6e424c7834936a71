"""Test runs keep apart on the shared services: a database, a queue and a Redis key space of
their own, named after the run's id, and all of it gone at the end, even when the run fails."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import isolation as testing
import pytest

ROOT = Path(__file__).resolve().parents[1]


def database_exists(name: str) -> bool:
    import psycopg

    with psycopg.connect(testing.POSTGRES_ADMIN_URL, autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        return row is not None


def test_the_run_names_its_database_queue_and_keys_after_its_id(db: Any) -> None:
    from django.conf import settings
    from django.db import connection

    run = os.environ["ARENA_TEST_ID"]
    assert testing.TEST_ID_PATTERN.fullmatch(run)
    names = (settings.ARENA_QUEUE, settings.ARENA_BROKER_PREFIX)
    worker = testing.WORKER  # under `pytest -n`, each worker's names lie inside the run's
    if worker:
        assert names == (f"arena_test_{run}_{worker}", f"arena-test-{run}:{worker}:")
    else:
        assert names == (f"arena_test_{run}", f"arena-test-{run}:")
    if connection.vendor == "postgresql" and os.environ["ARENA_DATABASE_URL"].endswith(
        "/" + testing.database_name(run)
    ):
        suffix = f"_{worker}" if worker else ""
        assert connection.settings_dict["NAME"] == "test_" + testing.database_name(run) + suffix


@pytest.mark.parametrize("given", ["a b", "x" * 41, "semi;colon", "dots.in.it"])
def test_it_rejects_a_bad_test_id(given: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TEST_ID", given)
    with pytest.raises(ValueError, match=r"ARENA_TEST_ID=.*expected 1 to 40 letters"):
        testing.run_id()


def test_without_an_id_each_run_draws_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_TEST_ID")
    ids = {testing.run_id() for _ in range(20)}
    assert len(ids) == 20 and all(testing.TEST_ID_PATTERN.fullmatch(i) for i in ids)


@pytest.mark.services
def test_a_message_on_the_shared_redis_lands_under_the_runs_prefix(
    redis_url: str, settings: Any
) -> None:
    import redis

    from webui.league import queue as league_queue

    queue = f"isolation-{uuid.uuid4().hex[:8]}"
    settings.ARENA_BROKER_URL = redis_url
    settings.ARENA_QUEUE = queue
    app = league_queue.make_app()
    client = redis.Redis.from_url(redis_url)
    prefix = settings.ARENA_BROKER_PREFIX
    try:
        app.send_task("arena.sweep", queue=queue)
        assert client.llen(prefix + queue) == 1
        assert not client.exists(queue)
        assert all(key.startswith(prefix.encode()) for key in client.scan_iter(f"*{queue}*"))
    finally:
        app.close()
        testing.delete_broker_keys(redis_url, prefix + queue)
        client.close()


@pytest.mark.services
def test_deleting_a_prefix_leaves_every_other_key(private_redis: Any) -> None:
    import redis

    client = redis.Redis.from_url(private_redis.url)
    for key in ["run-a:queue", "run-a:unacked", "run-a:[x]", "run-ab:queue", "queue", "x:run-a:"]:
        client.set(key, "1")
    assert testing.delete_broker_keys(private_redis.url, "run-a:") == 3
    assert sorted(client.keys()) == [b"queue", b"run-ab:queue", b"x:run-a:"]
    client.close()


@pytest.mark.services
def test_a_private_redis_restarts_empty_on_the_same_port(private_redis: Any) -> None:
    import redis

    client = redis.Redis.from_url(private_redis.url)
    client.rpush("queue", "message")
    port = private_redis.port
    private_redis.restart()
    assert private_redis.port == port and private_redis.starts == 2
    assert client.llen("queue") == 0  # no persistence: a restart loses the queue
    client.close()


@pytest.mark.services
def test_dropping_a_runs_databases_takes_its_xdist_copies_and_nothing_else(
    postgres_available: bool,
) -> None:
    import psycopg

    base = f"test_arena_probe_{uuid.uuid4().hex[:8]}"
    names = [base, f"{base}_gw0", f"{base}_gw12", f"{base}2", f"{base}_gwx"]
    with psycopg.connect(testing.POSTGRES_ADMIN_URL, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:5432/{base}"):  # still in use
            dropped = testing.drop_databases([base])
        assert sorted(dropped) == sorted(names[:3])
        assert [database_exists(n) for n in names] == [False, False, False, True, True]
    finally:
        with psycopg.connect(testing.POSTGRES_ADMIN_URL, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


FAILING_RUN = """
import os

import psycopg
import pytest
import redis

HELD = []


@pytest.mark.django_db
def test_that_fails_while_holding_the_database():
    from django.db import connection

    # A connection nobody closes, as a worker process killed mid-match would leave.
    HELD.append(psycopg.connect(
        "postgresql://postgres@127.0.0.1:5432/" + connection.settings_dict["NAME"]))
    client = redis.Redis.from_url("redis://127.0.0.1:6379/0")
    client.set(os.environ["ARENA_BROKER_PREFIX"] + "queue", "a message")
    client.close()
    assert False, "this run fails"
"""


@pytest.mark.services
@pytest.mark.slow
def test_a_failing_run_leaves_no_database_and_no_keys_behind(
    tmp_path: Path, postgres_available: bool, redis_url: str
) -> None:
    import redis

    run = f"probe-{uuid.uuid4().hex[:8]}"
    (tmp_path / "test_failing.py").write_text(textwrap.dedent(FAILING_RUN))
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_", "PYTEST_"))
    }
    env["ARENA_TEST_ID"] = run
    env["PYTHONPATH"] = str(ROOT / "tests")  # where the plugin is (pyproject's pythonpath)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "isolation",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "--ds",
            "webui.settings",
            "--no-migrations",  # the probe's tables from the models at once: names, not schema
            "--rootdir",
            str(tmp_path),
            str(tmp_path / "test_failing.py"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "this run fails" in result.stdout
    assert not database_exists("test_" + testing.database_name(run))
    client = redis.Redis.from_url(redis_url)
    assert list(client.scan_iter(testing.broker_prefix(run) + "*")) == []
    client.close()


NAMES_OF_A_WORKER = """
import os

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("n", range(4))
def test_names(n):
    from django.conf import settings
    from django.db import connection

    names = [connection.settings_dict["NAME"], settings.ARENA_QUEUE,
             settings.ARENA_BROKER_PREFIX, str(settings.DATA_DIR)]
    out = os.path.join(os.environ["NAMES_OUT"], os.environ["PYTEST_XDIST_WORKER"])
    with open(out, "w") as handle:
        handle.write("\\n".join(names))
"""


@pytest.mark.services
@pytest.mark.slow
def test_each_xdist_worker_has_its_own_database_queue_prefix_and_data_dir(
    tmp_path: Path, postgres_available: bool, redis_url: str
) -> None:
    run = f"probe-{uuid.uuid4().hex[:8]}"
    (tmp_path / "test_names.py").write_text(textwrap.dedent(NAMES_OF_A_WORKER))
    (tmp_path / "out").mkdir()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "DJANGO_", "PYTEST_"))
    }
    env.update(ARENA_TEST_ID=run, NAMES_OUT=str(tmp_path / "out"), PYTHONPATH=str(ROOT / "tests"))
    options = [
        "--rootdir",
        str(tmp_path),
        "-p",
        "isolation",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "--ds",
        "webui.settings",
        "--no-migrations",  # the probe's tables from the models at once: names, not schema
    ]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-n",
            "2",
            *options,
            str(tmp_path / "test_names.py"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    seen = {f.name: f.read_text().split("\n") for f in (tmp_path / "out").iterdir()}
    assert sorted(seen) == ["gw0", "gw1"]
    for worker, (database, queue, prefix, data_dir) in seen.items():
        assert database == f"test_{testing.database_name(run)}_{worker}"
        assert queue == f"arena_test_{run}_{worker}"
        assert prefix == f"arena-test-{run}:{worker}:"
        assert Path(data_dir).name == worker
    assert seen["gw0"][3] != seen["gw1"][3]
    assert not database_exists(f"test_{testing.database_name(run)}_gw0")
    assert not database_exists(f"test_{testing.database_name(run)}_gw1")
