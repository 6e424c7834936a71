"""The runner's parts one by one: statistics, BOT arguments, seating, the sandbox's command,
bad input to ``arena match``, remote bots, void games, and a machine without bubblewrap."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from runner_helpers import BOTS, run_coroutine, verify_replays

from arena.cli import main as arena_main
from arena.engine import rules_for
from arena.protocol import bot_pb2, bot_pb2_grpc
from arena.runner import BotError, BotRef, Limits, MatchError, MatchSpec, run_match
from arena.runner.match import check_spec, seating, set_seed
from arena.runner.sandbox import (
    bot_was_started,
    close_plan,
    is_host_failure,
    launch_command,
    remove_tree,
    spawn,
)
from arena.runner.stats import EloEstimate, likelihood_of_superiority

# ---- statistics ---------------------------------------------------------------------------


def test_elo_error_and_los_match_the_cutechess_formulas() -> None:
    estimate = EloEstimate.from_counts(wins=45, losses=35, draws=20)
    assert estimate.score == pytest.approx(0.55)
    assert estimate.elo == pytest.approx(34.86, abs=0.01)
    assert estimate.error == pytest.approx(61.80, abs=0.01)
    assert estimate.los == pytest.approx(0.8682, abs=0.0001)
    assert estimate.describe() == ("Elo difference: +34.9 +/- 61.8, LOS: 86.8 %, DrawRatio: 20.0 %")


def test_a_clean_sweep_has_an_infinite_elo_difference_and_no_error_margin() -> None:
    estimate = EloEstimate.from_counts(wins=4, losses=0, draws=0)
    assert math.isinf(estimate.elo) and math.isinf(estimate.error)
    assert "every game won: no finite figure yet (4 games)" in estimate.describe()
    assert "inf" not in estimate.describe()
    short = EloEstimate.from_counts(wins=7, losses=3, draws=0)  # ten games: no margin yet
    assert math.isinf(short.error) is (short.summary().endswith("(too few games: 10)"))


def test_los_is_one_half_when_wins_equal_losses() -> None:
    assert likelihood_of_superiority(10, 10) == 0.5
    assert likelihood_of_superiority(0, 0) == 0.5


# ---- bots and specs -------------------------------------------------------------------------


def test_a_sample_bot_name_resolves_to_its_trusted_folder() -> None:
    bot = BotRef.parse("greedy")
    assert bot.trusted and bot.label == "greedy (1.0.0)" and bot.manifest is not None
    assert bot.manifest.command == ("python", "bot.py")


def test_a_test_bot_folder_is_not_trusted() -> None:
    assert not BotRef.parse(str(BOTS / "late")).trusted


def test_a_grpc_address_is_a_remote_bot() -> None:
    bot = BotRef.parse("grpc://127.0.0.1:50051")
    assert bot.is_remote and bot.address == "127.0.0.1:50051"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no-such-bot", "unknown bot 'no-such-bot'"),
        ("grpc://nowhere", "expected grpc://HOST:PORT"),
        ("grpc://host:99999", "expected grpc://HOST:PORT"),
        ("./missing/folder", "no such folder"),
    ],
)
def test_it_rejects_bad_bot_arguments(text: str, message: str) -> None:
    with pytest.raises(BotError, match=message):
        BotRef.parse(text)


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ('version = "1"\ncommand = ["python", "bot.py"]\n', "'name' must be"),
        ('name = "Bad Name"\nversion = "1"\ncommand = ["x"]\n', "must match"),
        ('name = "ok"\nversion = "1"\ncommand = []\n', "'command' must be"),
        ('name = "ok"\nversion = "1"\ncommand = ["x"]\nvariants = "scopa"\n', "'variants'"),
        ("name = ", "cannot read it"),
    ],
)
def test_it_rejects_bad_manifests(tmp_path: Path, manifest: str, message: str) -> None:
    (tmp_path / "bot.toml").write_text(manifest)
    with pytest.raises(BotError, match=message):
        BotRef.parse(str(tmp_path))


def test_a_folder_without_a_manifest_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(BotError, match=r"no bot\.toml"):
        BotRef.parse(str(tmp_path))


@pytest.mark.parametrize(
    ("variant", "bots", "message"),
    [
        ("scopa", ["random"], "takes 2 bots, got 1"),
        ("scopa", ["random"] * 3, "takes 2 bots, got 3"),
        ("scopone", ["random"] * 3, "takes 2 or 4 bots, got 3"),
        ("nope", ["random"] * 2, "unknown variant"),
    ],
)
def test_it_rejects_impossible_matches(variant: str, bots: list[str], message: str) -> None:
    spec = MatchSpec([BotRef.parse(b) for b in bots], variant)
    with pytest.raises(MatchError, match=message):
        check_spec(spec)


def test_games_and_clocks_must_be_positive() -> None:
    bots = [BotRef.parse("random"), BotRef.parse("random")]
    with pytest.raises(MatchError, match="--games"):
        check_spec(MatchSpec(bots, "scopa", games=0))
    with pytest.raises(MatchError, match="--move-time"):
        check_spec(MatchSpec(bots, "scopa", move_time_ms=0))
    with pytest.raises(MatchError, match=r"--bank \(500 ms\) must be at least --move-time"):
        check_spec(MatchSpec(bots, "scopa", move_time_ms=1000, bank_ms=500))


def test_four_entrants_rotate_round_the_table_keeping_partners() -> None:
    rules = rules_for("scopone")
    rotations = [seating(rules, 4, r) for r in range(4)]
    assert rotations == [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]]
    for seats in rotations:  # entrants 0 and 2 always sit on the same side
        assert rules.side_of(seats.index(0)) == rules.side_of(seats.index(2))


def test_set_seeds_are_stable_and_distinct() -> None:
    assert set_seed(1, 0) == set_seed(1, 0)
    assert len({set_seed(1, i) for i in range(100)}) == 100


# ---- the sandbox's command ------------------------------------------------------------------


def test_the_sandbox_binds_only_what_the_bot_needs(bwrap: str, tmp_path: Path) -> None:
    seat_dir = tmp_path / "seat"
    seat_dir.mkdir()
    folder = BOTS / "late"
    plan = launch_command(
        ["python", "bot.py"], folder, seat_dir, Limits(), sandbox=True, python=True
    )
    close_plan(plan)
    argv = plan.argv
    binds = [
        (argv[i], argv[i + 1], argv[i + 2])
        for i in range(len(argv) - 2)
        if argv[i] in {"--bind", "--ro-bind", "--ro-bind-try"}
    ]
    sources = {source for _, source, _ in binds}
    assert "/" not in sources
    assert not any(s.startswith(("/var", "/run", "/home")) for s in sources)
    assert ("--ro-bind", str(folder), "/bot") in binds
    assert not any(kind == "--bind" for kind, _, _ in binds), "the host gives nothing writable"
    # Everything writable is a tmpfs of a fixed size, each counted in the seat's memory.
    tmpfs = {argv[i + 1]: argv[i - 1] for i in range(len(argv) - 1) if argv[i] == "--tmpfs"}
    assert tmpfs == {
        "/dev/shm": str(64 * 1024**2),
        "/tmp": str(64 * 1024**2),
        "/sock": str(256 * 1024),
    }
    for flag in (
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--die-with-parent",
        "--seccomp",
        "--info-fd",
    ):
        assert flag in argv
    assert ("--ro-bind-try", str(seat_dir / "empty-file"), "/proc/loadavg") in binds
    # Every host-wide entry of /proc reads empty; /proc/sys and /proc/cpuinfo are copies; no
    # pseudo-terminals.
    masked = {dest for kind, _, dest in binds if kind == "--ro-bind-try"}
    host = {f"/proc/{name}" for name in os.listdir("/proc") if not name.isdigit()}
    kept = {
        "/proc/self",
        "/proc/thread-self",
        "/proc/mounts",
        "/proc/net",
        "/proc/sysvipc",
        "/proc/filesystems",
        "/proc/sys",
        "/proc/cpuinfo",
    }
    assert masked == host - kept
    assert ("--ro-bind", str(seat_dir / "proc" / "sys"), "/proc/sys") in binds
    assert ("--ro-bind", str(seat_dir / "proc" / "cpuinfo"), "/proc/cpuinfo") in binds
    assert ("--ro-bind", str(seat_dir / "empty"), "/dev/pts") in binds
    assert (seat_dir / "proc" / "sys" / "kernel" / "cap_last_cap").is_file()
    assert not (seat_dir / "proc" / "sys" / "fs" / "file-nr").exists()
    assert argv[0] == "prlimit" and "--nproc=128" in argv
    assert plan.bind_address == "unix:///sock/bot.sock"
    assert plan.socket_path == "/sock/bot.sock"


def test_a_deep_folder_chain_with_links_is_removed_and_what_they_point_at_is_kept(
    tmp_path: Path,
) -> None:
    base = tmp_path / "seat"
    base.mkdir()
    target = tmp_path / "host"
    target.mkdir()
    (target / "keep.txt").write_text("kept")
    here = os.getcwd()
    os.chdir(base)
    try:
        os.symlink(target, "escape")
        for level in range(2000):  # deeper than the recursion limit and than PATH_MAX
            os.mkdir("d")
            os.chdir("d")
            if level % 500 == 0:
                os.symlink(target, "link")
                Path("file").write_text("x")
                os.mkfifo("fifo")
    finally:
        os.chdir(here)
    remove_tree(base)
    assert not base.exists()
    assert (target / "keep.txt").read_text() == "kept"
    remove_tree(base)  # a second call, on nothing, is harmless


# ---- arena match: bad input -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["random"], "two to four bots"),
        (["random", "nobody"], "unknown bot 'nobody'"),
        (["random", "greedy", "--variant", "tresette"], "unknown variant 'tresette'"),
        (["random", "greedy", "--games", "0"], "--games must be at least 1"),
        (["random", "greedy", "--option", "target"], "expected NAME=VALUE"),
        (["random", "greedy", "--option", "bogus=1"], "bogus"),
        (["random", "greedy", "--memory", "10"], "--memory must be at least 64 MiB"),
        (["random", "greedy", "--processes", "2"], "--processes must be at least 8"),
        (["random", "greedy", "--tmp-size", "0"], "--tmp-size must be at least 1 MiB"),
        (["random", "greedy", "--cpu-time", "0"], "--cpu-time must be at least 1"),
        (["random", "greedy", "--file-size", "0"], "--file-size must be at least 1 MiB"),
    ],
)
def test_arena_match_rejects_bad_input_with_one_line(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert arena_main(["match", *args]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


# ---- remote bots, void games, machines without bubblewrap ------------------------------------


def test_a_bot_run_by_its_author_plays_over_grpc(tmp_path: Path) -> None:
    from arena.sdk.server import create_server

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots" / "greedy"))
    try:
        from bot import GreedyBot  # the sample bot's module, served here in-process
    finally:
        sys.path.pop(0)
    server, address = create_server(GreedyBot(), "127.0.0.1:0")
    try:
        spec = MatchSpec(
            [BotRef.parse(f"grpc://{address}"), BotRef.parse("random")],
            "scopa",
            games=2,
            seed=2,
            replays_dir=tmp_path,
        )
        report = run_match(spec)
    finally:
        server.stop(grace=None)
    assert report.labels[0] == "greedy (1.0.0)"  # from Describe
    assert report.sandboxed == [False, True]
    assert all(game.faults == [] and game.void is None for game in report.games)
    assert verify_replays(tmp_path)[0]["players"].count("greedy (1.0.0)") == 1


def test_partner_pacing_holds_the_sandboxed_seats_turns_not_a_remote_seats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a partnership game every turn of a sandboxed seat waits for its release point; a
    seat run by its author (or a person's, on the Play page) is never held."""
    import arena.runner.game as game_module
    from arena.sdk.server import create_server

    paced: list[tuple[float, int]] = []
    release_ms = game_module.release_ms

    def noted(elapsed_ms: float, limit_ms: int) -> int:
        paced.append((elapsed_ms, limit_ms))
        return release_ms(elapsed_ms, limit_ms)

    monkeypatch.setattr(game_module, "release_ms", noted)
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots" / "greedy"))
    try:
        from bot import GreedyBot  # the sample bot's module, served here in-process
    finally:
        sys.path.pop(0)
    server, address = create_server(GreedyBot(), "127.0.0.1:0")
    try:
        spec = MatchSpec(
            [BotRef.parse(f"grpc://{address}"), BotRef.parse("random")],
            "scopone",
            options={"target": 1},
            games=1,
            duplicate=False,
            seed=2,
        )
        report = run_match(spec)
    finally:
        server.stop(grace=None)
    (game,) = report.games
    assert game.faults == [] and game.void is None
    moves = [m for deal in game.replay["deals"] for m in deal["moves"]]
    local = [m for m in moves if game.seats[m["seat"]] == 1]
    assert 0 < len(local) < len(moves)
    assert len(paced) == len(local)  # each of random's turns, none of the remote greedy's
    assert all(limit == spec.move_time_ms for _, limit in paced)


