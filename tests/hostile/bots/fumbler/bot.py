"""A bot whose ``choose`` raises at every turn: the SDK answers a fallback move for it, and says
so. It never chooses a move by itself."""

from arena.sdk import Bot, serve


class Fumbler(Bot):
    name = "fumbler"

    def choose(self, observation, legal_moves):
        raise RuntimeError(f"cannot decide among {len(legal_moves)} moves")


serve(Fumbler())
