"""Makes system calls under a compiled seccomp filter and says how each ended (a test helper).

Run as ``python seccomp_probe.py FILTER_FILE|- PROBES_FILE``: loads the BPF program of
FILTER_FILE into this process (``-``: no filter, the control), then makes each probe's system
call and prints one JSON object per probe: ``{"signal": N}`` when the call killed the process
that made it, else ``{"result": R, "errno": E}``.

PROBES_FILE holds a JSON list of probes ``[name, [arg, ...], inline]``: ``name`` is a system
call of this architecture or ``"#N"`` for the number N (whether or not it has a name), each
argument an integer (a full 64-bit register) or a string naming a value the probe makes:
``"fd"`` (an open regular file, read-only), ``"scratch"`` (an open regular file, read and
write), ``"dirfd"`` (an open folder), ``"flock"`` (a pointer to a ``struct flock`` that
read-locks the whole file), ``"pair"`` (a pointer to room for two descriptors), ``"socket"`` (a
unix socket), ``"length"`` (a pointer to a ``socklen_t`` of 8), ``"buffer"`` (a pointer to 4096
zeroed bytes), ``"timeval0"`` and ``"timespec0"`` (pointers to a zero time-out). ``inline``
false: the call is made in a forked child (so that a call that kills, SIGSYS, ends the child
only), whose descriptors 0, 1 and 2 are the scratch file, so that no call on them reaches the
test's own. ``inline`` true: made in the probe itself (for calls that cannot end it: thousands
of a multiplexer's values, where a fork each would take minutes).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import json
import os
import socket
import struct
import sys
import tempfile

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1
CHILD_RETURNS = {"clone", "fork"}
"""Calls after which a new process runs on in the probe's code (its result there is 0)."""


libc = ctypes.CDLL(None, use_errno=True)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_filter(program: bytes) -> None:
    """Installs ``program`` (BPF, 8 bytes an instruction) on this process."""
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    number = syscall_number("seccomp")
    result = libc.syscall(
        ctypes.c_long(number),
        ctypes.c_ulong(SECCOMP_SET_MODE_FILTER),
        ctypes.c_ulong(0),
        ctypes.byref(fprog),
    )
    if result != 0:
        raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER)")


@functools.cache
def syscall_number(name: str) -> int:
    """The number of system call ``name`` on this architecture (through libseccomp), or N for
    ``"#N"``."""
    if name.startswith("#"):
        return int(name[1:])
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp") or "libseccomp.so.2")
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    number: int = lib.seccomp_syscall_resolve_name(name.encode())
    if number < 0:
        raise ValueError(f"no system call {name!r} on this architecture")
    return number


def _values(folder: str) -> dict[str, object]:
    path = os.path.join(folder, "file")
    with open(path, "wb") as handle:
        handle.write(b"x" * 64)
    flock = ctypes.create_string_buffer(struct.pack("hhqqi4x", 0, 0, 0, 0, 0))  # F_RDLCK
    return {
        "fd": os.open(path, os.O_RDONLY),
        "scratch": os.open(os.path.join(folder, "scratch"), os.O_RDWR | os.O_CREAT, 0o600),
        "dirfd": os.open(folder, os.O_RDONLY | os.O_DIRECTORY),
        "flock": flock,
        "pair": (ctypes.c_int * 2)(),
        "socket": socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).detach(),
        "length": ctypes.c_uint32(8),
        "buffer": ctypes.create_string_buffer(4096),
        "timeval0": ctypes.create_string_buffer(16),
        "timespec0": ctypes.create_string_buffer(16),
    }


def _arguments(args: list[object], values: dict[str, object]) -> list[object]:
    real: list[object] = []
    for arg in args:
        if isinstance(arg, str):
            value = values[arg]
            real.append(ctypes.c_ulong(value) if isinstance(value, int) else ctypes.byref(value))  # type: ignore[arg-type]
        else:
            assert isinstance(arg, int)
            real.append(ctypes.c_ulong(arg & 0xFFFFFFFFFFFFFFFF))
    return real


def probe(name: str, args: list[object], values: dict[str, object], inline: bool) -> dict[str, int]:
    """Makes one call (in a forked child unless ``inline``); how it ended."""
    number = syscall_number(name)
    real = _arguments(args, values)
    if inline:
        result = libc.syscall(ctypes.c_long(number), *real)
        return {"result": int(result), "errno": ctypes.get_errno() if result < 0 else 0}
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        scratch = values["scratch"]
        assert isinstance(scratch, int)
        for fd in (0, 1, 2):
            os.dup2(scratch, fd)
        result = libc.syscall(ctypes.c_long(number), *real)
        code = ctypes.get_errno() if result < 0 else 0
        if result == 0 and name in CHILD_RETURNS:  # the new process of a call that went through
            os._exit(0)
        os.write(write_end, json.dumps({"result": int(result), "errno": code}).encode())
        os._exit(0)
    os.close(write_end)
    _, status = os.waitpid(pid, 0)
    data = b""
    while chunk := os.read(read_end, 4096):
        data += chunk
    os.close(read_end)
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return json.loads(data) if data else {"result": -1, "errno": -1}


def main(argv: list[str]) -> int:
    filter_file, probes_file = argv[1], argv[2]
    with open(probes_file, encoding="utf-8") as handle:
        probes = json.load(handle)
    out = os.fdopen(os.dup(1), "w")
    with tempfile.TemporaryDirectory() as folder:
        values = _values(folder)
        if filter_file != "-":
            with open(filter_file, "rb") as handle:
                load_filter(handle.read())
        for name, args, inline in probes:
            print(json.dumps(probe(name, args, values, inline)), file=out, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
