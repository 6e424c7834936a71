"""What the fair-play audit's work costs the league's matches on the same cores (run by hand).

The platform's audit worker runs :func:`arena.audit.audit_replay` over recorded games at
``nice +10`` (``workers/fairplay.py``). This script plays matches through the real runner
(sandboxed bot processes, as the league does) in rounds, each round twice in alternating
order: alone, and beside ``--load`` processes doing the audit's work at ``nice +10`` (each
audits the same few recorded games over and over, as the worker audits a bot's recent ones).
Both halves of a round run in this process's control group, so the load meets the matches as
the worker's does. Per round it reports the games a second and the median round trip of a
turn; the figures are each round's ratio (beside the load over alone) and their median.

The default bots are ``benchmarks/load_bots/fixed-work``: each turn, the same number of random
play-outs (a bot searching on a fixed budget, whose turn's time shows the CPU it was given).
Not a test: nothing is asserted.

    python benchmarks/audit_beside_matches.py                       # 5 rounds, 1 audit process
    python benchmarks/audit_beside_matches.py --load 2 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.audit import AuditConfig, audit_replay  # noqa: E402
from arena.bench.fairplay import played_replay, sampler  # noqa: E402
from arena.runner import BotRef, MatchSpec, run_match  # noqa: E402

FIXED_WORK = ROOT / "benchmarks" / "load_bots" / "fixed-work"
NICENESS = 10  # the audit worker's (workers/fairplay.py)


def audit_load(stop: Any, counter: Any, variant: str) -> None:
    """Audits a few recorded games over and over at ``nice +10`` until ``stop`` is set,
    counting the decisions audited."""
    os.nice(NICENESS)
    players = 4 if variant == "scopone" else 2
    replays = [
        played_replay(variant, seed, [sampler] * players, [f"s{n}" for n in range(players)])
        for seed in range(3)
    ]
    config = AuditConfig()
    n = 0
    while not stop.is_set():
        replay = replays[n % len(replays)]
        audits = audit_replay(replay, [n % players], "hidden", config)
        with counter.get_lock():
            counter.value += len(audits)
        n += 1


def match(bots: list[str], variant: str, games: int, seed: int) -> dict[str, float]:
    """One match through the runner: its games a second and its turns' median round trip."""
    spec = MatchSpec(
        [BotRef.parse(bot) for bot in bots], variant, games=games, seed=seed, move_time_ms=5000
    )
    began = time.perf_counter()
    report = run_match(spec)
    seconds = time.perf_counter() - began
    turns = [ms for game in report.games for ms in game.turn_ms]
    return {
        "games_per_second": len(report.games) / seconds,
        "turn_ms_median": statistics.median(turns),
        "faults": sum(len(game.faults) for game in report.games),
    }


def beside_load(
    load: int, variant: str, bots: list[str], games: int, seed: int
) -> tuple[dict[str, float], float]:
    """The match beside ``load`` audit processes, and the decisions they audited a second."""
    context = multiprocessing.get_context("spawn")
    stop = context.Event()
    counter = context.Value("q", 0)
    workers = [
        context.Process(target=audit_load, args=(stop, counter, variant)) for _ in range(load)
    ]
    for worker in workers:
        worker.start()
    time.sleep(2.0)  # the load records its games and is under way before the match starts
    with counter.get_lock():
        before = counter.value
    began = time.perf_counter()
    figures = match(bots, variant, games, seed)
    seconds = time.perf_counter() - began
    with counter.get_lock():
        audited = counter.value - before
    stop.set()
    for worker in workers:
        worker.join()
    return figures, audited / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="rounds, each alone and beside")
    parser.add_argument("--games", type=int, default=8, help="games a match (8)")
    parser.add_argument("--load", type=int, default=1, help="audit processes beside (1)")
    parser.add_argument("--variant", default="scopa", help="variant (scopa)")
    parser.add_argument(
        "--bots", nargs=2, default=[str(FIXED_WORK)] * 2, metavar="BOT", help="two bots"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    match(args.bots, args.variant, 2, 0)  # the runner's one-time start-up, not counted
    rounds = []
    load_avg = os.getloadavg()[0]
    for r in range(args.rounds):
        seed = random.Random(r).getrandbits(31)
        if r % 2 == 0:
            alone = match(args.bots, args.variant, args.games, seed)
            beside, audited = beside_load(args.load, args.variant, args.bots, args.games, seed)
        else:
            beside, audited = beside_load(args.load, args.variant, args.bots, args.games, seed)
            alone = match(args.bots, args.variant, args.games, seed)
        rounds.append(
            {
                "alone": alone,
                "beside": beside,
                "audited_decisions_per_second": audited,
                "games_ratio": beside["games_per_second"] / alone["games_per_second"],
                "turn_ratio": beside["turn_ms_median"] / alone["turn_ms_median"],
            }
        )
    figures = {
        "variant": args.variant,
        "bots": args.bots,
        "games_per_match": args.games,
        "load_processes": args.load,
        "niceness": NICENESS,
        "load_average_at_start": load_avg,
        "load_average_at_end": os.getloadavg()[0],
        "games_ratio_median": statistics.median(r["games_ratio"] for r in rounds),
        "turn_ratio_median": statistics.median(r["turn_ratio"] for r in rounds),
        "rounds": rounds,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(
        f"{'round':>5} {'games/s alone':>13} {'beside':>7} {'ratio':>6}   "
        f"{'turn ms alone':>13} {'beside':>7} {'ratio':>6}   {'audited/s':>9}"
    )
    for n, r in enumerate(rounds):
        alone, beside = r["alone"], r["beside"]
        print(
            f"{n:>5} {alone['games_per_second']:>13.2f} {beside['games_per_second']:>7.2f}"
            f" {r['games_ratio']:>6.3f}   {alone['turn_ms_median']:>13.1f}"
            f" {beside['turn_ms_median']:>7.1f} {r['turn_ratio']:>6.3f}"
            f"   {r['audited_decisions_per_second']:>9.0f}"
        )
    print(
        f"median ratio, beside {args.load} audit process(es) at nice +{NICENESS} over alone: "
        f"games/s {figures['games_ratio_median']:.3f}, "
        f"turn time {figures['turn_ratio_median']:.3f} (load average {load_avg:.1f} at the start,"
        f" {figures['load_average_at_end']:.1f} at the end)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
