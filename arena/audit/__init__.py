"""Fair-play audit: does a seat choose moves that are best only given cards it cannot see?

For each decision the arena knows the true deal.  A fixed, cheap evaluator
(:mod:`arena.audit.evaluate`) scores every legal move on the true deal and on deals sampled
uniformly from what the seat could see (its information set).  Given its view, an honest seat's
choice does not depend on the hidden cards, so the chance that the move it chose is best on the
true deal is that move's share of the samples where it is best; a bot that beats those shares
decision after decision knows more than it should.  :mod:`arena.audit.sequential` turns the
decisions into an e-process with a stated false-alarm rate; :mod:`arena.audit.decisions` audits
decisions and replays.

Engine-only: this package imports nothing of the runner, gRPC, Celery or Django.
"""

from arena.audit.decisions import (
    AUDIT_KINDS,
    AuditConfig,
    AuditError,
    DecisionAudit,
    audit_decision,
    audit_replay,
)
from arena.audit.evaluate import move_values, worth
from arena.audit.sequential import DELTAS, EProcess

__all__ = [
    "AUDIT_KINDS",
    "DELTAS",
    "AuditConfig",
    "AuditError",
    "DecisionAudit",
    "EProcess",
    "audit_decision",
    "audit_replay",
    "move_values",
    "worth",
]
