"""The SDK as a wheel: the ``arena`` library without the site, installable with pip, no checkout.

The wheel (``scopa_arena_sdk-<version>+<hash>-py3-none-any.whl``) holds the library (the
engine, the protocol with its generated stubs, the SDK, the runner, the commands of ``arena``
that need no site) and the Python sample bots (``sample_bots``, beside ``arena`` as in a
checkout, so that ``arena match . random`` finds them). It requires only the library's own
dependencies (gRPC, protobuf, rich, TrueSkill, networkx; the ``rl`` extra for the training
environment); the platform's (Django, Celery, PostgreSQL's driver) and the stubs' generator
(grpcio-tools) stay out. Its metadata comes from the installed ``scopa-arena`` distribution,
so an installed site builds it as well as a checkout does. The local part of its version is a
hash of the files it holds: a changed library gets a new file name, and building twice gives
the same bytes.

This module writes a file; serving it is the site's job (``/sdk/``).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import tempfile
import zipfile
from collections.abc import Iterator
from importlib.metadata import Distribution, distribution
from pathlib import Path

import arena
from arena.protocol.build import ensure_stubs

PROJECT = "scopa-arena"
NAME = "scopa-arena-sdk"
PLATFORM_ONLY = frozenset(
    {
        "django",
        "celery",
        "psycopg",
        "gunicorn",
        "whitenoise",
        "django-axes",
        "django-ratelimit",
        "grpcio-tools",  # generates the stubs, which the wheel carries
    }
)
"""The project's dependencies that the library does not import."""
EXTRAS = ("rl",)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so that the same files make the same bytes
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _package_files() -> list[tuple[str, Path]]:
    """Every file of the ``arena`` package and of the Python sample bots, as ``(path in the
    wheel, path on disk)``, sorted; no bytecode or caches."""
    package = Path(arena.__file__).resolve().parent
    files = _tree(package, "arena")
    samples = package.parent / "sample_bots"  # beside arena/, where the runner looks for them
    if samples.is_dir():
        files += [
            (name, path)
            for name, path in _tree(samples, "sample_bots")
            if path.parent == samples or _is_python_bot(path, samples)
        ]
    return sorted(files)


def _is_python_bot(path: Path, samples: Path) -> bool:
    """Whether ``path`` is in a Python sample bot (the JavaScript one needs its node_modules,
    which a wheel does not carry)."""
    bot = samples / path.relative_to(samples).parts[0]
    return not (bot / "package.json").exists()


def _tree(root: Path, top: str) -> list[tuple[str, Path]]:
    files = []
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if not path.is_file() or "__pycache__" in parts or path.suffix in (".pyc", ".pyo"):
            continue
        if path.name == ".source-hash":  # the stubs' build stamp, meaningless without protos/
            continue
        files.append(("/".join((top, *parts)), path))
    return files


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirements(project: Distribution) -> list[str]:
    """The library's ``Requires-Dist`` lines: the project's, less the platform's and the
    development extras."""
    kept = []
    for line in project.requires or []:
        found = _REQUIREMENT_NAME.match(line)
        if found is None or _normalized(found.group()) in PLATFORM_ONLY:
            continue
        marker = line.partition(";")[2]
        if "extra" in marker and not any(f'"{extra}"' in marker for extra in EXTRAS):
            continue
        kept.append(line)
    return kept


def _entry_points(project: Distribution) -> str:
    """The project's entry points that name a module of the library (``arena`` itself and
    its commands and benchmarks without a site)."""
    groups: dict[str, list[str]] = {}
    for entry in project.entry_points:
        if entry.value.split(".")[0].split(":")[0] == "arena":
            groups.setdefault(entry.group, []).append(f"{entry.name} = {entry.value}")
    return "".join(
        f"[{group}]\n" + "".join(line + "\n" for line in lines) + "\n"
        for group, lines in sorted(groups.items())
    )


def _metadata(project: Distribution, version: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {version}",
        "Summary: Scopa Arena's SDK: the rules engine, the bot protocol and SDK, the match "
        "runner and the arena command, without the site.",
        f"Requires-Python: {project.metadata['Requires-Python'] or '>=3.11'}",
        "License: MIT",
        *(f"Provides-Extra: {extra}" for extra in EXTRAS),
        *(f"Requires-Dist: {line}" for line in _requirements(project)),
    ]
    return "\n".join(lines) + "\n"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")


def contents() -> tuple[str, list[tuple[str, bytes]]]:
    """The wheel's file name and its files (name, bytes) in order, ``RECORD`` last.

    Generates the protocol's stubs first when a checkout has not (the wheel must carry them:
    an installed wheel has no ``protos/`` to generate them from).
    """
    ensure_stubs()
    project = distribution(PROJECT)
    files = [(name, path.read_bytes()) for name, path in _package_files()]
    tree = hashlib.sha256()
    for name, data in files:
        tree.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    version = f"{project.version}+{tree.hexdigest()[:10]}"
    info = f"{NAME.replace('-', '_')}-{version}.dist-info"
    files += [
        (f"{info}/METADATA", _metadata(project, version).encode()),
        (
            f"{info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: arena.sdk.wheel\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
        ),
        (f"{info}/entry_points.txt", _entry_points(project).encode()),
        (f"{info}/top_level.txt", b"arena\nsample_bots\n"),
    ]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in files:
        writer.writerow((name, _digest(data), len(data)))
    writer.writerow((f"{info}/RECORD", "", ""))
    files.append((f"{info}/RECORD", record.getvalue().encode()))
    return f"{NAME.replace('-', '_')}-{version}-py3-none-any.whl", files


def _zipped(files: list[tuple[str, bytes]]) -> Iterator[tuple[zipfile.ZipInfo, bytes]]:
    for name, data in files:
        info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = 0o644 << 16
        yield info, data


def build_wheel(folder: str | Path) -> Path:
    """Writes the SDK's wheel into ``folder`` (made if missing) unless it is there already,
    and returns its path. The file appears whole or not at all (written aside, then renamed),
    so concurrent builders and readers never see half a wheel."""
    name, files = contents()
    target = Path(folder) / name
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(dir=target.parent, prefix=".building-", suffix=".whl")
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w") as archive:
            for info, data in _zipped(files):
                archive.writestr(info, data)
        os.replace(partial, target)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
    return target
