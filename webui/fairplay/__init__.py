"""Fair-play audits of bots' rated games (:mod:`arena.audit` on the league's replays), the
staff page that shows them, and the audit queue's work (the task is :mod:`workers.fairplay`)."""
