# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False, nonecheck=False
"""The engine's compiled core: a deal's state as bit sets, in C, for search and training.

Cards are bits of a 64-bit word (bit ``card``), hands, table and piles are such sets, and the
captures a card allows are the table's subsets of a given sum, walked in card order so they come
out sorted (the pure engine's order).  Dealing uses the same SplitMix64 and Fisher-Yates as
:mod:`arena.engine.rng`, so a seed gives the same cards.  :class:`CoreDeal` is a
:class:`arena.engine.state.Deal` whose state lives here; :class:`CoreState` and the module's
functions give search and training loops the state without Python objects per move.  Built by
``scripts/setup`` (Cython and the machine's C compiler); :mod:`arena.engine.core` loads it.
"""

from libc.stdint cimport uint64_t, uint32_t, int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset

from arena.engine.cards import EngineError, IllegalMoveError
from arena.engine.moves import LAY, NAMES, TAKE1, Move
from arena.engine.observation import Observation
from arena.engine.scoring import POINT_KEYS, DealScore
from arena.engine.state import Deal

cdef extern from *:
    """
    typedef unsigned __int128 arena_u128;
    static inline uint64_t arena_mul128(uint64_t a, uint64_t b, uint64_t *lo) {
        arena_u128 m = (arena_u128)a * b; *lo = (uint64_t)m; return (uint64_t)(m >> 64);
    }
    static inline int arena_popcount(uint64_t x) { return __builtin_popcountll(x); }
    static inline int arena_ctz(uint64_t x) { return __builtin_ctzll(x); }
    """
    uint64_t arena_mul128(uint64_t a, uint64_t b, uint64_t *lo) nogil
    int arena_popcount(uint64_t x) nogil
    int arena_ctz(uint64_t x) nogil

cdef enum:
    F_SCOPA = 1
    F_REFILL = 2
    F_LEFTOVER = 4
    F_PILE = 8
    NCAT = 9  # carte denari settebello primiera scope re_bello napoli sette_tutti total
    DECK_STREAM = 0x0DEC4
    DEALER_STREAM = 0x0DEA1E

cdef uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL

cdef uint64_t MASK64 = 0xFFFFFFFFFFFFFFFF
cdef uint64_t ACES = (1ULL << 0) | (1ULL << 10) | (1ULL << 20) | (1ULL << 30)
cdef uint64_t SEVENS = (1ULL << 6) | (1ULL << 16) | (1ULL << 26) | (1ULL << 36)
cdef uint64_t RANK_MASK[10]
cdef int PRIMIERA[10]
cdef int BEST_PRIMIERA[1024]
cdef int RUN_FROM_ACE[1024]
cdef int COUNT_ORDER[7]


cdef void _init_tables():
    cdef int r, s, bits, best, run
    cdef int prim[10]
    prim[:] = [16, 12, 13, 14, 15, 18, 21, 10, 10, 10]
    COUNT_ORDER[:] = [6, 5, 0, 4, 3, 2, 1]
    for r in range(10):
        PRIMIERA[r] = prim[r]
        RANK_MASK[r] = 0
        for s in range(4):
            RANK_MASK[r] |= 1ULL << (s * 10 + r)
    for bits in range(1024):
        best = 0
        for r in range(10):
            if bits >> r & 1 and prim[r] > best:
                best = prim[r]
        BEST_PRIMIERA[bits] = best
        run = 0
        while run < 10 and bits >> run & 1:
            run += 1
        RUN_FROM_ACE[bits] = run


_init_tables()


# -- the random number generator (arena.engine.rng, bit for bit) ---------------------------------

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t rng_next(uint64_t *state) noexcept nogil:
    state[0] = state[0] + GOLDEN
    return mix64(state[0])


cdef inline uint64_t rng_below(uint64_t *state, uint64_t n) noexcept nogil:
    cdef uint64_t low
    cdef uint64_t high = arena_mul128(rng_next(state), n, &low)
    cdef uint64_t threshold
    if low < n:
        threshold = (0 - n) % n
        while low < threshold:
            high = arena_mul128(rng_next(state), n, &low)
    return high


cdef void rng_shuffle(int *x, int n, uint64_t *state) noexcept nogil:
    cdef uint64_t spare = 0, z, word, m, nn
    cdef int have = 0, i, j, t
    for i in range(n - 1, 0, -1):
        nn = i + 1
        while True:
            if have:
                word = spare
                have = 0
            else:
                z = rng_next(state)
                word = z & 0xFFFFFFFFULL
                spare = z >> 32
                have = 1
            m = word * nn
            if (m & 0xFFFFFFFFULL) >= (0x100000000ULL - nn) % nn:
                break
        j = <int>(m >> 32)
        t = x[i]
        x[i] = x[j]
        x[j] = t


cdef inline uint64_t derive_step(uint64_t h, uint64_t part) noexcept nogil:
    return mix64(h ^ mix64(part + GOLDEN))


cdef void deck_for(uint64_t seed, uint64_t deal_index, uint64_t attempt, int *deck) noexcept nogil:
    cdef uint64_t h = mix64(seed ^ GOLDEN)
    cdef int i
    h = derive_step(h, DECK_STREAM)
    h = derive_step(h, deal_index)
    h = derive_step(h, attempt)
    for i in range(40):
        deck[i] = i
    rng_shuffle(deck, 40, &h)


cdef int first_dealer(uint64_t seed, int players) noexcept nogil:
    cdef uint64_t h = derive_step(mix64(seed ^ GOLDEN), DEALER_STREAM)
    return <int>rng_below(&h, <uint64_t>players)


# -- rules and state -----------------------------------------------------------------------------

cdef struct Opts:
    int players
    int nsides
    int layout  # 0 scopa, 1 scopone, 2 scientifico
    int assi
    int ace_takes_ace
    int assi_sweep_scopa
    int assi_pile
    int assi_redeal_on_ace
    int quindici
    int general
    int last_play_scopa
    int redeal_kings
    int re_bello
    int napoli
    int sette_tutti
    int cappotto
    int primiera_count
    int missing  # 0 loses, 1 void, 2 zero

cdef struct Undo:
    int seat
    int card
    int prev_last
    int flags
    uint64_t cap
    uint64_t leftover

cdef struct St:
    uint64_t hands[4]
    uint64_t table
    uint64_t captured[4]
    int scope[4]
    int stock[40]
    int stock_len
    int stock_pos
    int dealer
    int to_move
    int last
    int nundo
    Undo undo[40]


