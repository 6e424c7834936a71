"""Auditing decisions: a decision's bound under honest play and what the seat did, per replay.

:func:`audit_decision` takes the true deal at a seat's turn and the move it chose.  It samples
``samples`` deals uniformly from the hands consistent with the seat's view and counts the share
``q`` of samples where the chosen move is among the best (by
:func:`arena.audit.evaluate.move_values`).  An honest player's choice depends on its view alone,
so the chance that the move it chose is best on the reference deal is ``q`` (if the hidden cards
are uniformly distributed given the view; the bound ``p0`` smooths ``q`` and adds ``slack``
against sampling error and the ways real play departs from that).  The reference deal is the
true deal (kind ``hidden``: does the seat use any hidden card?), or for partnerships
``references`` deals where only the partner's hand is true and the opponents' are sampled again
(kind ``partner``: does the seat use its partner's hand?); each reference deal is distributed
as a sample, so the bound holds for them too.  :func:`audit_replay` audits every decision of
some seats in a replay.  It runs no bot and reads nothing but the deal.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.audit.evaluate import best_moves, move_values
from arena.engine import Card, Deal, EngineError, Game, Move, Seat, card_name

AUDIT_KINDS = ("hidden", "partner")
"""What the reference knows: every hidden card, or only the partner's hand."""


class AuditError(ValueError):
    """A decision or replay the audit cannot take (quoted)."""


@dataclass(frozen=True)
class AuditConfig:
    """How hard to look: samples per decision, reference deals for ``partner``, the slack."""

    samples: int = 32
    references: int = 4
    slack: float = 0.02
    seed: int = 0

    def __post_init__(self) -> None:
        if not 2 <= self.samples <= 10_000:
            raise AuditError(f"samples must be 2..10000, not {self.samples!r}")
        if not 1 <= self.references <= 1_000:
            raise AuditError(f"references must be 1..1000, not {self.references!r}")
        if not 0.0 <= self.slack < 1.0:
            raise AuditError(f"slack must be in [0, 1), not {self.slack!r}")


@dataclass(frozen=True)
class DecisionAudit:
    """One audited decision: its bound ``p0``, the match ``seen`` and what to show of it."""

    deal_index: int
    move_index: int
    seat: Seat
    kind: str
    chosen: str
    best: tuple[str, ...]  # the moves best on the (first) reference deal
    p0: float
    seen: float
    legal: int
    hands: tuple[tuple[str, ...], ...]  # every hand at the decision, by name
    table: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (the fields, lists for tuples)."""
        return {
            "deal": self.deal_index,
            "move": self.move_index,
            "seat": self.seat,
            "kind": self.kind,
            "chosen": self.chosen,
            "best": list(self.best),
            "p0": round(self.p0, 4),
            "seen": round(self.seen, 4),
            "legal": self.legal,
            "hands": [list(h) for h in self.hands],
            "table": list(self.table),
        }


def resample(deal: Deal, seat: Seat, keep: Iterable[Seat], rng: random.Random) -> Deal:
    """A deal consistent with ``seat``'s view in which the hands of ``seat`` and ``keep`` are
    the true ones and every other hand and the stock are dealt again, uniformly at random."""
    hands = deal.hands
    kept = {seat, *keep}
    pool: list[Card] = sorted(deal.observation(seat).unseen_cards())
    for s in kept:
        if s != seat:
            taken = set(hands[s])
            pool = [c for c in pool if c not in taken]
    rng.shuffle(pool)
    new_hands: list[list[Card]] = []
    pos = 0
    for s, hand in enumerate(hands):
        if s in kept:
            new_hands.append(list(hand))
        else:
            new_hands.append(pool[pos : pos + len(hand)])
            pos += len(hand)
    stock = pool[pos : pos + len(deal.stock)]
    captured = deal.captured
    return Deal.restore(
        deal.rules,
        deal.dealer,
        deal.to_move,
        new_hands,
        deal.table,
        stock,
        captured,
        deal.scope,
        deal.history,
    )


def partner_of(deal: Deal, seat: Seat) -> Seat | None:
    """The seat's partner, or None in a game without partners."""
    rules = deal.rules
    mates = [s for s in rules.seats_of(rules.side_of(seat)) if s != seat]
    return mates[0] if mates else None


