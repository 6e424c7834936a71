"""``arena bench ladder``: how fast the ladder finds the right order, and how long a new bot waits.

Two figures, each from its own run:

- ``matches_to_order``: a ladder of bots of known strength, paired beat by beat by the ladder's
  own pairing (:func:`arena.ladder.pair`: high sigma first, close ratings, a cap per hour) and
  rated by its own TrueSkill (:class:`arena.rating.Ratings`), each match one duplicate deal (two
  real engine games, seats swapped) played in process by the sample bots' policies (no
  processes: what is measured is the pairing and the rating), games to ``--target`` points
  (default 11, the real game). The field, weakest first: anti-greedy (the greedy policy's
  worst move every time), random, greedy 1/2 (the greedy policy half the time, else a random
  legal move), greedy and ISMCTS (``--ismcts`` iterations, default 500); anti-greedy 60% joins
  late (after ``--late-after`` matches). Its levels are chosen so that each wins about 70% of
  its games against the next weaker one at the real game length (``--calibrate`` measures
  that in the same run): bots that close to each other are what a ladder has to tell apart,
  and closer ones cannot be ordered in 200 matches by any pairing.
  The figure is the number of matches after which the leaderboard (by conservative rating,
  mu - 3 sigma) is in the known order and stays so until ``--matches`` (None if it never
  settles); with ``--repeats`` the median of independent runs (a run that never settles
  counts as the longest).
- ``first_game_s``: the real demo path. A throwaway SQLite database, the embedded broker, one
  local worker process and the demo's ladder loop (:class:`webui.league.ladder.LadderLoop`)
  with random and greedy playing; then a new version is registered and validated by the
  worker; the figure is the time from its validation to its first ladder game recorded
  (``validation_s`` is the validation itself).

The goals: the correct order within 200 ladder matches, a first game within 60 s.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena.bench.swiss import BotSpec, play_match

SUMMARY = "ladder convergence to the known order, and a new bot's wait for its first game"

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
BEAT_S = 60.0
"""Simulated time between scheduler beats (each beat's matches finish before the next)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``arena bench ladder``."""
    parser.add_argument(
        "--matches",
        type=int,
        default=300,
        metavar="N",
        help="ladder matches to play in the convergence run (default 300)",
    )
    parser.add_argument(
        "--late-after",
        type=int,
        default=40,
        metavar="N",
        help="matches before the late bot joins (default 40)",
    )
    parser.add_argument(
        "--ismcts",
        type=int,
        default=500,
        metavar="ITERATIONS",
        help="the ISMCTS bot's iterations per move (default 500)",
    )
    parser.add_argument(
        "--target",
        type=int,
        default=11,
        metavar="POINTS",
        help="game target (default 11, the real game)",
    )
    parser.add_argument(
        "--mixes",
        default="-1,0,0.5,1",
        metavar="SHARES",
        help="the greedy share of each mixed bot of the starting field, -1 to 1 "
        "(below 0: the greedy policy's worst move that share of the time; "
        "default -1,0,0.5,1: anti-greedy, random, greedy 1/2, greedy)",
    )
    parser.add_argument(
        "--late",
        type=float,
        default=-0.6,
        metavar="SHARE",
        help="the late bot's greedy share (default -0.6: anti-greedy 60%%)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        metavar="N",
        help="independent convergence runs (seeds --seed, --seed + 1, ...); "
        "matches_to_order is their median (default 1)",
    )
    parser.add_argument(
        "--calibrate",
        type=int,
        default=0,
        metavar="DEALS",
        help="also play DEALS duplicate deals between each bot and the next "
        "stronger one and report the stronger one's share of the games "
        "(default 0: skip)",
    )
    parser.add_argument(
        "--slots", type=int, default=3, metavar="N", help="matches started per beat (default 3)"
    )
    parser.add_argument(
        "--cap", type=int, default=20, metavar="N", help="matches per bot per hour (default 20)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        metavar="N",
        help="processes playing the convergence run's matches (default 2)",
    )
    parser.add_argument(
        "--repeat-penalty",
        type=float,
        default=None,
        metavar="POINTS",
        help="rating points added to the distance of a bot's last opponent "
        "(default: the ladder's, arena.ladder.REPEAT_PENALTY)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument(
        "--skip-demo", action="store_true", help="measure the convergence only (no first_game_s)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def field(mixes: str, ismcts: int, late: float) -> tuple[list[BotSpec], BotSpec]:
    """The starting field, weakest first, and the late bot.

    Raises ``ValueError`` for a share outside -1..1 or two bots of the same level (the known
    order would not be known).
    """
    shares = sorted(float(part) for part in mixes.split(",") if part.strip())
    if any(not -1.0 <= share <= 1.0 for share in (*shares, late)):
        raise ValueError("every greedy share must be between -1 and 1")
    if len(set(shares)) != len(shares) or late in shares:
        raise ValueError("two bots of the field have the same greedy share")
    return [*(BotSpec(share) for share in shares), BotSpec(ismcts=ismcts)], BotSpec(late)


def strength(spec: BotSpec) -> tuple[int, float]:
    """The known order's key: ISMCTS above every mix, mixes by their greedy share."""
    return (spec.ismcts, spec.greedy_share)


def convergence(
    args: argparse.Namespace,
    seed: int,
    pool: ProcessPoolExecutor,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """One convergence run: matches until the order is right for good, and the final table."""
    from arena.ladder import Candidate, pair
    from arena.rating import RatedGame, Ratings

    start, late = field(args.mixes, args.ismcts, args.late)
    specs: dict[int, BotSpec] = {i + 1: s for i, s in enumerate(start)}
    late_id = len(specs) + 1
    ladder = Ratings()
    starts: dict[int, list[float]] = {i: [] for i in specs}
    last: dict[int, int] = {}  # each bot's last opponent
    history: list[bool] = []  # after each match: is the order right?
    last_wrong: dict[str, Any] | None = None  # the last match after which it was not
    played = 0
    beat = 0
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
            # Each bot its own owner (owner id = version id).
            candidates.append(
                Candidate(
                    version,
                    version,
                    entry.sigma,
                    entry.conservative,
                    recent,
                    False,
                    waited,
                    last.get(version),
                )
            )
        pairs = pair(
            candidates,
            min(args.slots, args.matches - played),
            args.cap,
            penalty=args.repeat_penalty,
        )
        beat += 1
        if not pairs:
            continue
        tasks = [
            (specs[a], specs[b], seed * 100_003 + played + k, args.target, 1)
            for k, (a, b) in enumerate(pairs)
        ]
        for (a, b), (winners, _totals) in zip(pairs, pool.map(play_match, tasks), strict=True):
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
            if not history[-1]:
                swapped = [
                    f"{specs[a].label} over {specs[b].label}"
                    for a, b in itertools.pairwise(order)
                    if strength(specs[a]) < strength(specs[b])
                ]
                last_wrong = {"match": played, "out_of_order": swapped}
            if progress is not None:
                progress(1)
    settled = None
    if history and history[-1]:
        wrong = [i for i, ok in enumerate(history) if not ok]
        settled = (wrong[-1] + 2) if wrong else 1
    table = [
        {
            "bot": specs[v].label + (" (late)" if v == late_id else ""),
            "mu": round(ladder.entry(f"v:{v}").mu, 2),
            "sigma": round(ladder.entry(f"v:{v}").sigma, 2),
            "conservative": round(ladder.entry(f"v:{v}").conservative, 2),
            "games": ladder.entry(f"v:{v}").games,
        }
        for v in sorted(specs, key=lambda v: -ladder.entry(f"v:{v}").conservative)
    ]
    return {
        "seed": seed,
        "matches_to_order": settled,
        "matches": played,
        "beats": beat,
        "last_wrong": last_wrong,
        "table": table,
    }


def calibrate(
    args: argparse.Namespace,
    pool: ProcessPoolExecutor,
    progress: Callable[[int], None] | None = None,
) -> list[dict[str, Any]]:
    """Each bot against the next stronger one: the stronger one's share of the games.

    ``--calibrate`` duplicate deals a pair (the decks apart from the convergence runs'); a
    draw counts half. What the known order rests on, measured in the same run.
    """
    start, late = field(args.mixes, args.ismcts, args.late)
    ordered = sorted([*start, late], key=strength)
    rows = []
    for k, (weaker, stronger) in enumerate(itertools.pairwise(ordered)):
        tasks = [
            (stronger, weaker, 7_919 * (args.seed + 1_000 * (k + 1)) + d, args.target, 1)
            for d in range(args.calibrate)
        ]
        won = games = 0.0
        for winners, _totals in pool.map(play_match, tasks):
            for winner in winners:
                games += 1
                won += 0.5 if winner is None else 1.0 if winner == 0 else 0.0
            if progress is not None:
                progress(1)
        rows.append(
            {
                "stronger": stronger.label,
                "weaker": weaker.label,
                "games": int(games),
                "win_rate": round(won / games, 3),
            }
        )
    return rows


def median_matches(values: list[int | None], matches: int) -> int | None:
    """The median of runs' ``matches_to_order`` (of an even number, the higher middle one), a
    run that never settled counted as the longest; None when that median never settled.

    >>> median_matches([120, None, 80], 300), median_matches([None, None, 80], 300)
    (120, None)
    """
    middle = statistics.median_high([matches + 1 if v is None else v for v in values])
    return None if middle > matches else middle


def first_game(args: argparse.Namespace) -> dict[str, Any]:
    """The demo path: seconds from a new version's validation to its first ladder game."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-ladder-") as tmp:
        for key in ("ARENA_DATABASE_URL", "ARENA_BROKER_URL", "ARENA_BROKER_PREFIX"):
            os.environ.pop(key, None)
        env = {
            "ARENA_DATA_DIR": tmp,
            "ARENA_QUEUE": f"arena-bench-ladder-{os.getpid()}",
            "ARENA_SANDBOX": "auto",
            "ARENA_LADDER_VARIANTS": "scopa",
        }
        os.environ.update(env)
        os.environ["DJANGO_SETTINGS_MODULE"] = "webui.settings"
        import django
        from django.core.management import call_command

        django.setup()
        call_command("migrate", interactive=False, verbosity=0)
        from django.contrib.auth.models import User

        from webui.commands.demo import LADDER_INTERVAL_S
        from webui.league import ladder, versions
        from webui.league.models import BotVersion, Game
        from webui.local_workers import LocalWorkers

        for name in ("random", "greedy"):  # two owners: the ladder pairs only other owners' bots
            owner = User.objects.create_user(f"bench-{name}")
            ladder.enter_version(versions.register_folder_bot(owner, SAMPLES / name))
        pool = LocalWorkers(1, env=env).start()
        loop = ladder.LadderLoop(interval_s=LADDER_INTERVAL_S).start()
        try:
            time.sleep(2 * LADDER_INTERVAL_S)  # the ladder is busy when the newcomer comes
            # Another owner's: a bot never meets one of its own owner's on the ladder.
            bot = versions.create_bot(User.objects.create_user("newcomer"), "newcomer")
            uploaded = time.monotonic()
            version, _ = versions.register_version(
                bot,
                sha256="f" * 64,
                manifest={"name": "newcomer", "variants": ["*"]},
                source_dir=str(SAMPLES / "greedy"),
                validate=True,
            )
            deadline = uploaded + 300
            ready_at = None
            while time.monotonic() < deadline:
                status = BotVersion.objects.values_list("status", flat=True).get(pk=version.pk)
                if ready_at is None and status == BotVersion.Status.READY:
                    ready_at = time.monotonic()
                if status == BotVersion.Status.FAILED:
                    raise RuntimeError("the newcomer failed its validation")
                if Game.objects.filter(
                    match__kind="ladder", match__seats__version=version
                ).exists():
                    break
                time.sleep(0.1)
            else:
                raise RuntimeError("no ladder game for the newcomer within 300 s")
            done = time.monotonic()
        finally:
            loop.stop()
            pool.stop()
        assert ready_at is not None
        return {
            "first_game_s": round(done - ready_at, 1),
            "validation_s": round(ready_at - uploaded, 1),
            "interval_s": LADDER_INTERVAL_S,
        }


def run(args: argparse.Namespace) -> int:
    """Runs the measurements and prints them (or JSON), with a progress bar on stderr."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    if (
        min(
            args.matches, args.slots, args.cap, args.ismcts, args.repeats, args.workers, args.target
        )
        < 1
        or args.calibrate < 0
    ):
        print(
            "arena bench ladder: --matches, --slots, --cap, --ismcts, --repeats, --workers "
            "and --target must be at least 1 (--calibrate at least 0)",
            file=sys.stderr,
        )
        return 2
    try:
        start, _late = field(args.mixes, args.ismcts, args.late)
    except ValueError as error:
        print(f"arena bench ladder: --mixes/--late: {error}", file=sys.stderr)
        return 2
    if args.repeat_penalty is None:
        from arena.ladder import REPEAT_PENALTY

        args.repeat_penalty = REPEAT_PENALTY
    result: dict[str, Any] = {"target": args.target}
    started = time.perf_counter()
    with (
        Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=args.json,
        ) as bar,
        ProcessPoolExecutor(max_workers=args.workers) as pool,
    ):
        runs = []
        for repeat in range(args.repeats):
            task = bar.add_task(
                f"convergence run {repeat + 1} of {args.repeats}", total=args.matches
            )
            runs.append(
                convergence(args, args.seed + repeat, pool, functools.partial(bar.advance, task))
            )
        result["convergence_s"] = round(time.perf_counter() - started, 1)
        if args.calibrate:
            # Neighbouring pairs of the starting field and the late bot: len(start) of them.
            task = bar.add_task("calibration (adjacent pairs)", total=len(start) * args.calibrate)
            result["adjacent"] = calibrate(args, pool, functools.partial(bar.advance, task))
    result["matches_to_order"] = median_matches([r["matches_to_order"] for r in runs], args.matches)
    result["matches"] = args.matches
    result["table"] = runs[0]["table"]
    result["runs"] = [
        {
            "seed": r["seed"],
            "matches_to_order": r["matches_to_order"],
            "last_wrong": r["last_wrong"],
        }
        for r in runs
    ]
    if not args.skip_demo:
        result.update(first_game(args))
    if args.json:
        print(json.dumps(result))
        return 0
    _print(result, args)
    return 0


def _print(result: dict[str, Any], args: argparse.Namespace) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(
        title=f"ladder after {result['matches']} matches (target {args.target}, "
        f"one duplicate deal each; seed {args.seed})"
    )
    for column in ("bot", "mu", "sigma", "mu - 3 sigma", "games"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in result["table"]:
        table.add_row(
            row["bot"],
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            f"{row['conservative']:.2f}",
            str(row["games"]),
        )
    console.print(table)
    if "adjacent" in result:
        known = Table(title="the known order: each bot against the next weaker one")
        for column in ("stronger", "weaker", "games", "stronger's share"):
            known.add_column(
                column, justify="left" if column in ("stronger", "weaker") else "right"
            )
        for row in reversed(result["adjacent"]):
            known.add_row(
                row["stronger"], row["weaker"], str(row["games"]), f"{row['win_rate']:.0%}"
            )
        console.print(known)
    runs = ", ".join(str(r["matches_to_order"]) for r in result["runs"])
    console.print(
        f"matches_to_order: {result['matches_to_order']} "
        + (f"(median of {len(result['runs'])} runs: {runs}) " if len(result["runs"]) > 1 else "")
        + "(goal: 200 or fewer)"
    )
    if "first_game_s" in result:
        console.print(
            f"first_game_s: {result['first_game_s']} s after validation "
            f"({result['validation_s']} s to validate; goal: 60 s or less)"
        )
