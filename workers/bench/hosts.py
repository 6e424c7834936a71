"""``arena bench hosts``: workers on separate hosts, one of them cut off mid-match.

A deployment as ``docker-compose.yml`` describes it, on hosts of their own
(:mod:`workers.bench.hostlab`: network namespaces on a private LAN): PostgreSQL and Redis on a
services host, the site's host (migrations, celery beat, the ``arena`` commands) and two
worker hosts, ``w1`` with a right clock and ``w2`` with its wall clock a minute ahead. Each run
plays a long match (ISMCTS against greedy) on one worker host, cuts that host's link mid-match
and measures, beside the lease and the sweep interval (the stated bound):

- how long after the cut the cut host has stopped its seats (bot processes, control groups,
  folders): it counts the lease out by its own monotonic clock;
- how long after the lease ran out (by the database's clock) the other host took the match
  over: the sweep enqueues it again, a free worker claims it.

Runs alternate between the two hosts; medians are printed. Needs root. The multi-host tests
(``tests/workers/test_hosts.py``) run the same scenario once and check every game is counted
once, no seat is left on either host, and nothing changes when the link comes back.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from workers.bench.hostlab import ArenaProcess, Host, Lab, LabError, Services

SUMMARY = "worker hosts in network namespaces: a host cut off mid-match (needs root)"

LEASE_S = 4.0
"""The workers' match lease in the lab: short, so that a cut-off host's match moves soon."""
SWEEP_S = 2.0
"""How often the lab's celery beat sweeps."""
CLOCK_AHEAD_S = 60.0
"""How far ahead of the others the wall clock of worker host ``w2`` runs."""
LONG_TARGET = 11
"""Points of the long match's games (ISMCTS against greedy, about 25 s a match)."""
LADDER = "scopa:target=1"  # about one deal a game: seconds per ladder match
WORKER_HOSTS = {"w1": (31, 0.0), "w2": (32, CLOCK_AHEAD_S)}


class ScenarioError(AssertionError):
    """The deployment did not do what the scenario waited for (one line, with the logs)."""


