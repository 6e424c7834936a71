"""Replays: reading, verifying (both deal forms), recording, golden files, the commands."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.engine import (
    POINT_CATEGORIES,
    VARIANTS,
    Game,
    ReplayError,
    ReplayRecorder,
    Rng,
    card_name,
    parse_cards,
    random_game_replay,
    read_replay,
    rules_for,
    verify_replay,
    write_replay,
)
from arena.engine.cards import cards_text
from arena.engine.state import Deal

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_SEED = 20240601  # the seed in scripts/regen-golden
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def replay() -> dict[str, Any]:
    """A finished game of scopa with random moves."""
    return random_game_replay(rules_for("scopa"), 77, ["alice", "bob"])


# -- a pinned deal -----------------------------------------------------------------------------


def test_a_known_seed_deals_the_same_cards_on_every_python() -> None:
    # SplitMix64 and our own Fisher-Yates: pinned so that no change of Python or of the engine
    # can silently re-deal old seeds.
    assert cards_text(Game.deck_for(12345, 0)) == (
        "1c 10b 3s 1b 7d 8c 8d 7c 4d 5d 3d 10s 5c 9d 3b 9b 9s 4b 3c 6c "
        "2b 2c 2s 1s 7b 4c 10d 6b 8s 4s 6s 5s 6d 9c 8b 7s 1d 2d 10c 5b"
    )
    assert cards_text(Game.deck_for(12345, 0, 1))[:14] == "2b 8s 2d 7b 8d"
    assert Game.first_dealer(rules_for("scopone"), 12345) == 1
    deal = Game(rules_for("scopa"), 12345).new_deal()
    assert (deal.dealer, cards_text(deal.hands[1]), cards_text(deal.table)) == (
        0,
        "7d 1c 3s",
        "4d 5d 8d 7c",
    )
    assert hex(Rng(0).next_u64()) == "0xe220a8397b1dcdaf"  # SplitMix64's reference output


# -- golden replays ----------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_golden_replays_are_reproduced_exactly_and_verify(variant: str) -> None:
    path = GOLDEN / f"{variant}.json"
    text = path.read_text(encoding="utf-8")
    assert f"GOLDEN_SEED = {GOLDEN_SEED}" in (ROOT / "scripts" / "regen-golden").read_text()
    expected = write_replay(random_game_replay(VARIANTS[variant], GOLDEN_SEED))
    assert text == expected, f"{path.name} is stale: run scripts/regen-golden and read the diff"
    report = verify_replay(read_replay(text))
    assert report["ok"] and report["winner"] is not None


# -- reading and verifying ---------------------------------------------------------------------


def test_verify_reports_the_shape_of_replay_md(replay: dict[str, Any]) -> None:
    report = verify_replay(replay)
    assert set(report) == {"ok", "deals", "totals", "winner"}
    assert report["ok"] is True
    for deal in report["deals"]:
        assert set(deal) == {"points", "cappotto"}
        for row in deal["points"]:
            assert list(row) == [
                "carte",
                "denari",
                "settebello",
                "primiera",
                "scope",
                "re_bello",
                "napoli",
                "sette_tutti",
                "total",
            ]
    assert report["totals"] == [
        sum(d["points"][s]["total"] for d in report["deals"]) for s in range(2)
    ]


def test_the_explicit_hands_form_verifies_like_the_deck_form(replay: dict[str, Any]) -> None:
    rules = rules_for("scopa")
    explicit = copy.deepcopy(replay)
    for raw in explicit["deals"]:
        deal = Deal.from_deck(rules, raw["dealer"], parse_cards(raw.pop("deck")))
        raw["hands"] = [[card_name(c) for c in hand] for hand in deal.hands]
        raw["table"] = [card_name(c) for c in deal.table]
        raw["stock"] = [card_name(c) for c in deal.stock]
    assert verify_replay(read_replay(write_replay(explicit))) == verify_replay(replay)


def broken(replay: dict[str, Any], change: Any) -> dict[str, Any]:
    data = copy.deepcopy(replay)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "deal", "move", "reason"),
    [
        (lambda d: d.update(variant="briscola"), None, None, "unknown variant 'briscola'"),
        (lambda d: d.update(options={"targte": 3}), None, None, "unknown option 'targte'"),
        (lambda d: d.update(version=2), None, None, "unsupported version 2"),
        (lambda d: d.update(players=["a"]), None, None, "2 seats but 1 players"),
        (lambda d: d["deals"][1]["deck"].__setitem__(5, "11d"), 1, None, "not a card: '11d'"),
        (
            lambda d: d["deals"][1]["deck"].__setitem__(5, d["deals"][1]["deck"][6]),
            1,
            None,
            "appears twice",
        ),
        (lambda d: d["deals"][0]["deck"].pop(), 0, None, "39 cards, not 40"),
        (lambda d: d["deals"][0]["moves"][3].update(card="7x"), 0, 3, "not a card: '7x'"),
        (
            lambda d: d["deals"][0]["moves"][2].update(seat=1 - d["deals"][0]["moves"][2]["seat"]),
            0,
            2,
            "it is seat",
        ),
        (
            lambda d: d["deals"][0]["moves"][4].update(card="10d", capture=["1s", "2s"]),
            0,
            4,
            "seat",
        ),
        (lambda d: d["deals"][1]["moves"].pop(), 1, None, "before every card is played"),
        (
            lambda d: d["deals"][1].update(dealer=d["deals"][0]["dealer"]),
            1,
            None,
            "the deal passes to seat",
        ),
        (lambda d: d["result"].update(totals=[0, 0]), "last", None, "the result says totals"),
        (
            lambda d: d["result"].update(winner=1 - d["result"]["winner"]),
            "last",
            None,
            "the result says winner",
        ),
        (lambda d: d["deals"][0]["moves"][0].update(auto="magic"), 0, 0, "'auto' must be"),
        (
            lambda d: d.update(faults=[{"deal": 0, "move": 0, "seat": 0, "kind": "sulk"}]),
            None,
            None,
            "fault kind",
        ),
    ],
)
def test_a_bad_replay_names_the_deal_and_move_and_why(
    replay: dict[str, Any], change: Any, deal: Any, move: Any, reason: str
) -> None:
    data = broken(replay, change)
    report = verify_replay(data)
    assert report["ok"] is False
    if deal == "last":
        deal = len(data["deals"]) - 1
    assert (report["error"]["deal"], report["error"]["move"]) == (deal, move)
    assert reason in report["error"]["reason"]


def test_a_move_after_the_end_of_the_deal_is_refused(replay: dict[str, Any]) -> None:
    data = broken(replay, lambda d: d["deals"][0]["moves"].append(d["deals"][0]["moves"][-1]))
    report = verify_replay(data)
    assert report["error"]["deal"] == 0 and report["error"]["move"] == 36
    assert "over" in report["error"]["reason"]


def test_a_deal_after_the_game_was_won_is_refused(replay: dict[str, Any]) -> None:
    data = broken(replay, lambda d: d["deals"].append(copy.deepcopy(d["deals"][0])))
    assert "already won" in verify_replay(data)["error"]["reason"]


def test_a_deck_that_must_be_thrown_in_is_no_deal() -> None:
    rules = rules_for("scopa")
    deck = [c for c in range(40) if c % 10 != 9]
    deck = [*deck[:6], 9, 19, 29, *deck[6:], 39]  # three Re on the starting table
    data = {
        "format": "scopa-replay",
        "version": 1,
        "variant": "scopa",
        "deals": [{"dealer": 0, "deck": [card_name(c) for c in deck], "moves": []}],
    }
    assert {9, 19, 29} <= set(Deal.from_deck(rules, 0, deck).table)
    report = verify_replay(data)
    assert report["error"]["deal"] == 0 and "thrown in" in report["error"]["reason"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{", "not JSON"),
        ("[]", "a replay is a JSON object"),
        ('{"format": "pgn"}', "'format' must be 'scopa-replay'"),
    ],
)
def test_read_replay_refuses_what_is_not_a_replay(text: str, reason: str) -> None:
    with pytest.raises(ReplayError, match=reason):
        read_replay(text)


def test_explicit_hands_must_hold_the_forty_cards_once(replay: dict[str, Any]) -> None:
    deal = Deal.from_deck(rules_for("scopa"), 0, list(range(40)))
    raw = {
        "dealer": 0,
        "moves": [],
        "hands": [[card_name(c) for c in h] for h in deal.hands],
        "table": [card_name(c) for c in deal.table],
        "stock": [card_name(c) for c in deal.stock],
    }
    base = {"format": "scopa-replay", "version": 1, "variant": "scopa", "deals": [raw]}
    assert verify_replay(base)["ok"]
    missing = copy.deepcopy(base)
    missing["deals"][0]["stock"].pop()
    assert "missing: 10s" in verify_replay(missing)["error"]["reason"]
    twice = copy.deepcopy(base)
    twice["deals"][0]["table"][0] = twice["deals"][0]["hands"][0][0]
    assert "dealt twice" in verify_replay(twice)["error"]["reason"]


# -- recording: forfeits, voids, faults, clocks -------------------------------------------------


def _partial_game(**finish: Any) -> dict[str, Any]:
    rules = rules_for("scopa")
    game = Game(rules, 4)
    recorder = ReplayRecorder(rules, 4, ["a", "b"])
    deal = game.new_deal()
    recorder.start_deal(game, deal)
    for _ in range(5):
        seat, move = deal.to_move, deal.legal_moves()[0]
        deal.apply(move)
        recorder.record_move(seat, move, ms=12, clock_ms=9000)
    recorder.record_fault(deal.to_move, "timeout", "no answer in 1000 ms")
    seat, move = deal.to_move, deal.legal_moves()[0]
    deal.apply(move)
    recorder.record_move(seat, move, ms=1000, clock_ms=0, auto="timeout")
    return recorder.finish(game, **finish)


def test_a_forfeited_game_verifies_and_the_other_side_wins() -> None:
    data = _partial_game(
        forfeit=(1, "crashed"), started_at="2026-01-01T00:00:00Z", duration_ms=1234, match="m-1"
    )
    assert data["result"] == {
        "totals": [0, 0],
        "winner": 0,
        "forfeit": {"side": 1, "reason": "crashed"},
    }
    assert data["faults"] == [
        {"deal": 0, "move": 5, "seat": 1, "kind": "timeout", "detail": "no answer in 1000 ms"}
    ]
    assert data["deals"][0]["moves"][5]["auto"] == "timeout"
    assert data["deals"][0]["moves"][0]["ms"] == 12 and data["deals"][0]["moves"][0]["clock"]
    again = read_replay(write_replay(data))
    assert again == data
    report = verify_replay(again)
    assert report["ok"] and report["winner"] == 0 and report["deals"] == []


def test_a_void_game_counts_for_nobody() -> None:
    data = _partial_game(void="the arena lost its worker")
    assert data["void"] == "the arena lost its worker" and data["result"]["winner"] is None
    report = verify_replay(read_replay(write_replay(data)))
    assert report["ok"] and report["winner"] is None


# -- the commands ------------------------------------------------------------------------------


@pytest.fixture
def replay_file(tmp_path: Path, replay: dict[str, Any]) -> Path:
    path = tmp_path / "game.json"
    path.write_text(write_replay(replay), encoding="utf-8")
    return path


def test_arena_replay_verify_json_prints_the_report(
    replay_file: Path, replay: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "verify", str(replay_file), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == verify_replay(replay)
    assert main(["replay", "verify", str(replay_file)]) == 0
    assert "ok" in capsys.readouterr().out


def test_arena_replay_verify_fails_with_one_line(
    tmp_path: Path, replay: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    bad = broken(replay, lambda d: d["deals"][1]["moves"][7].update(seat=9))
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert main(["replay", "verify", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deal 2, move 8" in err  # from 1, as on the site
    assert main(["replay", "verify", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False and report["error"]["deal"] == 1


def test_arena_replay_show_prints_the_game_move_by_move(
    replay_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "show", str(replay_file)]) == 0
    out = capsys.readouterr().out
    assert "Deal 1," in out and "Deal 0" not in out and " di " in out and "wins" in out
    assert "    1. seat" in out and "points of deal 1" in out
    assert main(["replay", "show", str(replay_file), "--deal", "2"]) == 0
    shown = capsys.readouterr().out
    assert "Deal 2," in shown and "Deal 1," not in shown


@pytest.mark.parametrize("variant", ["scopa", "scopa-veneta"])
def test_arena_replay_show_heads_its_points_with_the_engine_s_categories(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = rules_for(variant)
    path = tmp_path / "game.json"
    path.write_text(write_replay(random_game_replay(rules, 7)), encoding="utf-8")
    assert main(["replay", "show", str(path), "--deal", "1"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "side" in line and "Total" in line)
    heads = header.replace("\u2503", "|").replace("\u2502", "|").split("|")
    scored = [c for c in POINT_CATEGORIES if c.is_scored(rules)]
    assert [h.strip() for h in heads if h.strip()] == [
        "side",
        *(c.abbreviation for c in scored),
        "Total",
    ]
    legend = " ".join(out.split())
    assert ", ".join(f"{c.abbreviation} {c.label} ({c.meaning})" for c in scored) in legend
    assert (variant == "scopa-veneta") == any(c.key == "re_bello" for c in scored)


@pytest.mark.parametrize("deal", ["0", "99"])
def test_arena_replay_show_names_a_deal_the_game_has_not(
    deal: str, replay_file: Path, replay: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["replay", "show", str(replay_file), "--deal", deal]) == 2
    deals = len(replay["deals"])
    assert capsys.readouterr().err == (
        f"{replay_file}: --deal {deal}: this game has {deals} deals (1 to {deals})\n"
    )


def test_the_commands_never_print_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_text(
        '{"format": "scopa-replay", "version": 1, "variant": "scopa", "deals": '
        '[{"dealer": 0, "deck": ["7d", "7d"], "moves": []}]}'
    )
    for action in ("verify", "show"):
        for target in (str(path), str(tmp_path / "missing.json"), str(tmp_path)):
            done = subprocess.run(
                [sys.executable, "-m", "arena.cli", "replay", action, target],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 1, done
            assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_a_deal_the_game_did_not_deal_is_recorded_by_its_hands() -> None:
    rules = rules_for("scopone")
    game = Game(rules, 3)
    game.new_deal()  # the game's own deck is not what is played below
    deal = game.prepare(Deal.from_deck(rules, game.dealer, Game.deck_for(99, 0)))
    recorder = ReplayRecorder(rules, 3, ["a", "b", "c", "d"])
    recorder.start_deal(game, deal)
    assert "deck" not in recorder.data["deals"][0]
    assert len(recorder.data["deals"][0]["hands"][0]) == 9
    while not deal.is_over():
        seat, move = deal.to_move, deal.legal_moves()[0]
        deal.apply(move)
        recorder.record_move(seat, move)
    game.finish_deal(deal)
    report = verify_replay(read_replay(write_replay(recorder.finish(game))))
    assert report["ok"] and report["totals"] == game.totals