_LAYOUTS = {"scopa": 0, "scopone": 1, "scientifico": 2}
_MISSING = {"loses": 0, "void": 1, "zero": 2}
_METHODS = {"sum": 0, "count": 1}
_EMPTY = {"stay": 0, "pile": 1}
_TIES = ("play_on", "count_out")


def unsupported(rules):
    """Why the core cannot play ``rules`` (a value it does not know), or None when it can."""
    if rules.layout not in _LAYOUTS:
        return f"layout {rules.layout!r}"
    if not (2 <= rules.players <= 4) or rules.num_sides > 4:
        return f"{rules.players} players"
    if rules.primiera_missing_suit not in _MISSING:
        return f"primiera_missing_suit {rules.primiera_missing_suit!r}"
    if rules.primiera_method not in _METHODS:
        return f"primiera_method {rules.primiera_method!r}"
    if rules.assi_empty_table not in _EMPTY:
        return f"assi_empty_table {rules.assi_empty_table!r}"
    if rules.tie_rule not in _TIES:
        return f"tie_rule {rules.tie_rule!r}"
    if rules.layout == "scopa" and 3 * rules.players > 36:
        return "too many players"
    return None


cdef int opts_from(Opts *o, rules) except -1:
    why = unsupported(rules)
    if why is not None:
        raise EngineError(f"the compiled core does not play {why}")
    o.players = rules.players
    o.nsides = rules.num_sides
    o.layout = _LAYOUTS[rules.layout]
    o.assi = bool(rules.assi)
    o.ace_takes_ace = bool(rules.assi_ace_takes_ace)
    o.assi_sweep_scopa = bool(rules.assi_sweep_is_scopa)
    o.assi_pile = _EMPTY[rules.assi_empty_table]
    o.assi_redeal_on_ace = bool(rules.assi_redeal_on_ace)
    o.quindici = bool(rules.quindici)
    o.general = o.assi or o.quindici
    o.last_play_scopa = bool(rules.last_play_scopa)
    o.redeal_kings = bool(rules.redeal_kings)
    o.re_bello = bool(rules.re_bello)
    o.napoli = bool(rules.napoli)
    o.sette_tutti = bool(rules.sette_tutti)
    o.cappotto = bool(rules.cappotto)
    o.primiera_count = _METHODS[rules.primiera_method]
    o.missing = _MISSING[rules.primiera_missing_suit]
    return 0


cdef inline int side_of(const Opts *o, int seat) noexcept nogil:
    return seat % o.nsides


# -- captures and legal moves ------------------------------------------------------------------

cdef void _walk(const int *cards, const int *tail, int n, int start, int remaining,
                uint64_t chosen, int size, int min_size, uint64_t *out, int *count,
                int cap) noexcept nogil:
    # Pre-order over the table's cards in card order: the sets come out sorted as tuples.
    cdef int i, v
    cdef uint64_t m
    for i in range(start, n):
        if tail[i] < remaining:
            return  # the cards left cannot make the sum
        v = cards[i] % 10 + 1
        if v > remaining:
            continue
        m = chosen | (1ULL << cards[i])
        if v == remaining:
            if size + 1 >= min_size:
                if count[0] < cap:
                    out[count[0]] = m
                count[0] += 1
        else:
            _walk(cards, tail, n, i + 1, remaining - v, m, size + 1, min_size, out, count, cap)


cdef int sum_captures(uint64_t table, int target, int min_size, uint64_t *out,
                      int cap) noexcept nogil:
    cdef int cards[40]
    cdef int tail[41]
    cdef int n = 0, i, count = 0
    cdef uint64_t t = table
    while t:
        cards[n] = arena_ctz(t)
        n += 1
        t &= t - 1
    tail[n] = 0
    for i in range(n - 1, -1, -1):
        tail[i] = tail[i + 1] + cards[i] % 10 + 1
    _walk(cards, tail, n, 0, target, 0, 0, min_size, out, &count, cap)
    return count


cdef int captures_of(const Opts *o, uint64_t table, int r0, uint64_t *out,
                     int cap) noexcept nogil:
    """The captures a card of rank index ``r0`` allows (0 = laid down); how many (may exceed
    ``cap``, then only ``cap`` were written)."""
    cdef uint64_t same, aces
    cdef int n
    if o.assi and r0 == 0:
        if table == 0:
            if cap > 0:
                out[0] = 0
            return 1
        aces = table & ACES
        if aces and o.ace_takes_ace:
            n = 0
            while aces:
                if n < cap:
                    out[n] = aces & (0 - aces)
                n += 1
                aces &= aces - 1
            return n
        if cap > 0:
            out[0] = table
        return 1
    if o.quindici:
        n = sum_captures(table, 14 - r0, 1, out, cap)
    else:
        same = table & RANK_MASK[r0]
        if same:
            n = 0
            while same:
                if n < cap:
                    out[n] = same & (0 - same)
                n += 1
                same &= same - 1
            return n
        n = sum_captures(table, r0 + 1, 2, out, cap)
    if n == 0:
        if cap > 0:
            out[0] = 0
        return 1
    return n


# A growable scratch buffer of moves (card, capture set), shared by every state.
cdef int *g_card = NULL
cdef uint64_t *g_cap = NULL
cdef int g_size = 0


cdef int _grow(int need) except -1:
    global g_card, g_cap, g_size
    cdef int size = g_size if g_size else 256
    while size < need:
        size *= 2
    if size == g_size:
        return 0
    cdef int *cards = <int *>realloc(g_card, size * sizeof(int))
    if cards == NULL:
        raise MemoryError()
    g_card = cards
    cdef uint64_t *caps = <uint64_t *>realloc(g_cap, size * sizeof(uint64_t))
    if caps == NULL:
        raise MemoryError()
    g_cap = caps
    g_size = size
    return 0


_grow(256)


cdef int gen_moves(const Opts *o, const St *s) except -1:
    """Every legal move of the seat to move into the scratch buffer, in the pure engine's
    order (by card in hand, then by capture); returns how many."""
    cdef uint64_t hand = s.hands[s.to_move]
    cdef int start[10]
    cdef int count[10]
    cdef int n = 0, card, r, k, i
    for r in range(10):
        count[r] = -1
    while hand:
        card = arena_ctz(hand)
        hand &= hand - 1
        r = card % 10
        if count[r] < 0:
            # The captures of this rank, written where this card's moves go.
            while True:
                k = captures_of(o, s.table, r, g_cap + n, g_size - n)
                if n + k <= g_size:
                    break
                _grow(n + k + 64)
            start[r] = n
            count[r] = k
            for i in range(k):
                g_card[n + i] = card
            n += k
        else:
            if n + count[r] > g_size:
                _grow(n + count[r] + 64)
            k = count[r]
            for i in range(k):
                g_card[n + i] = card
                g_cap[n + i] = g_cap[start[r] + i]
            n += k
    return n


