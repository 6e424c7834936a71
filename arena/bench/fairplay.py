"""The fair-play audit measured: how fast planted cheaters are flagged, and that honest bots
are not.

Games are played in-process (no sandbox, no gRPC) and the audited seat's every decision goes
through :mod:`arena.audit`.  The planted cheaters are built in the test suite only
(``tests/audit/cheaters.py``: policies the harness hands the true deal, never bots that could
be uploaded); the benchmark loads them from the checkout it runs in, and without one it measures
the honest bots alone.  The honest bots are the sample bots, loaded from their files (random,
greedy, ISMCTS and the informed search at a low iteration count, learned).  Every game's
opponents play the honest ``sampler`` policy below.

A planted cheater is played until it is flagged or ``--max-games`` pass, ``--runs`` times from
different seeds; an honest bot plays ``--games`` games as one long test (one e-process over them
all).  Audit CPU per game is measured beside the CPU the bots took to play the same games.

    arena bench fairplay --games 1000 --runs 5 --max-games 100 --workers 2
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.audit import AuditConfig, EProcess, audit_decision
from arena.audit.decisions import resample
from arena.audit.sequential import DEFAULT_ALPHA
from arena.bench import progress_bar
from arena.engine import Deal, Game, Move, Observation, rules_for

SUMMARY = "fair-play audit: games to flag planted cheaters, false alarms on honest bots"
CHECKOUT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = CHECKOUT / "sample_bots"
CHEATERS = CHECKOUT / "tests" / "audit" / "cheaters.py"
PLANTED_NAMES = ("peek-greedy", "peek-search", "partner-peek", "tenth")
"""The planted cheaters ``tests/audit/cheaters.py`` defines (checked when it is loaded)."""

Policy = Callable[[Deal, random.Random], Move]
"""A seat's policy in the harness: the true deal at its turn, a generator; returns its move.
An honest policy reads nothing of the deal but the seat's observation."""

