"""The state of a deal and of a whole game: dealing, legal moves, apply and undo, game end.

:class:`Deal` is one deal from the first card played to the last, built from a shuffled deck
(:meth:`Deal.from_deck`) or explicit hands (:meth:`Deal.from_hands`); it generates the legal
moves (each capture choice its own :class:`Move`) and applies and undoes them in place, so
search never copies a state it can undo.  :class:`Game` deals from a seed, applies the redeal
rules, totals the deals and decides the winner with both tie rules and cappotto.  Scoring
itself lives in :mod:`arena.engine.scoring`, what a seat may see in
:mod:`arena.engine.observation` (built by :meth:`Deal.observation`; :meth:`Deal.determinize`
deals a view's unseen cards out again), moves and captures in :mod:`arena.engine.moves`; this
module does no I/O.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import itemgetter
from typing import Any

from arena.engine.cards import (
    DECK,
    Card,
    CardError,
    EngineError,
    IllegalMoveError,
    Seat,
    Side,
    card_name,
    cards_of,
)
from arena.engine.moves import LAY as _LAY
from arena.engine.moves import NAMES as _NAMES
from arena.engine.moves import POW5 as _POW5
from arena.engine.moves import RANK0 as _RANK0
from arena.engine.moves import SUM_MEMO as _SUM_MEMO
from arena.engine.moves import TAKE1 as _TAKE1
from arena.engine.moves import Move, captures
from arena.engine.moves import expand as _expand
from arena.engine.moves import lookup as _lookup
from arena.engine.moves import new_move as _new_move
from arena.engine.observation import Observation
from arena.engine.rng import Rng, Shuffler, derive_seed
from arena.engine.scoring import CATEGORIES, DealScore, score_masks
from arena.engine.variants import Rules


def _slice_cards(offset: int) -> tuple[tuple[Card, ...], ...]:
    """The cards of each 10-bit slice of a card set (bit ``i`` is card ``offset + i``)."""
    out: list[tuple[Card, ...]] = [()]
    for bits in range(1, 1024):
        low = bits & -bits
        out.append((offset + low.bit_length() - 1, *out[bits ^ low]))
    return tuple(out)


# A pile's cards, a suit (10 bits of its 40-bit set) at a time, for observations.
_SUIT0, _SUIT1, _SUIT2, _SUIT3 = (_slice_cards(10 * suit) for suit in range(4))
_FULL = (1 << 40) - 1


def _piles(masks: Iterable[int]) -> tuple[tuple[Card, ...], ...]:
    """The sorted cards of each 40-bit set."""
    return tuple(
        [
            _SUIT0[m & 1023] + _SUIT1[m >> 10 & 1023] + _SUIT2[m >> 20 & 1023] + _SUIT3[m >> 30]
            if 0 <= m <= _FULL
            else tuple(cards_of(m))
            for m in masks
        ]
    )


# The deal class for rules the compiled core plays (set by arena.engine.core), or None.
_FAST: Callable[[Rules], type[Deal] | None] | None = None


def set_fast_deal(choose: Callable[[Rules], type[Deal] | None] | None) -> None:
    """Makes ``choose(rules)`` pick the class of every Deal made from now on (None: the pure
    Deal).  :mod:`arena.engine.core` sets it to the compiled core's ``CoreDeal``."""
    global _FAST
    _FAST = choose


_SEAT_MOVE = itemgetter(0, 1)  # the (seat, move) of an undo entry
_chain = chain.from_iterable

# ---------------------------------------------------------------------------------------------
# Deal

_SCOPA = 1
_REFILL = 2
_LEFTOVER = 4
_PILE = 8


