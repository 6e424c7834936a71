"""Two partners passing symbols through think time: one thinks for a time its symbol sets,
the other reads when its own turn's request arrives.

Each seat is both. At each turn it sends the next symbol (0 to ``LEVELS - 1``: each card of
its hand, in order, modulo ``LEVELS``) by answering ``symbol * STEP_S`` seconds after its
request came, and logs ``SEND <game> <deal> <moves played> <symbol>``. It also reads: the time
from its own last answer to this request (the partner's turn and the two opponents', whose
bots answer at once) is logged as ``GAP <game> <deal> <moves played> <ms>``. Partners sit two
seats apart, so the partner's symbol was sent two moves before. A test pairs the two logs and
measures how many bits a deal carries.
"""

import sys
import time

from arena.sdk import Bot, serve

LEVELS = 12
STEP_S = 0.04


class ThinkPartners(Bot):
    name = "think-partners"

    def __init__(self):
        self.game_id = ""
        self.symbols = []
        self.answered = None

    def on_game_start(self, game):
        self.game_id = game.game_id

    def on_deal_start(self, deal):
        self.symbols = [int(card) % LEVELS for card in sorted(deal.hand)]
        self.answered = None

    def choose(self, observation, legal_moves):
        arrived = time.perf_counter()
        when = f"{self.game_id} {observation.deal_index} {len(observation.history)}"
        if self.answered is not None:
            gap = (arrived - self.answered) * 1000
            print(f"think-partners: GAP {when} {gap:.1f}", file=sys.stderr, flush=True)
        symbol = self.symbols.pop(0) if self.symbols else 0
        print(f"think-partners: SEND {when} {symbol}", file=sys.stderr, flush=True)
        time.sleep(symbol * STEP_S)
        self.answered = time.perf_counter()
        return legal_moves[0]


serve(ThinkPartners())
