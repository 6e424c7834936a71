"""Cards of the 40-card Italian deck as small integers, their text forms, and the engine's errors.

A card is ``suit * 10 + (rank - 1)`` with the suits in the order denari, coppe, bastoni, spade
and ranks 1 (Asso) to 10 (Re), so ``7d`` is 6 and ``1s`` is 30.  This module holds the
notation (``parse_card``/``card_name``), the per-card tables the rest of the engine reads in its
hot loops, and the exception hierarchy.  It knows nothing of rules, variants or game state.
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int
"""A card: ``suit * 10 + rank - 1``, 0..39."""
Seat = int
"""A seat at the table, 0..players-1, in playing order."""
Side = int
"""A side: ``seat % 2`` in partnership games, the seat otherwise."""

SUITS = "dcbs"
"""Suit letters in card order: denari, coppe, bastoni, spade."""
SUIT_NAMES = ("denari", "coppe", "bastoni", "spade")
RANK_NAMES = (
    "Asso",
    "Due",
    "Tre",
    "Quattro",
    "Cinque",
    "Sei",
    "Sette",
    "Fante",
    "Cavallo",
    "Re",
)
SUIT_SYMBOLS = ("◆", "♥", "♣", "♠")
"""French-deck symbols for d, c, b, s (diamonds, hearts, clubs, spades) for terminals."""

DECK: tuple[Card, ...] = tuple(range(40))
"""The 40 cards in canonical order (denari 1..10, coppe, bastoni, spade)."""

RANK: tuple[int, ...] = tuple(c % 10 + 1 for c in DECK)
"""Rank 1..10 (= capture value) of each card."""
SUIT: tuple[int, ...] = tuple(c // 10 for c in DECK)
"""Suit 0..3 of each card."""
PRIMIERA_VALUE: tuple[int, ...] = (16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
"""Primiera value of ranks 1..10, indexed by ``rank - 1``."""

SETTEBELLO: Card = 6
RE_BELLO: Card = 9


class EngineError(ValueError):
    """Base of every error the engine raises for bad input."""


class CardError(EngineError):
    """A card (or list of cards) that cannot be parsed or is duplicated."""


class VariantError(EngineError):
    """An unknown variant, an unknown option, or a bad option value."""


class IllegalMoveError(EngineError):
    """A move that the rules do not allow in the current state."""


def rank_of(card: Card) -> int:
    """The rank 1..10 of a card.

    >>> rank_of(parse_card("10s"))
    10
    """
    return card % 10 + 1


def suit_of(card: Card) -> int:
    """The suit index 0..3 (d, c, b, s) of a card.

    >>> suit_of(parse_card("7b"))
    2
    """
    return card // 10


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` 1..10 and ``suit`` 0..3.

    >>> card_name(make_card(7, 0))
    '7d'
    """
    if not (1 <= rank <= 10 and 0 <= suit <= 3):
        raise CardError(f"no card of rank {rank!r} and suit {suit!r}")
    return suit * 10 + rank - 1


_NAMES: tuple[str, ...] = tuple(f"{c % 10 + 1}{SUITS[c // 10]}" for c in DECK)
_BY_NAME: dict[str, Card] = {name: card for card, name in enumerate(_NAMES)}


def card_name(card: Card) -> str:
    """The canonical text form of a card: rank number then suit letter.

    >>> card_name(6), card_name(39)
    ('7d', '10s')
    """
    if not (isinstance(card, int) and 0 <= card < 40):
        raise CardError(f"not a card: {card!r}")
    return _NAMES[card]


def parse_card(text: str) -> Card:
    """The card written as ``text`` (``"7d"``, ``"10s"``, case-insensitive).

    >>> parse_card("7d"), parse_card("1S")
    (6, 30)
    >>> parse_card("11d")
    Traceback (most recent call last):
    ...
    arena.engine.cards.CardError: not a card: '11d' (rank 1-10 then d, c, b or s, e.g. '7d')
    """
    if isinstance(text, str):
        card = _BY_NAME.get(text.strip().lower())
        if card is not None:
            return card
    raise CardError(f"not a card: {text!r} (rank 1-10 then d, c, b or s, e.g. '7d')")


def parse_cards(items: str | Iterable[str], *, unique: bool = True) -> list[Card]:
    """Cards from a list of names or a space/comma separated string; duplicates are an error.

    >>> [card_name(c) for c in parse_cards("3d 5c,5b 8s")]
    ['3d', '5c', '5b', '8s']
    >>> parse_cards(["7d", "7d"])
    Traceback (most recent call last):
    ...
    arena.engine.cards.CardError: card '7d' appears twice
    """
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    cards: list[Card] = []
    seen: set[Card] = set()
    for item in items:
        card = parse_card(item)
        if unique and card in seen:
            raise CardError(f"card {_NAMES[card]!r} appears twice")
        seen.add(card)
        cards.append(card)
    return cards


def italian_name(card: Card) -> str:
    """The Italian name of a card, as a person at the table says it.

    >>> italian_name(parse_card("7d")), italian_name(parse_card("10b"))
    ('Sette di denari', 'Re di bastoni')
    """
    card_name(card)  # validates
    return f"{RANK_NAMES[card % 10]} di {SUIT_NAMES[card // 10]}"


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as space-separated canonical names, in the order given.

    >>> cards_text([6, 39])
    '7d 10s'
    """
    return " ".join(_NAMES[c] for c in cards)


def mask_of(cards: Iterable[Card]) -> int:
    """The cards as a 40-bit set (bit ``card`` set for each card).

    >>> mask_of([0, 2])
    5
    """
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a 40-bit set, in canonical order.

    >>> cards_of(5)
    [0, 2]
    """
    out: list[Card] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
