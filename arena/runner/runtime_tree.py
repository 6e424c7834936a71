"""The runtime tree: what a seat's runtime needs, copied once into memory and pinned there.

Every seat used to see the host's ``/usr``, interpreter and virtualenv, and so shared their
page cache with every other seat: a seat could drop a page of a file it can only read
(``posix_fadvise(DONTNEED)``), set one by reading it first, and another seat could tell
which pages were cached (``preadv2(RWF_NOWAIT)``, ``mincore``, or the time a read takes),
with no clock between them. This module builds, once per host, a copy of just what a seat's
runtime needs (:func:`runtime_tree`):

- the interpreter, the standard library (without its tests, IDLE, tkinter, ``ensurepip``
  and the static ``libpython``), the virtualenv's ``pyvenv.cfg`` and the files of the
  distributions the SDK imports (:data:`PYTHON_DISTRIBUTIONS` and what they require), the
  ``arena`` package and ``protos/``;
- ``node`` for JavaScript bots, where the host has it;
- the few programs a seat's start runs (:data:`TOOLS`) and the C locale;
- every shared library the tree's programs and extension modules load (as ``ldd`` finds
  them), with the links the dynamic linker follows to them.

The copy lives in a tmpfs (``/dev/shm``): its pages are memory, never dropped
(``posix_fadvise`` does nothing on tmpfs), always "cached" (``RWF_NOWAIT`` and ``mincore``
answer the same for every page, whoever read it), and a read of one takes the same time
whether or not another seat read it first. Where the host has swap, every page is also
locked (:func:`_lock_pages`): a tmpfs page could otherwise be swapped out and read back. The
tree is laid out as the host's paths (``<root>/usr/...``, ``<root>/<venv>/...``): the sandbox
binds each top folder of it read-only at the host path it copies (:func:`bound_paths`), and
the fork server runs from it too (:func:`server_prefix`), so the pages a forked seat inherits
are the tree's. Nothing of the tree changes once built.

One tree serves every runner process of a host that runs the same code: it is named after a
digest of what it copies (:func:`tree_key`: the interpreter, the installed distributions, the
``arena`` package's files, the tools), built under a name of its builder's and renamed into
place whole, and held by each process that uses it with a shared ``flock`` on its
``.holders`` file. The last holder to leave removes it (it takes the lock exclusively, which
no other holder allows); a process that opens a tree while it is being removed finds its
``.complete`` mark gone once its lock is granted, and builds a new one. So a worker host with
many worker processes pays for the tree once, and an ``arena match`` started beside a running
worker uses the worker's tree.

This module copies files; it does not decide what a sandbox binds besides the tree (see
:mod:`arena.runner.sandbox`).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import functools
import hashlib
import importlib.util
import json
import mmap
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path

import arena

MEMORY_BASE = Path("/dev/shm")
"""Where the tree is built: the host's tmpfs."""
TREE_PREFIX = "scopa-runtime-"
TMPFS_MAGIC = 0x01021994
RAMFS_MAGIC = 0x858458F6

PACKAGE_DIR = Path(arena.__file__).resolve().parent
PROTOS_DIR = PACKAGE_DIR.parent / "protos"

PYTHON_DISTRIBUTIONS = ("grpcio", "protobuf", "grpcio-health-checking")
"""What the SDK imports from the virtualenv (with what each requires, found at build)."""

TOOLS = (
    "/bin/sh",
    "/bin/bash",
    "/bin/cat",
    "/usr/bin/env",
    "/usr/bin/setpriv",
    "/usr/bin/node",
)
"""Programs a seat's start runs (the start shell, ``env``, ``setpriv``, the fork server's
holder ``cat``), ``sh`` for shell bots and ``node`` for JavaScript bots, where the host has
them."""

EXTRA_FILES = ("/usr/lib/locale/C.utf8", "/usr/share/zoneinfo/Etc/UTC")
"""The C.UTF-8 locale (``LANG``) and the time zone ``/etc/localtime`` names."""

