"""A pytest plugin that gives each test run its own names on the machine's services.

Loaded with ``-p isolation`` (``tests/`` is on pytest's ``pythonpath``; see
``pyproject.toml``), ahead of pytest-django, so ``webui.settings`` sees the environment it
sets. Part of the tests, not of the product. Every run has an id: ``ARENA_TEST_ID`` when
given (letters, digits, ``_`` and ``-``), else a random one. From it the run gets

- its own PostgreSQL database: ``arena_<id>``, which pytest-django turns into
  ``test_arena_<id>`` (created and dropped by it; dropped here too at the end of the session,
  even after a failure or an interrupt, in case a worker process still held a connection);
- its own Celery queue, ``arena_test_<id>`` (``ARENA_QUEUE``), and its own Redis key space:
  every broker key starts with ``arena-test-<id>:`` (``ARENA_BROKER_PREFIX``, kombu's
  ``global_keyprefix``), deleted at the end of the session;
- its own data dir, so tests never touch ``var/``.

Under pytest-xdist (``-n``) the controlling process imports this module first and names the
run; each worker (``gw0``, ``gw1``, ...) then takes its own names inside the run's: pytest-django
suffixes the database (``test_arena_<id>_gw0``), and here the queue becomes
``arena_test_<id>_gw0``, the key prefix ``arena-test-<id>:gw0:`` and the data dir a folder
``gw0`` of the run's. The controller cleans up once for all of them.

An explicit ``ARENA_DATABASE_URL`` wins (and is not dropped here); without one and without
PostgreSQL at 127.0.0.1:5432 the suite uses SQLite (tests that need PostgreSQL then skip, or
fail under ``CI=true``). Two checkouts, or two runs of one, can thus run the suite at once.
Tests that restart or flush Redis start a private ``redis-server`` instead
(``private_redis``). Nothing here runs outside pytest.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import socket
import tempfile
import uuid

POSTGRES_HOST = ("127.0.0.1", 5432)
POSTGRES_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"
TEST_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,40}")


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def run_id() -> str:
    """This run's id: ``ARENA_TEST_ID`` (checked), or a fresh random one."""
    given = os.environ.get("ARENA_TEST_ID", "").strip()
    if not given:
        return uuid.uuid4().hex[:12]
    if not TEST_ID_PATTERN.fullmatch(given):
        raise ValueError(f"ARENA_TEST_ID={given!r}: expected 1 to 40 letters, digits, '_' or '-'")
    return given


def database_name(test_id: str) -> str:
    """The database of a run's ``ARENA_DATABASE_URL`` (PostgreSQL names: lower case, ``_``)."""
    return "arena_" + test_id.lower().replace("-", "_")


def queue_name(test_id: str, worker: str = "") -> str:
    """A run's Celery queue; each xdist worker (``gw0``, ...) of the run has its own."""
    return f"arena_test_{test_id}" + (f"_{worker}" if worker else "")


def broker_prefix(test_id: str, worker: str = "") -> str:
    """The prefix of every Redis key a run's broker writes; an xdist worker's lies inside its
    run's, so that deleting the run's keys takes every worker's."""
    return f"arena-test-{test_id}:" + (f"{worker}:" if worker else "")


TEST_ID = run_id()
os.environ["ARENA_TEST_ID"] = TEST_ID
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""This process's xdist worker id (``gw0``, ...); empty without ``-n`` and in the controller."""
# The databases this run creates and so must drop: pytest-django's, and xdist's per-worker ones.
_OWN_DATABASES: list[str] = []

if WORKER:
    # The controller set the run's names in the environment every worker inherits (the
    # database's name pytest-django suffixes itself); each worker takes its own inside them.
    os.environ["ARENA_QUEUE"] = f"{os.environ['ARENA_QUEUE']}_{WORKER}"
    os.environ["ARENA_BROKER_PREFIX"] = f"{os.environ['ARENA_BROKER_PREFIX']}{WORKER}:"
    worker_data = os.path.join(os.environ["ARENA_DATA_DIR"], WORKER)
    os.makedirs(worker_data, exist_ok=True)
    os.environ["ARENA_DATA_DIR"] = worker_data
else:
    if "ARENA_DATABASE_URL" not in os.environ and _answers(*POSTGRES_HOST):
        name = database_name(TEST_ID)
        os.environ["ARENA_DATABASE_URL"] = f"postgresql://postgres@127.0.0.1:5432/{name}"
        _OWN_DATABASES.append(f"test_{name}")
    os.environ.setdefault("ARENA_QUEUE", queue_name(TEST_ID))
    os.environ.setdefault("ARENA_BROKER_PREFIX", broker_prefix(TEST_ID))
    if "ARENA_DATA_DIR" not in os.environ:
        os.environ["ARENA_DATA_DIR"] = tempfile.mkdtemp(prefix=f"arena-test-data-{TEST_ID}-")
        atexit.register(shutil.rmtree, os.environ["ARENA_DATA_DIR"], ignore_errors=True)
    os.environ.setdefault("ARENA_HTTPS", "0")


def drop_databases(names: list[str]) -> list[str]:
    """Drops these databases if they exist, ending their sessions; returns the ones dropped."""
    import psycopg

    dropped = []
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=5) as conn:
        for name in names:
            # pytest-django's suffixes under xdist: test_arena_x_gw0, test_arena_x_gw1, ...
            rows = conn.execute(
                "SELECT datname FROM pg_database WHERE datname = %s OR datname ~ %s",
                (name, "^" + re.escape(name) + "_gw[0-9]+$"),
            ).fetchall()
            for (found,) in rows:
                conn.execute(f'DROP DATABASE IF EXISTS "{found}" WITH (FORCE)')
                dropped.append(found)
    return dropped


def delete_broker_keys(url: str, prefix: str) -> int:
    """Deletes every Redis key that starts with ``prefix``; returns how many."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5)
    try:
        pattern = prefix.replace("[", r"\[").replace("*", r"\*").replace("?", r"\?") + "*"
        keys = list(client.scan_iter(match=pattern, count=1000))
        for start in range(0, len(keys), 500):
            client.delete(*keys[start : start + 500])
        return len(keys)
    finally:
        client.close()


def cleanup() -> None:
    """What this run made on the shared services goes, whatever the outcome of the run."""
    if _OWN_DATABASES and _answers(*POSTGRES_HOST):
        with contextlib.suppress(Exception):
            drop_databases(_OWN_DATABASES)
    if os.environ.get("ARENA_BROKER_PREFIX") == broker_prefix(TEST_ID) and _answers(
        "127.0.0.1", 6379
    ):
        with contextlib.suppress(Exception):
            delete_broker_keys(REDIS_URL, broker_prefix(TEST_ID))


def pytest_unconfigure(config: object) -> None:
    """Runs after pytest-django's own teardown, also after failures and Ctrl-C."""
    if WORKER:
        return  # the controlling process cleans up once every worker has finished
    cleanup()