class Deal:
    """One deal: hands, table, stock, piles and scope, with legal moves, apply and undo.

    >>> from arena.engine.variants import rules_for
    >>> from arena.engine.cards import parse_cards
    >>> from arena.engine.moves import parse_move
    >>> deal = Deal.from_hands(rules_for("scopa"), dealer=1,
    ...     hands=[parse_cards("5c 10b 8s"), parse_cards("1c 2c 3c")],
    ...     table=parse_cards("3d 5b 5s 8d"))
    >>> [m.name for m in deal.legal_moves()]
    ['5c:5b', '5c:5s', '10b:5b+5s', '8s:8d']
    >>> deal.apply(parse_move("10b:5b+5s")); deal.to_move, deal.table
    (1, (2, 7))
    >>> deal.undo(); len(deal.table)
    4
    """

    __slots__ = (
        "_assi",
        "_by_rank",
        "_captured",
        "_general",
        "_hands",
        "_history_memo",
        "_last",
        "_last_play_scopa",
        "_n",
        "_next",
        "_prefix",
        "_scope",
        "_side",
        "_stock",
        "_stock_pos",
        "_tkey",
        "_to_move",
        "_undo",
        "deal_index",
        "dealer",
        "game_totals",
        "rules",
    )

    def __new__(cls, *args: Any, **kwargs: Any) -> Deal:
        # Where the compiled core is loaded and plays these rules (arena.engine.core), a Deal
        # made by any constructor is its CoreDeal: the same API on a state kept in C.
        if cls is Deal and _FAST is not None and args:
            fast = _FAST(args[0])
            if fast is not None:
                return object.__new__(fast)
        return object.__new__(cls)

    def __init__(
        self,
        rules: Rules,
        dealer: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card] = (),
    ) -> None:
        """A deal about to start; prefer :meth:`from_deck` or :meth:`from_hands`, which check."""
        self.rules = rules
        self.dealer = dealer
        self.deal_index = 0
        self.game_totals: tuple[int, ...] = (0,) * rules.num_sides
        self._n = rules.players
        self._side = tuple(rules.side_of(s) for s in range(rules.players))
        self._hands = [sorted(h) for h in hands]
        self._by_rank: list[list[Card]] = [[] for _ in range(10)]
        key = 0
        for c in table:
            insort(self._by_rank[c % 10], c)
            key += _POW5[c % 10]
        self._tkey = key
        self._stock = tuple(stock)
        self._stock_pos = 0
        self._captured = [0] * rules.num_sides
        self._scope = [0] * rules.num_sides
        self._last = -1
        self._to_move = (dealer + 1) % rules.players
        self._prefix: list[tuple[Seat, Move]] = []  # moves made before a restored state
        self._next = tuple((s + 1) % rules.players for s in range(rules.players))
        self._undo: list[tuple[Seat, Move, int, int, tuple[Card, ...]]] = []
        # The history last made into a tuple, and the undo entry of its last move (or None).
        self._history_memo: tuple[tuple[tuple[Seat, Move], ...], object] = ((), None)
        self._assi = rules.assi
        self._general = rules.assi or rules.quindici
        self._last_play_scopa = rules.last_play_scopa

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def from_deck(cls, rules: Rules, dealer: Seat, deck: Sequence[Card]) -> Deal:
        """The deal of a 40-card deck (top first) by the layout of ``rules``.

        >>> from arena.engine.variants import rules_for
        >>> deal = Deal.from_deck(rules_for("scopa"), 0, list(range(40)))
        >>> deal.hands[1], deal.table, len(deal.stock)
        ((0, 2, 4), (6, 7, 8, 9), 30)
        """
        _check_dealer(rules, dealer)
        deck = _check_deck(deck)
        n = rules.players
        order = [(dealer + 1 + i) % n for i in range(n)]
        hands: list[list[Card]] = [[] for _ in range(n)]
        table: list[Card] = []
        pos = 0
        if rules.layout == "scopa":
            for _ in range(3):
                for seat in order:
                    hands[seat].append(deck[pos])
                    pos += 1
            table = list(deck[pos : pos + 4])
            pos += 4
        else:
            packets = [3, 2, 3, 2, 3] if rules.layout == "scopone" else [5, 5]
            for i, size in enumerate(packets):
                if rules.layout == "scopone" and i % 2 == 1:
                    table.extend(deck[pos : pos + size])
                    pos += size
                    continue
                for seat in order:
                    hands[seat].extend(deck[pos : pos + size])
                    pos += size
        return cls(rules, dealer, hands, table, deck[pos:])

    @classmethod
    def from_hands(
        cls,
        rules: Rules,
        dealer: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card] = (),
    ) -> Deal:
        """A deal from explicit hands (one list per seat), table and stock (top first).

        The cards need not be all 40 (a position may leave some out), but none may repeat,
        every hand must have the same size, and a stock needs the ``scopa`` layout and a whole
        number of refills (3 cards per player each).
        """
        _check_dealer(rules, dealer)
        n = rules.players
        if len(hands) != n:
            raise EngineError(f"{rules.variant} has {n} seats, but {len(hands)} hands were given")
        seen: set[Card] = set()
        for group in [*hands, table, stock]:
            for c in group:
                card_name(c)
                if c in seen:
                    raise CardError(f"card {_NAMES[c]!r} appears twice")
                seen.add(c)
        sizes = {len(h) for h in hands}
        if len(sizes) != 1:
            raise EngineError(f"every hand must hold as many cards, not {[len(h) for h in hands]}")
        size = sizes.pop()
        if size > rules.hand_size:
            raise EngineError(f"hands of {size} cards, but {rules.layout} deals {rules.hand_size}")
        if stock:
            if rules.layout != "scopa":
                raise EngineError(f"the {rules.layout} layout has no stock")
            if len(stock) % (3 * n):
                raise EngineError(f"a stock of {len(stock)} cards is not whole refills of {3 * n}")
            if size == 0:
                raise EngineError("empty hands with cards in the stock: deal the stock first")
        return cls(rules, dealer, hands, table, stock)

    def clone(self) -> Deal:
        """An independent copy (undo history included)."""
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other._hands = [list(h) for h in self._hands]
        other._by_rank = [list(r) for r in self._by_rank]
        other._captured = list(self._captured)
        other._scope = list(self._scope)
        other._undo = list(self._undo)
        return other

    # -- read access ----------------------------------------------------------------------------

    @property
    def to_move(self) -> Seat:
        """The seat whose turn it is (after the deal is over: the seat after the dealer)."""
        return self._to_move

    @property
    def hands(self) -> tuple[tuple[Card, ...], ...]:
        """Each seat's hand, sorted."""
        return tuple(tuple(h) for h in self._hands)

    @property
    def table(self) -> tuple[Card, ...]:
        """The cards face up on the table, sorted."""
        return tuple(sorted(_chain(self._by_rank)))

    @property
    def stock(self) -> tuple[Card, ...]:
        """The cards still to be dealt (``scopa`` layout), top first."""
        return self._stock[self._stock_pos :]

    @property
    def history(self) -> list[tuple[Seat, Move]]:
        """Every ``(seat, move)`` of this deal so far, in order (a copy)."""
        return list(self._history_tuple())

    def _history_tuple(self) -> tuple[tuple[Seat, Move], ...]:
        """The history as a tuple: the one made last time, extended by the moves applied since
        when none of its moves has been undone (as between the turns of a deal), else anew."""
        known, mark = self._history_memo
        undo = self._undo
        done = len(known) - len(self._prefix)  # the undo entries ``known`` covers
        # An entry still at its place was never popped, nor any before it: ``known`` holds.
        if 0 < done <= len(undo) and undo[done - 1] is mark:
            if done == len(undo):
                return known
            known += tuple(map(_SEAT_MOVE, undo[done:]))
        else:
            known = (*self._prefix, *map(_SEAT_MOVE, undo))
        self._history_memo = (known, undo[-1] if undo else None)
        return known

    @property
    def captured(self) -> tuple[tuple[Card, ...], ...]:
        """The cards in each side's pile, sorted."""
        return _piles(self._captured)

    @property
    def captured_masks(self) -> tuple[int, ...]:
        """Each side's pile as a 40-bit set (bit ``card``)."""
        return tuple(self._captured)

    @property
    def scope(self) -> tuple[int, ...]:
        """Each side's scope (sweeps) so far in this deal."""
        return tuple(self._scope)

    @property
    def last_capturer(self) -> Seat | None:
        """The seat that captured last, or None before any capture."""
        return None if self._last < 0 else self._last

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """How many cards each seat holds."""
        return tuple(map(len, self._hands))

    def is_over(self) -> bool:
        """Whether every card of the deal has been played."""
        return not self._hands[self._to_move]

    def state_key(self) -> tuple[Any, ...]:
        """Everything that defines the position, as one comparable value (for tests and caches)."""
        return (
            self.dealer,
            self._to_move,
            self.hands,
            self.table,
            self.stock,
            tuple(self._captured),
            tuple(self._scope),
            self._last,
            tuple(self.history),
        )

    # -- moves ----------------------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move: by card in hand, then by capture.

        Empty when the deal is over.
        """
        hand = self._hands[self._to_move]
        if self._general:
            return self._legal_general(hand)
        by_rank = self._by_rank
        base = self._tkey * 16
        memo = _SUM_MEMO
        out: list[Move] = []
        sums: dict[int, list[tuple[Card, ...]]] | None = None  # per rank, for pairs in hand
        for card in hand:
            r = _RANK0[card]
            same = by_rank[r]
            if same:
                for c in same:
                    out.append(_TAKE1[card * 40 + c])
                continue
            patterns = memo.get(base + r + 1)
            if patterns is None:
                patterns = _lookup(memo, self._tkey, r + 1, 2)
            if not patterns:
                out.append(_LAY[card])
                continue
            if sums is None:
                sums = {}
            caps = sums.get(r)
            if caps is None:
                caps = sums[r] = _expand(patterns, by_rank)
            for cap in caps:
                out.append(_new_move(Move, (card, cap)))
        return out

    def _legal_general(self, hand: list[Card]) -> list[Move]:
        """Legal moves under assi or quindici, the captures computed once per rank."""
        out: list[Move] = []
        by_rank: dict[int, list[tuple[Card, ...]]] = {}
        for card in hand:
            caps = by_rank.get(card % 10)
            if caps is None:
                caps = by_rank[card % 10] = self._captures_for(card)
            for cap in caps:
                if not cap:
                    out.append(_LAY[card])
                elif len(cap) == 1:
                    out.append(_TAKE1[card * 40 + cap[0]])
                else:
                    out.append(_new_move(Move, (card, cap)))
        return out

    def captures_for(self, card: Card) -> list[tuple[Card, ...]]:
        """The captures ``card`` allows now (``[()]`` when it can only be laid down)."""
        return self._captures_for(card)

    def _captures_for(self, card: Card) -> list[tuple[Card, ...]]:
        return captures(self.rules, card, self._by_rank, self._tkey)

    def apply(self, move: Move | tuple[Card, Iterable[Card]]) -> None:
        """Plays ``move`` for the seat to move; raises :class:`IllegalMoveError` if not legal."""
        if not isinstance(move, Move):
            try:
                card, capture = move
                move = Move(card, capture)
            except (TypeError, ValueError):
                raise IllegalMoveError(f"not a move: {move!r}") from None
        seat = self._to_move
        if not self._hands[seat]:
            raise IllegalMoveError(f"{move.name}: the deal is over")
        card, cap = move
        if card not in self._hands[seat]:
            raise IllegalMoveError(f"{move.name}: seat {seat} does not hold {_NAMES[card]}")
        allowed = self._captures_for(card)
        if cap not in allowed:
            choices = ", ".join(
                _new_move(Move, (card, a)).name if a else f"{_NAMES[card]} (laid down)"
                for a in allowed
            )
            raise IllegalMoveError(
                f"{move.name} is not legal here; with {_NAMES[card]} seat {seat} may play {choices}"
            )
        self.apply_unchecked(move)

    def apply_unchecked(self, move: Move) -> None:
        """Plays a move known to be legal (from :meth:`legal_moves`), without checking it."""
        seat = self._to_move
        card, cap = move
        hand = self._hands[seat]
        hand.remove(card)
        flags = 0
        prev_last = self._last
        by_rank = self._by_rank
        if cap:
            side = self._side[seat]
            key = self._tkey
            mask = 1 << card
            for c in cap:
                r = c % 10
                by_rank[r].remove(c)
                key -= _POW5[r]
                mask |= 1 << c
            self._tkey = key
            self._captured[side] |= mask
            self._last = seat
            if key == 0:
                flags = self._sweep(seat, side, card, cap, hand)
        elif (
            self._assi
            and card % 10 == 0
            and self._tkey == 0
            and (self.rules.assi_empty_table == "pile")
        ):
            self._captured[self._side[seat]] |= 1 << card
            flags = _PILE
        else:
            insort(by_rank[card % 10], card)
            self._tkey += _POW5[card % 10]
        self._to_move = self._next[seat]
        if hand or seat != self.dealer:
            self._undo.append((seat, move, prev_last, flags, ()))
            return
        # The dealer played the last card of the round: refill the hands, or end the deal.
        leftover: tuple[Card, ...] = ()
        pos = self._stock_pos
        stock = self._stock
        if pos < len(stock):
            n = self._n
            hands = self._hands
            first = self._to_move
            for i in range(3 * n):
                hands[(first + i) % n].append(stock[pos + i])
            for h in hands:
                h.sort()
            self._stock_pos = pos + 3 * n
            flags |= _REFILL
        elif self._tkey and self._last >= 0:
            leftover = tuple(c for cards in by_rank for c in cards)
            mask = 0
            for c in leftover:
                mask |= 1 << c
            self._captured[self._side[self._last]] |= mask
            for cards in by_rank:
                cards.clear()
            self._tkey = 0
            flags |= _LEFTOVER
        self._undo.append((seat, move, prev_last, flags, leftover))

    def _sweep(
        self, seat: Seat, side: Side, card: Card, cap: tuple[Card, ...], hand: list[Card]
    ) -> int:
        """Whether a capture that emptied the table scores a scopa (then counts it)."""
        scopa = True
        if not hand and seat == self.dealer and self._stock_pos >= len(self._stock):
            scopa = self._last_play_scopa  # the last play of the deal
        if (
            scopa
            and self._assi
            and card % 10 == 0
            and not (len(cap) == 1 and cap[0] % 10 == 0 and self.rules.assi_ace_takes_ace)
        ):
            scopa = self.rules.assi_sweep_is_scopa  # an ace sweep
        if not scopa:
            return 0
        self._scope[side] += 1
        return _SCOPA

    def undo(self) -> None:
        """Takes back the last move applied (raises :class:`EngineError` if there is none)."""
        if not self._undo:
            raise EngineError("there is no move to undo")
        seat, move, prev_last, flags, leftover = self._undo.pop()
        card, cap = move
        side = self._side[seat]
        by_rank = self._by_rank
        if flags & _REFILL:
            for h in self._hands:
                h.clear()
            self._stock_pos -= 3 * self._n
        if flags & _LEFTOVER:
            mask = 0
            for c in leftover:
                by_rank[c % 10].append(c)
                self._tkey += _POW5[c % 10]
                mask |= 1 << c
            self._captured[self._side[self._last]] ^= mask
        if flags & _SCOPA:
            self._scope[side] -= 1
        if cap:
            mask = 1 << card
            for c in cap:
                insort(by_rank[c % 10], c)
                self._tkey += _POW5[c % 10]
                mask |= 1 << c
            self._captured[side] ^= mask
        elif flags & _PILE:
            self._captured[side] ^= 1 << card
        else:
            by_rank[card % 10].remove(card)
            self._tkey -= _POW5[card % 10]
        self._last = prev_last
        insort(self._hands[seat], card)
        self._to_move = seat

    # -- results --------------------------------------------------------------------------------

    def score(self) -> DealScore:
        """The points of the finished deal; raises :class:`EngineError` before the end."""
        if not self.is_over():
            raise EngineError("the deal is not over yet")
        return score_masks(self.rules, self._captured, self._scope)

    def observation(self, seat: Seat) -> Observation:
        """What ``seat`` may see now (RULES.md, last section)."""
        if not 0 <= seat < self._n:
            raise EngineError(f"no seat {seat!r} in a {self._n}-player game")
        return Observation(
            rules=self.rules,
            seat=seat,
            to_move=self._to_move,
            dealer=self.dealer,
            hand=tuple(self._hands[seat]),
            table=tuple(sorted(_chain(self._by_rank))),
            hand_sizes=tuple(map(len, self._hands)),
            stock_size=len(self._stock) - self._stock_pos,
            history=self._history_tuple(),
            captured=_piles(self._captured),
            scope=tuple(self._scope),
            totals=tuple(self.game_totals),
            deal_index=self.deal_index,
        )

    @classmethod
    def restore(
        cls,
        rules: Rules,
        dealer: Seat,
        to_move: Seat,
        hands: Sequence[Sequence[Card]],
        table: Sequence[Card],
        stock: Sequence[Card],
        captured: Sequence[Iterable[Card]],
        scope: Sequence[int],
        history: Sequence[tuple[Seat, Move]],
    ) -> Deal:
        """A deal in the middle of play (for determinization); it cannot undo past this point."""
        deal = cls(rules, dealer, hands, table, stock)
        deal._set_position(
            to_move, [sum(1 << c for c in pile) for pile in captured], scope, history
        )
        return deal

    def _set_position(
        self,
        to_move: Seat,
        captured: Sequence[int],
        scope: Sequence[int],
        history: Sequence[tuple[Seat, Move]],
    ) -> None:
        """Puts a deal just made in the middle of play (:meth:`restore`)."""
        self._to_move = to_move
        self._captured = list(captured)
        self._scope = list(scope)
        self._prefix = list(history)
        for seat, move in reversed(history):
            if move[1]:
                self._last = seat
                break

    @classmethod
    def determinize(cls, obs: Observation, rng: Shuffler) -> Deal:
        """A full deal consistent with a seat's view: the unseen cards dealt out at random.

        Other seats get hands of their real sizes and the stock its real size; the seat's
        hand, the table, the piles, scope and history are as observed.  ``rng`` is an
        :class:`arena.engine.rng.Rng` or a :class:`random.Random`.  The deal plays on from
        here but cannot undo moves made before it.

        >>> from arena.engine.variants import rules_for
        >>> game = Game(rules_for("scopone"), seed=3)
        >>> deal = game.new_deal()
        >>> obs = deal.observation(0)
        >>> sample = Deal.determinize(obs, Rng(1))
        >>> sample.hands[0] == deal.hands[0] and sample.table == deal.table
        True
        """
        unseen = sorted(obs.unseen_cards())
        needed = sum(n for s, n in enumerate(obs.hand_sizes) if s != obs.seat) + obs.stock_size
        if needed > len(unseen):
            raise EngineError(f"the view needs {needed} unseen cards but only {len(unseen)} exist")
        rng.shuffle(unseen)
        hands: list[list[Card]] = []
        pos = 0
        for s, size in enumerate(obs.hand_sizes):
            if s == obs.seat:
                hands.append(list(obs.hand))
            else:
                hands.append(unseen[pos : pos + size])
                pos += size
        stock = unseen[pos : pos + obs.stock_size]
        deal = cls.restore(
            obs.rules,
            obs.dealer,
            obs.to_move,
            hands,
            obs.table,
            stock,
            obs.captured,
            obs.scope,
            obs.history,
        )
        deal.deal_index = obs.deal_index
        deal.game_totals = obs.totals
        return deal

    def __repr__(self) -> str:
        return (
            f"<Deal {self.rules.variant} dealer={self.dealer} to_move={self._to_move} "
            f"played={len(self._prefix) + len(self._undo)}>"
        )


def _check_dealer(rules: Rules, dealer: Seat) -> None:
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < rules.players:
        raise EngineError(f"dealer must be a seat 0..{rules.players - 1}, not {dealer!r}")


_DECK_SET = frozenset(DECK)


def _check_deck(deck: Sequence[Card]) -> list[Card]:
    cards = list(deck)
    if len(cards) == 40 and _DECK_SET.issuperset(cards) and len(set(cards)) == 40:
        return cards
    seen: set[Card] = set()
    for c in cards:
        card_name(c)
        if c in seen:
            raise CardError(f"card {_NAMES[c]!r} appears twice in the deck")
        seen.add(c)
    if len(cards) != 40:
        missing = " ".join(_NAMES[c] for c in DECK if c not in seen)
        raise CardError(f"a deck has 40 cards, not {len(cards)} (missing: {missing})")
    return cards


def needs_redeal(rules: Rules, table: Iterable[Card]) -> str | None:
    """Why a starting table must be thrown in (three or more Re; an ace under assi), or None.

    >>> from arena.engine.variants import rules_for
    >>> from arena.engine.cards import parse_cards
    >>> needs_redeal(rules_for("scopa"), parse_cards("10d 10c 10s 4b"))
    'three or more Re on the starting table'
    """
    ranks = [c % 10 + 1 for c in table]
    if rules.redeal_kings and ranks.count(10) >= 3:
        return "three or more Re on the starting table"
    if rules.assi and rules.assi_redeal_on_ace and 1 in ranks:
        return "an ace on the starting table"
    return None


# ---------------------------------------------------------------------------------------------
# Game

_DEALER_STREAM = 0x0DEA1E
_DECK_STREAM = 0x0DEC4


class Game:
    """A whole game: deals from a seed until a side reaches the target (RULES.md, "A game").

    >>> from arena.engine.variants import rules_for
    >>> import random
    >>> game = Game(rules_for("scopa"), seed=7)
    >>> pick = random.Random(0)
    >>> while not game.is_over():
    ...     deal = game.new_deal()
    ...     while not deal.is_over():
    ...         deal.apply_unchecked(pick.choice(deal.legal_moves()))
    ...     _ = game.finish_deal(deal)
    >>> max(game.totals) >= 11 and game.winner in (0, 1)
    True
    """

    def __init__(self, rules: Rules, seed: int) -> None:
        """A game of ``rules`` whose dealer and decks all follow from ``seed``."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise EngineError(f"a seed is an integer, not {seed!r}")
        self.rules = rules
        self.seed = seed
        self.dealer: Seat = Game.first_dealer(rules, seed)
        self.deal_index = 0
        self.totals: list[int] = [0] * rules.num_sides
        self.scores: list[DealScore] = []
        self.winner: Side | None = None
        self.cappotto: Side | None = None
        self.current_deck: list[Card] | None = None
        self.thrown_in: list[list[Card]] = []

    @staticmethod
    def first_dealer(rules: Rules, seed: int) -> Seat:
        """The first dealer of a game of this seed, drawn from it."""
        return Rng(derive_seed(seed, _DEALER_STREAM)).randbelow(rules.players)

    @staticmethod
    def deck_for(seed: int, deal_index: int, attempt: int = 0) -> list[Card]:
        """The shuffled deck (top first) of a deal; ``attempt`` counts redeals of that deal.

        The same seed gives the same decks in every game, on every Python version.

        >>> from arena.engine.cards import cards_text
        >>> cards_text(Game.deck_for(1, 0)[:6])
        '7s 9d 9s 7b 1c 9b'
        """
        deck = list(DECK)
        Rng(derive_seed(seed, _DECK_STREAM, deal_index, attempt)).shuffle(deck)
        return deck

    def is_over(self) -> bool:
        """Whether the game has a winner."""
        return self.winner is not None

    def new_deal(self) -> Deal:
        """Deals the next deal from the seed, throwing in decks the redeal rules reject."""
        if self.is_over():
            raise EngineError("the game is over")
        self.thrown_in = []
        attempt = 0
        while True:
            deck = Game.deck_for(self.seed, self.deal_index, attempt)
            deal = Deal.from_deck(self.rules, self.dealer, deck)
            if needs_redeal(self.rules, deal.table) is None:
                break
            self.thrown_in.append(deck)
            attempt += 1
        self.current_deck = deck
        return self.prepare(deal)

    def prepare(self, deal: Deal) -> Deal:
        """Stamps a deal with this game's deal index and totals (what observations show)."""
        deal.deal_index = self.deal_index
        deal.game_totals = tuple(self.totals)
        return deal

    def finish_deal(self, deal: Deal) -> DealScore:
        """Scores a finished deal, adds it to the totals, decides the game, passes the deal."""
        if self.is_over():
            raise EngineError("the game is over")
        if deal.dealer != self.dealer:
            raise EngineError(f"seat {deal.dealer} dealt, but it is seat {self.dealer}'s deal")
        score = deal.score()
        before = list(self.totals)
        for side, points in enumerate(score.totals):
            self.totals[side] += points
        self.scores.append(score)
        self.deal_index += 1
        self.dealer = (self.dealer + 1) % self.rules.players
        if score.cappotto is not None:
            self.winner = self.cappotto = score.cappotto
            return score
        best = max(self.totals)
        if best < self.rules.target:
            return score
        leaders = [s for s, t in enumerate(self.totals) if t == best]
        if len(leaders) == 1:
            self.winner = leaders[0]
        elif self.rules.tie_rule == "count_out":
            self.winner = _count_out(self.rules.target, before, score, leaders)
        return score


def _count_out(
    target: int, before: list[int], score: DealScore, leaders: list[Side]
) -> Side | None:
    """The tied leader that reaches the target first, adding category by category, or None."""
    running = list(before)
    for category in CATEGORIES:
        for side in leaders:
            running[side] += score.points[side][category]
        reached = [side for side in leaders if running[side] >= target]
        if len(reached) == 1:
            return reached[0]
        if reached:
            return None  # reached together: not separated, play on
    return None
