"""``arena bench ladder``: how fast the ladder finds the right order, and how long a new bot waits.

Two figures, each from its own run:

- ``matches_to_order``: a ladder of bots of known strength, paired beat by beat by the ladder's
  own pairing (:func:`arena.ladder.pair`: high sigma first, close ratings, a cap per hour) and
  rated by its own TrueSkill (:class:`arena.rating.Ladder`), each match one duplicate deal (two
  real engine games, seats swapped) played in process by the sample bots' policies (no
  processes: what is measured is the pairing and the rating). The field, weakest first:
  random, greedy 1/3 (the greedy policy a third of the time, else a random legal move), greedy
  2/3, greedy and ISMCTS (``--ismcts`` iterations, default 150, which wins about 70% of its
  games against greedy at target 1), games to ``--target`` points (default 3, for speed);
  greedy 1/2 joins late (after ``--late-after`` matches).
  The figure is the number of matches after which the leaderboard (by conservative rating,
  mu - 3 sigma) is in the known order and stays so until ``--matches`` (None if it never
  settles).
- ``first_game_s``: the real demo path. A throwaway SQLite database, the embedded broker, one
  local worker process and the demo's ladder loop (:class:`webui.league.ladder.LadderLoop`)
  with random and greedy playing; then a new version is registered and validated by the
  worker; the figure is the time from its validation to its first ladder game recorded
  (``validation_s`` is the validation itself).

The goals: the correct order within 200 ladder matches, a first game within 60 s.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena.bench.swiss import BotSpec, play_match

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
BEAT_S = 60.0
"""Simulated time between scheduler beats (each beat's matches finish before the next)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench ladder``."""
    parser.add_argument("--matches", type=int, default=300, metavar="N",
                        help="ladder matches to play in the convergence run (default 300)")
    parser.add_argument("--late-after", type=int, default=40, metavar="N",
                        help="matches before the late bot joins (default 40)")
    parser.add_argument("--ismcts", type=int, default=150, metavar="ITERATIONS",
                        help="the ISMCTS bot's iterations per move (default 150)")
    parser.add_argument("--target", type=int, default=3, metavar="POINTS",
                        help="game target (default 3: a deal or two a game, for speed)")
    parser.add_argument("--mixes", default="0,0.33,0.67,1", metavar="SHARES",
                        help="the greedy share of each mixed bot of the starting field "
                        "(default 0,0.33,0.67,1: random, greedy 1/3, greedy 2/3, greedy)")
    parser.add_argument("--late", type=float, default=0.5, metavar="SHARE",
                        help="the late bot's greedy share (default 0.5)")
    parser.add_argument("--slots", type=int, default=3, metavar="N",
                        help="matches started per beat (default 3)")
    parser.add_argument("--cap", type=int, default=20, metavar="N",
                        help="matches per bot per hour (default 20)")
    parser.add_argument("--workers", type=int, default=2, metavar="N",
                        help="processes playing the convergence run's matches (default 2)")
    parser.add_argument("--repeat-penalty", type=float, default=None, metavar="POINTS",
                        help="rating points added to the distance of a bot's last opponent "
                        "(default: the ladder's, arena.ladder.REPEAT_PENALTY)")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--skip-demo", action="store_true",
                        help="measure the convergence only (no first_game_s)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def field(mixes: str, ismcts: int, late: float) -> tuple[list[BotSpec], BotSpec]:
    """The starting field, weakest first, and the late bot."""
    shares = sorted(float(part) for part in mixes.split(",") if part.strip())
    return [*(BotSpec(share) for share in shares), BotSpec(ismcts=ismcts)], BotSpec(late)


def strength(spec: BotSpec) -> tuple[int, float]:
    """The known order's key: ISMCTS above every mix, mixes by their greedy share."""
    return (spec.ismcts, spec.greedy_share)


def convergence(args: argparse.Namespace, progress: Any = None) -> dict[str, Any]:
    """The convergence run: matches until the order is right for good, and the final table."""
    from arena.ladder import Candidate, pair
    from arena.rating import Ladder, RatedGame

    start, late = field(args.mixes, args.ismcts, args.late)
    specs: dict[int, BotSpec] = {i + 1: s for i, s in enumerate(start)}
    late_id = len(specs) + 1
    ladder = Ladder()
    starts: dict[int, list[float]] = {i: [] for i in specs}
    last: dict[int, int] = {}  # each bot's last opponent
    history: list[bool] = []  # after each match: is the order right?
    played = 0
    beat = 0
    with ProcessPoolExecutor(max(1, args.workers)) as pool:
        while played < args.matches:
            if played >= args.late_after and late_id not in specs:
                specs[late_id] = late
                starts[late_id] = []
            now = beat * BEAT_S
            candidates = []
            for version in specs:
                entry = ladder.entry(f"v:{version}")
                recent = sum(1 for t in starts[version] if t > now - 3600.0)
                waited = now - starts[version][-1] if starts[version] else math.inf
                # Each bot its own author (bot id = version id).
                candidates.append(Candidate(version, version, entry.sigma,
                                            entry.conservative, recent, False, waited,
                                            last.get(version)))
            pairs = pair(candidates, min(args.slots, args.matches - played), args.cap,
                         penalty=args.repeat_penalty)
            beat += 1
            if not pairs:
                continue
            tasks = [(specs[a], specs[b], args.seed * 100_003 + played + k, args.target, 1)
                     for k, (a, b) in enumerate(pairs)]
            for (a, b), (winners, _totals) in zip(pairs, pool.map(play_match, tasks),
                                                  strict=True):
                for index, winner in enumerate(winners):
                    seats = (a, b) if index % 2 == 0 else (b, a)  # seats swapped
                    side = None if winner is None else seats.index((a, b)[winner])
                    ladder.rate(RatedGame(sides=((seats[0],), (seats[1],)), winner=side))
                for version in (a, b):
                    starts[version].append(now)
                last[a], last[b] = b, a
                played += 1
                order = sorted(specs, key=lambda v: -ladder.entry(f"v:{v}").conservative)
                known = sorted(specs, key=lambda v: strength(specs[v]), reverse=True)
                history.append(order == known and late_id in specs)
                if progress is not None:
                    progress(1)
    settled = None
    if history and history[-1]:
        wrong = [i for i, ok in enumerate(history) if not ok]
        settled = (wrong[-1] + 2) if wrong else 1
    table = [
        {"bot": specs[v].label + (" (late)" if v == late_id else ""),
         "mu": round(ladder.entry(f"v:{v}").mu, 2),
         "sigma": round(ladder.entry(f"v:{v}").sigma, 2),
         "conservative": round(ladder.entry(f"v:{v}").conservative, 2),
         "games": ladder.entry(f"v:{v}").games}
        for v in sorted(specs, key=lambda v: -ladder.entry(f"v:{v}").conservative)
    ]
    return {"matches_to_order": settled, "matches": played, "beats": beat, "table": table}


def first_game(args: argparse.Namespace) -> dict[str, Any]:
    """The demo path: seconds from a new version's validation to its first ladder game."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as tmp:
        for key in ("ARENA_DATABASE_URL", "ARENA_BROKER_URL", "ARENA_BROKER_PREFIX"):
            os.environ.pop(key, None)
        env = {"ARENA_DATA_DIR": tmp, "ARENA_QUEUE": f"arena-bench-ladder-{os.getpid()}",
               "ARENA_SANDBOX": "auto", "ARENA_LADDER_VARIANTS": "scopa"}
        os.environ.update(env)
        os.environ["DJANGO_SETTINGS_MODULE"] = "webui.settings"
        importlib.import_module("django").setup()
        importlib.import_module("django.core.management").call_command(
            "migrate", interactive=False, verbosity=0)
        from django.contrib.auth.models import User

        from arena.commands.demo import LADDER_INTERVAL_S
        from webui.league import ladder, services
        from webui.league.models import BotVersion, Game
        from workers.local import LocalWorkers

        owner = User.objects.create_user("bench")
        for name in ("random", "greedy"):
            ladder.enter_version(services.register_folder_bot(owner, SAMPLES / name))
        pool = LocalWorkers(1, env=env).start()
        loop = ladder.LadderLoop(interval_s=LADDER_INTERVAL_S).start()
        try:
            time.sleep(2 * LADDER_INTERVAL_S)  # the ladder is busy when the newcomer comes
            bot = services.create_bot(owner, "newcomer")
            uploaded = time.monotonic()
            version, _ = services.register_version(
                bot, sha256="f" * 64, manifest={"name": "newcomer", "variants": ["*"]},
                source_dir=str(SAMPLES / "greedy"), validate=True)
            deadline = uploaded + 300
            ready_at = None
            while time.monotonic() < deadline:
                status = BotVersion.objects.values_list("status", flat=True).get(pk=version.pk)
                if ready_at is None and status == BotVersion.Status.READY:
                    ready_at = time.monotonic()
                if status == BotVersion.Status.FAILED:
                    raise RuntimeError("the newcomer failed its validation")
                if Game.objects.filter(match__kind="ladder",
                                       match__seats__version=version).exists():
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError("no ladder game for the newcomer within 300 s")
            done = time.monotonic()
        finally:
            loop.stop()
            pool.stop()
        assert ready_at is not None
        return {"first_game_s": round(done - ready_at, 1),
                "validation_s": round(ready_at - uploaded, 1),
                "interval_s": LADDER_INTERVAL_S}


def run(args: argparse.Namespace) -> int:
    """Runs both measurements and prints them (or JSON)."""
    if args.matches < 1 or args.slots < 1 or args.cap < 1 or args.ismcts < 1:
        print("arena bench ladder: --matches, --slots, --cap and --ismcts must be at least 1",
              file=sys.stderr)
        return 2
    if args.repeat_penalty is None:
        from arena.ladder import REPEAT_PENALTY

        args.repeat_penalty = REPEAT_PENALTY
    started = time.perf_counter()
    result = convergence(args)
    result["convergence_s"] = round(time.perf_counter() - started, 1)
    if not args.skip_demo:
        result.update(first_game(args))
    if args.json:
        print(json.dumps(result))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"ladder after {result['matches']} matches (target {args.target}, "
                        f"one duplicate deal each)")
    for column in ("bot", "mu", "sigma", "mu - 3 sigma", "games"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in result["table"]:
        table.add_row(row["bot"], f"{row['mu']:.2f}", f"{row['sigma']:.2f}",
                      f"{row['conservative']:.2f}", str(row["games"]))
    console = Console()
    console.print(table)
    console.print(f"matches_to_order: {result['matches_to_order']} (goal: 200 or fewer)")
    if "first_game_s" in result:
        console.print(f"first_game_s: {result['first_game_s']} s after validation "
                      f"({result['validation_s']} s to validate; goal: 60 s or less)")
    return 0
