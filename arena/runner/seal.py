"""The seal of a forked seat: its pipes, sockets and memfds are made while it starts, and
refused once its game begins.

A forked bot's system-call filter asks about each call of :data:`arena.runner.seccomp.SEALED`
(``SECCOMP_RET_USER_NOTIF``: the kernel holds the call until the filter's listener answers).
The bot hands that listener to the runner as it says it is confined
(:data:`arena.runner.forkserver.CONFINED_WORD`), before any of its code runs; the runner's
*warden* (:func:`warden`, one thread per runner process) answers each call: made as asked
while the seat starts, except a ``NETLINK_SOCK_DIAG`` socket (whose dumps give cookies; the
filter's allow-list refuses one before it is asked, and the warden would too). The filter
asks only of the socket kinds it allows (:data:`arena.runner.seccomp.SOCKET_KINDS`).

The runner seals the seat before its game's first message (:meth:`Watch.seal`) by closing the
listener: from then on the kernel fails each such call at once with ``ENOSYS``, in the bot's
own time, and nobody has to answer it. A bot making such calls by the thousand in its game
spends only its own share of the CPU. While it starts, the warden answers at most
:data:`STARTING_CALLS` of them (a sample bot makes 3): past that the seat is sealed early (its
own doing), so no bot can keep the runner's thread busy.

This module imports only the standard library and :mod:`arena.runner.seccomp`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import socket
import struct
import threading
from collections.abc import Callable

import arena.runner.seccomp as seccomp
from arena.runner.forkserver import AHEAD_WORD, CONFINED_WORD

STARTING_CALLS = 1024
"""How many sealed calls the warden answers for a seat while it starts (past it: sealed)."""

# ioctl(2) requests of a seccomp listener (_IOWR('!', n, struct)), and the structs' layouts.
_NOTIF_RECV = 0xC0502100  # struct seccomp_notif: id, pid, flags, nr, arch, ip, args[6]
_NOTIF_SEND = 0xC0182101  # struct seccomp_notif_resp: id, val, error, flags
_NOTIF = struct.Struct("=QIIiIQ6Q")
_NOTIF_RESP = struct.Struct("=QqiI")
_NOTIF_FLAG_CONTINUE = 1
_AF_NETLINK, _NETLINK_SOCK_DIAG = 16, 4
_SOCKET_CALLS = ("socket", "socketpair")  # whose NETLINK_SOCK_DIAG sockets are refused


class Watch:
    """One forked seat as the warden keeps it: the socket its bot says ``confined`` on, then
    its filter's listener until the seal."""

    def __init__(
        self, warden: Warden, sock: socket.socket, note: Callable[[str], None] | None
    ) -> None:
        self._warden = warden
        self._socket: socket.socket | None = sock
        self._listener: int | None = None
        self._confined: bool | None = None  # None: not said yet
        self._said = threading.Event()  # the bot said all it says before its start (or ended)
        self.ahead = False  # its SDK's server is started (AHEAD_WORD)
        self._note = note
        self.answered = 0  # sealed calls made as asked
        self.sealed = False

    def confined(self) -> bool | None:
        """Whether the bot said it is confined: True, False when it ended without a word
        (its set-up failed), None while it may still say it."""
        with self._warden.lock:
            if self._confined is None:
                self._take_word()
            return self._confined

    def wait_ahead(self, timeout: float) -> bool:
        """Waits (up to ``timeout`` s) for the bot's last word before its start: whether its
        SDK's server is started (:data:`arena.runner.forkserver.AHEAD_WORD`)."""
        self._said.wait(timeout)
        with self._warden.lock:
            return self.ahead

    def seal(self) -> None:
        """From now on each sealed call of the seat fails (``ENOSYS``) without being asked:
        the listener is closed. A call under way is answered first."""
        with self._warden.lock:
            self.sealed = True
            self._close_listener()

    def close(self) -> None:
        """Forgets the seat (sealed, the word's socket closed)."""
        with self._warden.lock:
            self.sealed = True
            self._close_listener()
            self._close_socket()

    # --- under the warden's lock ---

    def _close_socket(self) -> None:
        if self._socket is not None:
            self._warden.forget(self._socket.fileno())
            self._socket.close()
            self._socket = None
        self._said.set()

    def _take_word(self) -> None:
        """Reads the bot's words: that it is confined (with its listener), then whether its
        server is started ahead; or its end without them, if any of these came."""
        sock = self._socket
        if sock is None:
            return
        try:
            message, fds, _, _ = socket.recv_fds(sock, 64, 1, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            message, fds = b"", []
        if self._confined is not None:  # its second word, or its end
            for fd in fds:
                _close(fd)
            self.ahead = message == AHEAD_WORD  # (read once: the socket closes now)
            self._close_socket()
            return
        self._confined = message == CONFINED_WORD
        if not self._confined:
            self._close_socket()
        listener = fds[0] if fds else None
        for fd in fds[1:]:
            _close(fd)
        if listener is None:
            return
        if not self._confined or self.sealed:
            _close(listener)
            return
        self._listener = listener
        self._warden.follow(listener, self)

    def _answer(self, listener: int, event: int) -> None:
        """Answers one sealed call waiting on ``listener`` (the seat's, still open)."""
        if self._listener != listener:
            return
        if event & (select.EPOLLHUP | select.EPOLLERR) and not event & select.EPOLLIN:
            self._close_listener()  # every process of the filter is gone
            return
        if not select.select([listener], [], [], 0)[0]:  # (a stale event)
            return
        buffer = bytearray(_NOTIF.size)
        try:
            fcntl.ioctl(listener, _NOTIF_RECV, buffer)
        except OSError:  # the caller was interrupted or died meanwhile
            return
        ident, _, _, number, _, _, *args = _NOTIF.unpack(buffer)
        error = 0
        if (
            number in seccomp.syscall_numbers(_SOCKET_CALLS).values()
            and args[0] & seccomp.LOW_32_BITS == _AF_NETLINK
            and args[2] & seccomp.LOW_32_BITS == _NETLINK_SOCK_DIAG
        ):
            error = errno.EPROTONOSUPPORT
        answer = _NOTIF_RESP.pack(ident, 0, -error, 0 if error else _NOTIF_FLAG_CONTINUE)
        with contextlib.suppress(OSError):  # the caller was interrupted or died
            fcntl.ioctl(listener, _NOTIF_SEND, answer)
        self.answered += 1
        if self.answered >= STARTING_CALLS:
            self.sealed = True
            self._close_listener()
            if self._note is not None:
                self._note(
                    f"[arena] made {STARTING_CALLS} pipes, sockets or memfds while "
                    "starting: sealed early, each one refused from now on\n"
                )

    def _close_listener(self) -> None:
        if self._listener is not None:
            self._warden.forget(self._listener)
            _close(self._listener)
            self._listener = None


class Warden:
    """The runner process's thread that reads forked seats' words and answers their sealed
    calls while they start."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._poller = select.epoll()
        self._follows: dict[int, tuple[Watch, bool]] = {}  # fd -> its seat, is a listener
        self._thread = threading.Thread(target=self._run, name="seal-warden", daemon=True)
        self._thread.start()

    def watch(self, sock: socket.socket, note: Callable[[str], None] | None = None) -> Watch:
        """Takes a forked seat's end of its confine socket; ``note`` gets a line for the seat's
        log should it be sealed early."""
        seat = Watch(self, sock, note)
        with self.lock:
            self._follows[sock.fileno()] = (seat, False)
            self._poller.register(sock.fileno(), select.EPOLLIN)
        return seat

    def follow(self, fd: int, seat: Watch) -> None:
        """(Under the lock.) Answers the calls waiting on the listener ``fd``."""
        self._follows[fd] = (seat, True)
        self._poller.register(fd, select.EPOLLIN)

    def forget(self, fd: int) -> None:
        """(Under the lock, before ``fd`` is closed.)"""
        if self._follows.pop(fd, None) is not None:
            with contextlib.suppress(OSError):
                self._poller.unregister(fd)

    def _run(self) -> None:
        while True:
            try:
                events = self._poller.poll()
            except InterruptedError:
                continue
            for fd, event in events:
                with self.lock:
                    found = self._follows.get(fd)
                    if found is None:
                        continue
                    seat, is_listener = found
                    if is_listener:
                        seat._answer(fd, event)
                    else:
                        seat._take_word()


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


_warden: Warden | None = None
_warden_owner = 0  # the pid that started it (a forked worker starts its own)
_warden_lock = threading.Lock()


def warden() -> Warden:
    """This runner process's warden, started on first use."""
    global _warden, _warden_owner
    with _warden_lock:
        if _warden is None or _warden_owner != os.getpid():
            _warden = Warden()
            _warden_owner = os.getpid()
        return _warden


__all__ = ["STARTING_CALLS", "Warden", "Watch", "warden"]