def wait_until(
    predicate: Callable[[], Any],
    timeout_s: float,
    what: str,
    logs: Callable[[], str] = lambda: "",
    every_s: float = 0.1,
) -> Any:
    """Polls ``predicate`` until it is true; returns its value, raises ScenarioError after
    ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise ScenarioError(f"gave up waiting for {what} after {timeout_s:g} s\n{logs()}")
        time.sleep(every_s)


@dataclass
class Deployment:
    """The lab's hosts running the arena: what the scenarios drive and read."""

    lab: Lab
    services: Services
    ctl: Host
    hosts: dict[str, Host]
    clock_ahead: dict[str, float]
    lease_s: float = LEASE_S
    sweep_s: float = SWEEP_S
    ladder: str = ""
    workers: dict[str, ArenaProcess] = field(default_factory=dict)
    beat: ArenaProcess | None = None

    # -- processes --

    def overrides(self) -> dict[str, str]:
        """The settings every arena process of the lab gets beside compose's."""
        return {
            "ARENA_MATCH_LEASE_S": f"{self.lease_s:g}",
            "ARENA_SWEEP_INTERVAL_S": f"{self.sweep_s:g}",
            "ARENA_LADDER_VARIANTS": self.ladder,
            # Beat asks for the ladder's matches every 2 s while there is a ladder.
            "ARENA_LADDER_INTERVAL_S": "2" if self.ladder else "86400",
            "ARENA_LOG_LEVEL": "INFO",
        }

    variables = {"ARENA_WORKER_CONCURRENCY": "1"}
    """Compose's own knob: one match at a time per worker host, so that where a match goes
    is known."""

    def hostname(self, name: str) -> str:
        """The hostname of a host (what ``claimed_by`` starts with)."""
        return f"{name}-{self.lab.id.rsplit('-', 1)[-1]}"

    def host_of(self, claimed_by: str) -> str:
        """The lab host name of a ``claimed_by`` (``host:pid``)."""
        return claimed_by.split(":", 1)[0].rsplit("-", 1)[0]

    def start_worker(self, name: str) -> ArenaProcess:
        """Starts compose's ``worker`` on host ``name`` and waits until it serves."""
        worker = self.workers.get(name)
        if worker is not None and worker.running():
            return worker
        worker = self.lab.start_arena(
            self.hosts[name],
            "worker",
            variables=self.variables,
            overrides=self.overrides(),
            clock_ahead_s=self.clock_ahead.get(name, 0.0),
        )
        self.workers[name] = worker
        wait_until(
            lambda: " ready." in worker.log_text() or not worker.running(),
            90,
            f"worker {name} to start",
            worker.log_text,
        )
        if not worker.running():
            raise ScenarioError(f"worker {name} exited:\n{worker.log_text()[-3000:]}")
        return worker

    def stop_worker(self, name: str) -> None:
        """A warm shutdown of host ``name``'s worker (its match, if any, finishes first)."""
        worker = self.workers.pop(name, None)
        if worker is not None:
            worker.stop(timeout=120)

    def start_beat(self) -> ArenaProcess:
        """Compose's ``beat`` on the site's host: the sweep, and the ladder when it has one."""
        if self.beat is None or not self.beat.running():
            self.beat = self.lab.start_arena(
                self.ctl, "beat", variables=self.variables, overrides=self.overrides()
            )
        return self.beat

    def stop_beat(self) -> None:
        if self.beat is not None:
            self.beat.stop(timeout=10)
            self.beat = None

    def logs(self) -> str:
        """The end of every arena process's log, for a failure's message."""
        parts = []
        for process in self.lab.processes:
            parts.append(
                f"--- {process.host.name} {process.name} ---\n{process.log_text()[-2500:]}"
            )
        return "\n".join(parts)

    # -- the site's host --

    def arena(self, *args: str) -> str:
        """``arena ARGS`` on the site's host."""
        return self.lab.run_arena(
            self.ctl, ["arena", *args], variables=self.variables, overrides=self.overrides()
        )

    def admin(self, *args: str) -> Any:
        """An operation of :mod:`workers.bench.hosts_admin` on the site's host."""
        output = self.lab.run_arena(
            self.ctl,
            [sys.executable, "-m", "workers.bench.hosts_admin", *args],
            variables=self.variables,
            overrides=self.overrides(),
        )
        return json.loads(output.strip().splitlines()[-1])

    def create_season(self, name: str, bots: Sequence[str], target: int, games: int = 2) -> int:
        """``arena season create ... --start`` on the site's host; returns the season's id."""
        args = [
            "season",
            "create",
            name,
            "--option",
            f"target={target}",
            "--games",
            str(games),
            "--move-time",
            "2000",
            "--bank",
            "60000",
            "--start",
            "--json",
        ]
        for bot in bots:
            args += ["--bot", bot]
        self.arena(*args)
        return int(
            self.services.query("SELECT id FROM league_season WHERE name = %s", [name])[0][0]
        )

    # -- what the database says --

    def match(self, match_id: int) -> dict[str, Any]:
        """A match's row, with ``lease_left_s``: its lease's end less the database's now.

        The now is ``clock_timestamp()``, read after the statement's snapshot: a renewal
        seen in the row was stamped before it. (``now()`` is the transaction's start, which
        a renewal committed just before the snapshot can follow by a millisecond or two.)
        """
        rows = self.services.query(
            "SELECT id, status, claim_token, claimed_by, claimed_at, lease_until, attempts, "
            "games_planned, finished, EXTRACT(EPOCH FROM lease_until - clock_timestamp())::float, "
            "EXTRACT(EPOCH FROM finished - claimed_at)::float "
            "FROM league_match WHERE id = %s",
            [match_id],
        )
        keys = [
            "id",
            "status",
            "claim_token",
            "claimed_by",
            "claimed_at",
            "lease_until",
            "attempts",
            "games_planned",
            "finished",
            "lease_left_s",
            "finished_after_s",
        ]
        return dict(zip(keys, rows[0], strict=True))

    def matches(self, where: str = "TRUE", params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        ids = self.services.query(f"SELECT id FROM league_match WHERE {where} ORDER BY id", params)
        return [self.match(int(row[0])) for row in ids]

    def game_indexes(self, match_id: int) -> list[int]:
        """The indexes of a match's recorded games, in order (each once if counted once)."""
        return [
            int(r[0])
            for r in self.services.query(
                "SELECT index FROM league_game WHERE match_id = %s ORDER BY index", [match_id]
            )
        ]

    def open_matches(self) -> int:
        return int(
            self.services.query(
                "SELECT count(*) FROM league_match WHERE status IN ('scheduled', 'running')"
            )[0][0]
        )

    # -- what a host holds --

    def seats(self, name: str) -> dict[str, list[str]]:
        """The seats host ``name`` holds: folders, control groups, and the processes of its
        that are not its worker's own (bubblewrap, the bots)."""
        host = self.hosts[name]
        worker = self.workers.get(name)
        own = worker.own_pids() if worker is not None and worker.running() else set()
        from workers.bench.hostlab import cmdline

        return {
            "folders": [p.name for p in host.seat_folders()],
            "groups": [group_name(p) for p in host.seat_groups()],
            "processes": [f"{pid} {cmdline(pid)[:80]}" for pid in sorted(host.pids() - own)],
        }

    def holds_seats(self, name: str) -> bool:
        return any(self.seats(name).values())

    def stop_all(self) -> None:
        """Stops beat and the workers (warm shutdowns)."""
        self.stop_beat()
        for name in list(self.workers):
            self.stop_worker(name)

    def leftovers(self) -> dict[str, list[str]]:
        """What the worker hosts still hold once their workers stopped: processes (in their
        namespaces and control groups, and below), seats' folders and control groups."""
        from workers.bench.hostlab import cmdline

        return {
            name: [f"process {pid} {cmdline(pid)[:80]}" for pid in sorted(host.pids())]
            + [f"folder {p.name}" for p in host.seat_folders()]
            + [f"group {group_name(p)}" for p in host.seat_groups()]
            for name, host in self.hosts.items()
        }


def group_name(path: Path) -> str:
    """A control group's name with its hierarchy: ``memory:scopa-greedy-1-0-5c3f``."""
    parts = path.parts
    hierarchy = parts[4] if parts[:4] == ("/", "sys", "fs", "cgroup") and len(parts) > 4 else ""
    return f"{hierarchy}:{path.name}" if hierarchy else path.name


@contextlib.contextmanager
def deployment(
    lease_s: float = LEASE_S, sweep_s: float = SWEEP_S, clock_ahead_s: float = CLOCK_AHEAD_S
) -> Iterator[Deployment]:
    """The services host, the site's host (migrated) and two worker hosts (not started); all
    removed at the end, whatever happens."""
    with Lab() as lab:
        db = lab.add_host("db", 10)
        ctl = lab.add_host("ctl", 20)
        hosts = {name: lab.add_host(name, number) for name, (number, _) in WORKER_HOSTS.items()}
        services = lab.start_services(db)
        clock = {"w1": 0.0, "w2": clock_ahead_s}
        deployed = Deployment(lab, services, ctl, hosts, clock, lease_s, sweep_s)
        lab.run_arena(ctl, lab.arena_command(ctl, "migrate"), variables=deployed.variables)
        yield deployed


# ---- a season and the ladder across the hosts ----------------------------------------------


@dataclass
class SeasonAcross:
    """What a season and the ladder left, played on both worker hosts."""

    season_matches: list[dict[str, Any]]
    ladder_matches: list[dict[str, Any]]
    games: dict[int, list[int]]
    hosts: dict[str, set[str]]  # "season"/"ladder" -> the hosts that recorded them
    unpacked: dict[str, bool]  # worker host -> has the uploaded bot in its own data folder
    upload_played_on: set[str]  # the hosts that recorded a match of the uploaded bot
    sha256: str
    version_status: str


def season_and_ladder(
    dep: Deployment, *, ladder_matches: int = 4, timeout_s: float = 150.0
) -> SeasonAcross:
    """An uploaded bot validated by a worker host; a round-robin of it, random, greedy and
    ISMCTS (games to 1 point: two matches at once in each of three rounds); the ladder playing
    beside; both worker hosts serving. The ladder stops at the end."""
    dep.ladder = LADDER
    for name in dep.hosts:
        dep.start_worker(name)
    version_id = int(dep.admin("setup", "uploaded")["version"])
    dep.start_beat()

    def version() -> tuple[str, str]:
        row = dep.services.query(
            "SELECT status, sha256 FROM league_botversion WHERE id = %s", [version_id]
        )[0]
        return str(row[0]), str(row[1])

    wait_until(lambda: version()[0] != "validating", 90, "the upload's validation", dep.logs)
    status, sha256 = version()
    if status != "ready":
        raise ScenarioError(f"the uploaded bot was refused\n{dep.logs()}")
    season_id = dep.create_season("across", ["random", "greedy", "ismcts", "uploaded@1"], target=1)

    def settled() -> bool:
        season = dep.services.query("SELECT status FROM league_season WHERE id = %s", [season_id])[
            0
        ][0]
        done = dep.services.query(
            "SELECT count(*) FROM league_match WHERE kind = 'ladder' AND status = 'done'"
        )[0][0]
        return season == "finished" and int(done) >= ladder_matches

    wait_until(settled, timeout_s, "the season and the ladder", dep.logs, every_s=0.5)
    dep.stop_beat()  # no new ladder match; those already open are played out
    dep.ladder = ""
    wait_until(lambda: dep.open_matches() == 0, 90, "the open matches", dep.logs, every_s=0.5)
    season = dep.matches("season_id = %s", [season_id])
    ladder = dep.matches("kind = 'ladder'")
    games = {m["id"]: dep.game_indexes(m["id"]) for m in season + ladder}
    return SeasonAcross(
        season_matches=season,
        ladder_matches=ladder,
        games=games,
        hosts={
            "season": {dep.host_of(m["claimed_by"]) for m in season},
            "ladder": {dep.host_of(m["claimed_by"]) for m in ladder},
        },
        unpacked={
            name: (host.data / "bots" / sha256 / "bot.py").is_file()
            for name, host in dep.hosts.items()
        },
        upload_played_on={
            dep.host_of(str(row[0]))
            for row in dep.services.query(
                "SELECT m.claimed_by FROM league_match m JOIN league_matchseat s "
                "ON s.match_id = m.id WHERE s.version_id = %s",
                [version_id],
            )
        },
        sha256=sha256,
        version_status=status,
    )


# ---- a host cut off mid-match --------------------------------------------------------------


@dataclass
class CutResult:
    """One host cut off during its match: what happened and when."""

    match_id: int
    holder: str
    retaker: str
    holder_clock_ahead_s: float
    lease_s: float
    sweep_s: float
    lease_left_max_s: float  # the holder's lease beyond the database's now, at most
    attempts_before_cut: int
    seats_at_cut: dict[str, list[str]]
    cleanup_s: float  # from the cut until the holder had no seat left
    retake_s: float  # from the cut until the other host claimed the match
    retake_after_expiry_s: float  # new claim - the holder's last lease end (database clock)
    back_s: float  # from the link's return until the holder took a task again
    lease_lost_logged: bool  # the holder said it stopped the match for its lost lease
    finished_after_claim_s: float  # the recorder's clock at the end less the database's claim
    games: list[int]
    games_planned: int
    attempts: int
    status: str
    recorded_by: str
    changed_after_return: bool  # anything of the match changed once the link was back
    seats_after: dict[str, dict[str, list[str]]]


def cut_mid_match(
    dep: Deployment, holder: str, other: str, name: str, target: int = LONG_TARGET
) -> CutResult:
    """Plays a long match on ``holder``, sends it once more to ``other`` while it is held
    (``other`` must leave it: ScenarioError if it takes it), cuts ``holder``'s link mid-match,
    watches ``holder`` stop its seats and ``other`` take the match over, then brings the link
    back and waits until ``holder`` takes tasks again and the match is recorded."""
    dep.stop_worker(other)
    dep.start_worker(holder)
    dep.start_beat()
    season_id = dep.create_season(name, ["ismcts", "greedy"], target=target)
    match_id = int(
        dep.services.query("SELECT id FROM league_match WHERE season_id = %s", [season_id])[0][0]
    )
    wait_until(
        lambda: dep.match(match_id)["status"] == "running",
        60,
        f"{holder} to claim the long match",
        dep.logs,
    )
    wait_until(lambda: dep.seats(holder)["folders"], 60, f"{holder} to seat the bots", dep.logs)
    started = dep.match(match_id)
    if dep.host_of(started["claimed_by"]) != holder:
        raise ScenarioError(f"the long match went to {started['claimed_by']}, not {holder}")

    # A duplicate of the match's message reaches the other host while the holder plays it.
    second = dep.start_worker(other)
    offset = len(second.log_text())
    dep.admin("enqueue", str(match_id))
    refusal = f"match {match_id}: running, nothing to do"
    wait_until(
        lambda: (
            refusal in second.log_text()[offset:]
            or dep.match(match_id)["claim_token"] != started["claim_token"]
        ),
        60,
        f"{other} to take the duplicate message",
        dep.logs,
    )
    lease_left = [dep.match(match_id)["lease_left_s"] for _ in range(3)]
    before = dep.match(match_id)
    if before["claim_token"] != started["claim_token"]:
        raise ScenarioError(
            f"{other} took match {match_id} while {holder} held its lease "
            f"(now claimed by {before['claimed_by']}, attempt "
            f"{before['attempts']})\n{dep.logs()}"
        )
    if before["status"] != "running":
        raise ScenarioError(
            f"the long match ended before the cut (raise its target above {target})"
        )

    # The cut.
    seats_at_cut = dep.seats(holder)
    last_lease = before["lease_until"]
    cut = time.monotonic()
    dep.lab.cut(dep.hosts[holder])
    cleanup_s: float | None = None
    retaken: dict[str, Any] | None = None
    retake_s = 0.0
    deadline = cut + dep.lease_s + dep.sweep_s + 90
    try:
        while cleanup_s is None or retaken is None:
            now = time.monotonic()
            if now > deadline:
                raise ScenarioError(
                    f"after the cut: seats stopped {cleanup_s is not None}, match retaken "
                    f"{retaken is not None}; {holder} holds {dep.seats(holder)}\n{dep.logs()}"
                )
            if cleanup_s is None and not dep.holds_seats(holder):
                cleanup_s = now - cut
            row = dep.match(match_id)
            if retaken is None:
                if row["claim_token"] == before["claim_token"]:
                    last_lease = row["lease_until"]
                else:
                    retaken, retake_s = row, now - cut
            time.sleep(0.05)
    finally:
        restored = time.monotonic()
        cut_worker = dep.workers[holder]
        offset = len(cut_worker.log_text())
        dep.lab.restore(dep.hosts[holder])
    assert retaken is not None and cleanup_s is not None

    # The link is back: the cut host serves again, the match is played out once.
    back_s: float | None = None
    deadline = time.monotonic() + 150
    while back_s is None or dep.match(match_id)["status"] not in ("done", "void"):
        if back_s is None and " received" in cut_worker.log_text()[offset:]:
            back_s = time.monotonic() - restored
        if time.monotonic() > deadline:
            raise ScenarioError(
                f"after the link came back: {holder} took a task again "
                f"{back_s is not None}, match {dep.match(match_id)['status']}"
                f"\n{dep.logs()}"
            )
        time.sleep(0.1)
    settled = dep.match(match_id)
    time.sleep(dep.sweep_s * 2)  # a late message or renewal of the cut host would land now
    after = dep.match(match_id)
    changed = (after["status"], after["claim_token"], after["attempts"], after["finished"]) != (
        settled["status"],
        settled["claim_token"],
        settled["attempts"],
        settled["finished"],
    )
    wait_until(
        lambda: not dep.holds_seats(holder) and not dep.holds_seats(other),
        30,
        "both hosts to be idle",
        lambda: f"{holder}: {dep.seats(holder)}\n{other}: {dep.seats(other)}\n{dep.logs()}",
    )
    claimed_at: datetime = retaken["claimed_at"]
    return CutResult(
        match_id=match_id,
        holder=holder,
        retaker=dep.host_of(retaken["claimed_by"]),
        holder_clock_ahead_s=dep.clock_ahead.get(holder, 0.0),
        lease_s=dep.lease_s,
        sweep_s=dep.sweep_s,
        lease_left_max_s=max(lease_left),
        attempts_before_cut=int(before["attempts"]),
        seats_at_cut=seats_at_cut,
        cleanup_s=cleanup_s,
        retake_s=retake_s,
        retake_after_expiry_s=(claimed_at - last_lease).total_seconds(),
        back_s=back_s,
        lease_lost_logged=f"match {match_id}: lease lost" in cut_worker.log_text(),
        finished_after_claim_s=float(after["finished_after_s"] or 0.0),
        games=dep.game_indexes(match_id),
        games_planned=int(after["games_planned"]),
        attempts=int(after["attempts"]),
        status=str(after["status"]),
        recorded_by=dep.host_of(after["claimed_by"]),
        changed_after_return=changed,
        seats_after={name: dep.seats(name) for name in dep.hosts},
    )


# ---- the bench -----------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench hosts``."""
    parser.add_argument(
        "--repeats",
        type=int,
        default=4,
        metavar="N",
        help="cuts to measure, alternating between the two worker hosts (default 4)",
    )
    parser.add_argument(
        "--lease",
        type=float,
        default=LEASE_S,
        metavar="S",
        help=f"the workers' match lease (default {LEASE_S:g} s)",
    )
    parser.add_argument(
        "--sweep",
        type=float,
        default=SWEEP_S,
        metavar="S",
        help=f"beat's sweep interval (default {SWEEP_S:g} s)",
    )
    parser.add_argument(
        "--target",
        type=int,
        default=LONG_TARGET,
        metavar="POINTS",
        help=f"points of the long match's games (default {LONG_TARGET}); a "
        "longer lease needs a longer match, so that it is still on when the "
        "lease runs out",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def _median(values: list[float]) -> float:
    return round(statistics.median(values), 2) if values else float("nan")


def run(args: argparse.Namespace) -> int:
    """Sets the hosts up, cuts each worker host in turn mid-match, prints the times."""
    if args.repeats < 1 or args.lease <= 0 or args.sweep <= 0 or args.target < 1:
        print(
            "arena bench hosts: --repeats, --lease, --sweep and --target must be positive",
            file=sys.stderr,
        )
        return 2
    results: list[CutResult] = []
    try:
        with deployment(args.lease, args.sweep) as dep:
            for index in range(args.repeats):
                holder, other = ("w1", "w2") if index % 2 == 0 else ("w2", "w1")
                if not args.json:
                    print(
                        f"cut {index + 1}/{args.repeats}: {holder} "
                        f"(clock {dep.clock_ahead[holder]:+g} s) ...",
                        flush=True,
                    )
                results.append(
                    cut_mid_match(dep, holder, other, f"cut-{index + 1}", target=args.target)
                )
    except (LabError, ScenarioError) as error:
        print(f"arena bench hosts: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    summary = {
        "lease_s": args.lease,
        "sweep_s": args.sweep,
        "stated_retake_s": args.lease + args.sweep,
        "cleanup_s": _median([r.cleanup_s for r in results]),
        "retake_s": _median([r.retake_s for r in results]),
        "retake_after_expiry_s": _median([r.retake_after_expiry_s for r in results]),
        "back_s": _median([r.back_s for r in results]),
        "runs": [asdict(r) for r in results],
    }
    if args.json:
        print(json.dumps(summary, indent=1, default=str))
        return 0
    print(
        f"\nlease {args.lease:g} s, sweep every {args.sweep:g} s: a cut host's match is "
        f"taken over within {args.lease + args.sweep:g} s of its last renewal (stated)"
    )
    print(
        f"{'host':6} {'clock':>7} {'seats stopped':>14} {'taken over':>11} "
        f"{'after expiry':>13} {'back':>7} {'games':>6}"
    )
    for r in results:
        print(
            f"{r.holder:6} {r.holder_clock_ahead_s:>+6g}s {r.cleanup_s:>13.2f}s "
            f"{r.retake_s:>10.2f}s {r.retake_after_expiry_s:>12.2f}s {r.back_s:>6.1f}s "
            f"{len(r.games)}/{r.games_planned}"
        )
    print(
        f"{'median':6} {'':>7} {summary['cleanup_s']:>13.2f}s {summary['retake_s']:>10.2f}s "
        f"{summary['retake_after_expiry_s']:>12.2f}s {summary['back_s']:>6.1f}s"
    )
    print(
        "seats stopped and taken over: seconds after the cut; after expiry: the new claim "
        "less the cut host's last lease end (database clock); back: after the link's "
        "return, until the cut host took a task again"
    )
    return 0


__all__ = [
    "CutResult",
    "Deployment",
    "ScenarioError",
    "SeasonAcross",
    "cut_mid_match",
    "deployment",
    "season_and_ladder",
]
