"""Covert channels between partners and a seat's share of the CPU, measured through the real
runner (run by hand).

Each channel is a pair of test bots (docs/SECURITY.md): the lower seat of a Scopone side sends
its hand, a bit per turn (each bit followed by its complement, so as many 1s as 0s), and the
higher seat reads it. The script plays them sandboxed against the random bot and reports, per
channel: the bits sent, the share the receiver read right (cutting its readings in two groups
at the midpoint of their means, as an attacker would) with a 95% Wilson interval, the capacity
of a binary symmetric channel with that error (bits per bit sent), and the rate: bits a second
of the games' play. Not a test: nothing is asserted.

    python benchmarks/fair_play.py                    # every channel, the defaults
    python benchmarks/fair_play.py --channel cpu --channel cpu-open --games 4 --json
    python benchmarks/fair_play.py --hog --games 4    # a seat's compute beside 64 spinners

Channels: ``cpu`` (timing the partner's use of the CPU, as the arena plays: every seat but the
one on move frozen), ``cpu-open`` (the same with no freezer and no control group: seats run at
once, as before the freezer), ``cpu-shares`` (no freezer, but each seat's equal CPU share),
``think`` (how long the partner took: the wall time between the receiver's turns), ``inode``
(the host's counter of pipe and socket inode numbers).

``--hog`` measures instead a seat's compute beside the cpu-hog test bot (64 processes spinning
in every other one of its turns): the median of the cpu-meter bot's rounds in its turns after
the hog spun over its median after the hog did not, in the same games; as the arena plays
(freezer groups), with the signals that stand in for them, with CPU shares only, and with
nothing (no freezer, no control group).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.runner import BotRef, Limits, MatchSpec, cgroups, run_match  # noqa: E402

BOTS = {
    "cpu": ROOT / "tests" / "hostile" / "bots" / "cpu-partners",
    "cpu-open": ROOT / "tests" / "hostile" / "bots" / "cpu-partners",
    "cpu-shares": ROOT / "tests" / "hostile" / "bots" / "cpu-partners",
    "think": ROOT / "benchmarks" / "covert_bots" / "think-partners",
    "inode": ROOT / "tests" / "hostile" / "bots" / "inode-partners",
}
LOWER_IS_ONE = {"cpu": True, "cpu-open": True, "cpu-shares": True, "think": False, "inode": False}
LIMITS = Limits(cpu_seconds=300, memory_bytes=3 * 1024**3, processes=128)


def wilson(right: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion."""
    if total == 0:
        return (0.0, 1.0)
    p = right / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (max(0.0, centre - half), min(1.0, centre + half))


def capacity(share: float) -> float:
    """Bits a binary symmetric channel carries per bit sent when ``share`` of them arrive."""
    error = min(share, 1 - share)
    if error <= 0:
        return 1.0
    return 1 + error * math.log2(error) + (1 - error) * math.log2(1 - error)


def split_point(values: list[float]) -> float:
    """Where a receiver cuts its readings into 0s and 1s: the midpoint between the means of
    the two groups it finds (two-means clustering), as an attacker would."""
    cut = (min(values) + max(values)) / 2
    for _ in range(20):
        low = [v for v in values if v <= cut]
        high = [v for v in values if v > cut]
        if not low or not high:
            return cut
        moved = (statistics.fmean(low) + statistics.fmean(high)) / 2
        if moved == cut:
            break
        cut = moved
    return cut


def pairs_of(report: Any) -> list[tuple[int, int]]:
    """(bit sent, what the receiver read) for each reading after a bit in the same deal."""
    out = []
    sender, receiver = report.logs["0/0"], report.logs["0/1"]
    for send_log, read_log in zip(
        sender.split("[arena] starting")[1:], receiver.split("[arena] starting")[1:], strict=True
    ):
        bits = [
            ((int(d), int(m)), int(b)) for d, m, b in re.findall(r"SEND (\d+) (\d+) (\d)", send_log)
        ]
        for d, m, value in re.findall(r"RECEIVED (\d+) (\d+) (-?\d+)", read_log):
            when = (int(d), int(m))
            before = [b for at, b in bits if at[0] == when[0] and at < when]
            if before:
                out.append((before[-1], int(value)))
    return out


