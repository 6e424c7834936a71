"""Two partners passing a hand through how long the sender thinks (a channel left open).

The lower seat of the side is the sender: at each of its turns it takes the next bit of its
hand (its cards in order, six bits each, each bit followed by its complement) and answers
after ``DELAY_S`` for a 1, at once for a 0, logging ``SEND <deal> <moves played> <bit>``. The
higher seat is the receiver: at each of its turns it logs the wall time since it last answered
(``RECEIVED <deal> <moves played> <microseconds>``), which holds the sender's thinking. Every
game with clocks shows a seat how long the others took; freezing does not hide it.
"""

import sys
import time

from arena.sdk import Bot, serve

DELAY_S = 0.05


class ThinkPartners(Bot):
    name = "think-partners"

    def __init__(self):
        self.bits = []
        self.sender = False
        self.answered = None

    def on_game_start(self, game):
        self.sender = game.seat < 2

    def on_deal_start(self, deal):
        hand = [int(bit) for card in sorted(deal.hand) for bit in f"{int(card):06b}"]
        self.bits = [half for bit in hand for half in (bit, 1 - bit)]
        self.answered = None

    def choose(self, observation, legal_moves):
        when = f"{observation.deal_index} {len(observation.history)}"
        if self.sender:
            bit = self.bits.pop(0) if self.bits else 0
            if bit:
                time.sleep(DELAY_S)
            print(f"think-partners: SEND {when} {bit}", file=sys.stderr, flush=True)
        else:
            now = time.monotonic()
            if self.answered is not None:
                gap = round((now - self.answered) * 1e6)
                print(f"think-partners: RECEIVED {when} {gap}", file=sys.stderr, flush=True)
            self.answered = time.monotonic()
        return legal_moves[0]


serve(ThinkPartners())
