"""The suite's xdist groups hold: the tests ``tests/conftest.py`` puts in one group
(``clocks``, ``hosts``, the played season's readers) run on one worker, one after another.

A conftest hook adds the ``xdist_group`` markers at collection, as ours does, and pytest-xdist
renames each grouped test after its group so that ``--dist loadgroup`` keeps them together. A
pytest and pytest-xdist that disagree on how a test is named (pytest 9.2 with pytest-xdist 3.8)
drop the groups without a word: clock tests then run side by side. This runs a small suite of
that shape in a pytest of its own on two workers and reads where each test ran.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

CONFTEST = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name == "test_grouped.py":
            item.add_marker(pytest.mark.xdist_group("clocks"))
"""

TESTS = """
import os
import time
from pathlib import Path

import pytest

@pytest.mark.parametrize("n", range(8))
def test_one(n):
    time.sleep(0.2)  # both workers busy: tests free to go anywhere would be split
    with open(Path(__file__).parent / "ran.txt", "a") as ran:
        ran.write(f"{Path(__file__).name} {os.environ['PYTEST_XDIST_WORKER']}\\n")
"""


def test_the_tests_of_an_xdist_group_added_by_a_conftest_run_on_one_worker(
    tmp_path: Path,
) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(CONFTEST))
    for name in ("test_grouped.py", "test_free.py"):
        (tmp_path / name).write_text(textwrap.dedent(TESTS))
    xdist = ["-n", "2", "--dist", "loadgroup"]
    plugins = ["-p", "no:django", "-p", "no:cacheprovider"]
    alone = ["-c", str(tmp_path / "pytest.ini"), "--rootdir", str(tmp_path), str(tmp_path)]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *xdist, *plugins, *alone],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (tmp_path / "ran.txt").read_text().split("\n")
    runs = [line.split() for line in lines if line]
    grouped = {worker for name, worker in runs if name == "test_grouped.py"}
    free = {worker for name, worker in runs if name == "test_free.py"}
    assert len(runs) == 16
    assert len(grouped) == 1, f"the group's tests ran on {sorted(grouped)}"
    assert free, runs
