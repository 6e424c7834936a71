"""``arena match NEW OLD --sprt elo0=0 elo1=10``: duplicate pairs until an SPRT decides.

The match runner plays duplicate sets (two games on the same deals, seats swapped) and after
each set :class:`SprtRun` adds the pair's outcome to the pentanomial and asks
:class:`arena.sprt.Sprt` whether the LLR has crossed a bound; the match stops there, or at
``--max-games``.  Prints the LLR with its bounds and a progress bar as the pairs come in, then
the match table and the decision (``--json``: both for machines).  Exit status 0 when H1 is
accepted (NEW is stronger by about ``elo1``), 1 for H0, 3 when ``--max-games`` came first, 2
when the test cannot run.  This module is the command line only: the statistics are
:mod:`arena.sprt`, the games :func:`arena.runner.run_match`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from arena.sprt import Counts, Decision, Sprt, estimate, pair_outcome

H1, H0, UNDECIDED = 0, 1, 3
DEFAULT_MAX_GAMES = 20_000


class SprtRun:
    """The pentanomial of a match so far, kept as its games come in; NEW is entrant 0."""

    def __init__(self, test: Sprt) -> None:
        self.test = test
        self.counts = [0, 0, 0, 0, 0]
        self.void_pairs = 0
        self.llr = 0.0
        self.decision: Decision | None = None
        self.history: list[float] = []  # the LLR after each pair
        self._sets: dict[int, list[Any]] = {}

    @property
    def pairs(self) -> int:
        """Pairs counted (void ones left out)."""
        return sum(self.counts)

    def add(self, outcome: Any) -> None:
        """One game of the match; a pair counts once both of its games are in."""
        games = self._sets.setdefault(outcome.set_index, [])
        games.append(outcome)
        if len(games) < 2:
            return
        del self._sets[outcome.set_index]
        if any(game.void is not None for game in games):
            self.void_pairs += 1
            return
        scores = [
            1.0 if 0 in g.winner_entrants else 0.5 if g.winner_side is None else 0.0 for g in games
        ]
        self.counts[pair_outcome(scores[0], scores[1])] += 1
        self.llr = self.test.llr(self.counts)
        self.history.append(self.llr)
        self.decision = self.test.decide(self.counts)

    def stop(self, report: Any) -> bool:
        """The runner's ``stop`` hook: end the match once the test has decided."""
        return self.decision is not None

    def status(self) -> str:
        """``LLR 1.23 (-2.94, 2.94)  Elo +12.3 +/- 8.9  [1 4 10 3 2]``."""
        return (
            f"LLR {self.llr:.2f} ({self.test.lower:.2f}, {self.test.upper:.2f})  "
            f"{estimate(self.counts).describe()}  "
            f"[{' '.join(str(c) for c in self.counts)}]"
        )

    def to_json(self) -> dict[str, Any]:
        """The test's state for ``--json``."""
        found = estimate(self.counts)
        counts: Counts = (
            self.counts[0],
            self.counts[1],
            self.counts[2],
            self.counts[3],
            self.counts[4],
        )
        return {
            "elo0": self.test.elo0,
            "elo1": self.test.elo1,
            "alpha": self.test.alpha,
            "beta": self.test.beta,
            "lower": round(self.test.lower, 4),
            "upper": round(self.test.upper, 4),
            "llr": round(self.llr, 4),
            "result": self.decision,
            "pairs": self.pairs,
            "void_pairs": self.void_pairs,
            "pentanomial": list(counts),
            "elo": None if abs(found.elo) == float("inf") else round(found.elo, 2),
            "elo_error": None if found.error == float("inf") else round(found.error, 2),
            "llr_history": [round(x, 4) for x in self.history],
        }


def check(args: Any, spec: Any) -> Sprt:
    """The test of ``--sprt``, after checking it fits the match; ValueError otherwise."""
    from arena.runner.match import check_spec

    test = Sprt.parse(args.sprt)
    rules = check_spec(spec)
    if len(spec.entrants) != 2 or rules.num_sides != 2:
        raise ValueError(
            f"--sprt compares two bots, NEW and OLD, in a two-side variant "
            f"({rules.variant} with {len(spec.entrants)} bots is not one)"
        )
    return test


def run(args: Any, spec: Any, test: Sprt) -> int:
    """Plays pairs until the test decides or ``--max-games``; prints; the exit status."""
    from arena.commands.match_output import print_header, print_table
    from arena.runner import run_match, sandbox_available

    sprt = SprtRun(test)
    spec.stop = sprt.stop
    max_pairs = (spec.games + 1) // 2
    if args.json:
        report = run_match(spec, progress=lambda done, total, outcome: sprt.add(outcome))
    else:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        print_header(spec, sandbox_available())
        console = Console(stderr=True)
        console.print(f"SPRT {test.describe()}: up to {max_pairs:,} pairs", highlight=False)
        with Progress(
            TextColumn("pairs"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[status]}"),
            console=console,
        ) as progress:
            task = progress.add_task("pairs", total=max_pairs, status=sprt.status())

            def update(done: int, total: int, outcome: Any) -> None:
                sprt.add(outcome)
                progress.update(task, completed=sprt.pairs + sprt.void_pairs, status=sprt.status())

            report = run_match(spec, progress=update)
    status = {"H1": H1, "H0": H0, None: UNDECIDED}[sprt.decision]
    if args.json:
        print(json.dumps({"sprt": sprt.to_json(), "match": report.to_json()}, indent=2))
        return status
    print_table(report)
    pairing = f"{report.labels[0]} against {report.labels[1]}"
    words = {
        "H1": f"H1 accepted (elo1={test.elo1:g} rather than elo0={test.elo0:g}): {pairing}",
        "H0": f"H0 accepted (elo0={test.elo0:g} rather than elo1={test.elo1:g}): {pairing}",
        None: f"no decision within {spec.games:,} games (--max-games)",
    }[sprt.decision]
    out = sys.stdout
    print(f"SPRT {test.describe()}", file=out)
    print(
        f"LLR: {sprt.llr:.2f} ({test.lower:.2f}, {test.upper:.2f}) after {sprt.pairs} pairs: "
        f"{words}",
        file=out,
    )
    print(
        f"Pentanomial [0, 0.5, 1, 1.5, 2]: [{', '.join(str(c) for c in sprt.counts)}]"
        + (f"; {sprt.void_pairs} void pairs left out" if sprt.void_pairs else ""),
        file=out,
    )
    print(f"{estimate(sprt.counts).describe()} (from the pairs)", file=out)
    return status


__all__ = ["DEFAULT_MAX_GAMES", "H0", "H1", "UNDECIDED", "SprtRun", "check", "run"]
