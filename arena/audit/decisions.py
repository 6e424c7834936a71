"""Auditing decisions: what an honest seat would match, what the seat matched, per replay.

:func:`audit_decision` takes the true deal at a seat's turn and the move it chose.  It deals
``samples`` deals uniformly from the hands consistent with the seat's view, in two halves
drawn apart.  On the first half it counts the share ``share`` of deals where the chosen move is
among the best (by :func:`arena.audit.evaluate.move_values`); it records whether the chosen move
is best on the reference deal (``seen``).  An honest player's choice depends on its view alone,
so when the reference deal is distributed as a sample, ``seen`` and a sample's match are
exchangeable and ``seen - share`` has mean zero: the statistic is paired, sample against
reference, decision by decision.  The second half sets the decision's ``scale`` (how much a
match there would say: more when the chosen move is rarely best), independently of
``share``, so a bet sized by it keeps its mean.

The uniform sampler is the seat's true posterior when no other seat has yet played from the hand
it holds (``exact``: the leader of each round of ``scopa``).  Otherwise the other seats'
choices say something of their hands, the samples do not know it, and the decision carries
``slack``, a margin for that (honest bots were measured below it, docs/BENCHMARKS.md).

The reference deal is the true deal (kind ``hidden``: does the seat use any hidden card?), or
for partnerships ``references`` deals where only the partner's hand is true and the opponents'
are dealt again (kind ``partner``: does the seat use its partner's hand?).
:func:`audit_replay` audits every decision of some seats in a replay.  It runs no bot and reads
nothing but the deal.
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


SCALE_FLOOR = 0.05
"""The smallest share a decision's ``scale`` divides by (a move never best in the second half's
samples weighs as if it were best in one in twenty)."""


@dataclass(frozen=True)
class AuditConfig:
    """How hard to look: samples per decision (two halves), reference deals for ``partner``,
    the slack of decisions whose sampler is not exact."""

    samples: int = 32
    references: int = 4
    slack: float = 0.02
    seed: int = 0

    def __post_init__(self) -> None:
        if not 4 <= self.samples <= 10_000:
            raise AuditError(f"samples must be 4..10000, not {self.samples!r}")
        if not 1 <= self.references <= 1_000:
            raise AuditError(f"references must be 1..1000, not {self.references!r}")
        if not 0.0 <= self.slack < 0.5:
            raise AuditError(f"slack must be in [0, 0.5), not {self.slack!r}")


@dataclass(frozen=True)
class DecisionAudit:
    """One audited decision: the chosen move's honest ``share``, its match ``seen`` on the
    reference, the ``slack`` it carries, its bet ``scale``, and what to show of it."""

    deal_index: int
    move_index: int
    seat: Seat
    kind: str
    chosen: str
    best: tuple[str, ...]  # the moves best on the (first) reference deal
    share: float
    seen: float
    slack: float
    scale: float
    exact: bool
    legal: int
    hands: tuple[tuple[str, ...], ...]  # every hand at the decision, by name
    table: tuple[str, ...]

    @property
    def excess(self) -> float:
        """``seen - share``: the paired statistic, mean zero for an honest seat when exact."""
        return self.seen - self.share

    def to_json(self) -> dict[str, Any]:
        """The decision as JSON (the fields, lists for tuples)."""
        return {
            "deal": self.deal_index,
            "move": self.move_index,
            "seat": self.seat,
            "kind": self.kind,
            "chosen": self.chosen,
            "best": list(self.best),
            "share": round(self.share, 4),
            "seen": round(self.seen, 4),
            "slack": self.slack,
            "scale": round(self.scale, 3),
            "exact": self.exact,
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


def is_exact(deal: Deal, seat: Seat, keep: Iterable[Seat] = ()) -> bool:
    """Whether uniform samples of the hidden hands are the seat's true posterior: no seat whose
    hand is sampled has played since it was dealt (a hand holds ``hand_size`` cards only then),
    so no choice of theirs has told anything of it.

    >>> from arena.engine import Game, rules_for
    >>> deal = Game(rules_for("scopa"), seed=5).new_deal()
    >>> is_exact(deal, deal.to_move)
    True
    >>> deal.apply(deal.legal_moves()[0])
    >>> is_exact(deal, deal.to_move)
    False
    """
    kept = {seat, *keep}
    size = deal.rules.hand_size
    return all(n == size for s, n in enumerate(deal.hand_sizes) if s not in kept)


def audit_decision(
    deal: Deal,
    chosen: Move,
    rng: random.Random,
    kind: str = "hidden",
    config: AuditConfig = AuditConfig(),
    where: tuple[int, int] = (0, 0),
) -> DecisionAudit | None:
    """The audit of the seat to move choosing ``chosen`` in the true ``deal``, or None when the
    decision says nothing (one legal move, or the chosen move best in every sample of the first
    half, where an honest seat matches for sure).

    Nothing about the true deal decides whether a decision is audited: leaving out decisions
    by what the reference shows would bias ``seen``.  The deal is left as it was.

    >>> from arena.engine import Game, rules_for
    >>> deal = Game(rules_for("scopa"), seed=5).new_deal()
    >>> moves = deal.legal_moves()
    >>> audit = audit_decision(deal, moves[0], random.Random(1))
    >>> audit is None or (0.0 <= audit.share < 1.0 and audit.exact)
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
    index = legal.index(chosen)
    half = config.samples // 2
    # The first half estimates the share, the second sizes the bet; drawn apart, the bet's size
    # says nothing of the share's sampling error.
    matched = [0, 0]
    for n in range(2 * half):
        matched[n // half] += index in best_moves(move_values(resample(deal, seat, (), rng), legal))
    share = matched[0] / half
    if share >= 1.0:
        return None  # an honest seat matches for sure: no evidence either way
    scale = 1.0 / max((matched[1] + 1) / (half + 1), SCALE_FLOOR)
    if kind == "hidden":
        references = [deal]
    else:
        assert partner is not None
        references = [resample(deal, seat, (partner,), rng) for _ in range(config.references)]
    # For ``partner`` too: the opponents' plays say something of their hands, so of the
    # partner's, which holds the rest.
    exact = is_exact(deal, seat)
    first: frozenset[int] = frozenset()
    hits = 0
    for n, reference in enumerate(references):
        best = best_moves(move_values(reference, legal))
        if n == 0:
            first = best
        hits += index in best
    return DecisionAudit(
        deal_index=where[0],
        move_index=where[1],
        seat=seat,
        kind=kind,
        chosen=chosen.name,
        best=tuple(legal[i].name for i in sorted(first)),
        share=share,
        seen=hits / len(references),
        slack=0.0 if exact else config.slack,
        scale=scale,
        exact=exact,
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
    "is_exact",
    "partner_of",
    "resample",
]
