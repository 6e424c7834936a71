"""The moves of a real match, as the runner hands them to a live publisher: for the tests of
the live pages, which feed them to :class:`webui.league.live.LivePublisher` a few at a time
as a worker does."""

from __future__ import annotations

import functools
from typing import Any


@functools.cache
def played_moves(seed: int = 5) -> tuple[Any, ...]:
    """Every move (``on_move``) of a two-game match of the random and greedy sample bots,
    played by the runner outside any sandbox, in order."""
    from arena.runner import BotRef, MatchSpec, run_match

    moves: list[Any] = []
    spec = MatchSpec(
        [BotRef.parse("random"), BotRef.parse("greedy")],
        "scopa",
        games=2,
        seed=seed,
        sandbox=False,
        on_move=moves.append,
    )
    run_match(spec, lambda done, total, outcome: None)
    return tuple(moves)


def publish(publisher: Any, count: int) -> None:
    """Hands the publisher the moves it has not had of the first ``count`` and writes them."""
    moves = played_moves()
    start = getattr(publisher, "fed", 0)
    for move in moves[start:count]:
        publisher.on_move(move)
    publisher.fed = max(start, count)
    assert publisher.publish()
