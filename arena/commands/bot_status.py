"""``arena bot status NAME [--follow]``: a bot as the site sees it, from the command line.

What ``arena bot submit`` leaves off once the version is validated: each version's validation
(ready, refused and why, or still validating), the bot's ladder entry, its ratings, and its
latest games with their results. ``--follow`` then stays and prints what changes as it comes:
a validation's outcome, each new game, a rating that moved, until Ctrl-C (or ``--until-games
N`` new games). Read through the site's JSON API (:class:`arena.sdk.client.ArenaClient`); no
token is needed for a bot's public pages, and the one of ``arena login`` is sent when there is
one. ``--json`` prints the snapshot for machines (with ``--follow``, one JSON line per change).
Exit status: 0, 1 when the bot does not exist, 2 when the site cannot be asked.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

POLL_S = 2.0
GAMES = 8
RATED_KINDS = ("season", "ladder")
"""The kinds of match whose games move a rating (a challenge moves one only when rated, which
a game's row does not say)."""


def register(sub: Any) -> None:
    """Adds ``bot status`` to the ``arena bot`` parser."""
    status = sub.add_parser(
        "status",
        help="a bot's validations, ladder entry, ratings and latest games (--follow: as they come)",
        description="Shows a bot as the site sees it: each version's validation, its ladder "
        "entry, its ratings and its latest games. With --follow it stays and prints each "
        "change as it comes (a validation, a new game, a rating), until Ctrl-C.",
        epilog="After `arena bot submit .`: arena bot status my-bot --follow",
    )
    status.add_argument("name", metavar="NAME", help="the bot's name on the site")
    status.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="the site (default: ARENA_SERVER, else the one of arena login, "
        "else http://127.0.0.1:8000)",
    )
    status.add_argument(
        "--follow", "-f", action="store_true", help="stay and print what changes as it comes"
    )
    status.add_argument(
        "--until-games",
        type=int,
        default=None,
        metavar="N",
        help="with --follow: stop after N new games",
    )
    status.add_argument(
        "--interval",
        type=float,
        default=POLL_S,
        metavar="S",
        help=f"with --follow: seconds between looks (default {POLL_S:g})",
    )
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(func=run)


def _fail(message: str, code: int = 2) -> int:
    print(f"arena bot status: {message}", file=sys.stderr)
    return code


def snapshot(client: Any, name: str) -> dict[str, Any] | None:
    """What the site says of bot ``name`` now, or None when it has no such bot."""
    data = client.bot(name)
    if data is None:
        return None
    ladder = client.ladder_entry(name)
    entry = ladder.get("entry")
    bot = data.get("bot") or {}
    return {
        "bot": name,
        "owner": bot.get("owner"),
        "url": client.url(f"/bots/{name}/"),
        "versions": [
            {
                "number": v.get("number"),
                "label": v.get("label"),
                "status": v.get("status"),
                "reason": v.get("status_reason") or None,
                "validated": v.get("validated"),
            }
            for v in bot.get("versions") or []
        ],
        "ladder": entry,
        "candidate": ladder.get("candidate"),
        "ratings": [
            {
                "variant": r.get("variant_label") or r.get("variant"),
                "label": r.get("label"),
                "rating": r.get("conservative"),
                "mu": r.get("mu"),
                "sigma": r.get("sigma"),
                "games": r.get("games"),
                "provisional": r.get("provisional"),
            }
            for r in data.get("ratings") or []
        ],
        "games": [_game(g, name) for g in client.games(name, GAMES)],
    }


def _own_first(g: dict[str, Any], name: str) -> tuple[list[str], list[Any]]:
    """The game's sides and totals with bot ``name``'s side first (the others in seat order),
    so a score reads as its result does: a win is 11-5, never 5-11."""
    sides = list(g.get("sides") or [])
    totals = list(g.get("totals") or [])
    players = [p for p in g.get("players") or [] if isinstance(p, dict)]
    count = max(len(sides), len(totals), 1)
    own = next(
        (
            k % count  # seat k plays side k mod sides: the engine's side_of_seat
            for k, p in enumerate(players)
            if p.get("bot") == name
        ),
        0,
    )
    order = [own, *(s for s in range(count) if s != own)]
    return (
        [sides[s] for s in order if s < len(sides)],
        [totals[s] for s in order if s < len(totals)],
    )


def _game(g: dict[str, Any], name: str) -> dict[str, Any]:
    sides, totals = _own_first(g, name)
    return {
        "id": g.get("id"),
        "variant": g.get("variant"),
        "kind": g.get("kind"),
        "result": g.get("result"),
        "sides": sides,
        "totals": totals,
        "faults": g.get("faults"),
        "fault_summary": g.get("fault_summary"),
        "created": g.get("created"),
    }


def version_line(v: dict[str, Any]) -> str:
    if v["status"] == "ready":
        return f"{v['label']}: ready (passed validation)"
    if v["status"] == "failed":
        return f"{v['label']}: refused: {v['reason'] or 'no reason given'}"
    return f"{v['label']}: {v['status']} (a worker plays its validation games)"


