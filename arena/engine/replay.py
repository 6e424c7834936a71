"""Game records in the replay format of REPLAY.md: read, write, verify and record.

A replay is one JSON document per game: the variant and options, the players, each deal (as a
deck or as explicit hands, table and stock) and every move, plus the optional fields the arena
adds (thinking times, clocks, faults, forfeit, void; see docs/ARCHITECTURE.md).
:func:`read_replay` checks the shape, :func:`verify_replay` re-plays every move through the
engine, :func:`write_replay` prints one canonically, and :class:`ReplayRecorder` builds one
while a game is played.  This module reads and writes text; it does not touch files.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

from arena.engine.cards import (
    DECK,
    Card,
    CardError,
    EngineError,
    Seat,
    Side,
    card_name,
    parse_card,
)
from arena.engine.moves import Move
from arena.engine.scoring import DealScore
from arena.engine.state import Deal, Game, needs_redeal
from arena.engine.variants import Rules, forfeit_winner, rules_for

FORMAT = "scopa-replay"
VERSION = 1
FAULT_KINDS = (
    "timeout",
    "crash",
    "disconnect",
    "garbled",
    "illegal",
    "start",
    "memory",
    "forbidden",
    "output",
    "fallback",
)
AUTO_KINDS = ("timeout",)

_TOP_KEYS = {
    "format",
    "version",
    "variant",
    "options",
    "players",
    "seed",
    "deals",
    "result",
    "faults",
    "void",
    "started_at",
    "duration_ms",
    "match",
    "bot_seeds",
    "fallbacks",
}
_DEAL_KEYS = {"dealer", "deck", "hands", "table", "stock", "moves", "thrown_in"}
_MOVE_KEYS = {"seat", "card", "capture", "ms", "clock", "auto"}


# ---------------------------------------------------------------------------------------------
# The record, as types (docs/REPLAY.md is the format; cards by name)


class ReplayMove(TypedDict):
    """One move: the seat, its card and capture, and what the arena adds."""

    seat: Seat
    card: str
    capture: list[str]
    ms: NotRequired[int]  # thinking time
    clock: NotRequired[int]  # the seat's bank after the move
    auto: NotRequired[str]  # played by the arena for the seat ("timeout")


class ReplayDeal(TypedDict):
    """One deal: its dealer, its cards (a deck, or hands, table and stock) and its moves."""

    dealer: Seat
    deck: NotRequired[list[str]]
    thrown_in: NotRequired[list[list[str]]]
    hands: NotRequired[list[list[str]]]
    table: NotRequired[list[str]]
    stock: NotRequired[list[str]]
    moves: list[ReplayMove]


class ReplayFault(TypedDict):
    """A seat's fault at a deal and move (indexes from 0)."""

    deal: int
    move: int
    seat: Seat
    kind: str
    detail: str


class ReplayForfeit(TypedDict):
    """The side that forfeited the game, and why."""

    side: Side
    reason: str


class ReplayResult(TypedDict):
    """How the game ended: the totals per side and the winning side (None: nobody)."""

    totals: list[int]
    winner: Side | None
    forfeit: NotRequired[ReplayForfeit]


class Replay(TypedDict):
    """One game's replay, as :class:`ReplayRecorder` makes it and docs/REPLAY.md defines it."""

    format: str
    version: int
    variant: str
    options: dict[str, Any]
    players: list[str]
    seed: int
    deals: list[ReplayDeal]
    result: NotRequired[ReplayResult]
    void: NotRequired[str]
    faults: NotRequired[list[ReplayFault]]
    fallbacks: NotRequired[list[int]]
    bot_seeds: NotRequired[list[int | None]]  # None: a bot the arena did not start
    started_at: NotRequired[str]
    duration_ms: NotRequired[int]
    match: NotRequired[str]


