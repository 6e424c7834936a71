"""The engine tests run twice: on the pure-Python engine and on the compiled core.

Where the core is not built the ``core`` runs skip, except under ``CI=true``, where CI builds
it from a clean clone and a missing core is a broken build.  Tests that only run the ``arena``
commands in a subprocess (which picks its engine itself) run once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from arena.engine import core

ONCE = ("test_engine_bench.py", "test_the_commands_never_print_a_traceback")
CORE_ONLY = ("test_engine_differential.py",)  # they compare the two engines themselves


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Both engines for every test here but the :data:`ONCE` ones."""
    if "engine" not in metafunc.fixturenames:
        return
    where = f"{metafunc.definition.path.name}::{metafunc.definition.name}"
    if any(part in where for part in CORE_ONLY):
        engines = ["core"]
    elif any(part in where for part in ONCE):
        engines = [core.backend()]
    else:
        engines = ["python", "core"]
    metafunc.parametrize("engine", engines, indirect=True)


@pytest.fixture(autouse=True)
def engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """The engine this run of the test plays on."""
    name: str = getattr(request, "param", core.backend())
    if name == "core" and core.compiled is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the compiled core is not built (scripts/setup builds it)")
        pytest.skip("the compiled core is not built")
    with core.engine(name):
        yield name
