"""``arena replay``: verify a game record, or print it move by move.

``arena replay verify FILE [--json]`` re-plays every move through the engine and checks the
recorded result (exit 0 when all is well, 1 otherwise; ``--json`` prints the report of
REPLAY.md).  ``arena replay show FILE`` prints the game so a person can follow it: each deal's
hands and table, each move with the Italian card names, sweeps, refills and the points.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.commands import shown as as_text
from arena.engine import Rules, card_name, italian_name, rules_for
from arena.engine.replay import (
    ReplayError,
    ReplayStep,
    read_replay,
    recorded_winner,
    verify_replay,
    walk_replay,
)
from arena.engine.scoring import POINT_CATEGORIES, DealScore
from arena.engine.state import Game

HELP = "verify and show game records (REPLAY.md format)"


def register(subparsers: Any) -> None:
    """Adds ``replay verify`` and ``replay show`` to the ``arena`` parser."""
    parser = subparsers.add_parser(
        "replay",
        help="verify and show game records (REPLAY.md format)",
        description="Verify a game record, or print it move by move.",
    )
    sub = parser.add_subparsers(dest="replay_command", metavar="ACTION", required=True)
    verify = sub.add_parser(
        "verify",
        help="re-play every move and check the recorded result",
        description="Re-plays every move of FILE through the engine and checks any recorded "
        "result. Exit status 0 when the replay is valid, 1 otherwise.",
    )
    verify.add_argument("file", metavar="FILE", help="a replay (JSON), or - for standard input")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.set_defaults(func=run_verify)
    show = sub.add_parser(
        "show",
        help="print a game move by move",
        description="Prints FILE move by move: hands, table, captures, sweeps and points.",
    )
    show.add_argument("file", metavar="FILE", help="a replay (JSON), or - for standard input")
    show.add_argument("--deal", type=int, metavar="N", help="show only deal N (from 1)")
    show.set_defaults(func=run_show)


def _read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReplayError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise ReplayError(f"{path} is a directory, not a replay") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReplayError(f"cannot read {path}: {exc}") from None


def run_verify(args: argparse.Namespace) -> int:
    """``arena replay verify``."""
    try:
        data = read_replay(_read_text(args.file))
        report = verify_replay(data)
    except ReplayError as exc:
        report = {"ok": False, "deals": [], "totals": [], "winner": None, "error": exc.to_json()}
    if args.json:
        print(json.dumps(report, indent=2))
    elif report["ok"]:
        totals = "-".join(str(t) for t in report["totals"])
        winner = "unfinished" if report["winner"] is None else f"side {report['winner']} wins"
        print(f"{args.file}: ok, {len(report['deals'])} deals, totals {totals}, {winner}")
    else:
        error = ReplayError(
            report["error"]["reason"], report["error"]["deal"], report["error"]["move"]
        )
        print(f"{args.file}: {error}", file=sys.stderr)
    return 0 if report["ok"] else 1


def _card(card: int) -> str:
    return f"{italian_name(card)} ({card_name(card)})"


def _cards(cards: Any) -> str:
    return " ".join(card_name(c) for c in cards) or "-"


def run_show(args: argparse.Namespace) -> int:
    """``arena replay show``."""
    from rich.console import Console

    console = Console(highlight=False)
    try:
        data = read_replay(_read_text(args.file))
    except ReplayError as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    deals = len(data["deals"])
    if args.deal is not None and not 1 <= args.deal <= deals:
        print(
            f"{args.file}: --deal {args.deal}: this game has {deals} deals (1 to {deals})",
            file=sys.stderr,
        )
        return 2
    rules = rules_for(data["variant"], data.get("options") or {})
    players = data.get("players") or [f"seat {s}" for s in range(rules.players)]
    console.print(
        f"[bold]{rules.label}[/bold], {rules.players} players, target {rules.target}"
        + (f", seed {data['seed']}" if data.get("seed") is not None else "")
    )
    for seat, name in enumerate(players):
        label = f" (side {rules.side_of(seat)})" if rules.partners else ""
        console.print(f"  seat {seat}: {as_text(str(name))}{label}")
    game = Game(rules, data.get("seed") or 0)
    faults = data.get("faults") or []
    shown = False
    try:
        for step in walk_replay(data, game):
            i, deal = step.deal_index, step.deal
            if step.score is not None:  # the deal is over and scored
                if shown:
                    _print_score(console, rules, game, step.score, i)
                continue
            if step.move is None:  # a deal is dealt
                shown = args.deal is None or args.deal == i + 1
                if shown:
                    console.print(
                        f"\n[bold]Deal {i + 1}[/bold], dealer seat {deal.dealer} "
                        f"({as_text(str(players[deal.dealer]))})"
                    )
                    for seat, hand in enumerate(deal.hands):
                        console.print(f"  hand of seat {seat}: {_cards(hand)}")
                    console.print(f"  table: {_cards(deal.table)}")
                continue
            if shown:
                _print_move(console, step, faults)
        if shown and data["deals"] and not game.is_over() and not step.deal.is_over():
            console.print("  (the game stops here)")
    except ReplayError as exc:
        console.file.flush()
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    result = data.get("result") or {}
    console.print()
    if data.get("void"):
        console.print(f"[bold]void[/bold]: {as_text(str(data['void']))} (counts for nobody)")
    elif result.get("forfeit"):
        forfeit = result["forfeit"]
        console.print(
            f"[bold]forfeit[/bold] by side {forfeit['side']}: {as_text(str(forfeit.get('reason')))}"
        )
    winner = recorded_winner(data, game, check=False)
    totals = " - ".join(str(t) for t in game.totals)
    if winner is not None:
        console.print(f"[bold]side {winner} wins[/bold], {totals}")
    else:
        console.print(f"no winner yet, {totals}")
    try:
        recorded_winner(data, game)
    except ReplayError as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    return 0


def _print_move(console: Any, step: ReplayStep, faults: list[dict[str, Any]]) -> None:
    """One move of ``arena replay show``, with its notes, faults, new hands and the table's
    last cards."""
    deal, move, raw_move = step.deal, step.move, step.record
    assert move is not None and step.move_index is not None
    i, j, seat = step.deal_index, step.move_index, step.seat
    text = f"  {j + 1:3}. seat {seat} plays {_card(move.card)}"
    if move.capture:
        text += ", takes " + " + ".join(card_name(c) for c in move.capture)
    elif move.card not in deal.table and not deal.is_over():
        text += " to its pile"
    if deal.scope != step.scope_before:
        text += "  [bold yellow]SCOPA![/bold yellow]"
    notes = []
    if raw_move.get("auto"):
        notes.append(f"played by the arena: {raw_move['auto']}")
    if raw_move.get("ms") is not None:
        notes.append(f"{raw_move['ms']} ms")
    if notes:
        text += f"  [dim]({', '.join(notes)})[/dim]"
    console.print(text)
    for fault in faults:
        if fault.get("deal") == i and fault.get("move") == j:
            console.print(
                f"       [red]fault[/red] seat {fault['seat']}: "
                f"{as_text(str(fault['kind']))} "
                f"{as_text(str(fault.get('detail', '')))}"
            )
    if len(deal.stock) < step.stock_before:
        console.print(
            "       new hands: "
            + "; ".join(f"seat {s}: {_cards(h)}" for s, h in enumerate(deal.hands))
        )
    if deal.is_over():
        left = set(step.table_before) - set(move.capture)
        if not move.capture:
            left.add(move.card)
        if left and deal.last_capturer is not None:
            console.print(
                f"       the table ({_cards(sorted(left))}) goes to seat "
                f"{deal.last_capturer}, the last to capture"
            )


def _print_score(console: Any, rules: Rules, game: Game, score: DealScore, i: int) -> None:
    """The points of a finished deal, the totals after it, and a cappotto."""
    from rich.table import Table

    categories = [c for c in POINT_CATEGORIES if c.is_scored(rules)]
    columns = [*(c.key for c in categories), "total"]
    # Headed by abbreviations (a variant's extra categories fit in a terminal), told below.
    table = Table(
        title=f"points of deal {i + 1}",
        title_justify="left",
        caption=", ".join(f"{c.abbreviation} {c.label} ({c.meaning})" for c in categories),
        caption_justify="left",
    )
    table.add_column("side")
    for category in categories:
        table.add_column(category.abbreviation, justify="right")
    table.add_column("Total", justify="right")
    for side, row in enumerate(score.points):
        table.add_row(str(side), *(str(row[c]) for c in columns))
    console.print(table)
    console.print(f"  totals: {' - '.join(str(t) for t in game.totals)}")
    if score.cappotto is not None:
        console.print(
            f"  [bold]cappotto[/bold]: side {score.cappotto} took every coin and wins the game"
        )