def game_line(g: dict[str, Any]) -> str:
    sides = " v ".join(g.get("sides") or [])
    score = "-".join(str(t) for t in g.get("totals") or [])
    faults = ""
    if g.get("faults"):
        faults = f", {g.get('fault_summary') or str(g['faults']) + ' fault(s)'}"
    return (
        f"game {g['id']} ({g['variant']}, {g['kind']}): {g['result'] or '?'} "
        f"{score} {sides}{faults}"
    )


def rating_line(r: dict[str, Any]) -> str:
    provisional = ", provisional" if r.get("provisional") else ""
    return (
        f"{r['label']} {r['variant']}: {r['rating']:.2f} (mu {r['mu']:.2f}, sigma "
        f"{r['sigma']:.2f}), {r['games']} games{provisional}"
    )


def no_rating_line(games: list[dict[str, Any]]) -> str:
    """The rating line of a bot with no rating: rated games listed below it get their rating
    from a worker shortly after each result, so "none yet" would contradict them."""
    rated = sum(1 for g in games if g.get("kind") in RATED_KINDS and g.get("result") != "void")
    if rated:
        return (
            f"rating: not computed yet ({rated} rated game{'' if rated == 1 else 's'} below; "
            "a rating follows each result within a minute or so)"
        )
    return "rating: none yet (its first rated games come within a minute or so of validation)"


def show(state: dict[str, Any]) -> None:
    print(f"{state['bot']} by {state['owner']}: {state['url']}")
    for v in state["versions"] or [{"label": "no version yet", "status": "", "reason": None}]:
        print("  " + (version_line(v) if v["status"] else v["label"]))
    entry = state["ladder"]
    if entry:
        print(f"  ladder: {entry['status']}, playing {entry['label']}")
        candidate = state.get("candidate")
        if candidate:
            then = (
                "promoted by itself if a version test accepts H1"
                if candidate.get("promote_on_pass")
                else f"arena bot promote {state['bot']} {candidate['version']}"
            )
            print(f"  candidate: {candidate['label']}, not on the ladder ({then})")
    else:
        print("  ladder: not yet (a version enters when it passes validation)")
    for r in state["ratings"]:
        print("  rating " + rating_line(r))
    if not state["ratings"]:
        print("  " + no_rating_line(state["games"]))
    if state["games"]:
        print("  latest games:")
        for g in state["games"]:
            print("    " + game_line(g))


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What changed between two snapshots, as lines."""
    out = []
    old_versions = {v["number"]: v for v in before["versions"]}
    for v in reversed(after["versions"]):
        was = old_versions.get(v["number"])
        if was is None or was["status"] != v["status"]:
            out.append(version_line(v))
    if before["ladder"] != after["ladder"] and after["ladder"]:
        out.append(f"ladder: {after['ladder']['status']}, playing {after['ladder']['label']}")
    seen = {g["id"] for g in before["games"]}
    out += [game_line(g) for g in reversed(after["games"]) if g["id"] not in seen]
    old_ratings = {(r["label"], r["variant"]): r for r in before["ratings"]}
    for r in after["ratings"]:
        was = old_ratings.get((r["label"], r["variant"]))
        if was is None or was["games"] != r["games"]:
            out.append("rating " + rating_line(r))
    return out


def run(args: argparse.Namespace) -> int:
    """``arena bot status``."""
    from arena.sdk.client import ArenaClient, ClientError
    from arena.sdk.credentials import CredentialsError, resolve

    if args.interval <= 0:
        return _fail(f"--interval {args.interval:g}: must be positive")
    try:
        creds = resolve(args.server)
    except CredentialsError as exc:
        return _fail(str(exc))
    client = ArenaClient(creds.server, creds.token or "")
    try:
        state = snapshot(client, args.name)
    except ClientError as exc:
        return _fail(str(exc))
    if state is None:
        return _fail(f"{creds.server} has no bot {args.name!r}", 1)
    if args.json:
        print(json.dumps(state), flush=True)
    else:
        show(state)
    if not args.follow:
        return 0
    if not args.json:
        print(f"Following {args.name} (Ctrl-C to stop)…", flush=True)
    new_games = 0
    while args.until_games is None or new_games < args.until_games:
        time.sleep(args.interval)
        try:
            latest = snapshot(client, args.name)
        except ClientError as exc:
            print(f"({exc}; trying again)", file=sys.stderr, flush=True)
            continue
        if latest is None:
            return _fail(f"bot {args.name!r} is gone from {creds.server}", 1)
        lines = changes(state, latest)
        seen = {g["id"] for g in state["games"]}
        new_games += sum(1 for g in latest["games"] if g["id"] not in seen)
        if lines:
            stamp = time.strftime("%H:%M:%S")
            if args.json:
                print(json.dumps({"at": stamp, "changes": lines, "state": latest}), flush=True)
            else:
                for line in lines:
                    print(f"{stamp} {line}", flush=True)
        state = latest
    return 0