def test_a_game_the_host_cannot_start_is_void(
    bwrap: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No room for the bots' seat folders: the host's failure, not the bots'.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    spec = MatchSpec([BotRef.parse("random"), BotRef.parse("greedy")], "scopa", games=2)
    report = run_match(spec)
    assert [game.void is not None for game in report.games] == [True, True]
    assert "cannot create a folder for the bot" in (report.games[0].void or "")
    assert report.games[0].replay["void"] == report.games[0].void
    lines = report.summary()
    assert [(line.games, line.void, line.wins, line.losses) for line in lines] == [
        (0, 2, 0, 0),
        (0, 2, 0, 0),
    ]


def _path_without_bwrap(tmp_path: Path) -> str:
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("prlimit",):
        os.symlink(f"/usr/bin/{tool}", folder / tool)
    return str(folder)


def test_without_bubblewrap_an_untrusted_bot_is_refused(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": _path_without_bwrap(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", str(BOTS / "late"), "random"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "bubblewrap (bwrap) is not available" in done.stderr
    assert "--unsafe-no-sandbox" in done.stderr


def test_without_bubblewrap_sample_bots_run_with_limits_only(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": _path_without_bwrap(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "random", "greedy", "--games", "2", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["sandboxed"] == [False, False]
    assert all(game["void"] is None and not game["faults"] for game in report["games"])


def test_a_game_is_void_when_the_host_cannot_prepare_the_bot(bwrap: str, tmp_path: Path) -> None:
    folder = tmp_path / "vanishing"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "vanishing"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
    )
    bot = BotRef.parse(str(folder))
    (folder / "bot.toml").unlink()
    folder.rmdir()  # gone before the match: nothing to copy for the seat, the host's failure
    report = run_match(MatchSpec([bot, BotRef.parse("random")], "scopa", games=2))
    for game in report.games:
        assert game.void is not None and "cannot copy the bot's folder" in game.void
        assert game.faults == [] and game.winner_entrants == []


def test_what_bubblewrap_prlimit_and_the_group_join_say_is_the_hosts_failure() -> None:
    assert is_host_failure("bwrap: Can't find source path /x: No such file or directory\n")
    assert is_host_failure("cgroup: cannot join /sys/fs/cgroup/memory/x/cgroup.procs\n")
    assert not is_host_failure("setpriv: failed to execute nope: No such file or directory\n")


def test_a_start_is_the_bots_once_its_command_ran_whatever_it_prints(
    bwrap: str, tmp_path: Path
) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.sh").write_text('echo "bwrap: Can\'t mount proc on /newroot/proc" >&2\nexit 1\n')

    def run(seat: str, broken: bool) -> tuple[bool, str]:
        (tmp_path / seat).mkdir()
        plan = launch_command(
            ["sh", "bot.sh"], folder, tmp_path / seat, Limits(), sandbox=True, python=False
        )
        if broken:  # a bind of nothing: bubblewrap fails before the bot's command
            at = plan.argv.index("--chdir")
            plan = dataclasses.replace(
                plan,
                argv=[
                    *plan.argv[:at],
                    "--ro-bind",
                    str(tmp_path / "nothing"),
                    "/x",
                    *plan.argv[at:],
                ],
            )
        try:
            process = spawn(plan)
            _, err = process.communicate(timeout=60)
            assert process.returncode != 0
            return bot_was_started(plan), err.decode()
        finally:
            close_plan(plan)

    started, said = run("ran", broken=False)
    assert started, said
    assert said.startswith("bwrap: Can't mount proc")  # the bot's words
    started, said = run("failed", broken=True)
    assert not started and is_host_failure(said) and "nothing" in said


def test_a_remote_bot_that_does_not_play_the_variant_forfeits_at_start() -> None:
    from arena.sdk import Bot
    from arena.sdk.server import create_server

    class OnlyScopone(Bot):
        name = "only-scopone"
        variants = ("scopone",)

        def choose(self, observation, legal_moves):  # type: ignore[no-untyped-def]
            return legal_moves[0]

    server, address = create_server(OnlyScopone(), "127.0.0.1:0")
    try:
        report = run_match(
            MatchSpec([BotRef.parse(f"grpc://{address}"), BotRef.parse("random")], "scopa")
        )
    finally:
        server.stop(grace=None)
    for game in report.games:
        assert [fault["kind"] for fault in game.faults] == ["start"]
        assert "does not play 'scopa'" in game.faults[0]["detail"]


def test_arena_match_prints_a_table_with_elo_and_los(
    bwrap: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status = arena_main(
        ["match", "random", "greedy", "--games", "2", "--seed", "3", "--replays", str(tmp_path)]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "random (1.0.0)" in out and "greedy (1.0.0)" in out
    assert re.search(
        r"Elo difference: ([-+]?\d+\.\d( \+/- \d+\.\d|, no 95% margin yet)|every "
        r"game (won|lost)).*, LOS: \d+\.\d %",
        " ".join(out.split()),
    )
    assert len(verify_replays(tmp_path)) == 2
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == [
        "entrant0-0-random-1.0.0.log",
        "entrant1-0-greedy-1.0.0.log",
    ]


# ---- one Play stream: deadlines ----------------------------------------------------------


class _Named(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """Says its name when described."""

    def __init__(self, name: str) -> None:
        self.name = name

    def Describe(self, request: Any, context: Any) -> Any:
        return bot_pb2.BotInfo(name=self.name, protocol_version=1)


def test_a_seat_whose_socket_takes_an_old_descriptor_number_is_reached_itself(
    tmp_path: Path,
) -> None:
    # A seat's target is the descriptor the runner holds of its socket
    # (unix:/proc/self/fd/N), and the next seat's socket may take the same number while a
    # channel to the first is still open: the new channel must reach the new socket, never
    # the live connection to the old one (gRPC shares connections by target text unless
    # told not to: a seat was played by another entrant's process).
    from arena.runner.link import BotLink
    from arena.runner.sandbox import open_socket, socket_address

    servers = []
    for name in ("first", "second"):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        bot_pb2_grpc.add_BotServicer_to_server(_Named(name), server)
        server.add_insecure_port(f"unix:{tmp_path / name}.sock")
        server.start()
        servers.append(server)

    async def names() -> list[str]:
        held = open_socket(None, str(tmp_path / "first.sock"))
        first = BotLink(socket_address(held))
        said = [(await first.describe(5)).name]
        second_fd = open_socket(None, str(tmp_path / "second.sock"))
        os.dup2(second_fd, held)  # the first seat's number now names the second socket
        os.close(second_fd)
        second = BotLink(socket_address(held))
        assert second.target == first.target
        said += [(await second.describe(5)).name, (await first.describe(5)).name]
        await first.close()
        third = BotLink(socket_address(held))
        said.append((await third.describe(5)).name)
        for link in (second, third):
            await link.close()
        os.close(held)
        return said

    try:
        said = run_coroutine(names())
    finally:
        for server in servers:
            server.stop(grace=None)
    # The first channel keeps its own connection; every later one reaches the second socket.
    assert said == ["first", "second", "first", "second"]


class _SlowOnRequest(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """Answers every turn request at once, except request 40, answered after 1.5 s."""

    def Play(self, request_iterator: Any, context: Any) -> Any:
        for message in request_iterator:
            if message.WhichOneof("kind") == "turn_request":
                request_id = message.turn_request.request_id
                if request_id == 40:
                    time.sleep(1.5)
                yield bot_pb2.TurnResponse(request_id=request_id, move_index=0)


def test_a_stream_times_out_only_the_turn_past_its_deadline() -> None:
    from arena.runner.link import BotLink

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServicer_to_server(_SlowOnRequest(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()

    async def play() -> list[Any]:
        link = BotLink(f"127.0.0.1:{port}")
        stream = link.open_game(timeout=None)
        answers = []
        # Turns spread over more than one deadline: the first turn's deadline passes during
        # later turns, which must not time out.
        for request_id in range(1, 43):
            message = bot_pb2.ArenaMessage(turn_request=bot_pb2.TurnRequest(request_id=request_id))
            answers.append(await stream.ask(message, request_id, 1, 0.5))
            # After the slow turn, the bot is given time to finish it before the next one.
            await asyncio.sleep(1.5 if request_id == 40 else 0.015)
        stream.cancel()
        await link.close()
        return answers

    try:
        answers = run_coroutine(play())
    finally:
        server.stop(grace=None)
    # (Why a turn failed, should one: the stream's own words.)
    assert [a.fault for a in answers[:39]] == [None] * 39, [a.detail for a in answers[:39]]
    assert answers[39].fault == "timeout"  # request 40
    # Its late answer is skipped; the next turns get their own answers.
    assert [(a.fault, a.index) for a in answers[40:]] == [(None, 0), (None, 0)]


def test_a_turn_read_directly_is_handed_off_at_its_deadline() -> None:
    from arena.runner.link import Answer, BotLink, TurnHandedOff

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    bot_pb2_grpc.add_BotServicer_to_server(_SlowOnRequest(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()

    async def play() -> tuple[list[Any], list[Answer], list[str]]:
        link = BotLink(f"127.0.0.1:{port}")
        stream = link.open_game(timeout=None)
        handed: list[Answer] = []
        stream.hand_off = handed.append  # called at the deadline, instead of returning
        answers: list[Any] = []
        ends: list[str] = []
        for request_id in range(1, 43):
            message = bot_pb2.ArenaMessage(turn_request=bot_pb2.TurnRequest(request_id=request_id))
            try:
                answers.append(await stream.ask(message, request_id, 1, 0.5))
            except TurnHandedOff:
                # Raised once the late answer has been read, after the hand-off.
                ends.append(f"request {request_id} handed off after {len(handed)} hand-off")
            await asyncio.sleep(0.015)
        stream.cancel()
        await link.close()
        return answers, handed, ends

    try:
        answers, handed, ends = run_coroutine(play())
    finally:
        server.stop(grace=None)
    assert [(a.fault, a.index) for a in answers] == [(None, 0)] * 41  # every request but 40
    assert [(a.fault, a.index) for a in handed] == [("timeout", None)]
    assert 500 <= handed[0].elapsed_ms < 1500  # at the deadline, not when the answer came
    assert ends == ["request 40 handed off after 1 hand-off"]


def test_the_manifest_env_reaches_the_sandboxed_bot_under_the_arena_variables(
    bwrap: str, tmp_path: Path
) -> None:
    folder = tmp_path / "env-bot"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "env-bot"\nversion = "1"\ncommand = ["python", "bot.py"]\n'
        '[env]\nLEVEL = "3"\nSCOPA_BOT_SEED = "forged"\nHOME = "/forged"\n'
    )
    (folder / "bot.py").write_text(
        "import os, sys\n"
        "from arena.sdk import Bot, serve\n"
        "print('env:', os.environ.get('LEVEL'), os.environ['SCOPA_BOT_SEED'],"
        " os.environ['HOME'], file=sys.stderr, flush=True)\n"
        "class First(Bot):\n"
        "    def choose(self, observation, legal_moves):\n"
        "        return legal_moves[0]\n"
        "serve(First())\n"
    )
    spec = MatchSpec([BotRef.parse(str(folder)), BotRef.parse("random")], "scopa", games=2, seed=4)
    report = run_match(spec)
    assert report.sandboxed == [True, True]
    assert all(game.faults == [] and game.void is None for game in report.games)
    lines = [line for line in report.logs["0/0"].splitlines() if "env:" in line]
    assert lines, report.logs["0/0"]
    level, seed, home = lines[0].split("env:")[1].split()
    assert (level, home) == ("3", "/tmp")  # the manifest's variable; the sandbox's home
    assert seed.isdigit()  # the arena's seed, not the manifest's


def test_arena_match_flags_set_each_seats_limits() -> None:
    from arena.commands.match import limits_from_args

    parser = argparse.ArgumentParser()
    subparsers = parser.add_subparsers()
    from arena.commands import match as match_command

    match_command.register(subparsers)
    args = parser.parse_args(
        ["match", "random", "greedy", "--memory", "300", "--tmp-size", "8", "--processes", "20"]
    )
    limits = limits_from_args(args, games=2, bank_ms=10_000)
    assert (limits.memory_bytes, limits.tmp_bytes, limits.processes) == (
        300 * 1024**2,
        8 * 1024**2,
        20,
    )
    assert limits.cpu_seconds == 60 + 30  # the default for two games of a 10 s bank
    plain = parser.parse_args(["match", "random", "greedy"])
    assert limits_from_args(plain, games=2, bank_ms=10_000) is None
