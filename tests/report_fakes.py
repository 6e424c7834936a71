"""Match reports with hand-made results, built by the runner's own classes.

The league records what the runner hands over (:meth:`arena.runner.MatchReport.to_json`) and
trusts it as typed; a test that needs a result without playing it builds the same record here:
each game's winning side by the engine's rule (:func:`arena.engine.result_winner`), its
entrants by :func:`arena.engine.side_of_seat`, and the summary by the runner's own tally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine import result_winner, rules_for, side_of_seat
from arena.engine.replay import Replay
from arena.runner import BotRef, GameOutcome, MatchReport, MatchReportJson, MatchSpec


@dataclass
class FakeGame:
    """One game's result: the entrant of each seat, the totals per side and the game's own
    winner (a side, or None), a forfeiting side or a void reason."""

    seats: list[int]
    totals: list[int]
    winner: int | None
    forfeit: int | None = None
    void: str | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    duration_ms: int = 10
    replay: Any = None  # a played game's replay (REPLAY.md), or None: one with no deals


def fake_match_report(
    variant: str, games: list[FakeGame], entrants: int | None = None
) -> MatchReportJson:
    """The report of a match of ``games`` in ``variant`` (with no moves played)."""
    rules = rules_for(variant)
    count = entrants if entrants is not None else max(max(g.seats) for g in games) + 1
    labels = [f"entrant-{e}" for e in range(count)]
    outcomes = []
    for index, g in enumerate(games):
        forfeit = None if g.forfeit is None else {"side": g.forfeit, "reason": "crash: exit 1"}
        winner = result_winner(rules.num_sides, g.winner, g.forfeit, bool(g.void))
        replay: dict[str, Any] = (
            dict(g.replay)
            if g.replay is not None
            else {
                "format": "scopa-replay",
                "version": 1,
                "variant": variant,
                "options": {},
                "players": [labels[e] for e in g.seats],
                "seed": index,
                "deals": [],
                "result": {"totals": list(g.totals), "winner": winner},
            }
        )
        if forfeit is not None:
            replay["result"]["forfeit"] = forfeit
        if g.void:
            replay["void"] = g.void
        if g.faults:
            replay["faults"] = list(g.faults)
        outcomes.append(
            GameOutcome(
                index=index,
                set_index=index,
                seed=index,
                seats=list(g.seats),
                replay=Replay(**replay),  # type: ignore[typeddict-item]
                totals=list(g.totals),
                winner_side=winner,
                winner_entrants=sorted(
                    {
                        e
                        for seat, e in enumerate(g.seats)
                        if winner is not None and side_of_seat(seat, rules.num_sides) == winner
                    }
                ),
                void=g.void,
                forfeit=forfeit,  # type: ignore[arg-type]
                faults=list(g.faults),  # type: ignore[arg-type]
                duration_ms=g.duration_ms,
                moves=0,
                scope=[0] * rules.num_sides,
            )
        )
    spec = MatchSpec([BotRef(text=label) for label in labels], variant, sandbox=False)
    report = MatchReport(
        spec,
        rules,
        0,
        labels,
        outcomes,
        duration_ms=sum(g.duration_ms for g in games),
        sandboxed=[False] * count,
    )
    return report.to_json(replays=True)