# The planted players' weights (the honest ``sampler``'s and the cheaters', not the audit's):
# card, coin, seven, settebello, scopa.
_TAKE = tuple(
    1.0 + (2.0 if c // 10 == 0 else 0.0) + (4.0 if c % 10 == 6 else 0.0) + (15.0 if c == 6 else 0.0)
    for c in range(40)
)
_SCOPA = 30.0


def gain(deal: Deal, move: Move) -> float:
    """What ``move`` takes for its seat by the planted players' weights."""
    if not move[1]:
        return -0.1 * (10 - move[0] % 10) / 10 - 0.5 * (_TAKE[move[0]] - 1)  # shed cheap cards
    value = _TAKE[move[0]] + sum(_TAKE[c] for c in move[1])
    if len(move[1]) == len(deal.table) and (deal.stock or sum(deal.hand_sizes) > 1):
        value += _SCOPA
    return value


def greedy_line(deal: Deal, move: Move, plies: int) -> float:
    """``move`` then ``plies - 1`` replies each taking most, signed for the mover's side."""
    rules = deal.rules
    me = rules.side_of(deal.to_move)
    total = gain(deal, move)
    deal.apply_unchecked(move)
    applied = 1
    for _ in range(plies - 1):
        if deal.is_over():
            break
        seat = deal.to_move
        reply = max(deal.legal_moves(), key=lambda m: gain(deal, m))
        value = gain(deal, reply)
        total += value if rules.side_of(seat) == me else -value
        deal.apply_unchecked(reply)
        applied += 1
    for _ in range(applied):
        deal.undo()
    return total


def best_of(deal: Deal, values: Sequence[float]) -> Move:
    """The legal move of highest value (the first of equals)."""
    moves = deal.legal_moves()
    return moves[max(range(len(moves)), key=values.__getitem__)]


def sampler(deal: Deal, rng: random.Random) -> Move:
    """Honest: a round of greedy play averaged over four deals sampled from the seat's view."""
    seat = deal.to_move
    moves = deal.legal_moves()
    totals = [0.0] * len(moves)
    for _ in range(4):
        sample = resample(deal, seat, (), rng)
        for i, move in enumerate(moves):
            totals[i] += greedy_line(sample, move, deal.rules.players)
    return best_of(deal, totals)


class NoCheaters(RuntimeError):
    """The planted cheaters are not here: the benchmark runs outside a checkout."""


def planted_policies() -> dict[str, tuple[str, str, Policy]]:
    """The planted cheaters, by name: variant, test, policy; loaded from the checkout's test
    suite (``tests/audit/cheaters.py``), where alone they are built.

    Raises :class:`NoCheaters` when the file is not there (an installed copy of the arena).
    """
    if not CHEATERS.is_file():
        raise NoCheaters(
            "the planted cheaters are built in the test suite only (tests/audit/cheaters.py of a"
            " checkout of the arena), and this copy has none: run the benchmark from a"
            " checkout, or name honest bots only (--bot random ...)"
        )
    module = _load_file(CHEATERS, "_fairplay_cheaters")
    planted: dict[str, tuple[str, str, Policy]] = module.PLANTED
    if tuple(planted) != PLANTED_NAMES:
        raise NoCheaters(f"{CHEATERS} defines {list(planted)}, not {list(PLANTED_NAMES)}")
    return planted


def _load(relative: str) -> ModuleType:
    """A sample bot's module, loaded from its file (the bots are not part of the library)."""
    path = SAMPLE_BOTS / relative
    return _load_file(path, f"_fairplay_{path.parent.name}")


def _load_file(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no module at {path}")
    if spec.name in sys.modules:
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def _observing(choose: Callable[[Observation, list[Move]], Move]) -> Policy:
    """An honest policy from a function of the seat's observation and legal moves."""

    def policy(deal: Deal, rng: random.Random) -> Move:
        return choose(deal.observation(deal.to_move), deal.legal_moves())

    return policy


def sample_bot(name: str, iterations: int = 50) -> Policy:
    """The policy of the sample bot ``name`` (random, greedy, ismcts, informed, learned);
    ``iterations`` is the searches' budget a move."""
    if name == "random":
        return lambda deal, rng: rng.choice(deal.legal_moves())
    if name == "greedy":
        return _observing(_load("greedy/policy.py").choose_move)
    if name == "ismcts":
        search = _load("ismcts/search.py")

        def ismcts(deal: Deal, rng: random.Random) -> Move:
            # Seeded from the game's generator: a game plays the same in any batch.
            config = search.SearchConfig(iterations=iterations, seed=rng.getrandbits(62))
            return search.choose_move(deal.observation(deal.to_move), deal.legal_moves(), config)  # type: ignore[no-any-return]

        return ismcts
    if name == "informed":
        informed_search = _load("informed/search.py")

        def informed(deal: Deal, rng: random.Random) -> Move:
            # Its reading of play is fair: it reads the other seats' plays, never their hands.
            config = informed_search.SearchConfig(iterations=iterations, seed=rng.getrandbits(62))
            return informed_search.choose_move(  # type: ignore[no-any-return]
                deal.observation(deal.to_move), deal.legal_moves(), config
            )

        return informed
    if name == "learned":
        features = _load("learned/features.py")
        data = json.loads((SAMPLE_BOTS / "learned" / "weights.json").read_text(encoding="utf-8"))
        if data.get("features") != list(features.FEATURES):
            raise ValueError("learned/weights.json was trained on other features")
        weights = [float(w) for w in data["weights"]]
        return _observing(lambda obs, legal: features.best_move(obs, legal, weights))
    raise ValueError(f"no sample bot {name!r} (random, greedy, ismcts, informed, learned)")


@dataclass(frozen=True)
class Subject:
    """A bot under audit: its policy's name, the variant and the audit's kind."""

    name: str
    planted: bool
    variant: str
    kind: str


def planted_subject(name: str) -> Subject:
    """The planted cheater ``name`` as a subject (its variant and test from the test suite)."""
    variant, kind, _ = planted_policies()[name]
    return Subject(name, True, variant, kind)


HONEST: dict[str, Subject] = {
    name: Subject(name, False, "scopa", "hidden")
    for name in ("random", "greedy", "ismcts", "informed", "learned")
}


@dataclass
class GameAudit:
    """One game's audited decisions as (share, seen, slack, scale, exact), and the CPU the audit
    and the bots took."""

    decisions: list[tuple[float, float, float, float, bool]]
    audit_seconds: float
    play_seconds: float
    audited_moves: int


def play_audited(
    variant: str,
    seed: int,
    policy: Policy,
    side: int,
    kind: str,
    config: AuditConfig,
    opponent: Policy = sampler,
) -> GameAudit:
    """One game with ``policy`` in every seat of ``side`` (the rest ``opponent``), each of its
    decisions audited."""
    rules = rules_for(variant)
    game = Game(rules, seed)
    rng = random.Random(f"play:{seed}")
    audit_rng = random.Random(f"audit:{config.seed}:{seed}")
    out: list[tuple[float, float, float, float, bool]] = []
    audit_cpu = play_cpu = 0.0
    moves = 0
    while not game.is_over():
        deal = game.new_deal()
        while not deal.is_over():
            mine = rules.side_of(deal.to_move) == side
            began = time.process_time()
            move = (policy if mine else opponent)(deal, rng)
            if mine:
                play_cpu += time.process_time() - began
                began = time.process_time()
                audit = audit_decision(deal, move, audit_rng, kind, config)
                audit_cpu += time.process_time() - began
                moves += 1
                if audit is not None:
                    out.append((audit.share, audit.seen, audit.slack, audit.scale, audit.exact))
            deal.apply(move)
        game.finish_deal(deal)
    return GameAudit(out, audit_cpu, play_cpu, moves)


def play_games(task: tuple[Subject, int, range, AuditConfig, int]) -> list[GameAudit]:
    """The games numbered ``games`` of one subject's run (side alternating by game)."""
    subject, run, games, config, iterations = task
    if subject.planted:
        policy = planted_policies()[subject.name][2]
    else:
        policy = sample_bot(subject.name, iterations)
    return [
        play_audited(subject.variant, 1_000_003 * run + g, policy, g % 2, subject.kind, config)
        for g in games
    ]


def until_flagged(task: tuple[Subject, int, int, AuditConfig, float]) -> dict[str, Any]:
    """One run of a planted cheater: games until flagged (or ``max_games``)."""
    subject, run, max_games, config, alpha = task
    test = EProcess(alpha=alpha)
    cpu = play = 0.0
    games = 0
    for g in range(max_games):
        (result,) = play_games((subject, run, range(g, g + 1), config, 0))
        games += 1
        cpu += result.audit_seconds
        play += result.play_seconds
        for decision in result.decisions:
            test.observe(*decision)
        if test.flagged:
            break
    return {
        "games": games,
        "flagged": test.flagged,
        "decisions": test.decisions,
        "audit_seconds": cpu,
        "play_seconds": play,
    }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``arena bench fairplay``."""
    parser.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        help="false-alarm rate per bot (default 0.001)",
    )
    parser.add_argument(
        "--games", type=int, default=200, metavar="N", help="games per honest bot (default 200)"
    )
    parser.add_argument(
        "--runs", type=int, default=5, metavar="N", help="runs per planted cheater (default 5)"
    )
    parser.add_argument(
        "--max-games",
        type=int,
        default=100,
        metavar="N",
        help="a planted run not flagged after N games counts as missed (default 100)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=AuditConfig.samples,
        metavar="K",
        help=f"sampled deals per decision (default {AuditConfig.samples})",
    )
    parser.add_argument(
        "--honest-variant",
        choices=("scopa", "scopone"),
        default="scopa",
        help="the honest bots' variant: scopa (the hidden test, default) or scopone (the "
        "partner test, both seats of a side played by the bot)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=50,
        metavar="N",
        help="the ISMCTS and informed bots' iterations per move (default 50)",
    )
    parser.add_argument(
        "--bot",
        action="append",
        default=None,
        metavar="NAME",
        dest="bots",
        help="only this bot (repeatable): the planted "
        + ", ".join(PLANTED_NAMES)
        + " (from a checkout's tests/audit/cheaters.py) or the honest "
        + ", ".join(HONEST),
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=min(2, os.cpu_count() or 1),
        metavar="N",
        help="processes (default 2)",
    )
    parser.add_argument(
        "--seed", type=int, default=1, help="seed of the games and the audit (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def honest_row(subject: Subject, results: list[GameAudit], alpha: float) -> dict[str, Any]:
    """An honest bot's row: its games replayed into one e-process, in order."""
    test = EProcess(alpha=alpha)
    flagged_game = None
    for g, result in enumerate(results):
        for decision in result.decisions:
            test.observe(*decision)
        if test.flagged and flagged_game is None:
            flagged_game = g + 1
    moves = sum(r.audited_moves for r in results)
    audit = sum(r.audit_seconds for r in results)
    return {
        "bot": subject.name,
        "planted": False,
        "variant": subject.variant,
        "kind": subject.kind,
        "games": len(results),
        "flagged": test.flagged,
        "games_to_flag": flagged_game,
        "decisions": test.decisions,
        "exact_decisions": sum(d[4] for r in results for d in r.decisions),
        "match_rate": test.matches / test.decisions if test.decisions else 0.0,
        "share_rate": test.expected / test.decisions if test.decisions else 0.0,
        "excess": test.excess,
        "exact_excess": _mean([d[1] - d[0] for r in results for d in r.decisions if d[4]]),
        "other_excess": _mean([d[1] - d[0] for r in results for d in r.decisions if not d[4]]),
        "log10_e_final": test.log_e / math.log(10),
        "audit_ms_per_move": 1000 * audit / moves if moves else 0.0,
        "audit_cpu_s_per_game": audit / len(results) if results else 0.0,
        "play_cpu_s_per_game": sum(r.play_seconds for r in results) / len(results)
        if results
        else 0.0,
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _planted_row(subject: Subject, runs: list[dict[str, Any]], max_games: int) -> dict[str, Any]:
    """A planted cheater's row: games to flag over its runs (missed runs count ``max_games``)."""
    flagged = [r["games"] for r in runs if r["flagged"]]
    games = sum(r["games"] for r in runs)
    return {
        "bot": subject.name,
        "planted": True,
        "variant": subject.variant,
        "kind": subject.kind,
        "runs": len(runs),
        "flagged": len(flagged) == len(runs),
        "runs_flagged": len(flagged),
        "games_to_flag": sorted(flagged),
        "games_to_flag_median": statistics.median(flagged) if flagged else None,
        "games_to_flag_max": max(flagged) if flagged else None,
        "max_games": max_games,
        "games": games,
        "audit_cpu_s_per_game": sum(r["audit_seconds"] for r in runs) / games if games else 0.0,
        "play_cpu_s_per_game": sum(r["play_seconds"] for r in runs) / games if games else 0.0,
    }


def run(args: argparse.Namespace) -> int:
    """``arena bench fairplay``."""
    names = args.bots or [*PLANTED_NAMES, *HONEST]
    unknown = [n for n in names if n not in PLANTED_NAMES and n not in HONEST]
    problems = []
    if unknown:
        problems.append(
            f"no bot {', '.join(map(repr, unknown))} (one of "
            f"{', '.join([*PLANTED_NAMES, *HONEST])})"
        )
    if not 0.0 < args.alpha < 1.0:
        problems.append(f"--alpha must be in (0, 1), not {args.alpha}")
    for option in ("games", "runs", "max_games", "workers", "iterations"):
        if not 1 <= getattr(args, option) <= 1_000_000:
            problems.append(f"--{option.replace('_', '-')} must be 1..1000000")
    try:
        config = AuditConfig(samples=args.samples, seed=args.seed)
    except ValueError as exc:
        problems.append(str(exc))
    if problems:
        print(f"arena bench fairplay: {'; '.join(problems)}", file=sys.stderr)
        return 2
    planted: list[Subject] = []
    if any(n in PLANTED_NAMES for n in names):
        try:
            planted = [planted_subject(n) for n in names if n in PLANTED_NAMES]
        except NoCheaters as exc:
            print(f"arena bench fairplay: no planted table: {exc}", file=sys.stderr)
    honest = [
        Subject(
            n,
            False,
            args.honest_variant,
            "partner" if args.honest_variant == "scopone" else "hidden",
        )
        for n in names
        if n in HONEST
    ]
    if not planted and not honest:
        return 2  # the planted cheaters alone were asked for, and they are not here
    chunk = max(1, math.ceil(args.games / (4 * args.workers)))
    base = 1000 * args.seed
    planted_tasks = [
        (s, (s, base + r, args.max_games, config, args.alpha))
        for s in planted
        for r in range(args.runs)
    ]
    honest_tasks = [
        (s, (s, base, range(start, min(start + chunk, args.games)), config, args.iterations))
        for s in honest
        for start in range(0, args.games, chunk)
    ]
    began = time.perf_counter()
    runs: dict[str, list[dict[str, Any]]] = {s.name: [] for s in planted}
    played: dict[str, list[GameAudit]] = {s.name: [] for s in honest}
    with (
        progress_bar(
            "audited runs and game batches",
            len(planted_tasks) + len(honest_tasks),
            quiet=args.json,
        ) as advance,
        ProcessPoolExecutor(args.workers) as pool,
    ):
        planted_futures = [(s, pool.submit(until_flagged, t)) for s, t in planted_tasks]
        honest_futures = [(s, pool.submit(play_games, t)) for s, t in honest_tasks]
        for s, future in planted_futures:
            runs[s.name].append(future.result())
            advance(1)
        for s, hfuture in honest_futures:
            played[s.name].extend(hfuture.result())
            advance(1)
    rows = [_planted_row(s, runs[s.name], args.max_games) for s in planted]
    rows += [honest_row(s, played[s.name], args.alpha) for s in honest]
    figures = {
        "alpha": args.alpha,
        "samples": args.samples,
        "slack": config.slack,
        "ismcts_iterations": args.iterations,
        "games_per_honest_bot": args.games,
        "runs_per_planted_bot": args.runs,
        "max_games": args.max_games,
        "workers": args.workers,
        "wall_seconds": time.perf_counter() - began,
        "bots": rows,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    _print_tables(figures)
    return 0


def _print_tables(figures: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=None if sys.stdout.isatty() else 160)
    planted = [r for r in figures["bots"] if r["planted"]]
    honest = [r for r in figures["bots"] if not r["planted"]]
    if planted:
        table = Table(title=f"Planted cheaters: games to flag (alpha {figures['alpha']})")
        for column in (
            "bot",
            "variant",
            "test",
            "flagged runs",
            "games to flag",
            "median",
            "audit CPU/game",
            "play CPU/game",
        ):
            table.add_column(column, justify="right", no_wrap=True)
        for r in planted:
            table.add_row(
                r["bot"],
                r["variant"],
                r["kind"],
                f"{r['runs_flagged']}/{r['runs']}",
                " ".join(map(str, r["games_to_flag"])) or f"none in {r['max_games']}",
                "-" if r["games_to_flag_median"] is None else f"{r['games_to_flag_median']:g}",
                f"{r['audit_cpu_s_per_game']:.2f} s",
                f"{r['play_cpu_s_per_game']:.2f} s",
            )
        console.print(table)
    if honest:
        table = Table(
            title=f"Honest bots: false alarms over {figures['games_per_honest_bot']} games each"
        )
        for column in (
            "bot",
            "variant",
            "games",
            "decisions",
            "flagged",
            "exact",
            "match",
            "share",
            "excess: all, exact, other",
            "log10 e",
            "audit CPU/game",
            "play CPU/game",
        ):
            table.add_column(column, justify="right", no_wrap=True)
        for r in honest:
            table.add_row(
                r["bot"],
                r["variant"],
                str(r["games"]),
                str(r["decisions"]),
                f"yes, game {r['games_to_flag']}" if r["flagged"] else "no",
                str(r["exact_decisions"]),
                f"{r['match_rate']:.3f}",
                f"{r['share_rate']:.3f}",
                f"{r['excess']:+.3f} {r['exact_excess']:+.3f} {r['other_excess']:+.3f}",
                f"{r['log10_e_final']:.1f}",
                f"{r['audit_cpu_s_per_game']:.2f} s",
                f"{r['play_cpu_s_per_game']:.2f} s",
            )
        console.print(table)
    console.print(
        "match: share of audited decisions whose move was best on the true deal; share: how "
        "often an honest player's move is best on sampled deals (the mean share); excess: match "
        "less share, per decision, on all, exact and other decisions (exact: the samples are the "
        "true posterior, no slack; other: they carry the slack); the test flags at e >= 1/alpha. "
        f"samples {figures['samples']}, slack {figures['slack']}, "
        f"ISMCTS {figures['ismcts_iterations']} iterations; "
        f"wall {figures['wall_seconds']:.0f} s on {figures['workers']} worker(s)"
    )


def played_replay(variant: str, seed: int, policies: Sequence[Policy], names: Sequence[str]) -> Any:
    """The replay (docs/REPLAY.md) of one game with a policy per seat: planted games for tests
    of what reads replays (the platform's audit)."""
    from arena.engine.replay import ReplayRecorder

    rules = rules_for(variant)
    game = Game(rules, seed)
    recorder = ReplayRecorder(rules, seed, list(names))
    rng = random.Random(f"replay:{seed}")
    while not game.is_over():
        deal = game.new_deal()
        recorder.start_deal(game, deal)
        while not deal.is_over():
            seat = deal.to_move
            move = policies[seat](deal, rng)
            deal.apply(move)
            recorder.record_move(seat, move)
        game.finish_deal(deal)
    return recorder.finish(game)
