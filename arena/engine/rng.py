"""A small seeded random number generator that gives the same numbers on every Python version.

The engine deals with SplitMix64 and an unbiased Fisher-Yates shuffle written here, not with
:mod:`random`, whose algorithms may change between Python releases: a game's seed must give the
same cards forever, so a replay, a duplicate set or a pinned test deal never drifts.  This
module is not a cryptographic generator and is not meant for anything but dealing.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any, Protocol, TypeVar

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15

T = TypeVar("T")


class Shuffler(Protocol):
    """Anything that shuffles a list in place: :class:`Rng` or a :class:`random.Random`."""

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        """Shuffles ``x`` in place."""


def mix64(value: int) -> int:
    """The SplitMix64 finaliser: a 64-bit to 64-bit bijection that scrambles its input.

    >>> mix64(0)
    0
    >>> hex(mix64(1))
    '0x5692161d100b05e5'
    """
    z = value & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def derive_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed derived from ``seed`` and a path of integers (deal index, attempt, ...).

    Different paths give unrelated streams, so deal 3 of a game does not depend on how many
    random numbers deal 2 used.

    >>> derive_seed(42, 1, 0) == derive_seed(42, 1, 0) != derive_seed(42, 0, 1)
    True
    """
    h = mix64((seed & _MASK) ^ _GOLDEN)
    for part in parts:
        h = mix64(h ^ mix64((part & _MASK) + _GOLDEN))
    return h


class Rng:
    """SplitMix64: a 64-bit state advanced by a constant and scrambled by :func:`mix64`.

    >>> hex(Rng(0).next_u64())  # the reference first output of SplitMix64 seeded with 0
    '0xe220a8397b1dcdaf'
    >>> rng = Rng(7)
    >>> [rng.randbelow(10) for _ in range(5)]
    [3, 0, 9, 5, 4]
    >>> deck = list(range(10)); Rng(1).shuffle(deck); deck
    [0, 2, 1, 7, 4, 6, 8, 3, 9, 5]
    """

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``range(n)``, exactly unbiased (Lemire's method with rejection)."""
        if n <= 0:
            raise ValueError(f"randbelow needs a positive bound, got {n!r}")
        m = self.next_u64() * n
        low = m & _MASK
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next_u64() * n
                low = m & _MASK
        return m >> 64

    def randrange(self, start: int, stop: int | None = None) -> int:
        """A uniform integer in ``range(start, stop)`` (or ``range(start)``)."""
        if stop is None:
            return self.randbelow(start)
        return start + self.randbelow(stop - start)

    def choice(self, items: MutableSequence[T]) -> T:
        """A uniformly chosen item of a non-empty sequence."""
        return items[self.randbelow(len(items))]

    def shuffle(self, x: MutableSequence[Any], /) -> None:
        """Shuffles ``x`` in place: Fisher-Yates from the end, every order equally likely.

        Each 64-bit output gives two 32-bit draws, each turned into an index by Lemire's
        multiply-and-shift with rejection, so the shuffle is exactly uniform.
        """
        spare = 0
        have = False
        for i in range(len(x) - 1, 0, -1):
            n = i + 1
            while True:
                if have:
                    word = spare
                    have = False
                else:
                    z = self.next_u64()
                    word = z & 0xFFFFFFFF
                    spare = z >> 32
                    have = True
                m = word * n
                if (m & 0xFFFFFFFF) >= (0x100000000 - n) % n:
                    break
            j = m >> 32
            x[i], x[j] = x[j], x[i]