# -- apply, undo, score ------------------------------------------------------------------------

cdef void apply_move(const Opts *o, St *s, int card, uint64_t cap) noexcept nogil:
    cdef int seat = s.to_move
    cdef int side = side_of(o, seat)
    cdef int flags = 0, scopa, i, n, first
    cdef int prev_last = s.last
    cdef uint64_t bit = 1ULL << card
    cdef uint64_t leftover = 0
    cdef Undo *u
    s.hands[seat] &= ~bit
    if cap:
        s.table &= ~cap
        s.captured[side] |= cap | bit
        s.last = seat
        if s.table == 0:
            scopa = 1
            if s.hands[seat] == 0 and seat == s.dealer and s.stock_pos >= s.stock_len:
                scopa = o.last_play_scopa
            if scopa and o.assi and card % 10 == 0 and not (
                arena_popcount(cap) == 1 and (cap & ACES) and o.ace_takes_ace
            ):
                scopa = o.assi_sweep_scopa
            if scopa:
                s.scope[side] += 1
                flags = F_SCOPA
    elif o.assi and card % 10 == 0 and s.table == 0 and o.assi_pile:
        s.captured[side] |= bit
        flags = F_PILE
    else:
        s.table |= bit
    s.to_move = (seat + 1) % o.players
    if not (s.hands[seat] or seat != s.dealer):
        if s.stock_pos < s.stock_len:
            n = o.players
            first = s.to_move
            for i in range(3 * n):
                s.hands[(first + i) % n] |= 1ULL << s.stock[s.stock_pos + i]
            s.stock_pos += 3 * n
            flags |= F_REFILL
        elif s.table and s.last >= 0:
            leftover = s.table
            s.captured[side_of(o, s.last)] |= leftover
            s.table = 0
            flags |= F_LEFTOVER
    u = &s.undo[s.nundo]
    s.nundo += 1
    u.seat = seat
    u.card = card
    u.cap = cap
    u.prev_last = prev_last
    u.flags = flags
    u.leftover = leftover


cdef void undo_move(const Opts *o, St *s) noexcept nogil:
    s.nundo -= 1
    cdef Undo *u = &s.undo[s.nundo]
    cdef int seat = u.seat
    cdef int side = side_of(o, seat)
    cdef int i
    cdef uint64_t bit = 1ULL << u.card
    if u.flags & F_REFILL:
        for i in range(o.players):
            s.hands[i] = 0
        s.stock_pos -= 3 * o.players
    if u.flags & F_LEFTOVER:
        s.table |= u.leftover
        s.captured[side_of(o, s.last)] ^= u.leftover
    if u.flags & F_SCOPA:
        s.scope[side] -= 1
    if u.cap:
        s.table |= u.cap
        s.captured[side] ^= u.cap | bit
    elif u.flags & F_PILE:
        s.captured[side] ^= bit
    else:
        s.table &= ~bit
    s.last = u.prev_last
    s.hands[seat] |= bit
    s.to_move = seat


cdef inline int unique_best(const int64_t *values, int n) noexcept nogil:
    cdef int64_t best = values[0]
    cdef int i, at = 0, ties = 0
    for i in range(1, n):
        if values[i] > best:
            best = values[i]
            at = i
    for i in range(n):
        if values[i] == best:
            ties += 1
    return at if ties == 1 else -1


cdef int primiera_winner(const Opts *o, const uint64_t *masks, int n) noexcept nogil:
    cdef int64_t keys[4]
    cdef int complete[4]
    cdef int i, s, r, b, any_complete = 0, all_complete = 1
    cdef int64_t key
    if o.primiera_count:
        for i in range(n):
            key = 0
            for r in range(7):
                key = key * 5 + arena_popcount(masks[i] & RANK_MASK[COUNT_ORDER[r]])
            keys[i] = key
        return unique_best(keys, n)
    for i in range(n):
        key = 0
        complete[i] = 1
        for s in range(4):
            b = BEST_PRIMIERA[(masks[i] >> (s * 10)) & 1023]
            key += b
            if b == 0:
                complete[i] = 0
        keys[i] = key
        if complete[i]:
            any_complete = 1
        else:
            all_complete = 0
    if o.missing == 2 or all_complete:
        return unique_best(keys, n)
    if any_complete:
        for i in range(n):
            if not complete[i]:
                keys[i] = -1
        return unique_best(keys, n)
    if o.missing == 1:
        return -1
    return unique_best(keys, n)


cdef int score_deal(const Opts *o, const St *s, int *points) noexcept nogil:
    """Each side's points (NCAT per side, the total last); returns the cappotto side or -1."""
    cdef int n = o.nsides, i, c, w, run, total
    cdef int64_t vals[4]
    cdef uint64_t coins
    cdef int cappotto = -1
    memset(points, 0, n * NCAT * sizeof(int))
    for i in range(n):
        points[i * NCAT + 4] = s.scope[i]
        vals[i] = arena_popcount(s.captured[i])
    w = unique_best(vals, n)
    if w >= 0:
        points[w * NCAT + 0] = 1
    for i in range(n):
        vals[i] = arena_popcount(s.captured[i] & 1023)
    w = unique_best(vals, n)
    if w >= 0:
        points[w * NCAT + 1] = 1
    for i in range(n):
        coins = s.captured[i] & 1023
        if s.captured[i] >> 6 & 1:
            points[i * NCAT + 2] = 1
        if o.re_bello and s.captured[i] >> 9 & 1:
            points[i * NCAT + 5] = 1
        if o.napoli:
            run = RUN_FROM_ACE[coins]
            if run >= 3:
                points[i * NCAT + 6] = run
        if o.sette_tutti and (s.captured[i] & SEVENS) == SEVENS:
            points[i * NCAT + 7] = 1
        if o.cappotto and coins == 1023:
            cappotto = i
    w = primiera_winner(o, s.captured, n)
    if w >= 0:
        points[w * NCAT + 3] = 1
    for i in range(n):
        total = 0
        for c in range(8):
            total += points[i * NCAT + c]
        points[i * NCAT + 8] = total
    return cappotto