STDLIB_LEFT_OUT = frozenset(
    {
        "site-packages",
        "test",
        "tests",
        "idlelib",
        "tkinter",
        "turtledemo",
        "ensurepip",
        "lib2to3",
        "pydoc_data",
    }
)
"""Folders of the standard library no bot's runtime imports, at any depth (and ``config-*``,
which holds the static ``libpython``). Optimized bytecode (``.opt-1.pyc``, ``.opt-2.pyc``) is
left out too: no seat runs with ``-O``."""

_NEEDED = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


@dataclass(frozen=True)
class RuntimeTree:
    """A built tree: ``root`` holds the copy of host path ``P`` at ``root / P[1:]``."""

    root: Path
    tops: tuple[str, ...]  # the host folders bound from it, outermost first ("/usr", ...)
    files: int
    bytes: int
    build_seconds: float
    in_memory: bool  # on a tmpfs or ramfs (False: a warning was given)
    locked: bool  # its pages are locked (the host has swap)

    def source(self, host_path: str | Path) -> str:
        """Where the copy of ``host_path`` is."""
        return str(self.root / str(host_path).lstrip("/"))


class TreeBuilder:
    """Collects host paths, then copies them (files as files, links as links) under a root."""

    def __init__(self) -> None:
        self.files: set[str] = set()  # real paths of regular files
        self.links: dict[str, str] = {}  # real path of a link's folder / its name -> target
        self.dirs: set[str] = set()

    def add(self, path: str, *, depth: int = 0) -> None:
        """Adds ``path`` as the dynamic linker or an interpreter would open it: every link on
        the way is kept (so the name works inside) and followed to the file or folder."""
        if depth > 40 or not os.path.lexists(path):
            return
        parent = os.path.realpath(os.path.dirname(path) or "/")
        where = os.path.join(parent, os.path.basename(path))
        if os.path.islink(where):
            target = os.readlink(where)
            self.links[where] = target
            self.add(os.path.join(parent, target), depth=depth + 1)
        elif os.path.isdir(where):
            self.add_tree(where)
        elif os.path.isfile(where):
            self.files.add(where)

    def add_tree(self, folder: str, left_out: frozenset[str] = frozenset()) -> None:
        """Adds a folder and all below it (links kept as links, not followed)."""
        folder = os.path.realpath(folder)
        self.dirs.add(folder)
        for where, dirs, names in os.walk(folder):
            dirs[:] = [
                name
                for name in dirs
                if name not in left_out and not (where == folder and name.startswith("config-"))
            ]
            self.dirs.add(where)
            for name in names + [d for d in dirs if os.path.islink(os.path.join(where, d))]:
                path = os.path.join(where, name)
                if os.path.islink(path):
                    self.links[path] = os.readlink(path)
                elif name.endswith((".opt-1.pyc", ".opt-2.pyc")):
                    continue
                elif os.path.isfile(path):
                    self.files.add(path)

    def add_libraries(self) -> None:
        """Adds every shared library the collected ELF files load, until none is new."""
        seen: set[str] = set()
        while True:
            elves = sorted(path for path in self.files - seen if _is_elf(path))
            if not elves:
                return
            seen.update(elves)
            for path in elves:
                for library in _needed_libraries(path):
                    self.add(library)

    def copy_to(self, root: Path) -> tuple[int, int]:
        """Writes the collected tree under ``root``: (files, bytes). Raises OSError."""
        made = 0
        size = 0
        for folder in sorted(
            self.dirs | {os.path.dirname(p) for p in self.files | set(self.links)}
        ):
            (root / folder.lstrip("/")).mkdir(parents=True, exist_ok=True, mode=0o755)
        for path in sorted(self.files):
            copy = root / path.lstrip("/")
            shutil.copyfile(path, copy, follow_symlinks=False)
            info = os.stat(path)
            # The source's times kept: a module's bytecode is valid for its source's mtime.
            os.utime(copy, ns=(info.st_atime_ns, info.st_mtime_ns))
            os.chmod(copy, 0o555 if stat.S_IMODE(info.st_mode) & 0o111 else 0o444)
            made += 1
            size += os.path.getsize(copy)
        for path, target in sorted(self.links.items()):
            copy = root / path.lstrip("/")
            if not os.path.lexists(copy):
                os.symlink(target, copy)
        for where, dirs, _ in os.walk(root):
            for name in dirs:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(where, name), 0o755, follow_symlinks=False)
        return made, size


