"""Seeds the arena draws: unguessable, and exact in every JSON reader.

A game's seed decides every card of it; a bot that learns or guesses it reads every hidden
hand (``arena.engine`` re-deals any seed). So the arena draws game and bot seeds from
:mod:`secrets`, never from a number a bot could see or guess (an id, a counter, a time), and
shows a game's seed only once the game is over. 53 bits: far beyond a search within a game's
clock, and integers that JavaScript's numbers (the site's viewer) keep exactly.
"""

from __future__ import annotations

import secrets

SEED_BITS = 53


def draw_seed() -> int:
    """A fresh, unguessable seed of ``SEED_BITS`` bits.

    >>> 0 <= draw_seed() < 2**SEED_BITS
    True
    """
    return secrets.randbits(SEED_BITS)


__all__ = ["SEED_BITS", "draw_seed"]