cdef void load_deck(const Opts *o, St *s, int dealer, const int *deck) noexcept nogil:
    """A deal of a shuffled deck (top first) by the layout, as ``Deal.from_deck`` deals it."""
    cdef int n = o.players, pos = 0, i, k, p, seat, size
    cdef int packets[5]
    cdef int npackets
    memset(s, 0, sizeof(St) - sizeof(s.undo))
    s.dealer = dealer
    s.to_move = (dealer + 1) % n
    s.last = -1
    s.nundo = 0
    if o.layout == 0:
        for k in range(3):
            for i in range(n):
                seat = (dealer + 1 + i) % n
                s.hands[seat] |= 1ULL << deck[pos]
                pos += 1
        for k in range(4):
            s.table |= 1ULL << deck[pos]
            pos += 1
    else:
        if o.layout == 1:
            packets[:] = [3, 2, 3, 2, 3]
            npackets = 5
        else:
            packets[0] = 5
            packets[1] = 5
            npackets = 2
        for p in range(npackets):
            size = packets[p]
            if o.layout == 1 and p % 2 == 1:
                for k in range(size):
                    s.table |= 1ULL << deck[pos]
                    pos += 1
                continue
            for i in range(n):
                seat = (dealer + 1 + i) % n
                for k in range(size):
                    s.hands[seat] |= 1ULL << deck[pos]
                    pos += 1
    s.stock_len = 40 - pos
    for i in range(s.stock_len):
        s.stock[i] = deck[pos + i]
    s.stock_pos = 0


cdef inline int needs_redeal(const Opts *o, uint64_t table) noexcept nogil:
    if o.redeal_kings and arena_popcount(table & RANK_MASK[9]) >= 3:
        return 1
    if o.assi and o.assi_redeal_on_ace and (table & ACES):
        return 1
    return 0


cdef void new_game_deal(const Opts *o, St *s, uint64_t seed, uint64_t deal_index,
                        int dealer) noexcept nogil:
    """The deal ``Game.new_deal`` deals: decks from the seed, redealt while the rules say so."""
    cdef int deck[40]
    cdef uint64_t attempt = 0
    while True:
        deck_for(seed, deal_index, attempt, deck)
        load_deck(o, s, dealer, deck)
        if not needs_redeal(o, s.table):
            return
        attempt += 1


# -- Python objects for moves and cards ---------------------------------------------------------

cdef dict _MOVES = {}  # (card << 40 | capture set) -> Move, for captures of two cards or more
cdef tuple _LAY = tuple(LAY)
cdef tuple _TAKE1 = tuple(TAKE1)
cdef object _new_tuple = tuple.__new__


cdef tuple cards_tuple(uint64_t mask):
    cdef list out = []
    while mask:
        out.append(arena_ctz(mask))
        mask &= mask - 1
    return tuple(out)


cdef object move_object(int card, uint64_t cap):
    if cap == 0:
        return _LAY[card]
    if (cap & (cap - 1)) == 0:
        return _TAKE1[card * 40 + arena_ctz(cap)]
    key = (<uint64_t>card << 40) | cap
    found = _MOVES.get(key)
    if found is None:
        if len(_MOVES) >= 200000:
            _MOVES.clear()
        found = _new_tuple(Move, (card, cards_tuple(cap)))
        _MOVES[key] = found
    return found


cdef uint64_t mask_of(object cards) except? 0xFFFFFFFFFFFFFFFF:
    cdef uint64_t m = 0
    cdef int c
    for item in cards:
        c = item
        if c < 0 or c >= 40:
            raise EngineError(f"not a card: {item!r}")
        m |= 1ULL << c
    return m


# -- the state for search and training ----------------------------------------------------------