def _is_elf(path: str) -> bool:
    if not (path.endswith(".so") or ".so." in path or os.access(path, os.X_OK)):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def _needed_libraries(path: str) -> list[str]:
    """The libraries ``ldd`` says ``path`` loads (absolute paths), the dynamic linker among
    them; none when ``ldd`` fails (a static program)."""
    try:
        done = subprocess.run(
            ["ldd", path], capture_output=True, timeout=30, check=False, env={"LC_ALL": "C"}
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return _NEEDED.findall(done.stdout.decode(errors="replace"))


def python_roots() -> tuple[str, ...]:
    """The host folders of the interpreter and the virtualenv (those outside ``/usr``)."""
    paths = {
        os.path.realpath(sys.base_prefix),
        os.path.realpath(sys.prefix),
        str(Path(os.path.realpath(sys.executable)).parent.parent),
    }
    return tuple(sorted(path for path in paths if not path.startswith("/usr/")))


def distribution_files(names: tuple[str, ...] = PYTHON_DISTRIBUTIONS) -> list[str]:
    """The installed files of the distributions ``names`` and of all they require (their
    extras left out), with the bytecode of their modules, as real paths."""
    found: list[str] = []
    todo = list(names)
    done: set[str] = set()
    while todo:
        name = re.split(r"[\s<>=!~;\[(]", todo.pop(), maxsplit=1)[0].lower().replace("_", "-")
        if not name or name in done:
            continue
        done.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        todo += [req for req in dist.requires or [] if "extra ==" not in req]
        for file in dist.files or []:
            path = os.path.realpath(str(file.locate()))
            if os.path.isfile(path) and ".dist-info" not in path:
                found.append(path)
                if path.endswith(".py"):  # its bytecode, which an installer may not list
                    cached = importlib.util.cache_from_source(path)
                    if os.path.isfile(cached):
                        found.append(cached)
    return sorted(set(found))


def editable_files() -> list[str]:
    """The files of an editable install of the arena in the virtualenv (its ``.pth`` and
    finder): the fork server finds the ``arena`` package through them. Exec'd seats see the
    ``.pth`` masked (:func:`arena.runner.sandbox.editable_finders`)."""
    import site

    found: list[str] = []
    for folder in site.getsitepackages():
        with contextlib.suppress(OSError):
            found += sorted(
                os.path.join(folder, name)
                for name in os.listdir(folder)
                if name.startswith("__editable__") and os.path.isfile(os.path.join(folder, name))
            )
    return found


def collect(*, node: bool = True) -> TreeBuilder:
    """What a seat's runtime needs, from the host (see the module's text)."""
    builder = TreeBuilder()
    builder.add(sys.executable)
    builder.add(os.path.realpath(sys.executable))
    builder.add_tree(sysconfig.get_paths()["stdlib"], STDLIB_LEFT_OUT)
    builder.add_tree(sysconfig.get_paths()["platstdlib"], STDLIB_LEFT_OUT)
    venv_config = Path(sys.prefix) / "pyvenv.cfg"
    if venv_config.is_file():
        builder.add(str(venv_config))
    for path in distribution_files() + editable_files():
        builder.files.add(path)
        builder.dirs.add(os.path.dirname(path))
    builder.add_tree(str(PACKAGE_DIR))
    if PROTOS_DIR.is_dir():
        builder.add_tree(str(PROTOS_DIR))
    for tool in TOOLS:
        if node or not tool.endswith("/node"):
            builder.add(tool)
    for extra in EXTRA_FILES:
        builder.add(extra)
    with contextlib.suppress(OSError):  # the time zone /etc/localtime names
        builder.add(os.path.realpath("/etc/localtime"))
    builder.add_libraries()
    return builder


def top_folders(builder: TreeBuilder) -> tuple[str, ...]:
    """The host folders the sandbox binds from the tree: ``/usr``, the interpreter's and the
    virtualenv's, the ``arena`` package and ``protos/`` (each not inside another)."""
    wanted = ["/usr", *python_roots(), str(PACKAGE_DIR)]
    if PROTOS_DIR.is_dir():
        wanted.append(str(PROTOS_DIR))
    tops: list[str] = []
    for path in sorted(set(wanted), key=len):
        if not any(path == top or path.startswith(top + "/") for top in tops):
            tops.append(path)
    everything = builder.files | set(builder.links)
    stray = sorted(p for p in everything if not any(p.startswith(t + "/") for t in tops))
    if stray:  # a library outside them (/lib on a host without merged /usr): its own folder
        tops += sorted({"/" + p.lstrip("/").split("/", 1)[0] for p in stray} - set(tops))
    return tuple(tops)


@functools.lru_cache(maxsize=1)
def memory_base() -> tuple[Path, bool]:
    """Where trees and the seats' copies are kept: ``/dev/shm`` when it is a tmpfs or ramfs
    (True), else the temporary folder (False)."""
    if _in_memory(MEMORY_BASE) and os.access(MEMORY_BASE, os.W_OK):
        return MEMORY_BASE, True
    return Path(tempfile.gettempdir()), False


def _in_memory(path: Path) -> bool:
    try:
        return _fs_type(path) in {TMPFS_MAGIC, RAMFS_MAGIC}
    except OSError:
        return False


def _fs_type(path: Path) -> int:
    """statfs(2)'s f_type of ``path``'s filesystem (from ``stat -f``: Python has no statfs)."""
    done = subprocess.run(
        ["stat", "-f", "-c", "%t", str(path)], capture_output=True, timeout=10, check=False
    )
    if done.returncode != 0:
        raise OSError(f"stat -f {path}: {done.stderr.decode(errors='replace').strip()}")
    return int(done.stdout.strip() or b"0", 16)


def host_has_swap() -> bool:
    """Whether the host swaps (``/proc/swaps`` lists a device): tmpfs pages could leave."""
    try:
        return len(Path("/proc/swaps").read_text().splitlines()) > 1
    except OSError:
        return True


_locked: list[tuple[int, int]] = []  # (address, length) of the locked maps, kept for life


def _lock_pages(root: Path) -> bool:
    """Maps every file of the tree into this process and locks it in memory (``mlock``), for
    its life. False when a lock was refused (an unprivileged runner's ``RLIMIT_MEMLOCK``)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    for where, _, names in os.walk(root):
        for name in names:
            path = os.path.join(where, name)
            size = os.lstat(path).st_size
            if os.path.islink(path) or size == 0:
                continue
            fd = os.open(path, os.O_RDONLY)
            try:
                address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            finally:
                os.close(fd)
            if address in (None, ctypes.c_void_p(-1).value):
                return False
            _locked.append((address, size))
            if libc.mlock(ctypes.c_void_p(address), ctypes.c_size_t(size)) != 0:
                return False
    return True


SHARED_PREFIX = f"{TREE_PREFIX}shared-"
"""The name of a host's shared tree: this, then its key (:func:`tree_key`)."""
HOLDERS = ".holders"
"""The file each process using a shared tree holds a shared ``flock`` on."""
COMPLETE = ".complete"
"""The mark of a whole tree (removed first when the tree is removed)."""

_tree: RuntimeTree | None = None
_tree_owner = 0
_held: int | None = None  # this process's descriptor of its tree's HOLDERS (its lock)
_tree_lock = threading.Lock()


def runtime_tree() -> RuntimeTree:
    """The host's tree for this runner's code, held by this process until it ends (built if
    no process of the host holds one; a forked worker takes a hold of its own). Raises
    OSError when it cannot be written."""
    global _tree, _tree_owner, _held
    with _tree_lock:
        if _tree is not None and _tree_owner == os.getpid() and _tree.root.is_dir():
            return _tree
        _tree, _held = shared_tree()
        _tree_owner = os.getpid()
        atexit.register(release_tree, _tree.root, _held, _tree_owner)
        return _tree


def tree_key(*, node: bool = True) -> str:
    """A digest of what a tree copies, cheap to compute (no file is read): the interpreter,
    the virtualenv, every installed file of the SDK's distributions, the ``arena`` package's
    and ``protos/``'s files and the tools, each by its path, size and modification time.
    Two processes running the same code compute the same key."""
    digest = hashlib.sha256(f"{sys.version}\0{sys.prefix}\0{node}\0".encode())
    paths = [sys.executable, os.path.realpath(sys.executable), *distribution_files()]
    paths += editable_files()
    for folder in (PACKAGE_DIR, PROTOS_DIR):
        for where, dirs, names in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            paths += [os.path.join(where, name) for name in sorted(names)]
    paths += [tool for tool in TOOLS if node or not tool.endswith("/node")]
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            digest.update(f"{path}\0-\0".encode())
            continue
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return digest.hexdigest()[:24]


def shared_tree(*, node: bool = True, base: Path | None = None) -> tuple[RuntimeTree, int]:
    """The host's tree for this code (:func:`tree_key`), built if none is there, and this
    process's hold on it: the descriptor of its ``.holders`` with a shared lock, to give to
    :func:`release_tree`. Raises OSError."""
    in_memory = True
    if base is None:
        base, in_memory = memory_base()
    began = time.monotonic()
    root = base / f"{SHARED_PREFIX}{tree_key(node=node)}"
    for _ in range(5):
        held = _hold(root)
        if held is None:
            with contextlib.suppress(FileExistsError, OSError):
                _publish(build_tree(node=node, base=base, lock=False), root)
            held = _hold(root)
        if held is not None:
            tree = _described(root, in_memory, time.monotonic() - began)
            return replace(tree, locked=_locked_if_swapping(root)), held
    raise OSError(f"the runtime tree {root} was removed each time it was taken")


def _hold(root: Path) -> int | None:
    """A shared lock on a whole tree's holders file, or None (no tree, or one being
    removed)."""
    try:
        fd = os.open(root / HOLDERS, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a last holder removes it
    if not (root / COMPLETE).exists():
        os.close(fd)
        return None
    return fd


def _publish(tree: RuntimeTree, root: Path) -> None:
    """Marks a tree built under its builder's name whole and renames it into ``root``
    (FileExistsError, OSError: another process's tree got there first; this one is
    removed)."""
    try:
        (tree.root / HOLDERS).touch(mode=0o444)
        (tree.root / COMPLETE).touch(mode=0o444)
        facts = {"tops": list(tree.tops), "files": tree.files, "bytes": tree.bytes}
        (tree.root / "tree.json").write_text(json.dumps(facts) + "\n")
        os.rename(tree.root, root)
    except OSError:
        shutil.rmtree(tree.root, ignore_errors=True)
        raise


def _described(root: Path, in_memory: bool, seconds: float) -> RuntimeTree:
    facts = json.loads((root / "tree.json").read_text())
    return RuntimeTree(
        root=root,
        tops=tuple(facts["tops"]),
        files=int(facts["files"]),
        bytes=int(facts["bytes"]),
        build_seconds=seconds,
        in_memory=in_memory,
        locked=False,
    )


def release_tree(root: Path, held: int, owner: int) -> bool:
    """Gives up this process's hold on a shared tree; the last holder removes the tree
    (True). Only in the process that took the hold (a forked child shares its lock)."""
    if os.getpid() != owner:
        return False
    return _remove_if_last(root, held)


def sweep_unheld(base: Path) -> int:
    """Removes the shared trees in ``base`` that no process holds (their last holder was
    killed before it could); returns how many."""
    removed = 0
    with contextlib.suppress(OSError):
        for entry in base.iterdir():
            if not entry.name.startswith(SHARED_PREFIX):
                continue
            try:
                fd = os.open(entry / HOLDERS, os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                continue
            removed += _remove_if_last(entry, fd)
    return removed


def _remove_if_last(root: Path, fd: int) -> bool:
    """Removes the tree ``root`` if ``fd`` (of its holders file) can take the lock alone: no
    other process holds it (True). Closes ``fd`` either way. Its ``.complete`` mark goes
    first, so that a process waiting for a hold finds the tree going (:func:`_hold`)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    with contextlib.suppress(OSError):
        (root / COMPLETE).unlink()
    shutil.rmtree(root, ignore_errors=True)
    os.close(fd)
    return True


@functools.cache
def compile_package() -> bool:
    """Writes the bytecode of the ``arena`` package next to its sources, once per process.

    A sandboxed bot cannot write ``__pycache__`` (its binds are read-only), so without it
    every start compiles ``arena.sdk``, ``arena.engine`` and ``arena.protocol`` again (about
    35 ms of a start). Best effort: False when the package's folder is not writable (an
    installed package has its bytecode from the installer).
    """
    import compileall

    with contextlib.suppress(OSError):
        return bool(compileall.compile_dir(str(PACKAGE_DIR), quiet=2, workers=1))
    return False


def build_tree(*, node: bool = True, base: Path | None = None, lock: bool = True) -> RuntimeTree:
    """Builds a tree (see the module's text) in ``base`` (default :func:`memory_base`),
    removed when this process ends unless it is renamed (:func:`shared_tree`); ``lock``: lock
    its pages on a host with swap. Raises OSError."""
    began = time.monotonic()
    in_memory = True
    if base is None:
        base, in_memory = memory_base()
    if not in_memory:
        from arena.runner.fallbacks import warn_once

        warn_once(
            "runtime-tree",
            f"{MEMORY_BASE} is not a tmpfs: the seats' runtime tree is on disk, and its page "
            "cache is shared between seats",
        )
    compile_package()
    import arena.protocol  # noqa: F401  # its generated stubs are part of the package copied

    builder = collect(node=node)
    owner = os.getpid()
    root = Path(tempfile.mkdtemp(prefix=f"{TREE_PREFIX}{owner}-", dir=base))
    atexit.register(_remove_tree, root, owner)
    try:
        root.chmod(0o755)
        files, size = builder.copy_to(root)
    except BaseException:
        _remove_tree(root, owner)
        raise
    locked = lock and _locked_if_swapping(root)
    return RuntimeTree(
        root=root,
        tops=top_folders(builder),
        files=files,
        bytes=size,
        build_seconds=time.monotonic() - began,
        in_memory=in_memory,
        locked=locked,
    )


def _locked_if_swapping(root: Path) -> bool:
    """Locks the tree's pages in this process where the host has swap (True), with a warning
    when it may not; True also where there is no swap (nothing to lock them against)."""
    swaps = host_has_swap()
    locked = swaps and _lock_pages(root)
    if swaps and not locked:
        from arena.runner.fallbacks import warn_once

        warn_once(
            "runtime-tree-lock",
            "the seats' runtime tree could not be locked in memory (RLIMIT_MEMLOCK): on this "
            "host with swap its pages may leave memory and be read back",
        )
    return locked or not swaps


def _remove_tree(root: Path, owner: int) -> None:
    if os.getpid() == owner:
        shutil.rmtree(root, ignore_errors=True)


def server_prefix(tree: RuntimeTree) -> list[str]:
    """An argv prefix that runs a command of the host (the fork server) in a mount namespace
    of its own where the tree's folders are bound over the host's: the interpreter, its
    libraries and modules it maps are then the tree's (the pages a forked seat inherits).
    Needs root; ``/usr`` is bound last (``mount`` itself comes from the host's)."""
    tops = [top for top in tree.tops if top != "/usr"] + ["/usr"]
    binds = " && ".join(
        f"/usr/bin/mount --bind {_quote(tree.source(top))} {_quote(top)}" for top in tops
    )
    return [
        "/usr/bin/unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "/bin/sh",
        "-c",
        f'{binds} && exec "$@"',
        "server",
    ]


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
