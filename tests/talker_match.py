"""A ladder match of the talker test bot (which says at each turn which turn it is) against the
random bot, played by the real runner and recorded as a worker records it: for the tests of
the bots' own game logs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.runner import BotRef, MatchSpec, run_match

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "hostile" / "bots"


def play_and_record(owner: Any, staff: Any, talker: str = "talker") -> Any:
    """A ladder match of ``talker`` (``owner``'s) against the random bot (staff's), played by
    the runner and recorded as a worker records it; returns the match."""
    from webui.league import matches, variants, versions
    from webui.league.models import Match

    mine = versions.register_folder_bot(owner, BOTS / talker)
    theirs = versions.register_folder_bot(staff, ROOT / "sample_bots" / "random")
    variant = variants.get_variant("scopa")
    match = matches.create_open_match(
        Match.Kind.LADDER, variant, [mine, theirs], games=2, rated=False
    )
    claim = matches.claim_match(match.pk, "test")
    assert claim is not None
    spec = MatchSpec(
        [BotRef.parse(str(BOTS / talker)), BotRef.parse("random")],
        "scopa",
        games=2,
        seed=11,
        move_time_ms=5_000,
    )
    report = run_match(spec)
    assert matches.record_result(claim, report.to_json(replays=True, logs=True))
    return match


def talker_seat(game: Any) -> int:
    """The seat of a recorded game where the talker (entrant 0) sat."""
    return list(game.seats).index(0)  # entrant 0 is the talker