def result_winner(
    sides: int, winner: Side | None, forfeit_side: Side | None, void: bool
) -> Side | None:
    """The winner a replay records: nobody in a void game; else the game's own winner, or, in
    a game a side forfeited before it was won, :func:`arena.engine.variants.forfeit_winner`
    (``sides``: the game's number of sides).

    >>> result_winner(2, None, 0, False), result_winner(2, 1, None, True)
    (1, None)
    """
    if void:
        return None
    if forfeit_side is not None and winner is None:
        return forfeit_winner(sides, forfeit_side)
    return winner


class ReplayError(EngineError):
    """A replay that cannot be read or does not verify, with where it went wrong.

    ``deal`` and ``move`` are indexes (from 0, as in the replay's lists and the verify report);
    the message counts from 1, as people and the site do.

    >>> str(ReplayError("seat 1 played out of turn", deal=2, move=14))
    'deal 3, move 15: seat 1 played out of turn'
    """

    def __init__(self, reason: str, deal: int | None = None, move: int | None = None) -> None:
        self.reason = reason
        self.deal = deal
        self.move = move
        where = []
        if deal is not None:
            where.append(f"deal {deal + 1}")
        if move is not None:
            where.append(f"move {move + 1}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of the verify report."""
        return {"deal": self.deal, "move": self.move, "reason": self.reason}


# ---------------------------------------------------------------------------------------------
# Reading


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(value: Any, what: str, deal: int | None, move: int | None = None) -> list[Card]:
    if not isinstance(value, list):
        raise ReplayError(f"{what} must be a list of cards, not {value!r}", deal, move)
    try:
        cards = [parse_card(c) for c in value]
    except CardError as exc:
        raise ReplayError(f"{what}: {exc}", deal, move) from None
    seen: set[Card] = set()
    for c in cards:
        if c in seen:
            raise ReplayError(f"{what}: card {card_name(c)!r} appears twice", deal, move)
        seen.add(c)
    return cards


def read_replay(text: str) -> dict[str, Any]:
    """Parses a replay and checks its shape; raises :class:`ReplayError` saying where it is bad.

    Shape only: cards are real cards, seats are seats, each deal has a deck or explicit hands.
    Whether the moves are legal is :func:`verify_replay`'s job.

    >>> data = read_replay('{"format": "scopa-replay", "version": 1, "variant": "scopa",'
    ...                    ' "players": ["a", "b"], "seed": 1, "deals": []}')
    >>> data["variant"]
    'scopa'
    >>> read_replay('{"format": "scopa-replay", "version": 1, "variant": "scopa", "deals": ['
    ...             '{"dealer": 0, "deck": ["7d"], "moves": []}]}')
    Traceback (most recent call last):
    ...
    arena.engine.replay.ReplayError: deal 1: the deck has 1 cards, not 40
    """
    try:
        data = json.loads(text)
    except ValueError as exc:  # a decoding error, or a number past int's digit limit
        raise ReplayError(f"not JSON: {exc}") from None
    except RecursionError:
        raise ReplayError("not JSON: nested too deeply") from None
    check_replay(data)
    result: dict[str, Any] = data
    return result


def check_replay(data: Any) -> Rules:
    """Checks a parsed replay's shape (see :func:`read_replay`) and returns its rules."""
    if not isinstance(data, dict):
        raise ReplayError("a replay is a JSON object")
    if data.get("format") != FORMAT:
        raise ReplayError(f"'format' must be {FORMAT!r}, not {data.get('format')!r}")
    if data.get("version") != VERSION:
        raise ReplayError(f"unsupported version {data.get('version')!r} (this engine reads 1)")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise ReplayError(f"unknown field {unknown[0]!r}")
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise ReplayError(f"'options' must be an object, not {options!r}")
    try:
        rules = rules_for(data.get("variant"), options)  # type: ignore[arg-type]
    except EngineError as exc:
        raise ReplayError(str(exc)) from None
    players = data.get("players")
    if players is not None:
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ReplayError("'players' must be a list of names")
        if len(players) != rules.players:
            raise ReplayError(
                f"{rules.variant} has {rules.players} seats but {len(players)} players are named"
            )
    if "seed" in data and data["seed"] is not None and not _is_int(data["seed"]):
        raise ReplayError(f"'seed' must be an integer, not {data['seed']!r}")
    deals = data.get("deals")
    if not isinstance(deals, list):
        raise ReplayError("'deals' must be a list")
    for i, deal in enumerate(deals):
        _check_deal(rules, deal, i)
    if "result" in data:
        _check_result(rules, data["result"])
    if "faults" in data:
        _check_faults(rules, data["faults"], len(deals))
    if "void" in data and data["void"] is not None and not isinstance(data["void"], str):
        raise ReplayError("'void' must be a reason (text)")
    if (
        "duration_ms" in data
        and data["duration_ms"] is not None
        and (not _is_int(data["duration_ms"]) or data["duration_ms"] < 0)
    ):
        raise ReplayError("'duration_ms' must be a whole number of milliseconds")
    for key in ("started_at", "match"):
        if data.get(key) is not None and not isinstance(data[key], str | int):
            raise ReplayError(f"'{key}' must be text")
    bot_seeds = data.get("bot_seeds")
    if bot_seeds is not None and (
        not isinstance(bot_seeds, list)
        or len(bot_seeds) != rules.players
        or not all(seed is None or _is_int(seed) for seed in bot_seeds)
    ):
        raise ReplayError(f"'bot_seeds' must be a list of {rules.players} integers or nulls")
    fallbacks = data.get("fallbacks")
    if fallbacks is not None and (
        not isinstance(fallbacks, list)
        or len(fallbacks) != rules.players
        or not all(_is_int(n) and n >= 0 for n in fallbacks)
    ):
        raise ReplayError(f"'fallbacks' must be a list of {rules.players} counts")
    return rules


def _check_seat(rules: Rules, value: Any, what: str, deal: int | None, move: int | None) -> None:
    if not _is_int(value) or not 0 <= value < rules.players:
        raise ReplayError(
            f"{what} must be a seat 0..{rules.players - 1}, not {value!r}", deal, move
        )


def _check_deal(rules: Rules, deal: Any, i: int) -> None:
    if not isinstance(deal, dict):
        raise ReplayError("a deal is an object", i)
    unknown = sorted(set(deal) - _DEAL_KEYS)
    if unknown:
        raise ReplayError(f"unknown field {unknown[0]!r}", i)
    _check_seat(rules, deal.get("dealer"), "'dealer'", i, None)
    if "deck" in deal:
        if any(k in deal for k in ("hands", "table", "stock")):
            raise ReplayError("give either 'deck' or 'hands'/'table'/'stock', not both", i)
        deck = _cards(deal["deck"], "the deck", i)
        if len(deck) != 40:
            raise ReplayError(f"the deck has {len(deck)} cards, not 40", i)
    elif "hands" in deal:
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != rules.players:
            raise ReplayError(f"'hands' must be {rules.players} lists of cards, one per seat", i)
        cards: list[Card] = []
        for seat, hand in enumerate(hands):
            cards += _cards(hand, f"the hand of seat {seat}", i)
        cards += _cards(deal.get("table", []), "the table", i)
        stock = _cards(deal.get("stock", []), "the stock", i)
        if stock and rules.layout != "scopa":
            raise ReplayError(f"the {rules.layout} layout has no stock", i)
        cards += stock
        dupes = sorted({c for c in cards if cards.count(c) > 1})
        if dupes:
            raise ReplayError(f"card {card_name(dupes[0])!r} is dealt twice", i)
        if len(cards) != 40:
            missing = " ".join(card_name(c) for c in DECK if c not in cards)
            raise ReplayError(
                f"hands, table and stock hold {len(cards)} cards, not 40 (missing: {missing})", i
            )
        sizes = [len(h) for h in hands]
        if any(s != rules.hand_size for s in sizes):
            raise ReplayError(
                f"{rules.layout} deals hands of {rules.hand_size} cards, not {sizes}", i
            )
        if len(deal.get("table", [])) != rules.table_size:
            raise ReplayError(
                f"{rules.layout} starts with {rules.table_size} table cards, "
                f"not {len(deal.get('table', []))}",
                i,
            )
    else:
        raise ReplayError("a deal needs a 'deck' or 'hands' (with 'table' and 'stock')", i)
    thrown_in = deal.get("thrown_in", [])
    if not isinstance(thrown_in, list):
        raise ReplayError("'thrown_in' must be a list of decks", i)
    for deck in thrown_in:
        if len(_cards(deck, "a thrown-in deck", i)) != 40:
            raise ReplayError("a thrown-in deck must have 40 cards", i)
    moves = deal.get("moves")
    if not isinstance(moves, list):
        raise ReplayError("'moves' must be a list", i)
    for j, move in enumerate(moves):
        if not isinstance(move, dict):
            raise ReplayError("a move is an object with 'seat', 'card' and 'capture'", i, j)
        unknown = sorted(set(move) - _MOVE_KEYS)
        if unknown:
            raise ReplayError(f"unknown field {unknown[0]!r}", i, j)
        _check_seat(rules, move.get("seat"), "'seat'", i, j)
        if "card" not in move:
            raise ReplayError("a move needs a 'card'", i, j)
        _cards([move["card"]], "the card played", i, j)
        _cards(move.get("capture", []), "the capture", i, j)
        for key in ("ms", "clock"):
            if key in move and move[key] is not None and (not _is_int(move[key])):
                raise ReplayError(f"'{key}' must be whole milliseconds, not {move[key]!r}", i, j)
        if "auto" in move and move["auto"] is not None and move["auto"] not in AUTO_KINDS:
            raise ReplayError(f"'auto' must be one of {', '.join(AUTO_KINDS)}", i, j)


def _check_result(rules: Rules, result: Any) -> None:
    if not isinstance(result, dict):
        raise ReplayError("'result' must be an object")
    totals = result.get("totals")
    if totals is not None and (
        not isinstance(totals, list)
        or len(totals) != rules.num_sides
        or not all(_is_int(t) for t in totals)
    ):
        raise ReplayError(f"result 'totals' must be {rules.num_sides} whole numbers")
    winner = result.get("winner")
    if winner is not None and (not _is_int(winner) or not 0 <= winner < rules.num_sides):
        raise ReplayError(f"result 'winner' must be a side 0..{rules.num_sides - 1} or null")
    forfeit = result.get("forfeit")
    if forfeit is not None:
        if not isinstance(forfeit, dict):
            raise ReplayError("result 'forfeit' must be an object with 'side' and 'reason'")
        side: Any = forfeit.get("side")
        if not _is_int(side) or not 0 <= side < rules.num_sides:
            raise ReplayError(f"forfeit 'side' must be a side 0..{rules.num_sides - 1}")


def _check_faults(rules: Rules, faults: Any, num_deals: int) -> None:
    if not isinstance(faults, list):
        raise ReplayError("'faults' must be a list")
    for fault in faults:
        if not isinstance(fault, dict):
            raise ReplayError("a fault is an object with deal, move, seat, kind, detail")
        if fault.get("kind") not in FAULT_KINDS:
            raise ReplayError(
                f"fault kind must be one of {', '.join(FAULT_KINDS)}, not {fault.get('kind')!r}"
            )
        _check_seat(rules, fault.get("seat"), "a fault's 'seat'", None, None)
        for key in ("deal", "move"):
            if fault.get(key) is not None and (not _is_int(fault[key]) or fault[key] < 0):
                raise ReplayError(f"a fault's '{key}' must be an index")


# ---------------------------------------------------------------------------------------------
# Verifying


def deal_of(rules: Rules, raw: Mapping[str, Any], index: int | None = None) -> Deal:
    """The starting :class:`Deal` of one (shape-checked) replay deal, deck or explicit form."""
    dealer = raw["dealer"]
    if "deck" in raw:
        deal = Deal.from_deck(rules, dealer, [parse_card(c) for c in raw["deck"]])
    else:
        deal = Deal.from_hands(
            rules,
            dealer,
            [[parse_card(c) for c in hand] for hand in raw["hands"]],
            [parse_card(c) for c in raw.get("table", [])],
            [parse_card(c) for c in raw.get("stock", [])],
        )
    why = needs_redeal(rules, deal.table)
    if why is not None:
        raise ReplayError(f"{why}: this deal must be thrown in and dealt again", index)
    return deal


@dataclass(frozen=True)
class ReplayStep:
    """One step of a replay re-played by :func:`walk_replay`: a deal dealt (no ``move``), a
    move played (``move`` and ``seat`` set, the state before it in the ``*_before`` fields), or
    a finished deal scored (``score`` set).  ``game`` and ``deal`` are the live engine objects:
    read them at the step, before the walk goes on."""

    deal_index: int
    game: Game
    deal: Deal
    record: Mapping[str, Any]  # the deal's record, or the move's
    move_index: int | None = None
    seat: Seat | None = None
    move: Move | None = None
    scope_before: tuple[int, ...] = ()
    table_before: tuple[Card, ...] = ()
    stock_before: int = 0
    score: DealScore | None = None


def walk_replay(data: Mapping[str, Any], game: Game) -> Iterator[ReplayStep]:
    """Re-plays a shape-checked replay (:func:`check_replay`) through ``game``, one step at a
    time: the one walk that verifying, showing and drawing a replay share.

    Raises :class:`ReplayError` (with the deal and move) where the record breaks the rules; a
    game stopped part way (forfeit, void, still running) ends after its last move.

    >>> from arena.engine.variants import rules_for
    >>> replay = random_game_replay(rules_for("scopa"), 2)
    >>> steps = list(walk_replay(replay, Game(rules_for("scopa"), 2)))
    >>> sum(step.move is not None for step in steps) == sum(
    ...     len(d["moves"]) for d in replay["deals"])
    True
    """
    rules = game.rules
    raw_deals = data["deals"]
    for i, raw in enumerate(raw_deals):
        if game.is_over():
            raise ReplayError("the game was already won before this deal", i)
        if i == 0:
            game.dealer = raw["dealer"]
        elif raw["dealer"] != game.dealer:
            raise ReplayError(
                f"seat {raw['dealer']} deals, but the deal passes to seat {game.dealer}", i
            )
        try:
            deal = game.prepare(deal_of(rules, raw, i))
        except ReplayError:
            raise
        except EngineError as exc:
            raise ReplayError(str(exc), i) from None
        yield ReplayStep(i, game, deal, raw)
        for j, raw_move in enumerate(raw["moves"]):
            if deal.is_over():
                raise ReplayError("the deal is already over", i, j)
            seat = raw_move["seat"]
            if seat != deal.to_move:
                raise ReplayError(f"seat {seat} played, but it is seat {deal.to_move}'s turn", i, j)
            scope_before, table_before, stock_before = deal.scope, deal.table, len(deal.stock)
            try:
                move = Move.from_json(raw_move)
                deal.apply(move)
            except EngineError as exc:
                raise ReplayError(f"seat {seat}: {exc}", i, j) from None
            yield ReplayStep(
                i, game, deal, raw_move, j, seat, move, scope_before, table_before, stock_before
            )
        if not deal.is_over():
            if i != len(raw_deals) - 1:
                raise ReplayError(
                    f"the deal stops after {len(raw['moves'])} moves, before every card is played",
                    i,
                )
            return  # a game stopped part way (forfeit, void or still running)
        yield ReplayStep(i, game, deal, raw, score=game.finish_deal(deal))


def recorded_winner(data: Mapping[str, Any], game: Game, check: bool = True) -> Side | None:
    """The winner of a walked replay (:func:`result_winner` of the game, its forfeit and void),
    after checking (unless ``check`` is false) the recorded result against the moves:
    :class:`ReplayError` if they disagree."""
    result = data.get("result")
    forfeit = result.get("forfeit") if isinstance(result, dict) else None
    forfeit_side = None if forfeit is None else forfeit["side"]
    winner = result_winner(
        game.rules.num_sides, game.winner, forfeit_side, data.get("void") is not None
    )
    if check and isinstance(result, dict):
        raw_deals = data["deals"]
        last = len(raw_deals) - 1 if raw_deals else None
        totals = list(game.totals)
        if "totals" in result and result["totals"] != totals:
            raise ReplayError(
                f"the result says totals {result['totals']}, the moves give {totals}", last
            )
        if "winner" in result and result["winner"] != winner:
            raise ReplayError(
                f"the result says winner {result['winner']}, the moves give {winner}", last
            )
    return winner


def verify_replay(data: Mapping[str, Any]) -> dict[str, Any]:
    """Re-plays every move and checks any recorded result: the ``--json`` report of REPLAY.md.

    Never raises for a bad replay: the report has ``"ok": false`` and an ``"error"`` with the
    deal and move indexes and a reason.

    >>> from arena.engine.state import Game
    >>> from arena.engine.variants import rules_for
    >>> report = verify_replay({"format": "scopa-replay", "version": 1, "variant": "scopa",
    ...     "deals": [{"dealer": 0, "deck": [card_name(c) for c in Game.deck_for(5, 0)],
    ...                "moves": [{"seat": 0, "card": "7d", "capture": []}]}]})
    >>> report["ok"], report["error"]["deal"], report["error"]["move"]
    (False, 0, 0)
    """
    deals_out: list[dict[str, Any]] = []
    report: dict[str, Any] = {"ok": True, "deals": deals_out, "totals": [], "winner": None}
    try:
        rules = check_replay(data)
    except ReplayError as exc:
        report.update(ok=False, error=exc.to_json())
        return report
    game = Game(rules, data.get("seed") or 0)
    report["totals"] = game.totals
    try:
        for step in walk_replay(data, game):
            if step.score is not None:
                deals_out.append(step.score.to_json())
        report["totals"] = list(game.totals)
        report["winner"] = recorded_winner(data, game, check=False)
        recorded_winner(data, game)
    except ReplayError as exc:
        report["totals"] = list(game.totals)
        report.update(ok=False, error=exc.to_json())
    return report


# ---------------------------------------------------------------------------------------------
# Writing


def _inline(value: Any) -> bool:
    if isinstance(value, list):
        return all(not isinstance(v, dict | list) for v in value)
    if isinstance(value, dict):
        return all(not isinstance(v, dict) and _inline(v) for v in value.values())
    return True


def _dump(value: Any, indent: int) -> str:
    if _inline(value):
        return json.dumps(value, ensure_ascii=False)
    pad = "  " * (indent + 1)
    if isinstance(value, list):
        items = [pad + _dump(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * indent + "]"
    items = [f"{pad}{json.dumps(k)}: {_dump(v, indent + 1)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + "  " * indent + "}"


def write_replay(data: Mapping[str, Any]) -> str:
    """A replay as canonical JSON text: indented, one move per line, ending with a newline.

    >>> print(write_replay({"format": "scopa-replay", "version": 1, "deals": [
    ...     {"dealer": 0, "moves": [{"seat": 1, "card": "7d", "capture": []}]}]}), end="")
    {
      "format": "scopa-replay",
      "version": 1,
      "deals": [
        {
          "dealer": 0,
          "moves": [
            {"seat": 1, "card": "7d", "capture": []}
          ]
        }
      ]
    }
    """
    return _dump(dict(data), 0) + "\n"


# ---------------------------------------------------------------------------------------------
# Recording


def _dealt_from(deal: Deal, deck: Sequence[Card]) -> bool:
    """Whether ``deal`` is what ``deck`` deals (so the replay may give the deck)."""
    fresh = Deal.from_deck(deal.rules, deal.dealer, deck)
    return (fresh.hands, fresh.table, fresh.stock) == (deal.hands, deal.table, deal.stock)


class ReplayRecorder:
    """Builds the replay of a game while it is played.

    >>> from arena.engine.variants import rules_for
    >>> import random
    >>> rules = rules_for("scopa")
    >>> game, pick = Game(rules, 9), random.Random(1)
    >>> recorder = ReplayRecorder(rules, 9, ["a", "b"])
    >>> while not game.is_over():
    ...     deal = game.new_deal(); recorder.start_deal(game, deal)
    ...     while not deal.is_over():
    ...         seat, move = deal.to_move, pick.choice(deal.legal_moves())
    ...         deal.apply(move); _ = recorder.record_move(seat, move, ms=3)
    ...     _ = game.finish_deal(deal)
    >>> replay = recorder.finish(game)
    >>> verify_replay(read_replay(write_replay(replay)))["winner"] == game.winner
    True
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        players: Sequence[str],
        *,
        match: str | None = None,
        started_at: str | None = None,
    ) -> None:
        """A recorder for a game of ``rules`` from ``seed`` between ``players`` (one per seat);
        ``match`` (an opaque id) and ``started_at`` say where the game came from."""
        if len(players) != rules.players:
            raise EngineError(f"{rules.variant} needs {rules.players} players, got {len(players)}")
        self.rules = rules
        self.data: Replay = {
            "format": FORMAT,
            "version": VERSION,
            "variant": rules.variant,
            "options": rules.options(),
            "players": list(players),
            "seed": seed,
            "deals": [],
        }
        if match is not None:
            self.data["match"] = match
        if started_at is not None:
            self.data["started_at"] = started_at
        self.faults: list[ReplayFault] = []

    @property
    def deals(self) -> int:
        """How many deals are recorded so far."""
        return len(self.data["deals"])

    @property
    def moves_of_deal(self) -> int:
        """How many moves the current deal has so far (0 before the first deal)."""
        deals = self.data["deals"]
        return len(deals[-1]["moves"]) if deals else 0

    def set_players(self, players: Sequence[str]) -> None:
        """Names the seats' players again (a bot that says its name once it has started)."""
        if len(players) != self.rules.players:
            raise EngineError(
                f"{self.rules.variant} needs {self.rules.players} players, got {len(players)}"
            )
        self.data["players"] = list(players)

    def set_bot_seeds(self, seeds: Sequence[int | None]) -> None:
        """Records each seat's bot seed (REPLAY.md, ``bot_seeds``; None: a bot not started)."""
        self.data["bot_seeds"] = [None if s is None else int(s) for s in seeds]

    def start_deal(self, game: Game | None, deal: Deal) -> None:
        """Records a deal about to be played: the game's deck, or else the deal's cards."""
        if deal.history:
            raise EngineError("start_deal needs a deal before its first move")
        entry: ReplayDeal
        if (
            game is not None
            and game.current_deck is not None
            and _dealt_from(deal, game.current_deck)
        ):
            deck = [card_name(c) for c in game.current_deck]
            if game.thrown_in:
                thrown_in = [[card_name(c) for c in d] for d in game.thrown_in]
                entry = {"dealer": deal.dealer, "thrown_in": thrown_in, "deck": deck, "moves": []}
            else:
                entry = {"dealer": deal.dealer, "deck": deck, "moves": []}
        else:
            hands = [[card_name(c) for c in hand] for hand in deal.hands]
            table = [card_name(c) for c in deal.table]
            if deal.rules.layout == "scopa":
                entry = {
                    "dealer": deal.dealer,
                    "hands": hands,
                    "table": table,
                    "stock": [card_name(c) for c in deal.stock],
                    "moves": [],
                }
            else:
                entry = {"dealer": deal.dealer, "hands": hands, "table": table, "moves": []}
        self.data["deals"].append(entry)

    def record_move(
        self,
        seat: Seat,
        move: Move,
        ms: int | None = None,
        clock_ms: int | None = None,
        auto: str | None = None,
    ) -> ReplayMove:
        """Records a move of the current deal, with the seat's thinking time and clock; returns
        the move's record (shared with the replay: not to be changed)."""
        if not self.data["deals"]:
            raise EngineError("record_move before start_deal")
        card, capture = move
        entry: ReplayMove = {
            "seat": seat,
            "card": card_name(card),
            "capture": [card_name(c) for c in capture],
        }
        if ms is not None:
            entry["ms"] = int(ms)
        if clock_ms is not None:
            entry["clock"] = int(clock_ms)
        if auto is not None:
            entry["auto"] = auto
        self.data["deals"][-1]["moves"].append(entry)
        return entry

    def record_fault(
        self,
        seat: Seat,
        kind: str,
        detail: str = "",
        deal: int | None = None,
        move: int | None = None,
    ) -> None:
        """Records a fault of ``seat`` (timeout, crash, ...) at a deal and move (default: now)."""
        if kind not in FAULT_KINDS:
            raise EngineError(f"fault kind must be one of {', '.join(FAULT_KINDS)}, not {kind!r}")
        deals = self.data["deals"]
        if deal is None:
            deal = max(len(deals) - 1, 0)
        if move is None:
            move = len(deals[deal]["moves"]) if deal < len(deals) else 0
        self.faults.append(
            {"deal": deal, "move": move, "seat": seat, "kind": kind, "detail": detail}
        )

    def finish(
        self,
        game: Game,
        forfeit: tuple[Side, str] | Mapping[str, Any] | None = None,
        void: str | None = None,
        *,
        fallbacks: Sequence[int] | None = None,
        started_at: str | None = None,
        duration_ms: int | None = None,
        match: str | None = None,
    ) -> Replay:
        """The finished replay: the result (with a forfeit or void if any) and extra fields.

        ``forfeit`` is ``(side, reason)``: that side loses (:func:`result_winner`).  ``void``
        is the reason the arena itself failed the game: it counts for nobody.  ``fallbacks``
        counts per seat the moves its bot said it did not choose (kept when any is not 0);
        ``started_at``, ``duration_ms`` and ``match`` say where the game came from.
        """
        data: Replay = {**self.data}
        forfeited: ReplayForfeit | None = None
        if forfeit is not None:
            if isinstance(forfeit, Mapping):
                forfeited = {"side": forfeit["side"], "reason": str(forfeit.get("reason", ""))}
            else:
                forfeited = {"side": forfeit[0], "reason": forfeit[1]}
        if void is not None:
            data["void"] = void
        if self.faults:
            data["faults"] = list(self.faults)
        if fallbacks is not None and any(fallbacks):
            data["fallbacks"] = list(fallbacks)
        result: ReplayResult = {
            "totals": list(game.totals),
            "winner": result_winner(
                self.rules.num_sides,
                game.winner,
                None if forfeited is None else forfeited["side"],
                void is not None,
            ),
        }
        if forfeited is not None:
            result["forfeit"] = forfeited
        data["result"] = result
        if started_at is not None:
            data["started_at"] = started_at
        if duration_ms is not None:
            data["duration_ms"] = duration_ms
        if match is not None:
            data["match"] = match
        return data


def random_game_replay(rules: Rules, seed: int, players: Sequence[str] | None = None) -> Replay:
    """The replay of a whole game of uniformly random legal moves, all drawn from ``seed``.

    The same seed gives the same replay on every Python version (golden files, demos, tests).

    >>> from arena.engine.variants import rules_for
    >>> replay = random_game_replay(rules_for("scopa"), 1)
    >>> verify_replay(replay)["ok"], replay["result"] == {
    ...     "totals": verify_replay(replay)["totals"], "winner": verify_replay(replay)["winner"]}
    (True, True)
    """
    from arena.engine.rng import Rng, derive_seed

    names = list(players) if players is not None else [f"random-{s}" for s in range(rules.players)]
    game = Game(rules, seed)
    recorder = ReplayRecorder(rules, seed, names)
    pick = Rng(derive_seed(seed, 0x30E5))
    while not game.is_over():
        deal = game.new_deal()
        recorder.start_deal(game, deal)
        while not deal.is_over():
            moves = deal.legal_moves()
            seat = deal.to_move
            move = moves[pick.randbelow(len(moves))]
            deal.apply_unchecked(move)
            recorder.record_move(seat, move)
        game.finish_deal(deal)
    return recorder.finish(game)
