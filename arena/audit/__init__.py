"""Fair-play audit: does a seat choose moves that are best only given cards it cannot see?

For each decision the arena knows the true deal.  A fixed, cheap evaluator
(:mod:`arena.audit.evaluate`) scores every legal move on the true deal and on deals sampled
uniformly from what the seat could see (its information set).  Given its view, an honest seat's
choice does not depend on the hidden cards, so whether the move it chose is best on the true
deal and whether it is best on a sample are exchangeable (exactly, where no other seat has yet
played from the hand it holds; within a measured slack elsewhere): the paired statistic, the
match on the true deal less the move's share of the samples, has mean zero.  A bot whose excess
stays above zero decision after decision knows more than it should.
:mod:`arena.audit.sequential` turns the decisions into an e-process with a stated false-alarm
rate; :mod:`arena.audit.decisions` audits decisions and replays.

Engine-only: this package imports nothing of the runner, gRPC, Celery or Django.
"""

from arena.audit.decisions import (
    AUDIT_KINDS,
    AuditConfig,
    AuditError,
    DecisionAudit,
    audit_decision,
    audit_replay,
    is_exact,
)
from arena.audit.evaluate import move_values, worth
from arena.audit.sequential import BETS, EProcess

__all__ = [
    "AUDIT_KINDS",
    "BETS",
    "AuditConfig",
    "AuditError",
    "DecisionAudit",
    "EProcess",
    "audit_decision",
    "audit_replay",
    "is_exact",
    "move_values",
    "worth",
]
