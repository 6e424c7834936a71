"""A bot that says on stderr, at each of its turns, which turn it is (its seat, the deal, its
own count of turns in that deal); run with ``--loud``, 2 KiB lines more each turn. It
plays the first legal move. The runner must file each line under the turn it was written in."""

import sys

from arena.sdk import Bot, serve

LOUD = "--loud" in sys.argv


class Talker(Bot):
    name = "talker"

    def __init__(self):
        self.turns = {}

    def on_game_start(self, game):
        self.turns = {}
        print("talker: a game starts", file=sys.stderr, flush=True)

    def choose(self, observation, legal_moves):
        deal = observation.deal_index
        turn = self.turns.get(deal, 0)
        self.turns[deal] = turn + 1
        print(f"talker: seat {observation.seat} deal {deal} turn {turn}", file=sys.stderr)
        if LOUD:
            for _ in range(4):
                print("y" * 2048, file=sys.stderr)
        sys.stderr.flush()
        return legal_moves[0]


serve(Talker())
