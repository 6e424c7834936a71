"""Builds the compiled core (:mod:`arena.engine._core`) in place: ``python -m
arena.engine.build_core``.

Needs Cython (the ``core`` extra) and a C compiler; ``scripts/setup`` runs it when both are
there and says so once when they are not.  The engine works without it (pure Python).
"""

from __future__ import annotations

import shutil
import sys
import sysconfig
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "_core.pyx"


def compiler() -> str | None:
    """The C compiler Python's build would use, when it is installed."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc) or shutil.which("cc") or shutil.which("gcc")


def built() -> Path | None:
    """The built extension next to its source, when it is newer than the source."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = HERE / f"_core{suffix}"
    if target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
        return target
    return None


def build(force: bool = False) -> Path:
    """Compiles ``_core.pyx`` to an extension module beside it (quiet unless it fails)."""
    if not force and (target := built()) is not None:
        return target
    from Cython.Build import cythonize  # only needed to build
    from setuptools import Distribution, Extension

    ext = Extension(
        "arena.engine._core",
        [str(SOURCE)],
        extra_compile_args=["-O3", "-Wno-unused-function", "-Wno-unreachable-code"],
    )
    modules = cythonize(  # type: ignore[no-untyped-call, unused-ignore]
        [ext], quiet=True, language_level=3, build_dir=str(HERE / "_build")
    )
    dist = Distribution({"ext_modules": modules})
    cmd = dist.get_command_obj("build_ext")
    cmd.inplace = True
    cmd.build_temp = str(HERE / "_build" / "tmp")
    cmd.ensure_finalized()
    # A new file, not the old one overwritten: a process running the old core keeps its copy.
    for old in HERE.glob("_core.*.so"):
        old.unlink()
    cmd.run()
    target = built()
    if target is None:
        raise RuntimeError("the build ran but left no extension module")
    return target


def main() -> int:
    """Builds the core; exit status 1 when it cannot be built (the pure engine still works)."""
    if compiler() is None:
        print("no C compiler found: the engine runs as pure Python (slower, same results)")
        return 1
    try:
        build(force="--force" in sys.argv)
    except Exception as exc:
        print(f"the compiled core did not build ({exc}); the engine runs as pure Python")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
