"""One runtime tree per host: every runner process of the same code holds the same tree, and
the last to leave removes it (arena.runner.runtime_tree)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.runner import runtime_tree

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="flock and /dev/shm: Linux")


def run(script: str) -> str:
    """Runs ``script`` in a new interpreter of this virtualenv; its standard output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_two_runner_processes_of_a_host_hold_one_tree() -> None:
    mine = runtime_tree.runtime_tree()
    theirs = run(
        """
        from arena.runner import runtime_tree
        print(runtime_tree.runtime_tree().root)
        """
    )
    assert theirs == str(mine.root)
    assert mine.root.name == runtime_tree.SHARED_PREFIX + runtime_tree.tree_key()
    # The other process has ended and given up its hold; this one still holds the tree.
    assert (mine.root / runtime_tree.COMPLETE).exists()
    assert (mine.root / "usr").is_dir()


def test_the_key_is_the_same_in_another_process() -> None:
    assert (
        run(
            """
        from arena.runner import runtime_tree
        print(runtime_tree.tree_key())
        """
        )
        == runtime_tree.tree_key()
    )
    assert runtime_tree.tree_key(node=False) != runtime_tree.tree_key(node=True)


def test_the_last_holder_removes_the_tree(tmp_path: Path) -> None:
    tree, held = runtime_tree.shared_tree(node=False, base=tmp_path)
    assert tree.root.parent == tmp_path and (tree.root / runtime_tree.COMPLETE).exists()
    assert tree.files > 100 and "/usr" in tree.tops
    # Another process takes the same tree (no second build) and leaves: the tree stays.
    out = run(
        f"""
        import os
        from pathlib import Path
        from arena.runner import runtime_tree
        tree, held = runtime_tree.shared_tree(node=False, base=Path({str(tmp_path)!r}))
        print(tree.root, runtime_tree.release_tree(tree.root, held, os.getpid()))
        """
    )
    assert out == f"{tree.root} False"
    assert (tree.root / runtime_tree.COMPLETE).exists()
    assert len(list(tmp_path.iterdir())) == 1  # one tree, none half built
    # This process is the last: it removes it.
    assert runtime_tree.release_tree(tree.root, held, os.getpid())
    assert not tree.root.exists()


def test_a_tree_no_process_holds_is_swept_and_a_held_one_is_kept(tmp_path: Path) -> None:
    unheld = tmp_path / f"{runtime_tree.SHARED_PREFIX}unheld"
    held = tmp_path / f"{runtime_tree.SHARED_PREFIX}held"
    for tree in (unheld, held):
        (tree / "usr").mkdir(parents=True)
        (tree / runtime_tree.HOLDERS).touch()
        (tree / runtime_tree.COMPLETE).touch()
    fd = os.open(held / runtime_tree.HOLDERS, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        assert runtime_tree.sweep_unheld(tmp_path) == 1
        assert not unheld.exists()
        assert (held / runtime_tree.COMPLETE).exists()
    finally:
        os.close(fd)
    assert runtime_tree.sweep_unheld(tmp_path) == 1
    assert not held.exists()


def test_a_tree_being_removed_is_not_taken(tmp_path: Path) -> None:
    # Its holders file is there but its mark is gone (the last holder is removing it).
    root = tmp_path / f"{runtime_tree.SHARED_PREFIX}going"
    root.mkdir()
    (root / runtime_tree.HOLDERS).touch()
    assert runtime_tree._hold(root) is None
