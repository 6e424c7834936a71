"""Shared test fixtures: the services the suite needs, and the rule for when they are missing.

Under ``CI=true`` a test that needs a service (Redis, PostgreSQL, bubblewrap, Chromium, node)
fails instead of skipping: CI installs and starts them (``scripts/services``), so a missing one
is a broken setup, not a reason to pass.

Under ``pytest -n`` (``scripts/test``) the hooks here also say which tests share an xdist
worker (``ON_CLOCKS``, ``ON_HOSTS``, the played season's readers) and which run alone
(``ALONE``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cores
import pytest
import shared_rows
from private_redis import PrivateRedis
from service_checks import port_open, require

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--docs-screenshots``: the browser tests also renew the README's pictures.
    ``--soak``: the tests marked ``soak`` (minutes of waiting on a running demo) run too."""
    parser.addoption(
        "--docs-screenshots",
        action="store_true",
        default=False,
        help="write the README's screenshots into docs/screenshots/ (tests/webui/browser)",
    )
    parser.addoption(
        "--soak",
        action="store_true",
        default=False,
        help="also run the tests marked soak (a demo watched for ten minutes after its season)",
    )


ON_CLOCKS = (
    "tests/runner/",
    "tests/hostile/",
    "tests/bench/test_bench_match.py",
)
"""Tests whose bots play on per-move clocks: with ``-n`` they go to one xdist worker, one after
another (``--dist loadgroup``, group ``clocks``), so that no two of them compete for the
cores."""

OFF_CLOCKS = (
    "tests/runner/test_preload.py",
    "tests/runner/test_runtime_tree.py",
    "tests/runner/test_seccomp.py",
    "tests/runner/test_start_cost.py",
    "tests/runner/test_turn_bytes.py",
)
"""Modules of ``ON_CLOCKS``'s folders that play no match (imports, the runtime tree, the
system-call filter, a seat's start, encoded bytes): any worker runs them."""

ON_HOSTS = ("tests/workers/test_hosts.py", "tests/workers/test_sprt_on_workers.py")
"""Tests that time a lab of worker hosts or a test on the workers (leases, pick-up margins of
seconds, generous per-move clocks): one after another on a worker of their own (group
``hosts``), beside the ``clocks`` group as beside any other test."""

ALONE = ("tests/hostile/test_covert_channels.py", "tests/runner/test_seat_cpu.py")
"""Tests that measure CPU shares or fill every core on purpose: marked ``alone``, they run with
no other test of the run beside them (``tests/cores.py``)."""


def runs_alone(item: pytest.Item) -> bool:
    """Whether the test is marked ``alone`` (``ALONE``, or its own marker)."""
    return item.get_closest_marker("alone") is not None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """xdist groups: the tests on clocks together (``ON_CLOCKS``), those on hosts together
    (``ON_HOSTS``), and the readers of the shared played season together, so that one worker
    builds it once (``shared_rows``). xdist hands out the groups with the most tests first.
    ``tryfirst``: before xdist's own hook, which names each test after its group (two hooks
    without it run in the order their plugins were registered in; tests/test_suite_groups.py
    checks that the groups hold)."""
    if not config.getoption("soak"):
        soaking = [item for item in items if item.get_closest_marker("soak")]
        if soaking:
            config.hook.pytest_deselected(items=soaking)
            items[:] = [item for item in items if not item.get_closest_marker("soak")]
    for item in items:
        where = item.path.relative_to(ROOT).as_posix() if item.path.is_relative_to(ROOT) else ""
        if where.startswith(ALONE):
            item.add_marker(pytest.mark.alone)
        if where.startswith(ON_CLOCKS) and not where.startswith(OFF_CLOCKS):
            item.add_marker(pytest.mark.xdist_group("clocks"))
        elif where.startswith(ON_HOSTS):
            item.add_marker(pytest.mark.xdist_group("hosts"))
        elif shared_rows.uses_shared_rows(item, "played_season"):
            item.add_marker(pytest.mark.xdist_group("played_season"))
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # The modules with a test that runs alone first, their tests alone first, so that the
        # other workers make way once for all of them (``turn_on_the_cores``); then the modules
        # with a slow test (each module's tests kept together): a test of a minute handed out
        # last would leave the other workers idle at the end.
        slow = {item.path for item in items if item.get_closest_marker("slow")}
        lonely = {item.path for item in items if runs_alone(item)}
        items.sort(
            key=lambda item: (item.path not in lonely, not runs_alone(item), item.path not in slow)
        )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Shared rows (``tests/shared_rows.py``) are there for the tests that use them and gone
    for the others, before any of the test's fixtures is set up; under ``-n`` in a shared turn
    on the cores (building a played season is seconds of work: never beside a test alone)."""
    if not os.environ.get("PYTEST_XDIST_WORKER") or _ALONE_TURN.held:
        shared_rows.prepare(item)
        return
    with cores.turn(os.environ["ARENA_TEST_ID"], alone=False):
        shared_rows.prepare(item)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """No shared rows outlive the session, nor a turn on the cores."""
    shared_rows.close_all()
    _ALONE_TURN.give_back()


def pytest_unconfigure(config: pytest.Config) -> None:
    """The run's lock files on the cores go with it (once, in the controlling process)."""
    if not os.environ.get("PYTEST_XDIST_WORKER") and "ARENA_TEST_ID" in os.environ:
        cores.remove_lock_files(os.environ["ARENA_TEST_ID"])


