"""The bot's tests: ``python -m unittest`` (or ``pytest``) in this folder.

The first test plays ``choose`` on every position of many deals, in this process (quick, and a
mistake shows with its traceback); the second plays a real match against the random bot through
the arena's match runner, the way the site validates an upload.
"""

from __future__ import annotations

import unittest
from pathlib import Path

from arena.engine import Game, rules_for
from arena.runner import BotRef, MatchSpec, run_match, sandbox_available
from bot import MyBot

HERE = Path(__file__).resolve().parent


class ChooseTest(unittest.TestCase):
    def test_choose_returns_a_legal_move_in_every_position(self) -> None:
        bot = MyBot()
        for variant in ("scopa", "scopone"):
            for seed in range(10):
                deal = Game(rules_for(variant), seed=seed).new_deal()
                while not deal.is_over():
                    legal = deal.legal_moves()
                    move = bot.choose(deal.observation(deal.to_move), legal)
                    self.assertIn(move, legal)
                    deal.apply(move)


class MatchTest(unittest.TestCase):
    def test_it_plays_a_match_against_random_without_a_fault(self) -> None:
        spec = MatchSpec(
            entrants=[BotRef.parse(str(HERE)), BotRef.parse("random")],
            variant="scopa",
            games=2,
            seed=1,
            move_time_ms=2000,
            bank_ms=60_000,
            sandbox=sandbox_available(),  # in bubblewrap, as on the site, when the machine has it
        )
        report = run_match(spec)
        self.assertEqual(len(report.games), 2)
        for game in report.games:
            self.assertEqual(game.faults, [], report.logs)
            self.assertFalse(game.void, game.void)


if __name__ == "__main__":
    unittest.main()
