"""Generates the Python gRPC stubs from ``protos/`` into ``arena/protocol/_generated``.

The ``.proto`` files are the single source of truth; the stubs are build products, never edited
or committed.  ``scripts/setup`` runs this module, and :func:`ensure_stubs` runs it on first
import when the stubs are missing or older than their sources (in a checkout; the SDK's wheel
carries them, generated).
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parents[2] / "protos"
OUT_DIR = Path(__file__).resolve().parent / "_generated"
STAMP = OUT_DIR / ".source-hash"


def proto_files() -> list[Path]:
    """Every ``.proto`` under ``protos/``, sorted."""
    return sorted(PROTO_ROOT.rglob("*.proto"))


def source_hash() -> str:
    """A hash over the names and contents of all ``.proto`` files."""
    digest = hashlib.sha256()
    for path in proto_files():
        digest.update(str(path.relative_to(PROTO_ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def is_current() -> bool:
    """Whether the generated stubs match the ``.proto`` sources."""
    return STAMP.exists() and STAMP.read_text().strip() == source_hash()


def generate() -> None:
    """Runs protoc (from grpcio-tools) over ``protos/`` and writes the stubs with a stamp."""
    from grpc_tools import protoc  # imported here: only the build needs grpcio-tools

    files = proto_files()
    if not files:
        return
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "__init__.py").write_text('"""Generated gRPC stubs; see arena.protocol.build."""\n')
    include = str(Path(protoc.__file__).resolve().parent / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={OUT_DIR}",
        f"--pyi_out={OUT_DIR}",
        f"--grpc_python_out={OUT_DIR}",
        *(str(p.relative_to(PROTO_ROOT)) for p in files),
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + ", ".join(str(p) for p in files))
    # Packages for every folder protoc wrote into, so `scopa.arena.v1.bot_pb2` imports.
    for folder in OUT_DIR.rglob("*"):
        if folder.is_dir() and not (folder / "__init__.py").exists():
            (folder / "__init__.py").write_text("")
    STAMP.write_text(source_hash() + "\n")


def ensure_stubs() -> None:
    """Generates the stubs unless they are current; puts their folder on ``sys.path``.

    Generated modules import each other by their proto package path (``scopa.arena.v1``),
    so that folder must be importable as a root. Where there is no ``protos/`` (the SDK's
    wheel, installed without a checkout: :mod:`arena.sdk.wheel`), the stubs it carries are
    used as they are.
    """
    if proto_files() and not is_current():
        generate()
    if str(OUT_DIR) not in sys.path:
        sys.path.insert(0, str(OUT_DIR))


if __name__ == "__main__":
    ensure_stubs()
