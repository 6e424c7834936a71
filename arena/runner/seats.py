"""A seat's processes: one slot per entrant's seat, its bot process and the spare made ready
ahead, the processes resting between sets, and the fork server's hand-off.

A :class:`Slot` serves the k-th seat of one entrant across a match. Its process goes through
named states (:class:`SeatState`): ``STARTING`` (to be started or woken before its next game),
``PLAYING`` (started, described, its link open), ``RETIRED`` (closed for good). Beside it the
slot keeps at most one spare (``READY_AHEAD``: its sandbox built or its process started while
a game plays) and the processes ``RESTING``, frozen and alive, that have seen a set's game and
may play a game of a later set. This module knows nothing of the game being played.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.runner.bots import BotRef
from arena.runner.link import BotLink
from arena.runner.process import BotProcess, StartError
from arena.runner.sandbox import HostError
from arena.seeds import draw_seed
from arena.text import printable

DESCRIBE_TIMEOUT = 10.0

PREPARED = -1
"""What a spare's start gives instead of a bot seed when only its sandbox was built."""


def seat_slots(seats: list[int]) -> list[tuple[int, int]]:
    """(entrant, k) per seat: the entrant's k-th process in this game."""
    seen: dict[int, int] = {}
    slots = []
    for entrant in seats:
        k = seen.get(entrant, 0)
        seen[entrant] = k + 1
        slots.append((entrant, k))
    return slots


# ---- processes ----------------------------------------------------------------------------


async def _forget_link(link: BotLink, call: asyncio.Future[Any] | None) -> None:
    """Calls off ``call`` (a call on ``link``, if any) and closes ``link``."""
    if call is not None:
        call.cancel()
        with contextlib.suppress(BaseException):
            await call
    await _close_link(link)


async def _close_link(link: BotLink) -> None:
    """Closes ``link`` (a connection no game will use), whatever state it is in."""
    with contextlib.suppress(Exception):
        await link.close()


class SeatState(enum.Enum):
    """Where a seat's process is in its life (see the module's notes)."""

    STARTING = "starting"  # to be started, or a resting one woken, before its next game
    READY_AHEAD = "ready ahead"  # a spare: sandbox built (or process started) for a next game
    PLAYING = "playing"  # started and described: its link serves the slot's games
    RESTING = "resting"  # frozen and alive, its link kept, until a later set's game
    RETIRED = "retired"  # closed for good: no process, no folder


@dataclass
class _Resting:
    """A slot's process sitting out games, frozen (:meth:`Slot._wake`): its connection, its
    bot seed and label, and the duplicate set of the last game it played."""

    process: BotProcess
    link: BotLink
    bot_seed: int | None
    label: str
    set_index: int

    async def end(self) -> None:
        """Ends it for good: its connection, its process and its copy of the bot folder."""
        await _close_link(self.link)
        await asyncio.to_thread(self.process.close)


