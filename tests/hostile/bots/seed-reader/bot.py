"""A bot that tries to learn the hidden cards from seeds and from memory.

At its first turn of each game it re-deals the game with ``arena.engine`` from every seed it
can guess (its own ``SCOPA_BOT_SEED``, the numbers in its game id, small numbers through the
runner's public formula for a duplicate set's seed) and looks for the deal whose hand for its
seat is the hand it holds. It also remembers each game (in the process, and in every folder
it can write) and, in the next game, looks for its hand among the hands it saw played: in a
duplicate set the next game deals the same cards with the seats swapped. When either works it
logs ``FOUND`` and ``GUESS <seat> <cards>`` (its belief of an opponent's hand).
"""

import json
import os
import re
import sys

from arena.engine import Game, card_name
from arena.runner.match import set_seed
from arena.sdk import Bot, serve

MEMORY_FILES = ["/tmp/seed-reader.json", "/bot/seed-reader.json", "/sock/seed-reader.json"]
SMALL_SEEDS = 3000


def log(text):
    print(f"seed-reader: {text}", file=sys.stderr, flush=True)


def names(cards):
    return " ".join(sorted(card_name(c) for c in cards))


class SeedReader(Bot):
    name = "seed-reader"

    def __init__(self):
        self.games = self.load_memory()  # earlier games: {"hands": {seat: [cards]}, ...}
        self.current = None
        self.first_turn = True

    def load_memory(self):
        for path in MEMORY_FILES:
            try:
                with open(path) as handle:
                    games = json.load(handle)
                log(f"memory read from {path}")
                return games
            except OSError:
                continue
        log("no memory of an earlier game")
        return []

    def save_memory(self):
        for path in MEMORY_FILES:
            try:
                with open(path, "w") as handle:
                    json.dump(self.games, handle)
            except OSError as error:
                log(f"cannot keep memory in {path}: {type(error).__name__}")

    def on_game_start(self, game):
        self.info = game
        self.first_turn = True
        self.current = {"played": {}}  # the first deal's cards, in the order each seat played
        self.deal_index = -1

    def on_deal_start(self, deal):
        self.deal_index += 1
        if self.deal_index == 0:
            self.hand = list(deal.hand)
            self.table = sorted(deal.table)
            self.dealer = deal.dealer

    def on_move(self, seat, move, by_arena):
        if self.current is not None and self.deal_index == 0:
            self.current["played"].setdefault(str(seat), []).append(move.card)

    def on_game_end(self, result):
        self.games.append(self.current)
        self.save_memory()

    def choose(self, observation, legal_moves):
        if self.first_turn:
            self.first_turn = False
            self.from_seeds(observation)
            self.from_memory(observation)
        return legal_moves[0]

    def candidates(self):
        numbers = [int(os.environ.get("SCOPA_BOT_SEED", "0"))]
        numbers += [int(n) for n in re.findall(r"\d+", self.info.game_id)]
        numbers += range(SMALL_SEEDS)
        for number in numbers:
            yield number
            yield set_seed(number, 0)
            yield set_seed(number, 1)

    def from_seeds(self, observation):
        rules = self.info.rules
        start = sorted(self.hand)
        for seed in self.candidates():
            game = Game(rules, seed)
            deal = game.new_deal()
            if (
                sorted(deal.hands[self.info.seat]) == start
                and sorted(deal.table) == self.table
                and deal.dealer == self.dealer
            ):
                log(f"FOUND the game seed {seed}")
                for seat in range(rules.players):
                    if seat != self.info.seat:
                        log(f"GUESS {seat} {names(deal.hands[seat])}")
                return
        log(f"no seed found among {SMALL_SEEDS} small numbers and my own")

    def from_memory(self, observation):
        size = len(self.hand)
        for earlier in self.games:
            then = earlier["played"]
            if sorted(then.get(str(self.info.seat), [])[:size]) == sorted(self.hand):
                log("FOUND my hand: this seat's first cards in an earlier game of the set")
                for seat, cards in then.items():
                    if int(seat) != self.info.seat:
                        log(f"GUESS {seat} {names(cards[:size])}")
                return
        log(f"nothing remembered matches ({len(self.games)} earlier games)")


serve(SeedReader())
