"""Property-based fuzzers of the parsers of what users send: manifests, archives and replays.

Every case runs its parser in a forked child with a CPU limit and an address-space limit
(:func:`bounded`): a case that loops, recurses without end or swells is killed by the kernel and
fails the property, and no case can hold or grow the test process. The property: the parser
answers (a value, or its own one-line refusal), and nothing else: no other exception, no kill.
The site's routes are fuzzed over HTTP by schemathesis (``tests/webui/web/test_fuzz_openapi.py``).
"""

from __future__ import annotations

import gc
import io
import json
import os
import pickle
import resource
import signal
import struct
import tarfile
import tempfile
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from archive_samples import manifest, tar_header_bomb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.archives import ArchiveError, check_archive, check_folder, check_upload, unpack
from arena.manifest import ManifestError, parse_manifest
from webui.web.replay_frames import FramesError, expand_replay

CPU_LIMIT_S = 20
"""The CPU one case may use (the kernel's SIGXCPU past it): far above any bounded parse."""
MEMORY_LIMIT_MB = 768
"""The address space a case may add to the test process's own."""
GOLDEN = Path(__file__).resolve().parent / "engine" / "golden"
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _vm_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


def bounded(
    parse: Callable[[Any], Any],
    value: Any,
    refusals: tuple[type, ...],
    cpu_s: int = CPU_LIMIT_S,
    memory_mb: int = MEMORY_LIMIT_MB,
) -> str:
    """Runs ``parse(value)`` in a forked child under the limits; ``"ok"``, ``"refused: <one
    line>"``, or fails the test naming what else happened (another exception, or a kill)."""
    reader, writer = os.pipe()
    limit = _vm_bytes() + memory_mb * 1024 * 1024
    pid = os.fork()
    if pid == 0:  # the child: limits, the parse, one answer, and out
        code = 0
        try:
            # No collection in the child: it would run the finalizers of what it inherited (a
            # gRPC channel of an earlier test), whose locks the parent's threads held at the
            # fork; only the parse's own objects are freed, by their reference counts.
            gc.disable()
            os.close(reader)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            try:
                parse(value)
                answer = "ok"
            except refusals as exc:
                answer = f"refused: {exc}"
            except BaseException as exc:  # reported to the parent, which fails
                answer = f"raised {type(exc).__name__}: {str(exc)[:300]}"
            with os.fdopen(writer, "wb") as out:
                out.write(pickle.dumps(answer))
        except BaseException:  # a child must never return into pytest
            code = 70
        os._exit(code)
    os.close(writer)
    with os.fdopen(reader, "rb") as source:
        raw = source.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        raise AssertionError(f"the parse was killed by {name}: past its CPU or memory bound")
    assert raw, f"the child answered nothing (exit status {status})"
    answer: str = pickle.loads(raw)
    assert not answer.startswith("raised"), answer
    assert "\n" not in answer, answer
    return answer


# A manifest's costly shapes: one piece repeated many times (a dotted key, nesting, a long
# value) after a key or a value's start, among a few short pieces of noise.
TOML_PIECES = st.sampled_from(
    ["x.", "x", "[", "]", "{a = ", "}", " = ", '"', "'", "\n", "1, ", "9", " ", "#", "\\"]
)
COSTLY_SHAPES = [("", "x."), ("v = ", "["), ("v = ", "{a = "), ("v = ", "9"), ("v = ", '"')]
COSTLY_SHAPES += [("v = [", "1, "), ("", "\n"), ("", "k = 1\n"), ("v = '", "x"), ("[", "t.")]
TOML_RUNS = st.builds(
    lambda shape, count, noise: shape[0] + shape[1] * count + "".join(p * n for p, n in noise),
    st.sampled_from(COSTLY_SHAPES),
    st.sampled_from([9, 600, 5000]),
    st.lists(st.tuples(TOML_PIECES, st.integers(1, 20)), max_size=6),
)


@FUZZ
@given(tail=st.one_of(TOML_RUNS, st.text(max_size=2000)), prefix=st.booleans())
def test_any_manifest_text_is_parsed_or_refused_within_bounds(tail: str, prefix: bool) -> None:
    text = (manifest() if prefix else "") + tail
    answer = bounded(parse_manifest, text, (ManifestError,))
    assert answer == "ok" or answer.startswith("refused: bot.toml: ")


PATH_PARTS = st.sampled_from(["d", "..", ".", "", "a" * 300, "bot.toml", "x.py", "\\", "C:"])
PATHS = st.tuples(PATH_PARTS, st.integers(1, 3000)).map(lambda p: "/".join([p[0]] * p[1]))


