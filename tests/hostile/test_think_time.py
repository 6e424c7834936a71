"""Think time between partners: a turn's move reaches the table only at a release point.

The ``think-partners`` bot sends a symbol (one of 12) each turn by how long it thinks, and
reads its partner's from when its own request arrives (see the bot). Paced, a turn's timing
tells the table only which release point it fell before (:func:`arena.runner.game
.release_points`), so a deal carries at most ``turns x log2(points)`` bits from one partner to
the other: the bound these tests hold the attack to. Measured as the mutual information
between the symbols sent and those read (the attacker's best reading of each gap), times the
readings a deal gives.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

import pytest
from hostile_helpers import HOSTILE_LIMITS, hostile, verify_replays

from arena.runner import BotRef, MatchReport, MatchSpec, run_match
from arena.runner.game import pace_bits

MOVE_MS = 1000  # the default clock: release points 5, 80 and 1000 ms
STEP_MS = 40  # the bot's symbol step
LEVELS = 12
TURNS_PER_DEAL = 10  # each seat's turns in a deal of Scopone (40 cards, 4 seats)
BOUND = TURNS_PER_DEAL * pace_bits(MOVE_MS)  # bits a deal can carry, one partner to the other


def play(tmp_path: Path, *, pace: bool) -> MatchReport:
    """A duplicate set of Scopone to 1 point: ``think-partners`` (seats 0 and 2, or 1 and 3)
    against ``random``."""
    replays = tmp_path / "replays"
    report = run_match(
        MatchSpec(
            entrants=[hostile("think-partners"), BotRef.parse("random")],
            variant="scopone",
            options={"target": 1},
            games=2,
            move_time_ms=MOVE_MS,
            bank_ms=120_000,
            limits=HOSTILE_LIMITS,
            replays_dir=replays,
            pace_partners=pace,
        )
    )
    verify_replays(replays)
    return report


def pairs(report: MatchReport) -> list[tuple[int, int]]:
    """(symbol sent, symbol read) for each reading: the gap before a seat's turn, read as the
    symbol it is nearest to above the smallest gap of the match."""
    logs = report.logs["0/0"] + report.logs["0/1"]
    sent = {
        (game, int(deal), int(moves)): int(symbol)
        for game, deal, moves, symbol in re.findall(r"SEND (\S+) (\d+) (\d+) (\d+)", logs)
    }
    gaps = {
        (game, int(deal), int(moves) - 2): float(ms)
        for game, deal, moves, ms in re.findall(r"GAP (\S+) (\d+) (\d+) ([\d.]+)", logs)
    }
    readings = [(sent[key], gap) for key, gap in gaps.items() if key in sent]
    least = min(gap for _, gap in readings)
    return [(symbol, min(LEVELS - 1, round((gap - least) / STEP_MS))) for symbol, gap in readings]


def mutual_information(samples: list[tuple[int, int]]) -> float:
    """I(sent; read) in bits per reading, from the samples' frequencies."""
    n = len(samples)
    joint = Counter(samples)
    sent = Counter(x for x, _ in samples)
    read = Counter(y for _, y in samples)
    return sum(
        count / n * math.log2(count * n / (sent[x] * read[y])) for (x, y), count in joint.items()
    )


def bits_per_deal(report: MatchReport) -> float:
    """What the attack read, per deal and per direction (one partner to the other)."""
    samples = pairs(report)
    deals = sum(len(game.replay["deals"]) for game in report.games)
    return mutual_information(samples) * len(samples) / (2 * deals)


@pytest.mark.timeout(600)
def test_paced_partners_pass_fewer_bits_a_deal_than_the_stated_bound(
    bwrap: str, tmp_path: Path
) -> None:
    report = play(tmp_path, pace=True)
    assert len(pairs(report)) >= 20, report.logs["0/0"][-2000:]
    measured = bits_per_deal(report)
    assert measured < BOUND, (measured, BOUND, pairs(report))
    for game in report.games:
        assert game.void is None and game.forfeit is None, game.faults


@pytest.mark.timeout(600)
def test_unpaced_the_same_attack_passes_more_than_the_bound(bwrap: str, tmp_path: Path) -> None:
    """The control: with pacing off, the attack reads its partner's symbols (so the bound
    above is pacing's doing, not the attack's weakness)."""
    report = play(tmp_path, pace=False)
    measured = bits_per_deal(report)
    assert measured > BOUND, (measured, BOUND, pairs(report))
