"""Logging handlers of the site and the workers."""

from __future__ import annotations

import logging
import sys
from typing import TextIO


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes each record to ``sys.stderr`` as it is when the record is emitted.

    A plain ``StreamHandler`` keeps the stream it was configured with; when something swaps
    ``sys.stderr`` for a while (a CLI command run in-process, a test capturing output) and
    closes the stand-in, every later record would fail with "I/O operation on closed file".
    """

    def __init__(self, level: int = logging.NOTSET) -> None:
        logging.Handler.__init__(self, level)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        """The stream is always the current ``sys.stderr``; nothing is kept."""
