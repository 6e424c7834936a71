"""The viewer's frames: every golden replay expands through the engine, frame by frame, into
states that agree with the engine's own verification; bad replays stop with a clear reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.engine import verify_replay
from webui.web.replay_frames import FramesError, card_label, expand_replay

GOLDEN = sorted((Path(__file__).resolve().parents[2] / "engine" / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_golden_replay_expands_into_frames_that_agree_with_verify(path: Path) -> None:
    replay = json.loads(path.read_text())
    report = verify_replay(replay)
    frames = expand_replay(path.read_text())
    assert frames["error"] is None
    assert len(frames["deals"]) == len(replay["deals"])
    moves = sum(len(d["moves"]) for d in replay["deals"])
    assert len(frames["frames"]) == moves + len(replay["deals"])  # one per move + the deal
    for info, raw, verified in zip(frames["deals"], replay["deals"], report["deals"], strict=True):
        last = frames["frames"][info["last_frame"]]
        assert last["score"] is not None
        assert last["score"]["points"] == verified["points"]
        sweeps = sum(
            1
            for f in frames["frames"][info["first_frame"] : info["last_frame"] + 1]
            if f["move"] and f["move"]["scopa"]
        )
        assert sweeps == sum(p["scope"] for p in verified["points"])
        first = frames["frames"][info["first_frame"]]
        assert first["move"] is None and first["dealer"] == raw["dealer"]
        # every card is somewhere at every moment: hands, table, stock and the piles make 40
        for f in frames["frames"][info["first_frame"] : info["last_frame"] + 1]:
            held = sum(len(h) for h in f["hands"]) + len(f["table"]) + f["stock"]
            assert held + sum(f["captured"]) == 40
    assert frames["frames"][-1]["score"]["totals"] == report["totals"]
    assert frames["winner"] == report["winner"]


def test_each_move_frame_shows_the_move_that_led_to_it() -> None:
    replay = json.loads(GOLDEN[0].read_text())
    frames = expand_replay(replay)["frames"]
    first_moves = replay["deals"][0]["moves"]
    for raw, frame in zip(first_moves, frames[1:], strict=False):
        assert frame["move"]["seat"] == raw["seat"]
        assert frame["move"]["card"] == raw["card"]
        assert sorted(frame["move"]["capture"]) == sorted(raw["capture"])
        assert raw["card"] not in frame["hands"][raw["seat"]]


def test_an_illegal_move_stops_the_frames_there_with_a_reason() -> None:
    replay = json.loads(GOLDEN[0].read_text())
    moves = replay["deals"][0]["moves"]
    moves[5] = dict(moves[5], card=moves[4]["card"])  # a card already played
    frames = expand_replay(replay)
    assert frames["error"]["deal"] == 0 and frames["error"]["move"] == 5
    assert frames["error"]["reason"]
    assert len(frames["frames"]) == 6  # the deal and the five good moves


def test_faults_are_shown_at_their_move() -> None:
    replay = json.loads(GOLDEN[0].read_text())
    replay["faults"] = [
        {
            "deal": 0,
            "move": 2,
            "seat": replay["deals"][0]["moves"][2]["seat"],
            "kind": "timeout",
            "detail": "no answer within 1000 ms",
        }
    ]
    frames = expand_replay(replay)
    assert [f["kind"] for f in frames["frames"][3]["faults"]] == ["timeout"]
    assert sum(len(f["faults"]) for f in frames["frames"]) == 1


@pytest.mark.parametrize(
    "text",
    [
        '{"format": "scopa-replay"}',
        "not json",
        "[]",
        '{"format": "scopa-replay", "version": 1, "variant": "poker", "deals": []}',
    ],
)
def test_it_rejects_an_unreadable_replay(text: str) -> None:
    with pytest.raises(FramesError, match="not a readable replay"):
        expand_replay(text)


def test_cards_have_their_italian_names() -> None:
    assert card_label("7d") == "Sette di denari"
    assert card_label("10s") == "Re di spade"
    assert card_label("1c") == "Asso di coppe"
