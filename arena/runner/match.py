"""A match between bots: duplicate sets of games, clocks, faults as data, replays.

:func:`run_match` plays a :class:`MatchSpec` and returns a :class:`MatchReport`. Games come in
duplicate sets: every game of a set deals the same shuffled decks (the same game seed), with
the entrants' seats rotated, so deal luck cancels. Each seat is its own bot process (see
:mod:`arena.runner.process`), reached over one ``Play`` stream per game
(:mod:`arena.runner.link`).

Clocks: a seat has ``move_time_ms`` per move and ``bank_ms`` for the whole game; a move's limit
is the smaller of the two, and the time it takes is charged to the bank. Only the seat on move
runs: from the game's start to its end every other seat's bot is frozen (its control group's
freezer, or signals; see :mod:`arena.runner.cgroups`), so no two bots of a game ever compute
at once, a bot cannot slow another, and partners cannot time each other's use of the CPU. A
seat is thawed before its turn request is written, so its clock never counts time it was
frozen. A late answer is a ``timeout`` fault: the seat's first legal move is played for it. A
crash, a disconnect, a garbled or illegal answer, a bot that fails to start, or a side's third
timeout forfeits the game for that side; the faulty process is killed and started again for
the next game. A game the arena itself cannot play (the sandbox fails) is void and counts for
nobody.

The parts: :mod:`arena.runner.report` (the spec, the records and their JSON, the plan of
sets and seats), :mod:`arena.runner.seats` (each seat's processes, a state machine: starting,
ready ahead, playing, resting, retired), :mod:`arena.runner.game` (one game's play) and this
module (a match over them: the sets, the seats' slots, cancelling, the replays and logs). It
has no command line (see :mod:`arena.commands.match`) and knows nothing of leagues, Celery or
Django.
"""

from __future__ import annotations

import asyncio
import math
import secrets
import threading
import time
from typing import Any

from arena.engine import Rules
from arena.engine.replay import write_replay
from arena.runner.bots import BotError, BotRef
from arena.runner.game import play_game
from arena.runner.process import BotProcess
from arena.runner.report import (
    EntrantJson,
    EntrantSummary,
    GameJson,
    GameOutcome,
    LiveMove,
    MatchError,
    MatchReport,
    MatchReportJson,
    MatchSpec,
    ProgressCallback,
    check_spec,
    default_limits,
    entrant_sides,
    seating,
    set_seed,
    set_size,
)
from arena.runner.sandbox import Limits, sandbox_available
from arena.runner.seats import Slot, seat_slots, spare_of
from arena.seeds import draw_seed

CANCEL_POLL_S = 0.05
"""How often a match looks at its spec's ``cancel`` event."""


