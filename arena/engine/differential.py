"""The compiled core against the pure engine: random deals played by both, compared move by move.

For each rule set, deal ``i`` is ``Deal.from_deck(rules, i % players, Game.deck_for(seed, i))``
built by each engine; at every position the legal-move lists (in order) and the states must be
equal, a random move is played by both (and, now and then, undone and played again), and the
scores must agree at the end.  Whole games' replays are compared too, and the core's own C loop
(:func:`arena.engine._core.random_deals`) against the pure engine's reproduction of it.  Used by
``tests/engine`` (a few deals per set) and ``arena bench engine --differential N`` (by hand).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from arena.engine import core
from arena.engine.replay import random_game_replay, write_replay
from arena.engine.rng import Rng
from arena.engine.state import Deal, Game
from arena.engine.variants import VARIANTS, Rules, rules_for

# Options beyond the named variants: each option's values other than its variants' defaults,
# on the variants where it changes play.
_EXTRA: tuple[tuple[str, dict[str, Any]], ...] = (
    ("scopa", {"last_play_scopa": True}),
    ("scopa", {"redeal_kings": False, "primiera_missing_suit": "void"}),
    ("scopa", {"primiera_missing_suit": "zero", "re_bello": True, "napoli": True}),
    ("scopa", {"primiera_method": "count", "sette_tutti": True, "cappotto": True}),
    ("scopa-3", {"napoli": True, "primiera_missing_suit": "void", "last_play_scopa": True}),
    ("scopone", {"re_bello": True, "cappotto": True, "primiera_method": "count"}),
    ("scientifico", {"last_play_scopa": True, "primiera_missing_suit": "zero"}),
    ("scopa-assi", {"assi_sweep_is_scopa": True, "assi_empty_table": "pile"}),
    ("scopa-assi", {"assi_ace_takes_ace": False, "assi_redeal_on_ace": True}),
    ("scopa-assi", {"quindici": True, "assi_empty_table": "pile", "last_play_scopa": True}),
    ("scopone", {"assi": True, "assi_ace_takes_ace": False, "assi_sweep_is_scopa": True}),
    ("quindici", {"last_play_scopa": True, "re_bello": True, "sette_tutti": True}),
    ("scientifico", {"quindici": True, "napoli": True}),
)


def rule_sets() -> list[Rules]:
    """Every named variant, then the extra option sets."""
    return [*VARIANTS.values(), *(rules_for(v, o) for v, o in _EXTRA)]


class Mismatch(AssertionError):
    """The engines disagree; the message says where."""


def _pair(rules: Rules, dealer: int, deck: list[int]) -> tuple[Deal, Deal]:
    with core.engine("python"):
        pure = Deal.from_deck(rules, dealer, deck)
    with core.engine("core"):
        fast = Deal.from_deck(rules, dealer, deck)
    if type(pure) is not Deal or type(fast) is Deal:
        raise Mismatch(f"{rules.label}: the engines were not the two expected")
    return pure, fast


def compare_deals(rules: Rules, seed: int, count: int, *, full_every: int = 1) -> int:
    """Plays ``count`` random deals with both engines; the positions compared.

    ``full_every``: the whole state (:meth:`Deal.state_key`, an observation) is compared at
    every ``full_every``-th position, the legal moves, seat, table and piles at all of them."""
    pick = Rng(seed ^ 0x5EED)
    positions = 0
    for index in range(count):
        where = f"{rules.label}, seed {seed}, deal {index}"
        pure, fast = _pair(rules, index % rules.players, Game.deck_for(seed, index))
        step = 0
        while True:
            moves = pure.legal_moves()
            if moves != fast.legal_moves():
                raise Mismatch(f"{where}, move {step}: legal moves {moves} != core's")
            if (
                pure.to_move != fast.to_move
                or pure.table != fast.table
                or pure.captured_masks != fast.captured_masks
                or pure.scope != fast.scope
            ):
                raise Mismatch(f"{where}, move {step}: states differ")
            if positions % full_every == 0:
                if pure.state_key() != fast.state_key():
                    raise Mismatch(f"{where}, move {step}: state keys differ")
                seat = step % rules.players
                if pure.observation(seat) != fast.observation(seat):
                    raise Mismatch(f"{where}, move {step}: observations differ")
            positions += 1
            if not moves:
                break
            move = moves[pick.randbelow(len(moves))]
            pure.apply_unchecked(move)
            fast.apply_unchecked(move)
            if pick.randbelow(8) == 0:
                pure.undo()
                fast.undo()
                if pure.state_key() != fast.state_key():
                    raise Mismatch(f"{where}, move {step}: states differ after undo")
                pure.apply(move)
                fast.apply(move)
            step += 1
        if pure.score() != fast.score():
            raise Mismatch(f"{where}: scores {pure.score()} != {fast.score()}")
        if pure.state_key() != fast.state_key():
            raise Mismatch(f"{where}: final states differ")
    return positions


def compare_replays(rules: Rules, seeds: range) -> int:
    """Whole random games recorded under each engine: the replays' text must be equal."""
    for seed in seeds:
        with core.engine("python"):
            pure = write_replay(random_game_replay(rules, seed))
        with core.engine("core"):
            fast = write_replay(random_game_replay(rules, seed))
        if pure != fast:
            raise Mismatch(f"{rules.label}, seed {seed}: the replays differ")
    return len(seeds)


def compare_loop(rules: Rules, seed: int, count: int) -> int:
    """The core's C loop of random deals against the pure engine playing the same choices."""
    assert core.compiled is not None
    pick = Rng(seed + 1)
    moves = 0
    check = 0
    with core.engine("python"):
        for index in range(count):
            deal = Deal.from_deck(rules, index % rules.players, Game.deck_for(seed, index))
            legal = deal.legal_moves()
            while legal:
                deal.apply_unchecked(legal[pick.randbelow(len(legal))])
                moves += 1
                legal = deal.legal_moves()
            check += sum(t * (side + 1) for side, t in enumerate(deal.score().totals))
    got = core.compiled.random_deals(rules, seed, count, seed + 1)
    if got != (moves, check):
        raise Mismatch(f"{rules.label}, seed {seed}: the C loop gave {got}, pure {moves, check}")
    return count


def run(
    deals: int,
    seed: int = 1,
    *,
    chunk: int = 2000,
    full_every: int = 25,
    tick: Callable[[int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """``deals`` random deals per rule set (in chunks, ``tick`` after each), a replay and a C-loop
    check per chunk; yields one summary per rule set.  Raises :class:`Mismatch` on the first
    difference."""
    for rules in rule_sets():
        positions = 0
        done = 0
        while done < deals:
            n = min(chunk, deals - done)
            positions += compare_deals(rules, seed + done, n, full_every=full_every)
            compare_replays(rules, range(seed + done, seed + done + 1))
            compare_loop(rules, seed + done, min(n, 50))
            done += n
            if tick:
                tick(n)
        yield {"rules": rules.label, "deals": done, "positions": positions}