cdef class CoreState:
    """A deal's state in C: moves as ``(card, capture set)`` integers, no Python object per
    move.  For loops that never need :class:`arena.engine.Move` objects; :class:`CoreDeal` is
    the :class:`arena.engine.Deal` built on it."""

    cdef Opts o
    cdef St s
    cdef readonly object rules

    def __init__(self, rules):
        opts_from(&self.o, rules)
        self.rules = rules
        memset(&self.s, 0, sizeof(St))
        self.s.last = -1

    cpdef CoreState copy(self):
        """An independent copy."""
        cdef CoreState other = CoreState.__new__(CoreState)
        other.o = self.o
        other.s = self.s
        other.rules = self.rules
        return other

    def load(self, int dealer, hands, table, stock=()):
        """Sets the state to a deal about to start (no checks: :class:`CoreDeal` checks)."""
        cdef int i
        stock = tuple(stock)
        if len(hands) != self.o.players or len(stock) > 40:
            raise EngineError(f"{len(hands)} hands and {len(stock)} stock cards do not make a deal")
        memset(&self.s, 0, sizeof(St))
        for i in range(self.o.players):
            self.s.hands[i] = mask_of(hands[i])
        self.s.table = mask_of(table)
        for c in stock:
            mask_of((c,))
        self.s.stock_len = len(stock)
        for i in range(len(stock)):
            self.s.stock[i] = stock[i]
        self.s.dealer = dealer
        self.s.to_move = (dealer + 1) % self.o.players
        self.s.last = -1

    def deal_game(self, seed, int deal_index, int dealer):
        """Deals ``Game.new_deal``'s deal of ``seed`` (redeals included) into this state."""
        new_game_deal(&self.o, &self.s, <uint64_t>(seed & MASK64), <uint64_t>deal_index, dealer)

    def deal_deck(self, seed, int deal_index, int dealer):
        """Deals ``Deal.from_deck(rules, dealer, Game.deck_for(seed, deal_index))``."""
        cdef int deck[40]
        deck_for(<uint64_t>(seed & MASK64), <uint64_t>deal_index, 0, deck)
        load_deck(&self.o, &self.s, dealer, deck)

    @property
    def to_move(self):
        return self.s.to_move

    @property
    def dealer(self):
        return self.s.dealer

    def is_over(self):
        """Whether every card has been played."""
        return self.s.hands[self.s.to_move] == 0

    def legal(self):
        """The legal moves as ``(card, capture set)`` pairs, in the engine's order."""
        cdef int n = gen_moves(&self.o, &self.s), i
        return [(g_card[i], g_cap[i]) for i in range(n)]

    def apply(self, int card, uint64_t cap):
        """Plays a move from :meth:`legal` (unchecked)."""
        apply_move(&self.o, &self.s, card, cap)

    def undo(self):
        """Takes back the last move."""
        if self.s.nundo == 0:
            raise EngineError("there is no move to undo")
        undo_move(&self.o, &self.s)

    def playout(self, uint64_t rng_state):
        """Plays random legal moves to the end of the deal; returns (totals, rng state after).

        The moves are undone afterwards: the state is as before."""
        cdef int n, k, moves = 0, i
        cdef int points[4 * NCAT]
        cdef uint64_t state = rng_state
        while self.s.hands[self.s.to_move]:
            n = gen_moves(&self.o, &self.s)
            k = <int>rng_below(&state, <uint64_t>n)
            apply_move(&self.o, &self.s, g_card[k], g_cap[k])
            moves += 1
        score_deal(&self.o, &self.s, points)
        totals = tuple(points[i * NCAT + 8] for i in range(self.o.nsides))
        for i in range(moves):
            undo_move(&self.o, &self.s)
        return totals, state

    def determinize(self, int seat, uint64_t rng_state):
        """Deals the cards ``seat`` has not seen (the other hands and the stock) out again at
        random, hands keeping their sizes: ``Deal.determinize(deal.observation(seat),
        Rng(rng_state))``'s hands and stock, in place.  Moves before cannot be undone after.
        Returns the generator's state after."""
        cdef int cards[40]
        cdef int n = 0, i, k, c, pos = 0
        cdef uint64_t unseen = 0, state = rng_state
        cdef int sizes[4]
        if not 0 <= seat < self.o.players:
            raise EngineError(f"no seat {seat!r} in a {self.o.players}-player game")
        for i in range(self.o.players):
            sizes[i] = arena_popcount(self.s.hands[i])
            if i != seat:
                unseen |= self.s.hands[i]
        for i in range(self.s.stock_pos, self.s.stock_len):
            unseen |= 1ULL << self.s.stock[i]
        while unseen:
            cards[n] = arena_ctz(unseen)
            n += 1
            unseen &= unseen - 1
        rng_shuffle(cards, n, &state)
        for i in range(self.o.players):
            if i == seat:
                continue
            self.s.hands[i] = 0
            for k in range(sizes[i]):
                self.s.hands[i] |= 1ULL << cards[pos]
                pos += 1
        for i in range(self.s.stock_pos, self.s.stock_len):
            self.s.stock[i] = cards[pos]
            pos += 1
        self.s.nundo = 0
        return state

    def score_points(self):
        """(each side's points by category key, the cappotto side or None)."""
        cdef int points[4 * NCAT]
        cdef int cap = score_deal(&self.o, &self.s, points)
        rows = tuple(
            {key: points[i * NCAT + j] for j, key in enumerate(POINT_KEYS)}
            for i in range(self.o.nsides)
        )
        return rows, (None if cap < 0 else cap)

    def snapshot(self):
        """(hands, table, stock left, captured, scope, to_move, last) as bit sets and ints."""
        s = &self.s
        return (
            tuple(s.hands[i] for i in range(self.o.players)),
            s.table,
            tuple(s.stock[i] for i in range(s.stock_pos, s.stock_len)),
            tuple(s.captured[i] for i in range(self.o.nsides)),
            tuple(s.scope[i] for i in range(self.o.nsides)),
            s.to_move,
            s.last,
        )


# -- the Deal -------------------------------------------------------------------------------------

class CoreDeal(Deal):
    """A :class:`arena.engine.state.Deal` whose state is a :class:`CoreState`: the same API, the
    same moves in the same order, the same states, scores and replays."""

    __slots__ = ("_core", "_hist")

    def __init__(self, rules, dealer, hands, table, stock=()):
        cdef CoreState core = CoreState(rules)
        core.load(dealer, hands, table, stock)
        self._core = core
        self._hist = []  # (seat, move) of each move applied here
        self._prefix = []
        self.rules = rules
        self.dealer = dealer
        self.deal_index = 0
        self.game_totals = (0,) * rules.num_sides

    def _set_position(self, to_move, captured, scope, history):
        cdef CoreState core = self._core
        cdef int i
        core.s.to_move = to_move
        for i in range(core.o.nsides):
            core.s.captured[i] = captured[i]
            core.s.scope[i] = scope[i]
        self._prefix = list(history)
        for seat, move in reversed(self._prefix):
            if move[1]:
                core.s.last = seat
                break

    def clone(self):
        other = CoreDeal.__new__(CoreDeal)
        other._core = (<CoreState>self._core).copy()
        other._hist = list(self._hist)
        other._prefix = self._prefix
        other.rules = self.rules
        other.dealer = self.dealer
        other.deal_index = self.deal_index
        other.game_totals = self.game_totals
        return other

    @property
    def core(self):
        """The :class:`CoreState` under this deal (shared, not a copy)."""
        return self._core

    @property
    def to_move(self):
        return (<CoreState>self._core).s.to_move

    @property
    def hands(self):
        cdef CoreState core = self._core
        return tuple(cards_tuple(core.s.hands[i]) for i in range(core.o.players))

    @property
    def table(self):
        return cards_tuple((<CoreState>self._core).s.table)

    @property
    def stock(self):
        cdef CoreState core = self._core
        return tuple(core.s.stock[i] for i in range(core.s.stock_pos, core.s.stock_len))

    @property
    def history(self):
        return [*self._prefix, *self._hist]

    def _history_tuple(self):
        return (*self._prefix, *self._hist)

    @property
    def captured(self):
        cdef CoreState core = self._core
        return tuple(cards_tuple(core.s.captured[i]) for i in range(core.o.nsides))

    @property
    def captured_masks(self):
        cdef CoreState core = self._core
        return tuple(core.s.captured[i] for i in range(core.o.nsides))

    @property
    def scope(self):
        cdef CoreState core = self._core
        return tuple(core.s.scope[i] for i in range(core.o.nsides))

    @property
    def last_capturer(self):
        cdef int last = (<CoreState>self._core).s.last
        return None if last < 0 else last

    @property
    def hand_sizes(self):
        cdef CoreState core = self._core
        return tuple(arena_popcount(core.s.hands[i]) for i in range(core.o.players))

    def is_over(self):
        cdef CoreState core = self._core
        return core.s.hands[core.s.to_move] == 0

    def state_key(self):
        cdef CoreState core = self._core
        return (
            self.dealer,
            core.s.to_move,
            self.hands,
            self.table,
            self.stock,
            self.captured_masks,
            self.scope,
            core.s.last,
            tuple(self.history),
        )

    def legal_moves(self):
        cdef CoreState core = self._core
        cdef int n = gen_moves(&core.o, &core.s), i
        return [move_object(g_card[i], g_cap[i]) for i in range(n)]

    def _captures_for(self, card):
        cdef CoreState core = self._core
        cdef int c = card
        cdef int k, n
        while True:
            n = captures_of(&core.o, core.s.table, c % 10, g_cap, g_size)
            if n <= g_size:
                break
            _grow(n)
        return [cards_tuple(g_cap[k]) for k in range(n)]

    def apply(self, move):
        if not isinstance(move, Move):
            try:
                card, capture = move
                move = Move(card, capture)
            except (TypeError, ValueError):
                raise IllegalMoveError(f"not a move: {move!r}") from None
        cdef CoreState core = self._core
        seat = core.s.to_move
        if core.s.hands[seat] == 0:
            raise IllegalMoveError(f"{move.name}: the deal is over")
        card, cap = move
        if not (core.s.hands[seat] >> card) & 1:
            raise IllegalMoveError(f"{move.name}: seat {seat} does not hold {NAMES[card]}")
        allowed = self._captures_for(card)
        if cap not in allowed:
            choices = ", ".join(
                _new_tuple(Move, (card, a)).name if a else f"{NAMES[card]} (laid down)"
                for a in allowed
            )
            raise IllegalMoveError(
                f"{move.name} is not legal here; with {NAMES[card]} seat {seat} may play {choices}"
            )
        self.apply_unchecked(move)

    def apply_unchecked(self, move):
        cdef CoreState core = self._core
        cdef uint64_t cap = 0
        cdef int c
        for c in move[1]:
            cap |= 1ULL << c
        self._hist.append((core.s.to_move, move))
        apply_move(&core.o, &core.s, move[0], cap)

    def undo(self):
        cdef CoreState core = self._core
        if core.s.nundo == 0:
            raise EngineError("there is no move to undo")
        undo_move(&core.o, &core.s)
        self._hist.pop()

    def score(self):
        if not self.is_over():
            raise EngineError("the deal is not over yet")
        rows, cappotto = (<CoreState>self._core).score_points()
        return DealScore(rows, cappotto)

    def observation(self, seat):
        cdef CoreState core = self._core
        if not 0 <= seat < core.o.players:
            raise EngineError(f"no seat {seat!r} in a {core.o.players}-player game")
        return Observation(
            rules=self.rules,
            seat=seat,
            to_move=core.s.to_move,
            dealer=self.dealer,
            hand=cards_tuple(core.s.hands[seat]),
            table=cards_tuple(core.s.table),
            hand_sizes=self.hand_sizes,
            stock_size=core.s.stock_len - core.s.stock_pos,
            history=self._history_tuple(),
            captured=self.captured,
            scope=self.scope,
            totals=tuple(self.game_totals),
            deal_index=self.deal_index,
        )

    def __repr__(self):
        return (
            f"<Deal {self.rules.variant} dealer={self.dealer} to_move={self.to_move} "
            f"played={len(self._prefix) + len(self._hist)}>"
        )


