"""A Scopa Arena bot: the program the arena starts for each seat it plays (bot.toml's command).

The SDK (``arena.sdk``) speaks the arena's gRPC protocol, so all a bot writes is ``choose``.
Try it from this folder:

    arena bot check .        # the protocol's compliance checks
    arena match . random     # a match against the random bot, with a table of the results
    python -m unittest       # the tests in test_bot.py
    arena bot submit .       # upload it to the site (after `arena login`)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from arena.engine import Move, Observation, parse_card, rank_of, suit_of
from arena.manifest import read_manifest
from arena.sdk import Bot, serve

MANIFEST = read_manifest(Path(__file__).resolve().parent)  # bot.toml: one place for the name
SETTEBELLO = parse_card("7d")  # cards are ints; card_name(card) gives back "7d"
COINS = 0  # suit_of(card): denari (coins) 0, coppe 1, bastoni 2, spade 3


class MyBot(Bot):
    """Takes what is worth most (a sweep, the settebello, sevens, coins, then the most cards);
    with nothing to take, lays down its least useful card."""

    name = MANIFEST.name
    version = MANIFEST.version
    author = MANIFEST.author
    variants = MANIFEST.variants

    def choose(self, observation: Observation, legal_moves: Sequence[Move]) -> Move:
        """Returns one of ``legal_moves`` (never empty): this is the bot.

        ``observation`` is what this seat may see now, and nothing more:
        ``observation.hand`` (its cards), ``.table``, ``.history`` (every ``(seat, move)`` of
        this deal so far), ``.captured`` and ``.scope`` (by side, this deal), ``.totals`` (game
        points before this deal, by side), ``.hand_sizes``, ``.stock_size`` and ``.rules``.
        A move plays ``move.card`` from the hand and takes the table cards ``move.capture``
        (empty: the card is laid on the table). ``self.clock.move_ms`` is the time allowed.
        """
        table = set(observation.table)
        captures = [move for move in legal_moves if move.capture]
        if captures:
            return max(captures, key=lambda move: self.worth(move, table))
        # Nothing to take: keep the settebello, sevens and coins; lay down a plain card, the
        # highest (figures count least in the primiera).
        return max(
            legal_moves,
            key=lambda move: (
                move.card != SETTEBELLO,
                rank_of(move.card) != 7,
                suit_of(move.card) != COINS,
                rank_of(move.card),
            ),
        )

    def worth(self, move: Move, table: set[int]) -> tuple[int, ...]:
        """How good a capture is, compared item by item (a tuple: the first difference wins)."""
        taken = (move.card, *move.capture)
        return (
            int(set(move.capture) == table),  # a scopa: the table swept clean
            int(SETTEBELLO in taken),
            sum(rank_of(card) == 7 for card in taken),  # sevens win the primiera
            sum(suit_of(card) == COINS for card in taken),
            len(taken),
        )


if __name__ == "__main__":
    serve(MyBot())  # binds $SCOPA_BOT_ADDRESS, prints "LISTENING <address>", serves until stopped
