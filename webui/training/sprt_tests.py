"""Version tests: an owner's new version against its ladder version, by the SPRT of
:mod:`arena.sprt` (the pentanomial over duplicate pairs, as ``arena match --sprt``).

:func:`create_test` checks everything before it writes, then sends ``ARENA_SPRT_PARALLEL``
workers the task ``arena.sprt_pair``; each plays one duplicate pair (unrated, no league match:
the pairs are this app's rows), counts it with :func:`record_pair` and sends the next, until
the LLR crosses a bound or ``max_pairs`` are played. The task yields to the league's work:
while a season's, the ladder's or a challenge's match waits to be played it puts itself back
(:func:`league_work_waiting`), at most ``ARENA_SPRT_MAX_YIELDS`` times in a row, so a test
runs behind that work without starving. :func:`promote` makes the new version the ladder
version once H1 is accepted (the owner only); a test that accepts H1 of a version uploaded with
``test_then_promote`` (``BotVersion.promote_on_pass``) promotes it itself, if the ladder
version is still the one it was tested against. Two versions of identical code (the same
archive, or the same unpacked files) are refused: their test could only measure noise.

What one account may start is bounded (docs/SECURITY.md, "Work limits per user"): pairs per
test (``ARENA_SPRT_PAIRS_PER_TEST``, a 400 beyond), running tests per user and per bot
(``ARENA_SPRT_TESTS_PER_USER``, ``ARENA_SPRT_TESTS_PER_BOT``) and pairs not yet started of a
user's running tests (``ARENA_SPRT_PAIRS_PER_USER``): a 429 beyond, naming the limit, and
nothing written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from arena.seeds import draw_seed
from arena.sprt import Sprt, SprtError, estimate, pair_outcome, pairs_left
from webui.league import ladder
from webui.league.models import Bot, BotVersion, LadderEntry, Match
from webui.league.queue import enqueue, send

from .models import SprtPair, SprtTest

TASK = "arena.sprt_pair"
MAX_PAIRS = 2000  # pairs of one test, unless ARENA_SPRT_PAIRS_PER_TEST says otherwise
DEFAULT_MAX_PAIRS = 500


class TestError(ValueError):
    """A test refused: the field at fault, an HTTP status, one line; nothing is written."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.status = status


def parallel() -> int:
    """Pairs of one test in flight at once."""
    return max(1, int(getattr(settings, "ARENA_SPRT_PARALLEL", 2)))


def max_pairs_per_test() -> int:
    """The most pairs one test may ask for (``ARENA_SPRT_PAIRS_PER_TEST``)."""
    return max(1, int(getattr(settings, "ARENA_SPRT_PAIRS_PER_TEST", MAX_PAIRS)))


def _check_work_limits(user: Any, bot: Bot, max_pairs: int) -> None:
    """Raises the 429 of a limit that one more test of ``max_pairs`` pairs would pass. Call
    it inside the transaction that holds the user's row (two requests cannot both pass)."""
    running = SprtTest.objects.filter(created_by=user, status=SprtTest.Status.RUNNING)
    most = int(settings.ARENA_SPRT_TESTS_PER_USER)
    count = running.count()
    if count >= most:
        raise TestError(
            "version",
            f"you have {count} version tests running, the most one user may have at once "
            f"(ARENA_SPRT_TESTS_PER_USER = {most}): stop one or wait for it to decide",
            429,
        )
    most = int(settings.ARENA_SPRT_TESTS_PER_BOT)
    count = SprtTest.objects.filter(bot=bot, status=SprtTest.Status.RUNNING).count()
    if count >= most:
        raise TestError(
            "version",
            f"bot {bot.name!r} has {count} version tests running, the most one bot may have "
            f"at once (ARENA_SPRT_TESTS_PER_BOT = {most}): stop one or wait for it to decide",
            429,
        )
    most = int(settings.ARENA_SPRT_PAIRS_PER_USER)
    booked = running.aggregate(left=Sum(F("max_pairs") - F("pairs_started")))["left"] or 0
    if booked + max_pairs > most:
        raise TestError(
            "max_pairs",
            f"your running tests have {booked} pairs still to play; {max_pairs} more would pass "
            f"the most one user may have waiting (ARENA_SPRT_PAIRS_PER_USER = {most})",
            429,
        )


