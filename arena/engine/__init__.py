"""The Scopa rules engine: cards, variants, deals, legal moves, scoring, observations, replays.

Pure Python with no I/O and no dependencies beyond the standard library; deterministic from a
seed on every Python version.  It knows nothing of bots, gRPC, Celery or Django.

>>> from arena.engine import Game, rules_for
>>> deal = Game(rules_for("scopa"), seed=1).new_deal()
>>> len(deal.legal_moves()) >= 3
True
"""

from typing import TYPE_CHECKING, Any

from arena.engine.cards import (
    DECK,
    Card,
    CardError,
    EngineError,
    IllegalMoveError,
    Seat,
    Side,
    VariantError,
    card_name,
    italian_name,
    parse_card,
    parse_cards,
    rank_of,
    suit_of,
)
from arena.engine.moves import Move, parse_move
from arena.engine.observation import Observation
from arena.engine.rng import Rng
from arena.engine.scoring import (
    CATEGORIES,
    POINT_CATEGORIES,
    POINT_KEYS,
    Category,
    DealScore,
    deal_counts,
    score_deal,
    side_points,
)
from arena.engine.state import Deal, Game, needs_redeal
from arena.engine.variants import (
    OPTION_NAMES,
    VARIANTS,
    Rules,
    forfeit_winner,
    rules_for,
    side_of_seat,
)

# Last: the compiled core (where built) takes over the deals made from here on.
from arena.engine import core  # noqa: F401  isort: skip

if TYPE_CHECKING:
    from arena.engine.replay import (
        ReplayError,
        ReplayRecorder,
        ReplayStep,
        random_game_replay,
        read_replay,
        recorded_winner,
        result_winner,
        verify_replay,
        walk_replay,
        write_replay,
    )

_REPLAY_NAMES = frozenset(
    {
        "ReplayError",
        "ReplayRecorder",
        "ReplayStep",
        "random_game_replay",
        "read_replay",
        "recorded_winner",
        "result_winner",
        "verify_replay",
        "walk_replay",
        "write_replay",
    }
)


def __getattr__(name: str) -> Any:
    # Replays are imported on first use: a bot process never needs them, and each of its
    # starts would pay for them (json, hashlib and the module itself).
    if name in _REPLAY_NAMES:
        from arena.engine import replay

        value = getattr(replay, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'arena.engine' has no attribute {name!r}")


__all__ = [
    "CATEGORIES",
    "DECK",
    "OPTION_NAMES",
    "POINT_CATEGORIES",
    "POINT_KEYS",
    "VARIANTS",
    "Card",
    "CardError",
    "Category",
    "Deal",
    "DealScore",
    "EngineError",
    "Game",
    "IllegalMoveError",
    "Move",
    "Observation",
    "ReplayError",
    "ReplayRecorder",
    "ReplayStep",
    "Rng",
    "Rules",
    "Seat",
    "Side",
    "VariantError",
    "card_name",
    "deal_counts",
    "forfeit_winner",
    "italian_name",
    "needs_redeal",
    "parse_card",
    "parse_cards",
    "parse_move",
    "random_game_replay",
    "rank_of",
    "read_replay",
    "recorded_winner",
    "result_winner",
    "rules_for",
    "score_deal",
    "side_of_seat",
    "side_points",
    "suit_of",
    "verify_replay",
    "walk_replay",
    "write_replay",
]
