"""A pytest plugin that points the test run at the machine's PostgreSQL before Django loads.

Loaded with ``-p webui.league.testing`` (see ``pyproject.toml``), ahead of pytest-django, so
``webui.settings`` sees ``ARENA_DATABASE_URL``. An explicit ``ARENA_DATABASE_URL`` wins; without
one, the suite uses PostgreSQL at 127.0.0.1:5432 (user ``postgres``; pytest-django creates and
drops ``test_arena``) when it answers, and SQLite otherwise (tests that need PostgreSQL then skip,
or fail under ``CI=true``). It also gives the test run its own data dir, so tests never touch
``var/``. Nothing here runs outside pytest.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile

POSTGRES_TEST_URL = "postgresql://postgres@127.0.0.1:5432/arena"


def _postgres_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1.0):
            return True
    except OSError:
        return False


if "ARENA_DATABASE_URL" not in os.environ and _postgres_answers():
    os.environ["ARENA_DATABASE_URL"] = POSTGRES_TEST_URL
if "ARENA_DATA_DIR" not in os.environ:
    os.environ["ARENA_DATA_DIR"] = tempfile.mkdtemp(prefix="arena-test-data-")
    atexit.register(shutil.rmtree, os.environ["ARENA_DATA_DIR"], ignore_errors=True)
os.environ.setdefault("ARENA_HTTPS", "0")