class Slot:
    """One bot process (or remote connection) serving seats of one entrant."""

    def __init__(
        self,
        bot: BotRef,
        entrant: int,
        k: int,
        process: BotProcess | None,
        variant: str,
        make_spare: Callable[[BotProcess], BotProcess] | None = None,
        rest_limit: int = 0,
    ) -> None:
        self.bot = bot
        self.variant = variant
        self.entrant = entrant
        self.k = k
        self.process = process
        # The slot's second process (its own folder copy, group and seat folder): the spare
        # started for the next game while this one plays, then the two swap roles.
        self._make_spare = make_spare
        self._other: BotProcess | None = None
        self._spare: asyncio.Future[int | None] | None = None  # its start: the bot seed
        self._stopping: asyncio.Future[None] | None = None  # the other's clean-up, under way
        # A connection to the spare made ready ahead (its SDK's server, started while it
        # waits), made while the current game plays: the spare's link once it starts.
        self._ahead: tuple[BotProcess, BotLink] | None = None
        self.link: BotLink | None = None
        self.label = bot.label
        self.state = SeatState.STARTING  # the slot's own process (see SeatState)
        self.bot_seed: int | None = None  # SCOPA_BOT_SEED of the running process
        # The duplicate set of the game about to be played, and of the last game the process
        # played (set by the match), and the slot's processes resting meanwhile (at most
        # ``rest_limit``: a set's games less one).
        self.game_set: int | None = None
        self.process_set: int | None = None
        self.rest_limit = rest_limit
        self._resting: list[_Resting] = []
        self.woken = 0  # games started by waking a resting process

    @property
    def key(self) -> str:
        return f"{self.entrant}/{self.k}"

    @property
    def fresh(self) -> bool:
        """The slot's process must be (re)started, or a resting one woken, before its game."""
        return self.state is not SeatState.PLAYING

    def renew(self) -> None:
        """The next game wants a process that has seen no game of its set: PLAYING becomes
        STARTING (the match calls it between the games of a set)."""
        if self.state is SeatState.PLAYING:
            self.state = SeatState.STARTING

    @property
    def spare_state(self) -> SeatState | None:
        """READY_AHEAD while a spare is being made ready for the next game, else None."""
        return SeatState.READY_AHEAD if self._spare is not None else None

    def states(self) -> list[SeatState]:
        """The state of each of the slot's processes: its own, its spare's (if one is made
        ready ahead) and each resting one's."""
        spare = self.spare_state
        own = [self.state] + ([spare] if spare is not None else [])
        return own + [SeatState.RESTING] * len(self._resting)

    async def ensure_ready(self) -> tuple[str, str] | None:
        """Starts (or restarts) the bot when needed: None when ready, else the fault kind
        (``start``, ``memory``) and why it did not start.

        Each start draws a fresh bot seed from :mod:`secrets`. Raises HostError when the
        host, not the bot, is at fault.
        """
        if not self.fresh and (self.process is None or self.process.is_running()):
            return None
        if await self._wake():
            return None
        spare_seed = await self._take_spare()
        if spare_seed == PREPARED and self.process is not None and self._other is not None:
            # The last game's process plays no more in this set: it is frozen before the seat
            # made ready ahead starts (it knows the last game's cards). It rests until a
            # later set (see _wake), or, where it cannot, is killed once the new one has
            # started (processes ending take CPU the start wants) and cleaned up in the
            # background, before its next use (prestart).
            old = self.process
            resting = self._resting_entry()
            self.process, self._other = self._other, old
            old.retire()
            if resting is not None:
                self._other = None  # the next spare, if one is ever wanted, is a new process
            try:
                return await self._start(None, swapped=True)
            finally:
                if resting is not None:
                    self._resting.append(resting)
                else:
                    self._stopping = asyncio.ensure_future(asyncio.to_thread(old.stop))
        if spare_seed is None and self._make_spare is not None:
            resting = self._resting_entry()
            if resting is not None:  # it rests, and a new process of the slot's starts
                assert self.process is not None
                old = self.process
                await self._await_stopping()  # (the spare's clean-up, if it is under way)
                self.process = self._other if self._other is not None else self._make_spare(old)
                self._other = None
                self._resting.append(resting)
        return await self._start(spare_seed, swapped=False)

    def _resting_entry(self) -> _Resting | None:
        """The running process as it would rest (its link taken from the slot), or None where
        it should not: resting is off, the slot holds enough, or it cannot be frozen alive."""
        process = self.process
        if (
            self.rest_limit <= len(self._resting)
            or process is None
            or self.link is None
            or self.process_set is None
            or not process.rest()
        ):
            return None
        entry = _Resting(process, self.link, self.bot_seed, self.label, self.process_set)
        self.link = None
        return entry

    async def _wake(self) -> bool:
        """Makes a resting process that has seen no game of this set the slot's own (the
        running one rests in its place, or is ended): True if there was one. Resting processes
        that ended meanwhile are ended for good."""
        found: _Resting | None = None
        for entry in list(self._resting):
            if not entry.process.is_running():
                self._resting.remove(entry)
                await entry.end()
            elif found is None and entry.set_index != self.game_set:
                found = entry
        if found is None or self.process is None or not self.process.is_running():
            return False
        self._resting.remove(found)
        resting = self._resting_entry()
        if resting is None:
            self.process.retire()
        old, old_link = self.process, self.link
        self.process, self.link = found.process, found.link
        self.bot_seed, self.label = found.bot_seed, found.label
        self.process_set = found.set_index
        if resting is not None:
            self._resting.append(resting)
        else:  # (it could not rest: ended, as a process of the set it saw)
            if old_link is not None:
                await _close_link(old_link)
            self._stopping = asyncio.ensure_future(asyncio.to_thread(old.stop))
        self.state = SeatState.PLAYING
        self.woken += 1
        return True

    async def _start(self, spare_seed: int | None, *, swapped: bool) -> tuple[str, str] | None:
        """:meth:`ensure_ready` from its spare on: ``spare_seed`` as :meth:`_take_spare` gave
        it; ``swapped``: the process is the seat made ready ahead (the old one retired)."""
        await self.shutdown(keep_process=swapped)
        if self.process is not None and spare_seed is not None and self._other is not None:
            # The spare has seen no game: it becomes this game's process, the old one (dead
            # now) the next spare.
            self.process, self._other = self._other, self.process
            self.process.promote()
        # A connection made ahead to a seat made ready ahead asks Describe at once: the call
        # waits in the bot's server (its SDK's, started ahead) until the bot's own start
        # takes that server, and is answered then, while the start is still being checked.
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] is not self.process:
            await _forget_link(ahead[1], None)
            ahead = None
        early = None
        if ahead is not None:
            early = asyncio.ensure_future(
                ahead[1].describe(ahead[0].start_timeout + DESCRIBE_TIMEOUT)
            )
        try:
            if self.process is not None and spare_seed is not None:
                self.bot_seed = spare_seed
                target = self.process.address
            elif self.process is not None:
                seed = draw_seed()
                try:
                    await self._start_process({"SCOPA_BOT_SEED": str(seed)})
                except StartError as error:
                    memory = self.process.memory_fault()
                    return ("memory", memory) if memory is not None else ("start", str(error))
                self.bot_seed = seed
                target = self.process.address
            else:
                assert self.bot.address is not None
                target = self.bot.address
            if ahead is not None and ahead[1].target == target:  # the bot serves there
                self.link, ahead = ahead[1], None
            else:
                self.link = BotLink(target)
        finally:
            if ahead is not None:  # not where the bot serves, or its start failed
                await _forget_link(ahead[1], early)
                early = None
        try:
            if early is not None:
                info = await asyncio.wait_for(early, DESCRIBE_TIMEOUT)
            else:
                info = await self.link.describe(DESCRIBE_TIMEOUT)
        except TimeoutError:
            return "start", f"Describe did not answer within {DESCRIBE_TIMEOUT:g} s"
        except Exception as error:
            code = getattr(error, "code", None)
            name = code().name if callable(code) else type(error).__name__
            return "start", f"Describe failed: {name}"
        if info.protocol_version not in (0, 1):
            return "start", f"the bot speaks protocol version {info.protocol_version}, not 1"
        variants = list(info.variants)
        if variants and "*" not in variants and self.variant not in variants:
            return "start", (
                f"the bot does not play {self.variant!r} (it plays {', '.join(variants)})"
            )
        if self.bot.manifest is None and info.name:  # what the bot says of itself: text only
            name, version = printable(info.name[:40]), printable(info.version[:40])
            self.label = f"{name} ({version})" if version else name  # as Manifest.label
        self.state = SeatState.PLAYING
        return None

    async def _start_process(self, env: dict[str, str]) -> None:
        """Starts the process in a thread. Cancelled (the match is), it calls the start off
        and waits for its thread to give up: a start going on behind the match's clean-up
        would leave a bot running, and its seat folder, after the match has ended."""
        assert self.process is not None
        process = self.process
        process.go(env)  # a seat made ready ahead starts now, while its thread is found
        start = asyncio.ensure_future(asyncio.to_thread(process.start, env))
        try:
            await asyncio.shield(start)
        except asyncio.CancelledError:
            process.abort()
            with contextlib.suppress(BaseException):
                await start
            raise

    def prestart(self, *, whole: bool = True) -> None:
        """Starts a spare process for this slot's next game, in the background (once);
        ``whole=False`` only builds its sandbox (:meth:`BotProcess.prepare`: no bot code runs
        before the game), where the seat is forked, else does nothing."""
        if self.process is None or self._make_spare is None or self._spare is not None:
            return
        if any(entry.set_index != self.game_set for entry in self._resting):
            return  # a process resting since an earlier set plays the next game
        if self._other is None:
            self._other = self._make_spare(self.process)
        spare = self._other
        spare.abort(stop=False)
        if not whole:

            def prepare() -> int | None:
                try:
                    return PREPARED if spare.prepare() else None
                except HostError as error:  # the game's own start tries again
                    spare.log.add(f"[arena] a seat's sandbox was not built ahead: {error}\n")
                    return None

            self._spare = asyncio.ensure_future(self._prepare_ahead(spare, prepare))
            return
        seed = draw_seed()

        def start() -> int | None:
            try:
                spare.start({"SCOPA_BOT_SEED": str(seed)}, spare=True)
            except (StartError, HostError) as error:  # the game's own start tries again
                spare.log.add(f"[arena] a spare did not start ahead of its game: {error}\n")
                return None
            return seed

        self._spare = asyncio.ensure_future(self._after_stopping(start))

    async def _prepare_ahead(
        self, spare: BotProcess, prepare: Callable[[], int | None]
    ) -> int | None:
        """Makes ``spare`` ready ahead, then starts connecting to it (:attr:`_ahead`)."""
        await self._forget_ahead()
        made = await self._after_stopping(prepare)
        address = spare.ahead_address if made == PREPARED else None
        if address is not None:
            link = BotLink(address)
            link.connect()
            self._ahead = (spare, link)
        return made

    async def _forget_ahead(self) -> None:
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            await _forget_link(ahead[1], None)

    async def _after_stopping(self, work: Callable[[], int | None]) -> int | None:
        """Runs ``work`` in a thread once the other process's clean-up (if any) is done."""
        await self._await_stopping()
        return await asyncio.to_thread(work)

    async def _await_stopping(self) -> None:
        stopping, self._stopping = self._stopping, None
        if stopping is not None:
            with contextlib.suppress(Exception):
                await stopping

    async def _take_spare(self) -> int | None:
        """Waits for the spare's start: its bot seed, :data:`PREPARED` (its sandbox only), or
        None (no spare, or it failed)."""
        task, self._spare = self._spare, None
        if task is None:
            return None
        if self._other is not None:
            self._other.hurry()
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if self._other is not None:
                self._other.abort()
            with contextlib.suppress(BaseException):
                await task
            raise

    async def _drop_spare(self) -> None:
        """Calls off a spare's start and stops it (the match ends, fails or is cancelled)."""
        task, self._spare = self._spare, None
        if self._other is not None:
            self._other.abort()
        if task is not None:
            with contextlib.suppress(BaseException):
                await task
        await self._forget_ahead()
        await self._await_stopping()
        if self._other is not None:
            await asyncio.to_thread(self._other.close)

    def exit_detail(self) -> str | None:
        """How the process ended, if it did: ``exit status 1``, ``killed by SIGKILL``."""
        if self.process is None:
            return None
        status = self.process.exit_status()
        if status is None:
            return None
        if status < 0:
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(-status).name}"
        if status > 128:  # bwrap reports its child's death by signal as 128 + signal
            with contextlib.suppress(ValueError):
                return f"killed by {signal.Signals(status - 128).name}"
        return f"exit status {status}"

    async def shutdown(self, *, keep_process: bool = False) -> None:
        """Closes the connection and kills the process group (``keep_process``: the
        connection only)."""
        if self.link is not None:
            with contextlib.suppress(Exception):
                await self.link.close()
            self.link = None
        if self.process is not None and not keep_process:
            await asyncio.to_thread(self.process.stop)
        if self.state is not SeatState.RETIRED:
            self.state = SeatState.STARTING

    def dropped_output(self) -> int:
        """Bytes of the process's output its log has left out, over all its starts."""
        return 0 if self.process is None else self.process.log.dropped_bytes

    async def close(self) -> None:
        """Shuts down for good: the process, its spare, the processes resting, and their
        copies of the bot folder."""
        await self._drop_spare()
        await self.shutdown()
        if self.process is not None:
            await asyncio.to_thread(self.process.close)
        resting, self._resting = self._resting, []
        for entry in resting:
            await entry.end()
        self.state = SeatState.RETIRED


# ---- spares ----------------------------------------------------------------------------


def spare_of(process: BotProcess) -> BotProcess:
    """A second process for the slot of ``process``: same bot and limits, its own folders and
    group, writing to the same log."""
    return BotProcess(
        label=f"{process.label}s",
        command=list(process.command),
        folder=process.folder,
        limits=process.limits,
        sandboxed=process.sandboxed,
        python=process.python,
        start_timeout=process.start_timeout,
        env=dict(process.env),
        log=process.log,
        fork=process.fork,
    )
