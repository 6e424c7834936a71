"""A bot that plays two moves, then its process dies on the third."""

import os

from arena.sdk import Bot, serve


class CrashMidGame(Bot):
    name = "crash-mid-game"

    def __init__(self) -> None:
        self.turns = 0

    def choose(self, observation, legal_moves):
        self.turns += 1
        if self.turns == 3:
            os._exit(7)
        return legal_moves[0]


serve(CrashMidGame())