# -- loops for benchmarks and search --------------------------------------------------------------

def random_deals(rules, seed, int count, uint64_t pick_seed):
    """Plays ``count`` random deals: deal ``i`` is ``Deal.from_deck(rules, i % players,
    Game.deck_for(seed, i))``, each move ``Rng(pick_seed).randbelow(len(legal_moves))``-th of
    the legal moves (one generator through all deals), each deal scored.  Returns (moves
    played, the sum over deals of side ``i``'s total times ``i + 1``): a checksum the pure
    engine can reproduce."""
    cdef Opts o
    cdef St s
    cdef int deck[40]
    cdef int points[4 * NCAT]
    cdef int i, j, n, k
    cdef int64_t moves = 0, check = 0
    cdef uint64_t state = pick_seed
    cdef uint64_t useed = <uint64_t>(seed & MASK64)
    opts_from(&o, rules)
    for i in range(count):
        deck_for(useed, <uint64_t>i, 0, deck)
        load_deck(&o, &s, i % o.players, deck)
        while s.hands[s.to_move]:
            n = gen_moves(&o, &s)
            k = <int>rng_below(&state, <uint64_t>n)
            apply_move(&o, &s, g_card[k], g_cap[k])
            moves += 1
        score_deal(&o, &s, points)
        for j in range(o.nsides):
            check += points[j * NCAT + 8] * (j + 1)
    return moves, check


def game_deal(rules, seed, int deal_index, int dealer):
    """The hands, table and stock of ``Game.new_deal``'s deal (redeals applied)."""
    cdef CoreState state = CoreState(rules)
    state.deal_game(seed, deal_index, dealer)
    hands, table, stock = state.snapshot()[:3]
    return tuple(cards_tuple(h) for h in hands), cards_tuple(table), stock


def deck(seed, int deal_index, int attempt=0):
    """``Game.deck_for(seed, deal_index, attempt)``."""
    cdef int cards[40]
    deck_for(<uint64_t>(seed & MASK64), <uint64_t>(deal_index & MASK64),
             <uint64_t>(attempt & MASK64), cards)
    return [cards[i] for i in range(40)]


def dealer_of(rules, seed):
    """``Game.first_dealer(rules, seed)``."""
    return first_dealer(<uint64_t>(seed & MASK64), rules.players)


# -- many games at once, for training environments ------------------------------------------------

cdef struct GameSt:
    St s
    int totals[4]
    int deal_index
    int dealer
    int winner
    uint64_t seed
    int played_by[40]
    int played_at[40]
    int taken_at[40]
    int nplayed


cdef struct Layout:
    int size, hand, table, piles, played_by, played_at, taken_at
    int to_move, dealer, hand_sizes, stock, scope, totals, deal


cdef int _finish_deal(const Opts *o, GameSt *g, int target, int tie_count_out,
                      int *points) noexcept nogil:
    """``Game.finish_deal``: totals, the next dealer, the winner; returns the deal's cappotto."""
    cdef int before[4]
    cdef int running[4]
    cdef int leaders[4]
    cdef int n = o.nsides, i, best, nlead = 0, c, j, reached, who
    cdef int cappotto = score_deal(o, &g.s, points)
    for i in range(n):
        before[i] = g.totals[i]
        g.totals[i] += points[i * NCAT + 8]
    g.deal_index += 1
    g.dealer = (g.dealer + 1) % o.players
    if cappotto >= 0:
        g.winner = cappotto
        return cappotto
    best = g.totals[0]
    for i in range(1, n):
        if g.totals[i] > best:
            best = g.totals[i]
    if best < target:
        return -1
    for i in range(n):
        if g.totals[i] == best:
            leaders[nlead] = i
            nlead += 1
    if nlead == 1:
        g.winner = leaders[0]
    elif tie_count_out:
        for i in range(n):
            running[i] = before[i]
        for c in range(8):
            reached = 0
            who = -1
            for j in range(nlead):
                running[leaders[j]] += points[leaders[j] * NCAT + c]
            for j in range(nlead):
                if running[leaders[j]] >= target:
                    reached += 1
                    who = leaders[j]
            if reached == 1:
                g.winner = who
                break
            if reached:
                break
    return -1


