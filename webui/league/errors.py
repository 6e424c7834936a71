"""What the league refuses: :class:`LeagueError`, one line a person can act on.

Raised by the league's write paths (:mod:`webui.league.variants`, :mod:`~webui.league.versions`,
:mod:`~webui.league.seasons`) before anything is written; the site answers it with a 400 and the
command line with its message.
"""

from __future__ import annotations


class LeagueError(ValueError):
    """A request the league refuses; the message is one line a person can act on."""
