"""The SDK's wheel: the library and the Python sample bots, the generated stubs with them,
none of the platform, the same bytes when built twice, a RECORD that pip accepts."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import zipfile
from pathlib import Path

from arena.sdk.wheel import build_wheel


def test_the_wheel_holds_the_library_its_stubs_and_the_sample_bots_only(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    assert wheel.name.startswith("scopa_arena_sdk-") and wheel.name.endswith("-py3-none-any.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "arena/protocol/_generated/scopa/arena/v1/bot_pb2.py" in names
    assert "arena/protocol/_generated/scopa/arena/v1/bot_pb2_grpc.py" in names
    assert "arena/sdk/templates/python/README.md.tmpl" in names
    assert {"sample_bots/random/bot.toml", "sample_bots/greedy/policy.py"} <= set(names)
    assert not [n for n in names if n.startswith(("webui/", "workers/", "sample_bots/js-"))]
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".source-hash"))]


def test_its_metadata_asks_for_the_librarys_dependencies_not_the_sites(tmp_path: Path) -> None:
    archive = zipfile.ZipFile(build_wheel(tmp_path))
    info = next(n.split("/")[0] for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = archive.read(f"{info}/METADATA").decode()
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert any(" grpcio<" in line or " grpcio>" in line for line in requires)
    assert any("protobuf" in line for line in requires)
    assert not [line for line in requires if "django" in line.lower() or "celery" in line]
    assert not [line for line in requires if "grpcio-tools" in line or "pytest" in line]
    entry_points = archive.read(f"{info}/entry_points.txt").decode()
    assert (
        "arena = arena.cli:main" in entry_points and "match = arena.commands.match" in entry_points
    )
    assert "webui" not in entry_points and "workers" not in entry_points


def test_every_file_is_in_the_record_with_its_hash(tmp_path: Path) -> None:
    archive = zipfile.ZipFile(build_wheel(tmp_path))
    record_name = next(n for n in archive.namelist() if n.endswith(".dist-info/RECORD"))
    rows = list(csv.reader(io.StringIO(archive.read(record_name).decode())))
    assert sorted(row[0] for row in rows) == sorted(archive.namelist())
    for name, digest, size in rows:
        if name == record_name:
            continue
        data = archive.read(name)
        expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        assert digest == "sha256=" + expected.decode() and int(size) == len(data)


def test_building_it_twice_gives_the_same_file(tmp_path: Path) -> None:
    one = build_wheel(tmp_path / "one")
    two = build_wheel(tmp_path / "two")
    assert one.name == two.name and one.read_bytes() == two.read_bytes()
    assert build_wheel(tmp_path / "one") == one  # kept: not written again
    assert [p.name for p in (tmp_path / "one").iterdir()] == [one.name]  # nothing left aside