cdef class VecCore:
    """``n`` whole games stepped together: legal actions, masks and observations written into
    numpy arrays by C loops (:class:`arena.env.vector.VectorScopaEnv` drives it)."""

    cdef Opts o
    cdef GameSt *games
    cdef readonly int n
    cdef int target
    cdef int count_out
    cdef int points_reward
    cdef Layout lay
    cdef int nactions
    cdef int sweep_id
    # action ids: capture sets of each sum rank / fifteen card, sorted by set, with their ids
    cdef uint64_t[:] sum_keys
    cdef int[:] sum_ids
    cdef int[:] sum_start
    cdef uint64_t[:] ff_keys
    cdef int[:] ff_ids
    cdef int[:] ff_start
    # per game: the legal moves now (action id, card, capture set)
    cdef int **act
    cdef int **mcard
    cdef uint64_t **mcap
    cdef int *nlegal
    cdef int *legal_cap

    def __init__(self, rules, int n, layout, int nactions, int sweep_id, sum_keys, sum_ids,
                 sum_start, ff_keys, ff_ids, ff_start, bint points_reward):
        cdef int i
        opts_from(&self.o, rules)
        self.sweep_id = sweep_id
        if n <= 0:
            raise ValueError("at least one game")
        self.n = n
        self.target = rules.target
        self.count_out = rules.tie_rule == "count_out"
        self.points_reward = points_reward
        self.nactions = nactions
        (self.lay.size, self.lay.hand, self.lay.table, self.lay.piles, self.lay.played_by,
         self.lay.played_at, self.lay.taken_at, self.lay.to_move, self.lay.dealer,
         self.lay.hand_sizes, self.lay.stock, self.lay.scope, self.lay.totals,
         self.lay.deal) = layout
        self.sum_keys = sum_keys
        self.sum_ids = sum_ids
        self.sum_start = sum_start
        self.ff_keys = ff_keys
        self.ff_ids = ff_ids
        self.ff_start = ff_start
        self.games = <GameSt *>malloc(n * sizeof(GameSt))
        self.act = <int **>malloc(n * sizeof(int *))
        self.mcard = <int **>malloc(n * sizeof(int *))
        self.mcap = <uint64_t **>malloc(n * sizeof(uint64_t *))
        self.nlegal = <int *>malloc(n * sizeof(int))
        self.legal_cap = <int *>malloc(n * sizeof(int))
        if not (self.games and self.act and self.mcard and self.mcap and self.nlegal
                and self.legal_cap):
            raise MemoryError()
        for i in range(n):
            memset(&self.games[i], 0, sizeof(GameSt))
            self.legal_cap[i] = 64
            self.nlegal[i] = 0
            self.act[i] = <int *>malloc(64 * sizeof(int))
            self.mcard[i] = <int *>malloc(64 * sizeof(int))
            self.mcap[i] = <uint64_t *>malloc(64 * sizeof(uint64_t))
            if not (self.act[i] and self.mcard[i] and self.mcap[i]):
                raise MemoryError()

    def __dealloc__(self):
        cdef int i
        if self.act != NULL:
            for i in range(self.n):
                free(self.act[i])
                free(self.mcard[i])
                free(self.mcap[i])
        free(self.act)
        free(self.mcard)
        free(self.mcap)
        free(self.nlegal)
        free(self.legal_cap)
        free(self.games)

    cdef int _find(self, uint64_t[:] keys, int[:] ids, int lo, int hi, uint64_t key) except -2:
        cdef int mid
        hi -= 1
        while lo <= hi:
            mid = (lo + hi) >> 1
            if keys[mid] == key:
                return ids[mid]
            if keys[mid] < key:
                lo = mid + 1
            else:
                hi = mid - 1
        return -1

    cdef int _action_of(self, int card, uint64_t cap) except -2:
        """``ActionSpace.action_of`` for a legal move."""
        cdef int r0 = card % 10, other
        if cap == 0:
            return card
        if (cap & (cap - 1)) == 0:
            other = arena_ctz(cap)
            if other % 10 == r0:
                return 40 + card * 3 + (other // 10 - (1 if other // 10 > card // 10 else 0))
        if self.o.assi and r0 == 0:
            return self.sweep_id + card // 10
        if self.o.quindici:
            return self._find(self.ff_keys, self.ff_ids, self.ff_start[card],
                              self.ff_start[card + 1], cap)
        return self._find(self.sum_keys, self.sum_ids, self.sum_start[card],
                          self.sum_start[card + 1], cap)

    cdef int _legal(self, int i) except -1:
        """The legal moves of game ``i`` with their action ids."""
        cdef GameSt *g = &self.games[i]
        cdef int k = gen_moves(&self.o, &g.s), j
        if k > self.legal_cap[i]:
            self.legal_cap[i] = k
            self.act[i] = <int *>realloc(self.act[i], k * sizeof(int))
            self.mcard[i] = <int *>realloc(self.mcard[i], k * sizeof(int))
            self.mcap[i] = <uint64_t *>realloc(self.mcap[i], k * sizeof(uint64_t))
            if not (self.act[i] and self.mcard[i] and self.mcap[i]):
                raise MemoryError()
        for j in range(k):
            self.mcard[i][j] = g_card[j]
            self.mcap[i][j] = g_cap[j]
        for j in range(k):
            self.act[i][j] = self._action_of(self.mcard[i][j], self.mcap[i][j])
        self.nlegal[i] = k
        return k

    cdef void _new_deal(self, GameSt *g) noexcept nogil:
        new_game_deal(&self.o, &g.s, g.seed, <uint64_t>g.deal_index, g.dealer)
        memset(g.played_by, 0xFF, sizeof(g.played_by))
        memset(g.played_at, 0, sizeof(g.played_at))
        memset(g.taken_at, 0, sizeof(g.taken_at))
        g.nplayed = 0

    def reset_game(self, int i, seed, signed char[:, :] mask):
        """Starts game ``i`` anew: the game of ``seed`` (``Game(rules, seed)``)."""
        cdef GameSt *g = &self.games[i]
        cdef int j
        for j in range(self.nlegal[i]):
            mask[i, self.act[i][j]] = 0
        memset(g.totals, 0, sizeof(g.totals))
        g.deal_index = 0
        g.winner = -1
        g.seed = <uint64_t>(seed & MASK64)
        g.dealer = first_dealer(g.seed, self.o.players)
        self._new_deal(g)
        self._legal(i)
        for j in range(self.nlegal[i]):
            mask[i, self.act[i][j]] = 1

    cdef void _encode(self, int i, float[:, :] obs) noexcept:
        cdef GameSt *g = &self.games[i]
        cdef St *s = &g.s
        cdef Layout *L = &self.lay
        cdef int me = s.to_move, seats = self.o.players, sides = self.o.nsides
        cdef int my_side = me % sides, c, side, seat, k
        cdef uint64_t m
        cdef double target = self.target
        for k in range(L.size):
            obs[i, k] = 0
        m = s.hands[me]
        while m:
            obs[i, L.hand + arena_ctz(m)] = 1
            m &= m - 1
        m = s.table
        while m:
            obs[i, L.table + arena_ctz(m)] = 1
            m &= m - 1
        for side in range(sides):
            k = L.piles + 40 * ((side - my_side + sides) % sides)
            m = s.captured[side]
            while m:
                obs[i, k + arena_ctz(m)] = 1
                m &= m - 1
        for c in range(40):
            if g.played_by[c] >= 0:
                obs[i, L.played_by + 40 * ((g.played_by[c] - me + seats) % seats) + c] = 1
            if g.played_at[c]:
                obs[i, L.played_at + c] = <float>(g.played_at[c] / 40.0)
            if g.taken_at[c]:
                obs[i, L.taken_at + c] = <float>(g.taken_at[c] / 40.0)
        obs[i, L.to_move] = 1
        obs[i, L.dealer + (s.dealer - me + seats) % seats] = 1
        for seat in range(seats):
            obs[i, L.hand_sizes + (seat - me + seats) % seats] = <float>(
                arena_popcount(s.hands[seat]) / 10.0)
        obs[i, L.stock] = <float>((s.stock_len - s.stock_pos) / 40.0)
        for side in range(sides):
            k = (side - my_side + sides) % sides
            obs[i, L.scope + k] = <float>(s.scope[side] / 10.0)
            obs[i, L.totals + k] = <float>(g.totals[side] / target)
        obs[i, L.deal] = <float>(g.deal_index / 10.0)

    def encode(self, int i, float[:, :] obs):
        """Writes game ``i``'s observation (of its seat to move) into ``obs[i]``."""
        self._encode(i, obs)

    def to_move(self, long[:] out):
        cdef int i
        for i in range(self.n):
            out[i] = self.games[i].s.to_move

    def legal_actions(self, int i):
        """Game ``i``'s legal action ids, in the engine's move order."""
        return [self.act[i][j] for j in range(self.nlegal[i])]

    def step(self, long[:] actions, float[:, :] obs, signed char[:, :] mask,
             float[:, :] seat_rewards, float[:] rewards, unsigned char[:] ended):
        """One move in every game; ``ended[i]`` is 1 for a game that ended (the caller resets
        it). Refuses (changing nothing) when an action is not legal in its game."""
        cdef int i, j, k, a, seat, side, t, c, cap_side, pos
        cdef int points[4 * NCAT]
        cdef double total, p, v
        cdef GameSt *g
        cdef St *s
        cdef uint64_t cap, m
        cdef int *pos_of = <int *>malloc(self.n * sizeof(int))
        if pos_of == NULL:
            raise MemoryError()
        try:
            for i in range(self.n):
                a = actions[i]
                pos_of[i] = -1
                for j in range(self.nlegal[i]):
                    if self.act[i][j] == a:
                        pos_of[i] = j
                        break
                if pos_of[i] < 0:
                    raise ValueError(
                        f"action {a} is not legal in game {i}; legal: {self.legal_actions(i)}"
                    )
            for i in range(self.n):
                g = &self.games[i]
                s = &g.s
                for j in range(self.o.players):
                    seat_rewards[i, j] = 0
                rewards[i] = 0
                ended[i] = 0
                pos = pos_of[i]
                seat = s.to_move
                c = self.mcard[i][pos]
                cap = self.mcap[i][pos]
                for j in range(self.nlegal[i]):
                    mask[i, self.act[i][j]] = 0
                t = g.nplayed + 1
                g.played_by[c] = seat
                g.played_at[c] = t
                m = cap
                while m:
                    g.taken_at[arena_ctz(m)] = t
                    m &= m - 1
                g.nplayed = t
                apply_move(&self.o, s, c, cap)
                if s.hands[s.to_move] == 0:
                    _finish_deal(&self.o, g, self.target, self.count_out, points)
                    if self.points_reward:
                        total = 0
                        for side in range(self.o.nsides):
                            total += points[side * NCAT + 8]
                        for j in range(self.o.players):
                            p = points[(j % self.o.nsides) * NCAT + 8]
                            seat_rewards[i, j] = <float>(p - (total - p) / (self.o.nsides - 1))
                    elif g.winner >= 0:
                        for j in range(self.o.players):
                            v = 1.0 if j % self.o.nsides == g.winner else -1.0 / (self.o.nsides - 1)
                            seat_rewards[i, j] = <float>v
                    rewards[i] = seat_rewards[i, seat]
                    if g.winner >= 0:
                        ended[i] = 1
                        self.nlegal[i] = 0
                        continue
                    self._new_deal(g)
                self._legal(i)
                for j in range(self.nlegal[i]):
                    mask[i, self.act[i][j]] = 1
                self._encode(i, obs)
        finally:
            free(pos_of)

    def winner(self, int i):
        cdef int w = self.games[i].winner
        return None if w < 0 else w

    def totals(self, int i):
        return tuple(self.games[i].totals[j] for j in range(self.o.nsides))

    def random_actions(self, uint64_t rng_state, long[:] out):
        """A uniformly random legal action for every game (for benchmarks); the generator's
        state after."""
        cdef uint64_t state = rng_state
        cdef int i
        for i in range(self.n):
            out[i] = self.act[i][<int>rng_below(&state, <uint64_t>self.nlegal[i])]
        return state
