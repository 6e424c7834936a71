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
from arena.engine import EngineError, Move, card_name, italian_name, rules_for
from arena.engine.replay import ReplayError, deal_of, read_replay, verify_replay
from arena.engine.scoring import CATEGORIES
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
        error = ReplayError(report["error"]["reason"], report["error"]["deal"],
                            report["error"]["move"])
        print(f"{args.file}: {error}", file=sys.stderr)
    return 0 if report["ok"] else 1


_OPTIONAL = ("re_bello", "napoli", "sette_tutti")


def _card(card: int) -> str:
    return f"{italian_name(card)} ({card_name(card)})"


def _cards(cards: Any) -> str:
    return " ".join(card_name(c) for c in cards) or "-"


def run_show(args: argparse.Namespace) -> int:
    """``arena replay show``."""
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    try:
        data = read_replay(_read_text(args.file))
    except ReplayError as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    deals = len(data["deals"])
    if args.deal is not None and not 1 <= args.deal <= deals:
        print(f"{args.file}: --deal {args.deal}: this game has {deals} deals (1 to {deals})",
              file=sys.stderr)
        return 2
    rules = rules_for(data["variant"], data.get("options") or {})
    players = data.get("players") or [f"seat {s}" for s in range(rules.players)]
    console.print(f"[bold]{rules.label}[/bold], {rules.players} players, target {rules.target}"
                  + (f", seed {data['seed']}" if data.get("seed") is not None else ""))
    for seat, name in enumerate(players):
        label = f" (side {rules.side_of(seat)})" if rules.partners else ""
        console.print(f"  seat {seat}: {as_text(str(name))}{label}")
    game = Game(rules, data.get("seed") or 0)
    faults = data.get("faults") or []
    try:
        for i, raw in enumerate(data["deals"]):
            if i == 0:
                game.dealer = raw["dealer"]
            try:
                deal = game.prepare(deal_of(rules, raw, i))
            except ReplayError:
                raise
            except EngineError as exc:
                raise ReplayError(str(exc), i) from None
            shown = args.deal is None or args.deal == i + 1
            if shown:
                console.print(f"\n[bold]Deal {i + 1}[/bold], dealer seat {deal.dealer} "
                              f"({as_text(str(players[deal.dealer]))})")
                for seat, hand in enumerate(deal.hands):
                    console.print(f"  hand of seat {seat}: {_cards(hand)}")
                console.print(f"  table: {_cards(deal.table)}")
            for j, raw_move in enumerate(raw["moves"]):
                seat = raw_move["seat"]
                if seat != deal.to_move or deal.is_over():
                    raise ReplayError(f"seat {seat} played, but it is seat {deal.to_move}'s turn",
                                      i, j)
                move = Move.from_json(raw_move)
                scope_before = deal.scope
                stock_before = len(deal.stock)
                table_before = set(deal.table)
                try:
                    deal.apply(move)
                except EngineError as exc:
                    raise ReplayError(f"seat {seat}: {exc}", i, j) from None
                if not shown:
                    continue
                text = f"  {j + 1:3}. seat {seat} plays {_card(move.card)}"
                if move.capture:
                    text += ", takes " + " + ".join(card_name(c) for c in move.capture)
                elif move.card not in deal.table and not deal.is_over():
                    text += " to its pile"
                if deal.scope != scope_before:
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
                        console.print(f"       [red]fault[/red] seat {fault['seat']}: "
                                      f"{as_text(str(fault['kind']))} "
                                      f"{as_text(str(fault.get('detail', '')))}")
                if len(deal.stock) < stock_before:
                    console.print("       new hands: " + "; ".join(
                        f"seat {s}: {_cards(h)}" for s, h in enumerate(deal.hands)))
                if deal.is_over():
                    left = table_before - set(move.capture)
                    if not move.capture:
                        left.add(move.card)
                    if left and deal.last_capturer is not None:
                        console.print(f"       the table ({_cards(sorted(left))}) goes to seat "
                                      f"{deal.last_capturer}, the last to capture")
            if not deal.is_over():
                if i != len(data["deals"]) - 1:
                    raise ReplayError("the deal stops before every card is played", i)
                if shown:
                    console.print("  (the game stops here)")
                break
            score = game.finish_deal(deal)
            if shown:
                columns = [c for c in (*CATEGORIES, "total") if c not in _OPTIONAL
                           or getattr(rules, c)]
                table = Table(title=f"points of deal {i + 1}", title_justify="left")
                table.add_column("side")
                for category in columns:
                    table.add_column(category.replace("_", " "), justify="right")
                for side, row in enumerate(score.points):
                    table.add_row(str(side), *(str(row[c]) for c in columns))
                console.print(table)
                console.print(f"  totals: {' - '.join(str(t) for t in game.totals)}")
                if score.cappotto is not None:
                    console.print(f"  [bold]cappotto[/bold]: side {score.cappotto} took every "
                                  "coin and wins the game")
    except ReplayError as exc:
        console.file.flush()
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 1
    result = data.get("result") or {}
    report = verify_replay(data)
    console.print()
    if data.get("void"):
        console.print(f"[bold]void[/bold]: {as_text(str(data['void']))} (counts for nobody)")
    elif result.get("forfeit"):
        forfeit = result["forfeit"]
        console.print(f"[bold]forfeit[/bold] by side {forfeit['side']}: "
                      f"{as_text(str(forfeit.get('reason')))}")
    if report["winner"] is not None:
        console.print(f"[bold]side {report['winner']} wins[/bold], "
                      f"{' - '.join(str(t) for t in report['totals'])}")
    else:
        console.print(f"no winner yet, {' - '.join(str(t) for t in report['totals'])}")
    if not report["ok"]:
        error = report["error"]
        print(f"{args.file}: {ReplayError(error['reason'], error['deal'], error['move'])}",
              file=sys.stderr)
        return 1
    return 0