def audit_decision(
    deal: Deal,
    chosen: Move,
    rng: random.Random,
    kind: str = "hidden",
    config: AuditConfig = AuditConfig(),
    where: tuple[int, int] = (0, 0),
) -> DecisionAudit | None:
    """The audit of the seat to move choosing ``chosen`` in the true ``deal``, or None when the
    decision says nothing (one legal move, or every move equally likely best).

    The deal is left as it was.

    >>> from arena.engine import Game, rules_for
    >>> deal = Game(rules_for("scopa"), seed=5).new_deal()
    >>> moves = deal.legal_moves()
    >>> audit = audit_decision(deal, moves[0], random.Random(1))
    >>> audit is None or 0.0 < audit.p0 <= 1.0
    True
    """
    if kind not in AUDIT_KINDS:
        raise AuditError(f"kind must be one of {', '.join(AUDIT_KINDS)}, not {kind!r}")
    seat = deal.to_move
    legal = deal.legal_moves()
    if chosen not in legal:
        raise AuditError(f"{chosen.name!r} is not a legal move of seat {seat} here")
    if len(legal) < 2:
        return None
    partner = partner_of(deal, seat)
    if kind == "partner" and partner is None:
        raise AuditError(f"kind 'partner' needs partners; {deal.rules.variant!r} has none")
    counts = [0] * len(legal)
    for _ in range(config.samples):
        for i in best_moves(move_values(resample(deal, seat, (), rng), legal)):
            counts[i] += 1
    if kind == "hidden":
        references = [deal]
    else:
        assert partner is not None
        references = [resample(deal, seat, (partner,), rng) for _ in range(config.references)]
    index = legal.index(chosen)
    # Given its view an honest seat's choice is independent of the hidden cards, so the chance
    # that the move it chose is best on the reference is that move's share of the samples.
    share = (counts[index] + 1) / (config.samples + 1)
    first: frozenset[int] = frozenset()
    hits = 0
    for n, reference in enumerate(references):
        best = best_moves(move_values(reference, legal))
        if n == 0:
            first = best
        hits += index in best
    if len(first) == len(legal) and kind == "hidden":
        return None  # every move ties on the true deal: nothing to match
    p0 = min(1.0, share + config.slack)
    if p0 >= 1.0:
        return None
    return DecisionAudit(
        deal_index=where[0],
        move_index=where[1],
        seat=seat,
        kind=kind,
        chosen=chosen.name,
        best=tuple(legal[i].name for i in sorted(first)),
        p0=p0,
        seen=hits / len(references),
        legal=len(legal),
        hands=tuple(tuple(card_name(c) for c in hand) for hand in deal.hands),
        table=tuple(card_name(c) for c in deal.table),
    )


def audit_replay(
    data: Mapping[str, Any],
    seats: Iterable[Seat],
    kind: str = "hidden",
    config: AuditConfig = AuditConfig(),
) -> list[DecisionAudit]:
    """The audits of every decision of ``seats`` in a game's replay (docs/REPLAY.md), in order
    (moves the arena made for a seat, marked ``auto``, are not the seat's and are left out).

    Raises :class:`AuditError` for a replay that does not check or re-play.
    """
    from arena.engine.replay import ReplayError, check_replay, walk_replay

    try:
        rules = check_replay(data)
    except (ReplayError, EngineError) as exc:
        raise AuditError(f"not a replay the arena can re-play: {exc}") from None
    wanted = set(seats)
    if not wanted <= set(range(rules.players)):
        raise AuditError(f"seats must be 0..{rules.players - 1}, not {sorted(wanted)!r}")
    out: list[DecisionAudit] = []
    seed = data.get("seed", 0)
    try:
        for step in walk_replay(data, Game(rules, seed)):
            if step.move is None or step.seat not in wanted or step.move_index is None:
                continue
            if step.record.get("auto"):
                continue  # the arena played it for the seat (a timeout): not the bot's choice
            deal = step.deal
            deal.undo()  # back to the seat's turn, audited, then on again
            rng = random.Random(f"{config.seed}:{seed}:{step.deal_index}:{step.move_index}")
            try:
                audit = audit_decision(
                    deal, step.move, rng, kind, config, (step.deal_index, step.move_index)
                )
            finally:
                deal.apply_unchecked(step.move)
            if audit is not None:
                out.append(audit)
    except (ReplayError, EngineError) as exc:
        raise AuditError(f"the replay does not re-play: {exc}") from None
    return out


__all__ = [
    "AUDIT_KINDS",
    "AuditConfig",
    "AuditError",
    "DecisionAudit",
    "audit_decision",
    "audit_replay",
    "partner_of",
    "resample",
]