def measure(channel: str, games: int) -> dict[str, Any]:
    """Plays the channel's bots and reads how much of the hand went through."""
    spec: dict[str, Any] = {}
    if channel in {"cpu-open", "cpu-shares"}:
        spec["freeze_idle_seats"] = False
    saved = os.environ.get(cgroups.CGROUP_ENV)
    if channel == "cpu-open":
        os.environ[cgroups.CGROUP_ENV] = "off"
    cgroups.backend.cache_clear()
    try:
        report = run_match(
            MatchSpec(
                entrants=[BotRef.parse(str(BOTS[channel])), BotRef.parse("random")],
                variant="scopone",
                games=games,
                move_time_ms=5000,
                bank_ms=300_000,
                limits=LIMITS,
                **spec,
            )
        )
    finally:
        if saved is None:
            os.environ.pop(cgroups.CGROUP_ENV, None)
        else:
            os.environ[cgroups.CGROUP_ENV] = saved
        cgroups.backend.cache_clear()
    pairs = pairs_of(report)
    values = [float(value) for _, value in pairs]
    middle = split_point(values) if values else 0.0
    lower = LOWER_IS_ONE[channel]
    right = sum(
        ((value < middle) if lower else (value > middle)) == bool(bit) for bit, value in pairs
    )
    seconds = sum(game.duration_ms - game.start_ms for game in report.games) / 1000.0
    share = right / len(pairs) if pairs else 0.5
    low, high = wilson(right, len(pairs))
    bits_per_bit = capacity(share)
    return {
        "channel": channel,
        "bits_sent": len(pairs),
        "read_right": right,
        "share": round(share, 3),
        "share_95": [round(low, 3), round(high, 3)],
        "capacity_bits_per_bit": round(bits_per_bit, 3),
        # the most the interval allows: its end farthest from a coin toss
        "capacity_95_max": round(max(capacity(low), capacity(high)), 3),
        "play_seconds": round(seconds, 2),
        "bits_per_second": round(bits_per_bit * len(pairs) / seconds, 2) if seconds else 0.0,
        "faults": sum(len(game.faults) for game in report.games),
    }


HOG_SETUPS = {
    "freezer groups": ({}, None),
    "signals (no control group)": ({}, "off"),
    "CPU shares only": ({"freeze_idle_seats": False}, None),
    "nothing": ({"freeze_idle_seats": False}, "off"),
}


def measure_hog(setup: str, games: int) -> dict[str, Any]:
    """The meter's compute after the hog spun over its compute after it did not."""
    spec, cgroup = HOG_SETUPS[setup]
    saved = os.environ.get(cgroups.CGROUP_ENV)
    if cgroup is not None:
        os.environ[cgroups.CGROUP_ENV] = cgroup
    cgroups.backend.cache_clear()
    bots = ROOT / "tests" / "hostile" / "bots"
    try:
        report = run_match(
            MatchSpec(
                entrants=[
                    BotRef.parse(str(bots / "cpu-meter")),
                    BotRef.parse(str(bots / "cpu-hog")),
                ],
                variant="scopa",
                options={"target": 1},
                games=games,
                move_time_ms=5000,
                bank_ms=300_000,
                limits=LIMITS,
                **spec,
            )
        )
    finally:
        if saved is None:
            os.environ.pop(cgroups.CGROUP_ENV, None)
        else:
            os.environ[cgroups.CGROUP_ENV] = saved
        cgroups.backend.cache_clear()
    spinning, quiet = [], []
    for meter, hog in zip(
        report.logs["0/0"].split("[arena] starting")[1:],
        report.logs["1/0"].split("[arena] starting")[1:],
        strict=True,
    ):
        sets = [
            ((int(d), int(m)), int(on)) for d, m, on in re.findall(r"HOG (\d+) (\d+) (\d)", hog)
        ]
        for d, m, rounds in re.findall(r"METER (\d+) (\d+) (\d+) ", meter):
            before = [on for at, on in sets if at[0] == int(d) and at < (int(d), int(m))]
            if before:
                (spinning if before[-1] else quiet).append(int(rounds))
    ratio = statistics.median(spinning) / statistics.median(quiet)
    return {
        "setup": setup,
        "turns": len(spinning) + len(quiet),
        "ratio": round(ratio, 3),
        "play_seconds": round(sum(g.duration_ms - g.start_ms for g in report.games) / 1000, 2),
        "faults": [f["kind"] for g in report.games for f in g.faults],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--channel",
        action="append",
        choices=sorted(BOTS),
        help="a channel to measure; repeat for more (default: all)",
    )
    parser.add_argument("--games", type=int, default=2, help="games a channel (2: a set)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--hog", action="store_true", help="measure a seat's compute beside the CPU hog instead"
    )
    args = parser.parse_args(argv)
    if args.hog:
        hogs = [measure_hog(setup, args.games) for setup in HOG_SETUPS]
        if args.json:
            print(json.dumps(hogs, indent=2))
            return 0
        print(
            f"{'setup':<28} {'turns':>5} {'compute beside the hog / beside none':>38} "
            f"{'play s':>7}  faults"
        )
        for h in hogs:
            print(
                f"{h['setup']:<28} {h['turns']:>5} {h['ratio']:>38.3f} {h['play_seconds']:>7.2f}"
                f"  {', '.join(h['faults']) or '-'}"
            )
        return 0
    results = [measure(channel, args.games) for channel in args.channel or list(BOTS)]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{'channel':<11} {'bits':>5} {'read right':>11} {'95% interval':>14} "
        f"{'bits/bit':>8} {'(95% max)':>9} {'play s':>7} {'bit/s':>7} {'faults':>6}"
    )
    for r in results:
        low, high = r["share_95"]
        print(
            f"{r['channel']:<11} {r['bits_sent']:>5} {r['share']:>11.3f} "
            f"{f'{low:.2f}-{high:.2f}':>14} {r['capacity_bits_per_bit']:>8.3f} "
            f"{r['capacity_95_max']:>9.3f} {r['play_seconds']:>7.2f} "
            f"{r['bits_per_second']:>7.2f} {r['faults']:>6}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