def create_test(
    user: Any,
    bot: Bot,
    number: int,
    *,
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> SprtTest:
    """Starts a test of ``bot``'s version ``number`` against its ladder version. Raises
    :class:`TestError` (400 naming the field, 403, or 429 at a work limit); nothing is
    written then."""
    if not getattr(user, "is_authenticated", False) or bot.owner_id != user.pk:
        raise TestError("bot", f"only the owner of bot {bot.name!r} may test its versions", 403)
    try:
        test = Sprt(elo0=float(elo0), elo1=float(elo1), alpha=float(alpha), beta=float(beta))
    except (SprtError, ValueError, TypeError) as error:
        named = [n for n in ("elo0", "elo1", "alpha", "beta") if n in str(error)]
        raise TestError(named[0] if named else "elo1", str(error)) from None
    if (
        isinstance(max_pairs, bool)
        or not isinstance(max_pairs, int)
        or not 1 <= max_pairs <= max_pairs_per_test()
    ):
        raise TestError(
            "max_pairs",
            f"max_pairs must be a whole number from 1 to {max_pairs_per_test()} "
            f"(ARENA_SPRT_PAIRS_PER_TEST), not {max_pairs!r}",
        )
    entry = LadderEntry.objects.filter(bot=bot).select_related("version").first()
    if entry is None or entry.status == LadderEntry.Status.RETIRED:
        raise TestError("bot", f"bot {bot.name!r} has no ladder version to test against")
    new = BotVersion.objects.filter(bot=bot, number=number).first()
    if new is None:
        raise TestError("version", f"bot {bot.name!r} has no version {number}")
    if new.status != BotVersion.Status.READY:
        raise TestError("version", f"{new.label} has not passed validation ({new.status})")
    if new.pk == entry.version_id:
        raise TestError("version", f"{new.label} is the ladder version already")
    if is_same_code(new, entry.version):
        raise TestError(
            "version",
            f"{new.label} has the same code as the ladder version {entry.version.label}: "
            "a test of identical code can only measure noise; upload a changed version",
        )
    variants = [
        v
        for v in ladder.ladder_variants()
        if ladder.plays(entry.version, v) and ladder.plays(new, v)
    ]
    if not variants:
        raise TestError("version", f"{new.label} and {entry.version.label} share no ladder variant")
    variant = variants[0]
    with transaction.atomic():
        # The user's row serializes their requests: two at once cannot both pass the limits.
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        _check_work_limits(user, bot, max_pairs)
        row = SprtTest.objects.create(
            bot=bot,
            new_version=new,
            old_version=entry.version,
            variant=variant,
            elo0=test.elo0,
            elo1=test.elo1,
            alpha=test.alpha,
            beta=test.beta,
            max_pairs=max_pairs,
            seed=draw_seed(),
            counts=[0, 0, 0, 0, 0],
            created_by=user,
        )
        for _ in range(min(parallel(), max_pairs)):
            enqueue(TASK, row.pk, 0)
    return row


def is_same_code(a: BotVersion, b: BotVersion) -> bool:
    """Whether two versions hold identical code: the same archive, or the same unpacked files
    (versions stored before the files' hash was kept compare by their archives only)."""
    return a.sha256 == b.sha256 or bool(a.code_sha256 and a.code_sha256 == b.code_sha256)


def league_work_waiting() -> bool:
    """Whether a season's, the ladder's or a challenge's match waits for a worker."""
    return Match.objects.filter(status=Match.Status.SCHEDULED).exists()


def claim_pair(test_id: int) -> int | None:
    """The next pair number of a running test, taken once (None: none left to play)."""
    for _ in range(20):
        row = (
            SprtTest.objects.filter(pk=test_id)
            .values("status", "pairs_started", "max_pairs")
            .first()
        )
        if (
            row is None
            or row["status"] != SprtTest.Status.RUNNING
            or row["pairs_started"] >= row["max_pairs"]
        ):
            return None
        index = row["pairs_started"]
        if SprtTest.objects.filter(
            pk=test_id, status=SprtTest.Status.RUNNING, pairs_started=index
        ).update(pairs_started=index + 1):
            return int(index)
    return None


def new_score(game: Any) -> float | None:
    """The new version's (entrant 0's) score in one game of a pair: 1, 0.5, 0; None if void."""
    if game.void is not None:
        return None
    if 0 in game.winner_entrants:
        return 1.0
    return 0.5 if game.winner_side is None else 0.0


def record_pair(
    test_id: int, index: int, scores: list[float | None], replays: Sequence[Mapping[str, Any]]
) -> bool:
    """Counts pair ``index`` of a test once (False when it was counted already), updates the
    LLR and decides; a test that has decided counts no more pairs."""
    with transaction.atomic():
        test = SprtTest.objects.select_for_update().filter(pk=test_id).first()
        if test is None or SprtPair.objects.filter(test=test, index=index).exists():
            return False
        void = len(scores) != 2 or any(s is None for s in scores)
        outcome = None if void else pair_outcome(float(scores[0] or 0), float(scores[1] or 0))
        SprtPair.objects.create(
            test=test, index=index, scores=scores, outcome=outcome, replays=replays
        )
        if test.status != SprtTest.Status.RUNNING:
            return True
        counts = list(test.counts or [0, 0, 0, 0, 0])
        if outcome is None:
            test.void_pairs += 1
        else:
            counts[outcome] += 1
        sprt = Sprt(elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta)
        test.counts = counts
        if outcome is not None:
            test.llr = sprt.llr(counts)
            test.history = [*test.history, round(test.llr, 4)]
        decision = sprt.decide(counts) if outcome is not None else None
        played = sum(counts) + test.void_pairs
        if decision is not None:
            test.status = SprtTest.Status.H1 if decision == "H1" else SprtTest.Status.H0
        elif played >= test.max_pairs:
            test.status = SprtTest.Status.UNDECIDED
        if test.status != SprtTest.Status.RUNNING:
            test.finished = timezone.now()
        if test.status == SprtTest.Status.H1 and _promote_on_pass(test):
            test.promoted = test.finished
        test.save(
            update_fields=[
                "counts",
                "void_pairs",
                "llr",
                "history",
                "status",
                "finished",
                "promoted",
            ]
        )
    return True


def _promote_on_pass(test: SprtTest) -> bool:
    """Promotes a test's new version that accepted H1, if its owner asked for that at upload
    and the ladder version is still the one it was tested against; whether it did."""
    new = test.new_version
    if not new.promote_on_pass:
        return False
    entry = LadderEntry.objects.filter(bot_id=test.bot_id).first()
    if entry is None or entry.version_id != test.old_version_id:
        return False  # the owner chose another version meanwhile: theirs stands
    try:
        with transaction.atomic():  # a savepoint: a refusal leaves the test's result whole
            ladder.promote(test.bot.owner, test.bot, new.number)
    except ladder.LadderError:
        return False
    return True


def next_pair(test_id: int, yields: int = 0, countdown: float | None = None) -> None:
    """Sends the task of the test's next pair (now: not inside a transaction)."""
    send(TASK, test_id, yields, countdown=countdown)


def stop_test(user: Any, test: SprtTest) -> None:
    """Stops a running test (its owner): no more pairs are played."""
    if getattr(user, "pk", None) != test.bot.owner_id:
        raise TestError("test", "only the bot's owner may stop its test", 403)
    SprtTest.objects.filter(pk=test.pk, status=SprtTest.Status.RUNNING).update(
        status=SprtTest.Status.STOPPED, finished=timezone.now()
    )


def promote(user: Any, test: SprtTest) -> None:
    """Makes a test's new version the ladder version: the owner, once H1 is accepted."""
    if getattr(user, "pk", None) != test.bot.owner_id:
        raise TestError("test", "only the bot's owner may promote its version", 403)
    if test.status != SprtTest.Status.H1:
        raise TestError(
            "test", f"the test has not accepted H1 ({test.status}): nothing to promote", 409
        )
    try:
        ladder.choose(user, test.bot, test.new_version.number, None)
    except ladder.LadderError as error:
        raise TestError("test", str(error), error.status) from None
    SprtTest.objects.filter(pk=test.pk, promoted__isnull=True).update(promoted=timezone.now())


def summary(test: SprtTest) -> dict[str, Any]:
    """A test as its page and the API show it."""
    sprt = Sprt(elo0=test.elo0, elo1=test.elo1, alpha=test.alpha, beta=test.beta)
    found = estimate(test.counts) if test.pairs else None
    left = (
        pairs_left(test.llr, test.pairs, sprt.lower, sprt.upper)
        if test.status == SprtTest.Status.RUNNING
        else None
    )
    if left is not None:
        left = min(left, max(0, test.max_pairs - test.pairs - test.void_pairs))
    seconds_left = None
    if left is not None and test.pairs:
        elapsed = (timezone.now() - test.created).total_seconds()
        seconds_left = round(elapsed / (test.pairs + test.void_pairs) * left)
    return {
        "id": test.pk,
        "bot": test.bot.name,
        "new": test.new_version.label,
        "old": test.old_version.label,
        "variant": test.variant.slug,
        "status": test.status,
        "elo0": test.elo0,
        "elo1": test.elo1,
        "alpha": test.alpha,
        "beta": test.beta,
        "lower": round(sprt.lower, 4),
        "upper": round(sprt.upper, 4),
        "llr": round(test.llr, 4),
        "pairs": test.pairs,
        "void_pairs": test.void_pairs,
        "max_pairs": test.max_pairs,
        "pairs_left": left,
        "seconds_left": seconds_left,
        "pentanomial": list(test.counts),
        "elo": found.describe() if found is not None else "",
        "history": list(test.history),
        "created": test.created.isoformat(),
        "finished": test.finished.isoformat() if test.finished else None,
        "promoted": test.promoted.isoformat() if test.promoted else None,
        "promote_on_pass": test.new_version.promote_on_pass,
    }
