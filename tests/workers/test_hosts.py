"""Workers on separate hosts, across real network boundaries (:mod:`workers.bench.hostlab`).

PostgreSQL and Redis run on a services host, migrations, celery beat and the ``arena`` commands
on the site's host, and two worker hosts run ``arena worker``: each host a network namespace on
a private LAN (a bridge), with its own hostname, data folder, temporary folder and control
group, started with ``docker-compose.yml``'s own command lines and environment. Worker host
``w2``'s wall clock is a minute ahead (libfaketime in its worker process). Nothing is shared
between hosts but the two services over the network (and the checkout, as one image is on
every host). The tests read the database through the cluster's unix socket.

- A season and the ladder are played across both worker hosts; an uploaded bot is unpacked by
  each host from the database into its own folder.
- A host is cut off mid-match (its cable pulled at the switch): it stops its seats when its
  lease has run out by its own count, the other host takes the match over once the database's
  lease has run out and the sweep has sent it again, the match is recorded once, and nothing
  changes when the link comes back.
- The same with the host whose clock is a minute ahead: its leases are the database's, so it
  neither takes a match another host holds nor keeps its own a minute too long.

Needs root; the machine's own PostgreSQL and Redis are never touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_checks import require

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.sandbox]

PICKUP_S = 10.0
"""How long after a sweep a free worker may take to claim what it sent: well under a second
on a quiet machine; the margin is for a loaded one. A clock a minute off would be 60 s late."""
STOP_SEATS_S = 10.0
"""How long a host may take to stop its seats once its lease has run out (killing the
processes, removing the groups and folders: well under a second)."""
EMPTY: dict[str, list[str]] = {"folders": [], "groups": [], "processes": []}


def can_make_hosts() -> bool:
    from workers.bench.hostlab import postgres_bin

    try:
        postgres_bin()
    except Exception:
        return False
    return (
        os.geteuid() == 0
        and all(
            shutil.which(p)
            for p in ("ip", "nsenter", "unshare", "setpriv", "redis-server", "bwrap")
        )
        and Path("/run").is_dir()
    )


@pytest.fixture(scope="module")
def deployed() -> Iterator[Any]:
    """The services host, the site's host and two worker hosts; every namespace, link,
    process, control group and folder removed at the end, also after a failure."""
    require(can_make_hosts(), "root, iproute2, util-linux, PostgreSQL, redis-server, bwrap")
    from workers.bench.hosts import deployment

    with deployment() as dep:
        lab = dep.lab
        try:
            yield dep
        finally:
            dep.stop_all()
            left = dep.leftovers()
    assert left == {"w1": [], "w2": []}, left
    assert lab.leftovers() == []


def assert_counted_once(dep: Any) -> None:
    """Every match done with each of its games recorded once; every rated game rated once."""
    from workers.bench.hosts import wait_until

    for match in dep.matches():
        assert match["status"] == "done", match
        assert dep.game_indexes(match["id"]) == list(range(match["games_planned"])), match

    def unrated() -> int:
        return int(
            dep.services.query(
                "SELECT count(*) FROM league_game g JOIN league_match m ON g.match_id = m.id "
                "WHERE g.void = '' AND m.rated AND g.rating_seq IS NULL"
            )[0][0]
        )

    wait_until(lambda: unrated() == 0, 60, "the ratings", dep.logs, every_s=0.5)
    rows = dep.services.query(
        "SELECT v.id, (SELECT coalesce(sum(r.games), 0) FROM league_rating r "
        "WHERE r.variant_id = v.id), (SELECT count(*) FROM league_game g "
        "WHERE g.variant_id = v.id AND g.rating_seq IS NOT NULL) FROM league_variant v"
    )
    for variant, rated_entries, rated_games in rows:
        assert rated_entries == 2 * rated_games, (variant, rated_entries, rated_games)


def test_a_season_and_the_ladder_are_played_across_two_worker_hosts(deployed: Any) -> None:
    from workers.bench.hosts import season_and_ladder

    result = season_and_ladder(deployed)
    assert result.version_status == "ready"
    assert len(result.season_matches) == 6  # four entrants, each pair once
    assert len(result.ladder_matches) >= 4
    for match in result.season_matches + result.ladder_matches:
        assert result.games[match["id"]] == [0, 1], match
        # no host took another's match
        assert match["attempts"] == 1, (match, deployed.logs())
    assert result.hosts["season"] | result.hosts["ladder"] == {"w1", "w2"}, deployed.logs()
    # Each host that played the uploaded bot unpacked it from the database, into its own folder.
    assert result.upload_played_on
    for host in result.upload_played_on:
        assert result.unpacked[host], (host, result.unpacked)
    for name in deployed.hosts:
        assert deployed.seats(name) == EMPTY, name
    assert_counted_once(deployed)


def test_a_host_cut_off_mid_match_stops_its_seats_and_the_other_takes_the_match_over(
    deployed: Any,
) -> None:
    from workers.bench.hosts import cut_mid_match

    cut = cut_mid_match(deployed, "w1", "w2", "cut-w1")
    # Mid-match: the bots were seated on w1 when its cable was pulled.
    assert cut.seats_at_cut["processes"] and cut.seats_at_cut["folders"], cut.seats_at_cut
    # Before the cut, w2 (its clock a minute ahead) was sent the match w1 held, and left it
    # (cut_mid_match fails if it takes it).
    assert cut.attempts_before_cut == 1
    # w1 saw its lease run out by its own count and stopped every seat, while still cut off.
    assert cut.lease_lost_logged
    assert cut.cleanup_s < cut.lease_s + STOP_SEATS_S, cut
    # w2 took the match over once the lease had run out, within the stated time.
    assert cut.retaker == "w2" and cut.recorded_by == "w2"
    assert 0 <= cut.retake_after_expiry_s <= cut.sweep_s + PICKUP_S, cut
    # Recorded once; w1 took tasks again once its link was back (cut_mid_match waits for
    # that), and nothing of the match changed then; no seat left on either host.
    assert cut.status == "done" and cut.attempts == 2
    assert cut.games == list(range(cut.games_planned)) == [0, 1]
    assert not cut.changed_after_return
    assert cut.seats_after == {"w1": EMPTY, "w2": EMPTY}
    # w2 recorded it by its own clock, a minute ahead of the database's: the skew is real.
    assert cut.finished_after_claim_s > 50, cut
    assert_counted_once(deployed)


def test_a_host_whose_clock_is_a_minute_ahead_holds_its_leases_by_the_database_clock(
    deployed: Any,
) -> None:
    from workers.bench.hosts import cut_mid_match

    cut = cut_mid_match(deployed, "w2", "w1", "cut-w2")
    assert cut.holder_clock_ahead_s == 60
    assert cut.seats_at_cut["processes"] and cut.seats_at_cut["folders"], cut.seats_at_cut
    # The lease w2 took and renewed ends a lease after the database's now, not a minute later.
    assert 0 < cut.lease_left_max_s <= cut.lease_s, cut
    # w1, sent the match while w2 held it, left it.
    assert cut.attempts_before_cut == 1
    # Cut off, w2 counted its lease out on its monotonic clock and stopped its seats...
    assert cut.lease_lost_logged
    assert cut.cleanup_s < cut.lease_s + STOP_SEATS_S, cut
    # ... and w1 took the match over on time, not a minute late.
    assert cut.retaker == "w1" and cut.recorded_by == "w1"
    assert 0 <= cut.retake_after_expiry_s <= cut.sweep_s + PICKUP_S, cut
    assert cut.retake_s <= cut.lease_s + cut.sweep_s + PICKUP_S, cut
    assert cut.status == "done" and cut.attempts == 2
    assert cut.games == list(range(cut.games_planned)) == [0, 1]
    assert not cut.changed_after_return
    assert cut.seats_after == {"w1": EMPTY, "w2": EMPTY}
    assert cut.finished_after_claim_s < 50, cut  # recorded by w1, whose clock is right
    assert_counted_once(deployed)


def in_netns(netns: str, pid: int, within_s: float = 10.0) -> bool:
    """Whether ``pid`` is the one process in ``netns`` once it got there: a process started
    through nsenter enters the namespace a moment after Popen returns."""
    from workers.bench.hostlab import netns_pids

    deadline = time.monotonic() + within_s
    while netns_pids(netns) != {pid}:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_lab_is_removed_whole_even_when_what_runs_in_it_fails() -> None:
    require(can_make_hosts(), "root, iproute2, util-linux, PostgreSQL, redis-server, bwrap")
    from workers.bench.hostlab import Lab

    with pytest.raises(RuntimeError, match="went wrong"), Lab() as lab:
        host = lab.add_host("w1", 31)
        sleeper = subprocess.Popen(lab.enter(host, ["sleep", "600"]))
        assert in_netns(host.netns, sleeper.pid)
        assert (host.tmp.is_dir(), host.data.is_dir()) == (True, True)
        raise RuntimeError("something went wrong")
    assert sleeper.wait(timeout=10) != 0  # killed
    assert lab.leftovers() == []
    assert not Path(f"/run/netns/{host.netns}").exists()


def test_what_a_run_that_died_left_is_removed_by_the_next_lab() -> None:
    require(can_make_hosts(), "root, iproute2, util-linux, PostgreSQL, redis-server, bwrap")
    from workers.bench.hostlab import PREFIX, sweep_stale_labs

    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid nobody has now: the run that made the lab is dead
    name = f"{PREFIX}-{gone.pid}-abcdef"
    folder = Path(tempfile.gettempdir()) / name
    folder.mkdir()
    subprocess.run(["ip", "netns", "add", f"{name}-w1"], check=True)
    try:
        orphan = subprocess.Popen(
            ["nsenter", f"--net=/run/netns/{name}-w1", "--", "sleep", "600"], start_new_session=True
        )
        assert in_netns(f"{name}-w1", orphan.pid)
        assert sweep_stale_labs(older_than_s=0) >= 2
        assert orphan.wait(timeout=10) != 0
        assert not Path(f"/run/netns/{name}-w1").exists()
        assert not folder.exists()
    finally:
        subprocess.run(["ip", "netns", "del", f"{name}-w1"], capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)