def _zip(files: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # a name twice is one of the cases
        for path, data in files:
            archive.writestr(path, data)
    return buffer.getvalue()


def _tar(files: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in files:
            info = tarfile.TarInfo(path)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


ARCHIVE_FILES = st.lists(
    st.tuples(
        st.one_of(PATHS, st.text(min_size=1, max_size=50)),
        st.one_of(st.binary(max_size=200), st.integers(0, 3 << 20).map(bytes)),
    ),
    max_size=6,
)


@FUZZ
@given(
    files=ARCHIVE_FILES,
    kind=st.sampled_from([_zip, _tar]),
    bot_toml=st.one_of(st.just(manifest()), TOML_RUNS),
    cut=st.one_of(st.none(), st.integers(0, 2000)),
    flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=4),
)
def test_any_archive_is_checked_or_refused_within_bounds(
    files: list[tuple[str, bytes]],
    kind: Callable[[list[tuple[str, bytes]]], bytes],
    bot_toml: str,
    cut: int | None,
    flips: list[tuple[int, int]],
) -> None:
    try:
        data = bytearray(kind([("bot.toml", bot_toml.encode()), *files]))
    except (ValueError, UnicodeEncodeError, IndexError, struct.error):
        return  # a name the writer itself refuses: nothing to upload
    for where, byte in flips:  # damage, anywhere in the archive
        if data:
            data[where % len(data)] = byte
    if cut is not None:
        data = data[:cut]
    answer = bounded(_check_and_unpack, bytes(data), (ArchiveError,))
    assert answer == "ok" or answer.startswith("refused: ")


def _check_and_unpack(data: bytes) -> None:
    """What the site and a worker do with an upload: the request's check (which refuses only
    what the full check refuses, and reads the same manifest), the full check, unpacking it,
    and the folder's check."""
    try:
        upload = check_upload(data)
    except ArchiveError:
        check_archive(data)  # must refuse too
        raise AssertionError("the upload check refused an archive the full check passes") from None
    checked = check_archive(data)
    assert checked.manifest == upload.manifest and checked.sha256 == upload.sha256
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "bot"
        unpack(checked.files, target)
        check_folder(target)


def _replay_text(base: dict[str, Any], path: list[Any], value: Any) -> str:
    """``base`` with the value at ``path`` (keys and indexes, as far as they reach) replaced."""
    data = json.loads(json.dumps(base))
    node: Any = data
    for step in path[:-1]:
        if isinstance(node, dict) and node:
            node = node[sorted(node)[step % len(node)]]
        elif isinstance(node, list) and node:
            node = node[step % len(node)]
    last = path[-1] if path else 0
    if isinstance(node, dict) and node:
        node[sorted(node)[last % len(node)]] = value
    elif isinstance(node, list) and node:
        node[last % len(node)] = value
    return json.dumps(data)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["7d", "1b", "10s", "scopone", "*", ""]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


@FUZZ
@given(
    golden=st.sampled_from(sorted(GOLDEN.glob("*.json"))),
    edits=st.lists(
        st.tuples(st.lists(st.integers(0, 50), min_size=1, max_size=6), JSON_VALUES), max_size=4
    ),
    raw=st.one_of(st.none(), st.text(max_size=300)),
)
def test_any_replay_is_expanded_or_refused_within_bounds(
    golden: Path, edits: list[tuple[list[int], Any]], raw: str | None
) -> None:
    base = json.loads(golden.read_text())
    text = base_text = json.dumps(base)
    for path, value in edits:
        text = _replay_text(json.loads(text), path, value)
    if raw is not None:
        text = raw if len(raw) % 2 else base_text[: len(raw) * 10] + raw
    answer = bounded(expand_replay, text, (FramesError,))
    assert answer == "ok" or answer.startswith("refused: ")


def test_the_bound_kills_a_parse_that_will_not_end() -> None:
    def spins(_: Any) -> None:
        while True:
            pass

    try:
        bounded(spins, None, (ValueError,), cpu_s=1)
    except AssertionError as failure:
        assert "killed by SIGXCPU" in str(failure) or "killed by SIGKILL" in str(failure)
    else:
        raise AssertionError("a parse that never ends was not stopped")


def test_a_header_bomb_is_refused_within_a_small_address_space() -> None:
    # 256 MiB of zeros as a tar's long name, in a 256 KB upload: tarfile would hold all of it.
    data = tar_header_bomb(tarfile.GNUTYPE_LONGNAME, 1 << 28)
    answer = bounded(check_archive, data, (ArchiveError,), memory_mb=200)
    assert answer.startswith("refused: the archive unpacks to more than")
