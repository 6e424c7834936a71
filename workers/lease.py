"""A worker's hold on the match it plays: the lease kept alive, and the match stopped once the
lease is lost.

The lease itself is the database's (:func:`webui.league.matches.claim_match`,
:func:`~webui.league.matches.renew_lease`): its end is reckoned by the database's clock, so
hosts whose clocks disagree still agree on who holds a match. :class:`LeaseKeeper` renews it
every quarter of ``ARENA_MATCH_LEASE_S`` and decides when this worker must let go:

- a renewal finds the match taken over (another worker claimed it after the lease ran out) or
  finished;
- or no renewal has succeeded for a whole lease. A host cut off from the database cannot ask
  it, so it counts for itself, by its monotonic clock (which a wrong wall clock does not move):
  a lease renewed by a request sent at ``t`` lasts until ``t + ARENA_MATCH_LEASE_S`` or later
  by the database's clock, so once that much time has passed since the last successful
  renewal was sent, another worker may hold the match.

Then the match this worker plays is stopped at once through the runner's own cancellation:
:attr:`LeaseKeeper.cancel` is the match spec's ``cancel`` event, the match ends at its next
wait, and its clean-up stops every seat (bot processes, their control groups, their folders)
before ``run_match`` returns a report marked cancelled. The other worker plays the match again
from the start; this one records nothing (only the current claim may record a result).
"""

from __future__ import annotations

import logging
import threading
import time
from types import TracebackType

from django.conf import settings
from django.db import close_old_connections, connection

from webui.league import matches

log = logging.getLogger("workers.lease")


class LeaseKeeper:
    """Renews a match claim's lease in the background while its match is prepared and played,
    and sets :attr:`cancel` (the match spec's ``cancel``) when the lease is lost.

    ``since`` is the monotonic time at which the claim was asked for (default: now); the lease
    counts from there.
    """

    def __init__(self, claim: matches.Claim, since: float | None = None) -> None:
        self.claim = claim
        self.lease_s = float(settings.ARENA_MATCH_LEASE_S)
        self.valid_until = (time.monotonic() if since is None else since) + self.lease_s
        self.lost = False
        self.why = ""
        self.stopped = threading.Event()
        self.cancel = threading.Event()  # set when the lease is lost: the match must stop
        self._lock = threading.Lock()
        self._renewer = threading.Thread(target=self._renew, name="lease", daemon=True)
        self._watcher = threading.Thread(target=self._watch, name="lease-watch", daemon=True)

    def __enter__(self) -> LeaseKeeper:
        self._renewer.start()
        self._watcher.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stopped.set()
        self._watcher.join(timeout=2)
        # A renewal stuck on a dead connection is left to finish on its own (a daemon thread):
        # it can only renew a claim this worker still holds.
        self._renewer.join(timeout=2)

    def _renew(self) -> None:
        interval = max(0.5, self.lease_s / 4)
        try:
            while not self.stopped.wait(interval):
                sent = time.monotonic()
                try:
                    held = matches.renew_lease(self.claim)
                except Exception as error:  # the database blinked: try again next beat
                    log.warning(
                        "could not renew the lease of match %s: %s", self.claim.match_id, error
                    )
                    close_old_connections()
                    continue
                if not held:
                    self._lose("another worker took the match over, or it ended")
                    return
                with self._lock:
                    self.valid_until = max(self.valid_until, sent + self.lease_s)
        finally:
            connection.close()

    def _watch(self) -> None:
        while True:
            with self._lock:
                left = self.valid_until - time.monotonic()
            if left <= 0:
                self._lose(f"no renewal for {self.lease_s:g} s: another worker may hold it")
                return
            if self.stopped.wait(min(left, 1.0)):
                return

    def _lose(self, why: str) -> None:
        with self._lock:
            if self.lost or self.stopped.is_set():
                return
            self.lost = True
            self.why = why
            log.warning("match %s: lease lost (%s); stopping it", self.claim.match_id, why)
            self.cancel.set()
