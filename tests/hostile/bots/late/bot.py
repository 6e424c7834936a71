"""A bot that answers its first turn of each game too late, then plays on in time."""

import time

from arena.sdk import Bot, serve


class Late(Bot):
    name = "late"

    def on_game_start(self, game):
        self.late = True

    def choose(self, observation, legal_moves):
        if self.late:
            self.late = False
            time.sleep(self.clock.move_ms / 1000 + 0.05)  # late, but not into the next turn
        return legal_moves[-1]


serve(Late())
