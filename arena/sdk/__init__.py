"""The bot author's SDK: subclass :class:`Bot`, implement ``choose``, call :func:`serve`.

::

    from arena.sdk import Bot, serve

    class FirstMove(Bot):
        name = "first-move"

        def choose(self, observation, legal_moves):
            return legal_moves[0]

    if __name__ == "__main__":
        serve(FirstMove())

The SDK speaks the ``scopa.arena.v1`` protocol (protos/README.md) so a bot never sees protobuf:
observations and moves are the engine's own objects. It is a convenience, not a requirement;
the compliance checks of :mod:`arena.sdk.compliance` hold any bot to the same contract.
"""

from __future__ import annotations

from arena.sdk.bot import Bot, Clock, DealInfo, GameInfo, GameResult
from arena.sdk.server import create_server, serve

__all__ = ["Bot", "Clock", "DealInfo", "GameInfo", "GameResult", "create_server", "serve"]
