"""A spy bot logs every card the arena shows it; no message may carry a card hidden from its seat.

The replays give the true deal (the deck) and every move, so the engine can say, at the moment
of each message, which cards were in the other hands or the stock: none of them may appear.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import BANK_MS, HOSTILE_LIMITS, hostile, verify_replays

from arena.engine import Deal, Move, Rules, parse_card, rules_for
from arena.runner import BotRef, MatchSpec, run_match

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


def state_at(rules: Rules, deal_entry: dict[str, Any], moves: int) -> Deal:
    """The deal of a replay after its first ``moves`` moves."""
    deck = [parse_card(card) for card in deal_entry["deck"]]
    deal = Deal.from_deck(rules, deal_entry["dealer"], deck)
    for move in deal_entry["moves"][:moves]:
        deal.apply(Move.from_json(move))
    return deal


def spy_lines(log: str) -> list[list[dict[str, Any]]]:
    """The spy's log lines, one list per game (each starts at a game_start)."""
    games: list[list[dict[str, Any]]] = []
    for line in log.splitlines():
        if not line.startswith("SPY "):
            continue
        entry = json.loads(line[4:])
        if entry["kind"] == "game_start":
            games.append([])
        games[-1].append(entry)
    return games


@pytest.mark.parametrize("variant", ["scopa", "scopone"])
def test_no_message_carries_a_card_hidden_from_the_seat(
    bwrap: str, tmp_path: Path, variant: str
) -> None:
    spec = MatchSpec(
        entrants=[hostile("spy"), BotRef.parse("random")],
        variant=variant,
        games=2,
        seed=5,
        move_time_ms=1000,
        bank_ms=BANK_MS,
        replays_dir=tmp_path,
        limits=HOSTILE_LIMITS,
        pace_partners=False,  # what the messages carry, not when
    )
    report = run_match(spec)
    replays = verify_replays(tmp_path)
    rules = rules_for(variant)
    checked = 0
    for key, log in report.logs.items():
        entrant, k = (int(part) for part in key.split("/"))
        if entrant != 0:
            continue
        games = spy_lines(log)
        assert len(games) == 2
        for game_index, lines in enumerate(games):
            replay = replays[game_index]
            seat = [s for s, e in enumerate(report.games[game_index].seats) if e == 0][k]
            assert lines[0]["seat"] == seat
            # A turn is one message each way: a MovePlayed of its own only when no turn
            # request of the seat follows it in the deal.
            for entry, after in itertools.pairwise(lines):
                if entry["kind"] == "move_played":
                    assert after["kind"] in {"move_played", "deal_end", "game_end"}, after
            for entry in lines:
                if entry["deal"] < 0 or entry["kind"] in {"deal_end", "game_end"}:
                    continue
                deal_entry = replay["deals"][entry["deal"]]
                # A played card is public once played: judge that message after the move.
                moves = entry["moves"] + (entry["kind"] == "move_played")
                deal = state_at(rules, deal_entry, moves)
                hidden = set(deal.stock)
                for other, hand in enumerate(deal.hands):
                    if other != seat:
                        hidden.update(hand)
                shown = {
                    card
                    for name, cards in entry.items()
                    if name in {"hand", "table", "history", "captured", "legal", "played", "before"}
                    for card in cards
                }
                assert not shown & hidden, (entry, sorted(shown & hidden))
                if "hand" in entry:
                    assert sorted(entry["hand"]) == sorted(deal.hands[seat])
                checked += 1
    assert checked > 50
