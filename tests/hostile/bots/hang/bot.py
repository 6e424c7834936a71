"""A bot that never answers a turn."""

import time

from arena.sdk import Bot, serve


class Hang(Bot):
    name = "hang"

    def choose(self, observation, legal_moves):
        time.sleep(3600)
        return legal_moves[0]


serve(Hang())
