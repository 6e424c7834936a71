"""Python seats forked by the fork server (:mod:`arena.runner.forkserver`): the forked bot is
confined exactly as one started by ``exec`` (namespaces, root, uid, capabilities, system-call
filter, limits, control groups, environment, descriptors), the server's memory never holds a
seat's data, a bot's exit status and its words come through, and a seat prepared ahead is
confined before it waits and runs no bot code before its start. Everything as root with the
real sandbox (CI=true: no skip)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import require

import arena.runner.cgroups as cgroups
from arena.runner.forkserver import ForkServer
from arena.runner.process import BotProcess, StartError, fork_server
from arena.runner.sandbox import Limits

pytestmark = [pytest.mark.sandbox]

PROBE_BOT = """
import os
import sys

print("PROBE ran", os.getppid(), sorted(os.environ), file=sys.stderr, flush=True)


def is_open(fd):
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


print("PROBE fds", [fd for fd in range(1024) if is_open(fd)], file=sys.stderr, flush=True)

from arena.sdk import Bot, serve


class Probe(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


if __name__ == "__main__":
    serve(Probe())
"""

STATUS_FIELDS = (
    "Uid",
    "Gid",
    "Groups",
    "CapInh",
    "CapPrm",
    "CapEff",
    "CapBnd",
    "CapAmb",
    "NoNewPrivs",
    "Seccomp",
)


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    return bot_folder(tmp_path, "probe", PROBE_BOT)


def bot_folder(base: Path, name: str, source: str) -> Path:
    """A folder ``name`` in ``base`` holding ``source`` as its ``bot.py``."""
    folder = base / name
    folder.mkdir()
    (folder / "bot.py").write_text(source)
    return folder


SCRIPT = ["python", "bot.py"]
FLAGGED = ["python", "-X", "utf8", "bot.py"]
"""A command the forked seat execs (interpreter flags), where ``SCRIPT`` runs in it."""


def seat(
    folder: Path,
    label: str,
    *,
    fork: bool = True,
    limits: Limits | None = None,
    command: list[str] | None = None,
) -> BotProcess:
    """A sandboxed seat of the Python bot ``bot.py`` in ``folder``, not started yet."""
    return BotProcess(
        label=label,
        command=command or SCRIPT,
        folder=folder,
        limits=limits or Limits(),
        sandboxed=True,
        python=True,
        fork=fork,
    )


@contextlib.contextmanager
def started(
    folder: Path,
    *,
    fork: bool,
    env: dict[str, str] | None = None,
    limits: Limits | None = None,
    command: list[str] | None = None,
) -> Iterator[BotProcess]:
    process = seat(folder, "fork-probe", fork=fork, limits=limits, command=command)
    try:
        process.start(env)
        yield process
    finally:
        process.close()


def forking_runner() -> None:
    """Skips (fails under CI=true) where this runner does not fork seats."""
    found = cgroups.backend()
    require(
        os.geteuid() == 0 and found is not None and found.freezer_parent is not None,
        "a root runner with a freezer group (where seats are forked)",
    )
    require(fork_server() is not None, "the fork server")


def uid_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid line for {pid}")


def bot_pid(process: BotProcess) -> int:
    """The host pid of the seat's Python process (the bot, under its own uid: not its middle),
    found in its control group (a forked bot joins it a moment after the fork)."""
    group = process._group
    assert group is not None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        for folder in {Path(name).parent for name in group.procs_files()}:
            for pid in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    if (
                        Path(f"/proc/{pid}/comm").read_text().startswith("python")
                        and uid_of(int(pid)) != 0
                    ):
                        return int(pid)
        time.sleep(0.01)
    raise AssertionError("no Python process in the seat's group")


def confinement(process: BotProcess) -> dict[str, object]:
    """What confines the seat's bot, read by the host from /proc (uid aside: fresh per seat)."""
    pid = bot_pid(process)
    status = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    fields = {name: status[name].split() for name in STATUS_FIELDS}
    fields["Uid"] = [str(int(uid) >= 1_000_000) for uid in fields["Uid"]]
    fields["Gid"] = [str(int(gid) >= 1_000_000) for gid in fields["Gid"]]
    sandbox = process.sandbox_pid
    assert sandbox is not None
    namespaces = {
        name: os.readlink(f"/proc/{pid}/ns/{name}") == os.readlink(f"/proc/{sandbox}/ns/{name}")
        for name in ("ipc", "uts", "net", "cgroup", "pid", "mnt")
    }
    root, sandbox_root = os.stat(f"/proc/{pid}/root"), os.stat(f"/proc/{sandbox}/root")
    cgroup_lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    in_group = all(
        any(Path(name).parent.name in line for line in cgroup_lines)
        for name in process._group.procs_files()  # type: ignore[union-attr]
    )
    limits = Path(f"/proc/{pid}/limits").read_text()
    return {
        **fields,
        "namespaces": namespaces,
        "root": (root.st_dev, root.st_ino) == (sandbox_root.st_dev, sandbox_root.st_ino),
        "cwd": os.readlink(f"/proc/{pid}/cwd"),
        "in_group": in_group,
        "limits": limits,
        # What ps shows: the bot's command, as an exec started it.
        "cmdline": Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").split(b"\0"),
    }


def probe_lines(process: BotProcess, key: str) -> str:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        found = re.search(rf"PROBE {key} (.*)", process.log.text())
        if found:
            return found.group(1)
        time.sleep(0.02)
    raise AssertionError(process.log.text())


def test_a_forked_bot_is_the_fork_servers_child_and_alone_in_its_seats_groups(
    bwrap: str, probe: Path
) -> None:
    """No process stands between the fork server and the bot: the server, outside the seat,
    reaps it and writes its exit status. The seat's groups hold the bot alone (nothing of the
    runner's or the server's), so the OOM killer there can only pick the bot."""
    forking_runner()
    server = fork_server()
    assert server is not None
    with started(probe, fork=True) as forked:
        bot = bot_pid(forked)
        status = Path(f"/proc/{bot}/status").read_text()
        parent = int(re.search(r"PPid:\s+(\d+)", status).group(1))  # type: ignore[union-attr]
        assert parent == server.pid and uid_of(bot) != 0
        assert forked._group is not None and set(forked._group.pids()) == {bot}
        assert Path(f"/proc/{bot}/oom_score_adj").read_text().strip() == "0"
        assert os.getpid() not in forked._group.pids()


@pytest.mark.parametrize("command", [SCRIPT, FLAGGED], ids=["script", "exec-from-fork"])
def test_a_forked_seat_is_confined_as_a_seat_started_by_exec(
    bwrap: str, probe: Path, command: list[str]
) -> None:
    forking_runner()
    with started(probe, fork=False, command=command) as execd:
        assert not execd.forked
        expected = confinement(execd)
        exec_env = probe_lines(execd, "ran")
        exec_fds = probe_lines(execd, "fds")
    with started(probe, fork=True, command=command) as forked:
        assert forked.forked
        got = confinement(forked)
        forked_env = probe_lines(forked, "ran")
        forked_fds = probe_lines(forked, "fds")
        # A Python script forked in finds its SDK's server started (gRPC's wake-up
        # descriptors and the seat's listening socket, which the bot's own serve() would
        # make anyway, and takes), and nothing else.
        extra = set(json.loads(forked_fds)) - set(json.loads(exec_fds))
        pid = bot_pid(forked)
        made = {re.sub(r"\d+", "N", os.readlink(f"/proc/{pid}/fd/{fd}")) for fd in extra}
        assert made <= {"anon_inode:[eventfd]", "anon_inode:[eventpoll]", "socket:[N]"}, made
        assert (extra != set()) == (command == SCRIPT)
        forked_fds = json.dumps(sorted(set(json.loads(forked_fds)) - extra))
    assert got == expected
    assert expected["Seccomp"] == ["2"] and expected["NoNewPrivs"] == ["1"]
    assert expected["CapEff"] == ["0000000000000000"] == expected["CapBnd"]
    assert all(expected["namespaces"].values())  # type: ignore[union-attr]
    assert expected["root"] and expected["in_group"] and expected["cwd"] == "/bot"
    assert expected["cmdline"][-1] == b"bot.py"  # type: ignore[index]
    # The same variables and nothing of the host's; its parent outside its pid namespace (0),
    # where bwrap's init is its parent (1) otherwise; stdin, stdout, stderr and the folder read.
    assert exec_env.split(" ", 1)[1] == forked_env.split(" ", 1)[1]
    assert forked_env.split(" ", 1)[0] == "0"
    assert exec_fds == forked_fds == "[0, 1, 2]"  # extra ones of gRPC's aside (above)


SEAL_PROBE_BOT = """
import os
import sys
import threading
import time

from arena.sdk import Bot, serve


def watch():
    said = None
    while True:
        try:
            for fd in os.pipe():
                os.close(fd)
            now = "ok"
        except OSError as error:
            now = f"refused {error.errno}"
        if now != said:
            print("PROBE pipe", now, file=sys.stderr, flush=True)
            said = now
        time.sleep(0.02)


threading.Thread(target=watch, daemon=True).start()


class Probe(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(Probe())
"""


def test_a_forked_seat_makes_pipes_until_it_is_sealed(bwrap: str, tmp_path: Path) -> None:
    forking_runner()
    folder = bot_folder(tmp_path, "seal-probe", SEAL_PROBE_BOT)
    with started(folder, fork=True) as process:
        assert process.forked
        assert probe_lines(process, "pipe") == "ok"  # while it starts, as any program
        time.sleep(0.2)
        assert "refused" not in process.log.text()
        process.seal()
        assert process._watch is not None
        answered = process._watch.answered
        deadline = time.monotonic() + 10
        while "PROBE pipe refused" not in process.log.text() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert f"PROBE pipe refused {errno.ENOSYS}" in process.log.text(), process.log.text()
        time.sleep(0.2)  # ten more pipes tried: refused by the kernel, asked of no one
        assert process._watch.answered == answered
        assert process.is_running()  # refused, not killed
    with started(folder, fork=False) as execd:  # a seat started by exec is not sealed
        execd.seal()
        time.sleep(0.2)
        assert probe_lines(execd, "pipe") == "ok"
        assert "refused" not in execd.log.text()


FLOOD_BOT = """
import os
import sys

made, refused = 0, {}
for _ in range(3000):
    try:
        for fd in os.pipe():
            os.close(fd)
        made += 1
    except OSError as error:
        refused[error.errno] = refused.get(error.errno, 0) + 1
print("PROBE flood", made, refused, file=sys.stderr, flush=True)
sys.exit(3)
"""


def test_a_seat_making_pipes_by_the_thousand_while_it_starts_is_sealed_early(
    bwrap: str, tmp_path: Path
) -> None:
    """The runner answers a starting seat's sealed calls up to a bound, then seals it: the
    rest fail at once in the bot's own time, and the bot's failed start is its own."""
    from arena.runner.seal import STARTING_CALLS

    forking_runner()
    folder = bot_folder(tmp_path, "flood", FLOOD_BOT)
    process = seat(folder, "flood")
    try:
        with pytest.raises(StartError, match="exited with status 3"):
            process.start()
        assert process.forked
        made, refused = probe_lines(process, "flood").split(" ", 1)
        assert 0 < int(made) <= STARTING_CALLS
        assert refused == repr({errno.ENOSYS: 3000 - int(made)})
        assert f"made {STARTING_CALLS} pipes, sockets or memfds while starting" in (
            process.log.text()
        )
    finally:
        process.close()
    assert fork_server() is not None  # not the host's failure


def test_a_forked_seat_gets_the_seats_limits(bwrap: str, probe: Path) -> None:
    forking_runner()
    limits = Limits(
        cpu_seconds=7,
        memory_bytes=300 * 1024**2,
        processes=33,
        open_files=77,
        file_bytes=5 * 1024**2,
    )
    with started(probe, fork=True, limits=limits) as forked:
        assert forked.forked
        text = confinement(forked)["limits"]
    assert isinstance(text, str)
    rows = {" ".join(line.split()[:-3]): line.split()[-3:-1] for line in text.splitlines()[1:]}
    assert rows["Max cpu time"] == ["7", "7"]
    assert rows["Max address space"] == [str(600 * 1024**2)] * 2
    assert rows["Max processes"] == ["33", "33"]
    assert rows["Max open files"] == ["77", "77"]
    assert rows["Max file size"] == [str(5 * 1024**2)] * 2
    assert rows["Max core file size"] == ["0", "0"]


def memory_holds(pid: int, needle: bytes) -> bool:
    """Whether the readable memory of process ``pid`` holds ``needle`` (read as root)."""
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as memory:
        for line in maps:
            span, perms = line.split()[:2]
            if not perms.startswith("r"):
                continue
            start, end = (int(part, 16) for part in span.split("-"))
            with contextlib.suppress(OSError, ValueError, OverflowError):
                memory.seek(start)
                if needle in memory.read(end - start):
                    return True
    return False


def test_the_fork_server_never_holds_what_a_seat_was_given(bwrap: str, probe: Path) -> None:
    forking_runner()
    server = fork_server()
    assert server is not None
    seed = str(secrets.randbits(62) | 1 << 61)
    with started(probe, fork=True, env={"SCOPA_BOT_SEED": seed}) as forked:
        assert forked.forked
        # The control: the seat itself holds its seed, where the search can find it...
        assert memory_holds(bot_pid(forked), seed.encode())
        # ...and the server, whose memory every later seat starts from, never had it.
        assert not memory_holds(server.pid, seed.encode())


def test_a_forked_bots_exit_status_and_words_come_through(bwrap: str, tmp_path: Path) -> None:
    forking_runner()
    folder = bot_folder(
        tmp_path, "quitter", 'import sys\nprint("going away now", file=sys.stderr)\nsys.exit(3)\n'
    )
    process = seat(folder, "quitter")
    try:
        with pytest.raises(
            StartError,
            match=r"exited with status 3 before listening "
            r"\(going away now\)",
        ):
            process.start()
        assert process.forked
    finally:
        process.close()


def test_a_seat_prepared_ahead_is_confined_and_runs_no_bot_code_until_its_start(
    bwrap: str, probe: Path
) -> None:
    forking_runner()
    process = seat(probe, "ahead")
    try:
        assert process.prepare()
        seat_dir = process.seat_dir
        waiting = bot_pid(process)  # forked already, waiting for its start...
        deadline = time.monotonic() + 10
        while "Seccomp:\t2" not in (status := Path(f"/proc/{waiting}/status").read_text()):
            assert time.monotonic() < deadline, status
            time.sleep(0.01)
        time.sleep(0.3)
        assert "PROBE" not in process.log.text()  # ...without running any of the bot's code
        for line in (
            "Seccomp:\t2",
            "NoNewPrivs:\t1",
            "CapEff:\t0000000000000000",
            "CapBnd:\t0000000000000000",
        ):
            assert line in status  # and confined before it waits
        process.start({"SCOPA_BOT_SEED": "5"})
        assert process.forked and process.seat_dir == seat_dir  # the seat made ahead
        assert bot_pid(process) == waiting
        assert probe_lines(process, "ran")
    finally:
        process.close()


def test_a_seat_prepared_ahead_and_never_started_ends_without_a_word(
    bwrap: str, probe: Path
) -> None:
    forking_runner()
    process = seat(probe, "unused")
    try:
        assert process.prepare()
        waiting = bot_pid(process)
    finally:
        process.close()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{waiting}").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not Path(f"/proc/{waiting}").exists()
    assert "PROBE" not in process.log.text()


def test_a_forked_seats_sandbox_is_held_by_one_cat_that_ends_with_the_seat(
    bwrap: str, probe: Path
) -> None:
    forking_runner()
    process = seat(probe, "held")
    try:
        assert process.prepare()
        assert process.sandbox_pid is not None
        tree = cgroups.tree_pids(process.sandbox_pid)
        names = {pid: Path(f"/proc/{pid}/comm").read_text().strip() for pid in tree}
        # The sandbox's first process (bubblewrap, its pid 1) and the holder: one cat (no
        # shell, no sleep).
        assert sorted(names.values()) == ["bwrap", "cat"], names
        (holder,) = [pid for pid, name in names.items() if name == "cat"]
        assert os.readlink(f"/proc/{holder}/fd/0").startswith("pipe:")
    finally:
        process.close()
    assert not Path(f"/proc/{holder}").exists()


def test_a_live_forked_seat_is_not_taken_for_an_orphan(bwrap: str, probe: Path) -> None:
    forking_runner()
    found = cgroups.backend()
    assert found is not None
    with started(probe, fork=True) as forked:
        assert forked.forked and forked._group is not None
        assert forked._group.name not in cgroups.orphaned_groups(found)


def test_a_fork_server_that_died_is_started_again(bwrap: str, probe: Path) -> None:
    forking_runner()
    server = fork_server()
    assert server is not None
    os.kill(server.pid, signal.SIGKILL)
    server._process.wait()
    with started(probe, fork=True) as forked:
        assert forked.forked
        assert probe_lines(forked, "ran")
    again = fork_server()
    assert again is not None and again.pid != server.pid and again.alive()


def test_a_seat_whose_fork_fails_is_started_by_exec(
    bwrap: str, probe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forking_runner()
    fork = ForkServer.fork

    def die_first(self: ForkServer, *args: Any, **kwargs: Any) -> Any:
        os.kill(self.pid, signal.SIGKILL)  # the server dies as the seat's request goes out
        self._process.wait()
        return fork(self, *args, **kwargs)

    monkeypatch.setattr(ForkServer, "fork", die_first)
    with started(probe, fork=True) as seat:
        assert not seat.forked  # by exec, in the same match
        assert probe_lines(seat, "ran")
    monkeypatch.undo()
    with started(probe, fork=True) as forked:  # and the next start has a new server
        assert forked.forked


def test_a_forked_seat_whose_set_up_fails_is_started_by_exec_and_forking_stops(
    bwrap: str, probe: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.runner.process as process_module

    forking_runner()
    # A limit the kernel does not know: the forked bot's set-up fails before any of its code
    # runs, as it would on a host that does not let the server join a sandbox.
    monkeypatch.setattr(Limits, "rlimits", lambda self: {"RLIMIT_NO_SUCH_LIMIT": 1})
    monkeypatch.setattr(process_module, "_server_failed", False)
    try:
        with started(probe, fork=True) as seat:
            assert not seat.forked  # by exec, after the forked start failed in its set-up
            assert probe_lines(seat, "ran")
            assert "forkserver: cannot set up the seat" in seat.log.text()
        assert fork_server() is None  # no more forked seats in this process
    finally:
        process_module._server_failed = False
    assert fork_server() is not None


def test_a_bot_cannot_pass_its_own_exit_for_a_failed_set_up(bwrap: str, tmp_path: Path) -> None:
    forking_runner()
    folder = bot_folder(
        tmp_path,
        "liar",
        'import os, sys\nprint("forkserver: cannot set up the seat", file=sys.stderr)\n'
        "sys.stderr.flush()\nos._exit(125)\n",
    )
    process = seat(folder, "liar")
    try:
        with pytest.raises(StartError, match="exited with status 125 before listening"):
            process.start()
        assert process.forked  # its own fault, and seats are still forked
    finally:
        process.close()
    assert fork_server() is not None


RAW_GRPC_BOT = """
import os
import sys
import time
from concurrent import futures

import grpc

from arena.protocol import ADDRESS_ENV, bot_pb2_grpc
from arena.runner.echo_bot import EchoServicer

server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
bot_pb2_grpc.add_BotServicer_to_server(EchoServicer(), server)
server.add_insecure_port(os.environ[ADDRESS_ENV])
server.start()
print("LISTENING", os.environ[ADDRESS_ENV], flush=True)
while True:
    time.sleep(60)
"""


def links_made_ahead(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the connections made ahead to seats made ready ahead, and those dropped."""
    import arena.runner.seats as match_module
    from arena.runner.link import BotLink

    counts = {"made": 0, "dropped": 0}
    connect, forget = BotLink.connect, match_module._forget_link

    def counted_connect(self: BotLink) -> None:
        counts["made"] += 1
        connect(self)

    async def counted_forget(link: BotLink, call: Any) -> None:
        counts["dropped"] += 1
        await forget(link, call)

    monkeypatch.setattr(BotLink, "connect", counted_connect)
    monkeypatch.setattr(match_module, "_forget_link", counted_forget)
    return counts


def test_a_seat_made_ready_ahead_is_connected_to_and_described_ahead(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SDK bot's seat made ready ahead is connected to while the game before it plays, and
    that connection is the one its game uses."""
    from arena.runner import BotRef, MatchSpec, run_match

    forking_runner()
    counts = links_made_ahead(monkeypatch)
    spec = MatchSpec(
        entrants=[BotRef.parse("random"), BotRef.parse("greedy")],
        variant="scopa",
        games=4,
        seed=1,
        move_time_ms=5000,
        replays_dir=tmp_path / "replays",
    )
    report = run_match(spec)
    for game in report.games:
        assert game.void is None and game.forfeit is None and game.faults == [], game
    # Two fresh seats for the second game of each set (4 here), each connection used.
    assert counts["made"] >= 2 and counts["dropped"] == 0, counts


def test_a_forked_bot_with_a_grpc_server_of_its_own_is_reached_there(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat made ready ahead has its SDK's server started while it waits, and the runner
    connects to it ahead. A Python bot that serves with a gRPC server of its own binds the
    seat's socket anew: the runner finds it is not the socket it connected to, and talks to
    the bot's own server, game after game."""
    from arena.runner import BotRef, MatchSpec, run_match

    forking_runner()
    counts = links_made_ahead(monkeypatch)
    folder = bot_folder(tmp_path, "raw-echo", RAW_GRPC_BOT)
    (folder / "bot.toml").write_text(
        'name = "raw-echo"\nversion = "1.0.0"\nauthor = "tests"\n'
        'command = ["python", "bot.py"]\nvariants = ["*"]\n'
    )
    spec = MatchSpec(
        entrants=[BotRef.parse(str(folder)), BotRef.parse("random")],
        variant="scopa",
        games=4,
        seed=1,
        move_time_ms=5000,
        replays_dir=tmp_path / "replays",
        rest_seats=False,  # a new process made ready ahead for each set's second game
    )
    report = run_match(spec)
    assert len(report.games) == 4
    for game in report.games:
        assert game.void is None and game.forfeit is None and game.faults == [], game
    assert sum(1 for game in report.games[1:] if game.start_ms > 0) >= 3  # fresh each game
    assert counts["dropped"] >= 1  # a connection made ahead to a socket the bot replaced


TICKING_BOT = """
import sys
import threading
import time

from arena.sdk import Bot, serve


def tick():
    count = 0
    while True:
        count += 1
        print("TICK", count, file=sys.stderr, flush=True)
        time.sleep(0.01)


threading.Thread(target=tick, daemon=True).start()


class Probe(Bot):
    def choose(self, observation, legal_moves):
        return legal_moves[0]


serve(Probe())
"""


def test_a_retired_seat_never_runs_again(bwrap: str, tmp_path: Path) -> None:
    """The last game's process is retired when the next game's starts: frozen at once (its
    end, which takes CPU the start wants, comes later), then killed before it is thawed, so
    it runs none of its code from its retirement on."""
    forking_runner()
    folder = bot_folder(tmp_path, "ticking", TICKING_BOT)
    with started(folder, fork=True) as process:
        deadline = time.monotonic() + 10
        while process.log.text().count("TICK") < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        process.retire()
        time.sleep(0.05)  # a tick under way when it froze is written by now
        ticks = process.log.text().count("TICK")
        time.sleep(0.3)
        assert process.log.text().count("TICK") == ticks  # frozen: thirty ticks missed
        assert process.is_running()
        process.stop()
        assert process.log.text().count("TICK") == ticks  # killed before it was thawed
        assert not process.is_running()


def test_a_forked_bot_outlives_its_fork_server_and_is_still_seen_running(
    bwrap: str, probe: Path
) -> None:
    """The fork server is a forked bot's parent, which reports its exit status. Should the
    server die, the bot lives on in its sandbox; the runner tells it is running from a pidfd
    of it, and that it ended once it has."""
    forking_runner()
    with started(probe, fork=True) as forked:
        server = fork_server()
        assert server is not None and forked.forked
        os.kill(server.pid, signal.SIGKILL)
        server._process.wait()
        time.sleep(0.1)
        assert forked.is_running() and forked.exit_status() is None
        bot = bot_pid(forked)
        os.kill(bot, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while forked.is_running() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert forked.exit_status() == -signal.SIGKILL  # its status went with the server
    assert fork_server() is not None  # a new one for the next seat