class MatchRun:
    """The state of one running match (what :func:`run_match` plays)."""

    def __init__(self, spec: MatchSpec, rules: Rules, progress: ProgressCallback | None) -> None:
        self.spec = spec
        self.rules = rules
        self.progress = progress
        self.seed = spec.seed if spec.seed is not None else draw_seed()
        # The id reaches the bots (GameStart.game_id): nothing in it may hint at the seed.
        self.match_id = spec.match_id or f"m{secrets.token_hex(6)}"
        count = len(spec.entrants)
        per_set = set_size(rules, count) if spec.duplicate else 1
        # Each game of a set wants processes that saw no other game of it: a slot keeps up
        # to a set's games less one resting (Slot._wake).
        self.rest_limit = per_set - 1 if spec.rest_seats and spec.fresh_per_game else 0
        self.sets = math.ceil(spec.games / per_set)
        self.total = self.sets * per_set
        self.slots: dict[tuple[int, int], Slot] = {}
        self._stopping = False  # cancelled: the match is ending (see check_cancel)
        self._next_seats: list[int] | None = None  # the next game's, when it needs spares
        self.sandboxed = [self._sandboxed(bot) for bot in spec.entrants]
        self.report = MatchReport(
            spec=spec,
            rules=rules,
            seed=self.seed,
            labels=[bot.label for bot in spec.entrants],
            sandboxed=self.sandboxed,
        )

    def _sandboxed(self, bot: BotRef) -> bool:
        if bot.is_remote or not self.spec.sandbox:
            return False
        return sandbox_available() or not bot.trusted

    def _limits(self) -> Limits:
        if self.spec.limits is not None:
            return self.spec.limits
        return default_limits(self.total, self.spec.bank_ms)

    def slot(self, entrant: int, k: int) -> Slot:
        """The process slot of an entrant's k-th seat, made on first use."""
        key = (entrant, k)
        if key not in self.slots:
            bot = self.spec.entrants[entrant]
            process = None
            if not bot.is_remote:
                assert bot.folder is not None and bot.manifest is not None
                process = BotProcess(
                    label=f"{bot.manifest.name}-{entrant}-{k}",
                    command=list(bot.manifest.command),
                    folder=bot.folder,
                    limits=self._limits(),
                    sandboxed=self.sandboxed[entrant],
                    python=bot.manifest.is_python,
                    start_timeout=self.spec.start_timeout_s,
                    # The manifest's [env], under the variables the arena sets itself (the bot
                    # seed comes with each start).
                    env=dict(bot.manifest.env),
                    fork=self.spec.fork_seats,
                )
            self.slots[key] = Slot(
                bot,
                entrant,
                k,
                process,
                self.rules.variant,
                make_spare=spare_of,
                rest_limit=self.rest_limit,
            )
        return self.slots[key]

    def prestart_next(self) -> None:
        """Starts the spares of the next game's seats (or builds their sandboxes), once this
        game's seats are ready."""
        if self._next_seats is None:
            return
        for entrant, k in seat_slots(self._next_seats):
            self.slot(entrant, k).prestart(whole=self.spec.prestart)

    async def run(self) -> MatchReport:
        """Plays every game, then ends every process; stops early, the same way, when the
        spec's ``cancel`` event is set (the report then says ``cancelled``)."""
        cancel = self.spec.cancel
        if cancel is None:
            return await self._run()
        playing = asyncio.ensure_future(self._run())
        watcher = asyncio.ensure_future(self._cancel_when_set(cancel, playing))
        try:
            return await playing
        except asyncio.CancelledError:
            if not cancel.is_set() or not playing.cancelled():
                raise  # this task itself is cancelled (Ctrl-C): not a cancelled match
            self.report.cancelled = True
            return self.report
        finally:
            watcher.cancel()

    def check_cancel(self) -> None:
        """Ends the match here (as a cancelled task) when the spec's ``cancel`` is set."""
        if self.spec.cancel is not None and self.spec.cancel.is_set() and not self._stopping:
            self._stopping = True
            raise asyncio.CancelledError("the match was cancelled")

    async def _cancel_when_set(self, cancel: threading.Event, playing: asyncio.Future[Any]) -> None:
        """Cancels ``playing`` once ``cancel`` is set: at whatever it waits on (a seat's answer,
        a seat starting, a message sent), its clean-up then stops every seat. Only once: a
        match already stopping (:meth:`check_cancel`) is left to its clean-up."""
        while not playing.done() and not self._stopping:
            if cancel.is_set():
                self._stopping = True
                playing.cancel()
                return
            await asyncio.sleep(CANCEL_POLL_S)

    async def _run(self) -> MatchReport:
        started = time.perf_counter()
        per_set = self.total // self.sets
        try:
            index = 0
            for set_index in range(self.sets):
                seed = set_seed(self.seed, set_index)
                for rotation in range(per_set):
                    if rotation > 0 and self.spec.fresh_per_game:
                        # The games of a set deal the same cards: a process that played one
                        # of them knows every hand of the next. Each game of a set gets
                        # processes that have seen no other game of it.
                        for slot in self.slots.values():
                            slot.renew()
                    self.check_cancel()  # between games
                    turn = rotation if self.spec.duplicate else set_index
                    seats = seating(self.rules, len(self.spec.entrants), turn)
                    self._next_seats = None
                    ahead = self.spec.prestart or self.spec.prepare_ahead
                    if (
                        ahead
                        and self.spec.fresh_per_game
                        and self.spec.duplicate
                        and rotation + 1 < per_set
                    ):
                        # The next game of the set needs fresh processes: their sandboxes
                        # (or, with prestart, the processes) are made ready ahead.
                        self._next_seats = seating(
                            self.rules, len(self.spec.entrants), rotation + 1
                        )
                    playing = [self.slot(entrant, k) for entrant, k in seat_slots(seats)]
                    for slot in playing:
                        slot.game_set = set_index
                    outcome = await self.play_game(index, set_index, seed, seats)
                    for slot in playing:  # (whichever process played: it saw this set)
                        slot.process_set = set_index
                    self.report.games.append(outcome)
                    self._write_replay(outcome)
                    index += 1
                    if self.progress is not None:
                        self.progress(index, self.total, outcome)
                if self.spec.stop is not None and self.spec.stop(self.report):
                    break
        finally:
            for slot in self.slots.values():
                await slot.close()
            for slot in self.slots.values():
                if slot.process is not None:
                    self.report.logs[slot.key] = slot.process.log.text()
            self._write_logs()
            self.report.duration_ms = round((time.perf_counter() - started) * 1000)
        for slot in self.slots.values():
            self.report.labels[slot.entrant] = slot.label
        return self.report

    def _write_replay(self, outcome: GameOutcome) -> None:
        folder = self.spec.replays_dir
        if folder is None:
            return
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"game-{outcome.index + 1:04d}.json"
        path.write_text(write_replay(outcome.replay), encoding="utf-8")

    async def play_game(
        self, index: int, set_index: int, seed: int, seats: list[int]
    ) -> GameOutcome:
        """One game (:func:`arena.runner.game.play_game`); never raises for what a bot does."""
        return await play_game(self, index, set_index, seed, seats)

    def _write_logs(self) -> None:
        folder = self.spec.replays_dir
        if folder is None or not self.report.logs:
            return
        logs = folder / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        for key, text in self.report.logs.items():
            entrant, k = key.split("/")
            # "greedy (1.0.0)" -> "greedy-1.0.0": a file name without spaces or brackets
            label = self.spec.entrants[int(entrant)].label
            name = label.replace(" (", "-").removesuffix(")").replace("/", "_")
            (logs / f"entrant{entrant}-{k}-{name}.log").write_text(text, encoding="utf-8")


def run_match(spec: MatchSpec, progress: ProgressCallback | None = None) -> MatchReport:
    """Plays a whole match and returns its report. Raises MatchError for an impossible spec.

    Bots' faults never raise: they are in the report's games. Safe to call from a thread that
    runs an asyncio loop (the match then runs in a thread of its own). A match whose spec's
    ``cancel`` is set stops with its seats and returns what it played (``report.cancelled``).
    """
    rules = check_spec(spec)
    match = MatchRun(spec, rules, progress)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(match.run())
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["report"] = asyncio.run(match.run())
        except BaseException as error:  # handed to the caller's thread below
            box["error"] = error

    thread = threading.Thread(target=target, name="arena-match")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    report: MatchReport = box["report"]
    return report


__all__ = [
    "BotError",
    "EntrantJson",
    "EntrantSummary",
    "GameJson",
    "GameOutcome",
    "LiveMove",
    "MatchError",
    "MatchReport",
    "MatchReportJson",
    "MatchRun",
    "MatchSpec",
    "check_spec",
    "default_limits",
    "entrant_sides",
    "run_match",
    "seating",
    "set_seed",
    "set_size",
]
