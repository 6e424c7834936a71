"""Makes system calls under a compiled seccomp filter and says how each ended (a test helper).

Run as ``python seccomp_probe.py FILTER_FILE|- PROBES_JSON``: loads the BPF program of
FILTER_FILE into this process (``-``: no filter, the control), then makes each probe's system
call in a forked child, so that a call that kills (SIGSYS) ends the child only. Prints one JSON
object per probe: ``{"signal": N}`` when the child was killed, else ``{"result": R, "errno":
E}``. A probe is ``[name, [arg, ...]]``: ``name`` is a system call of this architecture,
each argument an integer (a full 64-bit register) or a string naming a value the probe makes:
``"fd"`` (an open regular file, read-only), ``"dirfd"`` (an open folder), ``"flock"`` (a
pointer to a ``struct flock`` that read-locks the whole file), ``"pair"`` (a pointer to room
for two descriptors), ``"socket"`` (a unix socket), ``"length"`` (a pointer to a
``socklen_t`` of 8).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import socket
import struct
import sys
import tempfile

PR_SET_NO_NEW_PRIVS = 38
SECCOMP_SET_MODE_FILTER = 1


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_filter(program: bytes) -> None:
    """Installs ``program`` (BPF, 8 bytes an instruction) on this process."""
    libc = ctypes.CDLL(None, use_errno=True)
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


def syscall_number(name: str) -> int:
    """The number of system call ``name`` on this architecture (through libseccomp)."""
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
        "dirfd": os.open(folder, os.O_RDONLY | os.O_DIRECTORY),
        "flock": flock,
        "pair": (ctypes.c_int * 2)(),
        "socket": socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).detach(),
        "length": ctypes.c_uint32(8),
    }


def probe(name: str, args: list[object], values: dict[str, object]) -> dict[str, int]:
    """Makes one call in a forked child; how it ended."""
    libc = ctypes.CDLL(None, use_errno=True)
    number = syscall_number(name)
    real: list[object] = []
    for arg in args:
        if isinstance(arg, str):
            value = values[arg]
            real.append(ctypes.c_ulong(value) if isinstance(value, int) else ctypes.byref(value))  # type: ignore[arg-type]
        else:
            assert isinstance(arg, int)
            real.append(ctypes.c_ulong(arg & 0xFFFFFFFFFFFFFFFF))
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        result = libc.syscall(ctypes.c_long(number), *real)
        code = ctypes.get_errno() if result < 0 else 0
        if result == 0 and name == "clone":  # the new child of a clone that went through
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
    filter_file, probes_json = argv[1], argv[2]
    probes = json.loads(probes_json)
    with tempfile.TemporaryDirectory() as folder:
        values = _values(folder)
        if filter_file != "-":
            with open(filter_file, "rb") as handle:
                load_filter(handle.read())
        for name, args in probes:
            print(json.dumps(probe(name, args, values)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
