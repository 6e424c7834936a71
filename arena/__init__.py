"""Scopa Arena: an arena for bots that play Scopa, Scopone and their regional variants.

The rules engine lives in :mod:`arena.engine`; everything else (the runner, ratings, scheduling,
the SDK and the command line) builds on it.
"""

__version__ = "0.1.0"
