"""The match runner: starts bots in sandboxes, talks gRPC, keeps the clocks, writes replays.

::

    from arena.runner import BotRef, MatchSpec, run_match
    report = run_match(MatchSpec([BotRef.parse("random"), BotRef.parse("greedy")], "scopa"))

:func:`run_match` plays a :class:`MatchSpec` (duplicate sets, seats swapped or rotated) and
returns a :class:`MatchReport` with every game's replay, result and faults. The parts:
:mod:`~arena.runner.sandbox` (bubblewrap and limits), :mod:`~arena.runner.process` (one bot
process), :mod:`~arena.runner.link` (the gRPC streams), :mod:`~arena.runner.report` (the records
and their JSON), :mod:`~arena.runner.seats` (a seat's processes and their states),
:mod:`~arena.runner.game` (one game's play), :mod:`~arena.runner.match` (a match over them),
:mod:`~arena.runner.stats` (Elo and LOS). This package knows nothing of Celery or Django.
"""

from arena.runner import cgroups
from arena.runner.bots import BotError, BotRef, Manifest, read_manifest, sample_bot_names
from arena.runner.match import (
    EntrantSummary,
    GameJson,
    GameOutcome,
    LiveMove,
    MatchError,
    MatchReport,
    MatchReportJson,
    MatchSpec,
    run_match,
)
from arena.runner.sandbox import HostError, Limits, sandbox_available
from arena.runner.stats import EloEstimate

__all__ = [
    "BotError",
    "BotRef",
    "EloEstimate",
    "EntrantSummary",
    "GameJson",
    "GameOutcome",
    "HostError",
    "Limits",
    "LiveMove",
    "Manifest",
    "MatchError",
    "MatchReport",
    "MatchReportJson",
    "MatchSpec",
    "cgroups",
    "read_manifest",
    "run_match",
    "sample_bot_names",
    "sandbox_available",
]