_ALONE_TURN = cores.KeptTurn()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Notes whether the next test runs alone too (``turn_on_the_cores`` keeps the turn)."""
    _ALONE_TURN.next_alone = nextitem is not None and runs_alone(nextitem)
    yield


@pytest.fixture(autouse=True)
def turn_on_the_cores(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under ``-n``: a shared turn on the cores, or the only one for a test marked ``alone``,
    kept from one test marked ``alone`` to the next (the other workers make way once for a
    run of them, not once for each)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    test_id = os.environ["ARENA_TEST_ID"]
    if not runs_alone(request.node):
        _ALONE_TURN.give_back()  # kept for a next test that did not come
        with cores.turn(test_id, alone=False):
            yield
        return
    _ALONE_TURN.take(test_id)
    try:
        yield
    finally:
        if not _ALONE_TURN.next_alone:
            _ALONE_TURN.give_back()


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The URL of the real Redis server of this machine, shared with other runs.

    The broker writes its keys under this run's ``ARENA_BROKER_PREFIX`` (see
    ``tests/isolation.py``); a test that restarts or flushes Redis uses ``private_redis``.
    """
    require(port_open("127.0.0.1", 6379), "Redis at 127.0.0.1:6379")
    return "redis://127.0.0.1:6379/0"


@pytest.fixture
def reads_on_redis(settings: Any, redis_url: str, request: pytest.FixtureRequest) -> None:
    """The site's ``reads`` cache (kept reads and pages) on the machine's Redis, under this
    run's key prefix and the test module's name."""
    caches = dict(settings.CACHES)
    caches["reads"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": redis_url,
        "KEY_PREFIX": f"{os.environ['ARENA_BROKER_PREFIX']}arena-reads-{request.module.__name__}",
        "TIMEOUT": 600,
    }
    settings.CACHES = caches


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    """A real redis-server of this test's own (free port, temporary folder), stopped after."""
    require(shutil.which("redis-server") is not None, "redis-server")
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_available() -> bool:
    """Asserts PostgreSQL at 127.0.0.1:5432 is there."""
    require(port_open("127.0.0.1", 5432), "PostgreSQL at 127.0.0.1:5432")
    return True


@pytest.fixture(scope="session")
def bwrap() -> str:
    """The path of bubblewrap, the bot sandbox."""
    path = shutil.which("bwrap")
    require(path is not None, "bubblewrap (bwrap)")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of Debian's chromium, for browser tests."""
    path = shutil.which("chromium")
    require(path is not None, "Debian's chromium")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """A folder for test artifacts (screenshots) that CI keeps."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    """One headless chromium (the machine's, never a download) for a module's browser tests.

    Playwright's sync API runs an event loop in the tests' thread while it lives; the tests'
    own ORM calls are still synchronous, so Django is told they are safe until it closes. One
    module's browser is closed before the next module starts: two sync Playwrights cannot
    live in one thread.
    """
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            instance = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            yield instance
            instance.close()
    finally:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
