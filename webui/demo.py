"""What ``arena demo`` does beside serving the site: its house account and its season's progress.

The demo serves the site at once and plays its season meanwhile, so that the first thing a
newcomer sees is the season being played live rather than a blank terminal. :class:`SeasonWatch`
follows the season from a thread of the serving process: a line each time a match is recorded,
then the standings and the champion, as ``arena season run`` prints them. It plays nothing:
the demo's local workers play and record, and its ladder loop sweeps up what a stopped worker
left (``webui.league.ladder.LadderLoop``).

The sample bots belong to the house account (:data:`HOUSE_USER`, which cannot log in), not to
the demo's administrator: the ladder never pairs two bots of one owner, so a bot the newcomer
submits as ``demo`` meets the sample bots.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

HOUSE_USER = "arena"
"""The owner of the sample bots (also ``arena season create``'s, for bot folders)."""
POLL_S = 1.0


def house_owner() -> Any:
    """The house account: staff, with no usable password (nobody logs in as it)."""
    from django.contrib.auth.models import User

    user, created = User.objects.get_or_create(username=HOUSE_USER, defaults={"is_staff": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def adopt_sample_bots(versions: list[Any], owner: Any) -> int:
    """Gives ``owner`` the bots of ``versions`` still owned by someone else (an older demo
    registered them as its administrator's); returns how many changed hands."""
    from webui.league import read_models
    from webui.league.models import Bot

    ids = {v.bot_id for v in versions}
    changed = Bot.objects.filter(pk__in=ids).exclude(owner=owner).update(owner=owner)
    read_models.bot_changed(ids)
    return changed


class SeasonWatch:
    """Prints a season's progress from a thread until it finishes, then ``on_finished``."""

    def __init__(
        self,
        season_id: int,
        say: Callable[[str], None],
        on_finished: Callable[[Any], None],
        poll_s: float = POLL_S,
    ) -> None:
        self.season_id = season_id
        self.say = say
        self.on_finished = on_finished
        self.poll_s = poll_s
        self.stopped = threading.Event()
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._run, name="season-watch", daemon=True)

    def start(self) -> SeasonWatch:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopped.set()
        self.thread.join(timeout=5)

    def _run(self) -> None:
        from django.db import close_old_connections, connection

        from webui.league import ratings, seasons
        from webui.league.models import Season

        last: tuple[int, int] | None = None
        told: set[int] = set()  # the matches whose result was said
        try:
            while not self.stopped.is_set():
                try:
                    season = Season.objects.select_related("variant").get(pk=self.season_id)
                    done, _scheduled = season.progress()
                    planned = seasons.planned_matches(season)
                    for match in recorded_since(self.season_id, told):
                        told.add(match.pk)
                        self.say(f"  {result_line(match)}")
                    if (done, planned) != last:
                        last = (done, planned)
                        self.say(f"{season.name}: {done} of {planned} matches played")
                    if season.status == Season.Status.FINISHED:
                        ratings.update_ratings(season.variant_id)  # what is still unrated
                        self.finished.set()
                        self.on_finished(season)
                        return
                except Exception as error:  # the database blinked: look again
                    self.say(f"(the season's progress could not be read: {error})")
                    close_old_connections()
                self.stopped.wait(self.poll_s)
        finally:
            connection.close()


def recorded_since(season_id: int, told: set[int]) -> list[Any]:
    """The season's matches recorded (played, or void) and not in ``told``, in the order they
    were recorded."""
    from webui.league.models import Match

    done = (Match.Status.DONE, Match.Status.VOID)
    return list(
        Match.objects.filter(season_id=season_id, status__in=done)
        .select_related("winner__bot")
        .exclude(pk__in=told)
        .order_by("finished", "pk")
    )


def result_line(match: Any) -> str:
    """One recorded match, for the terminal: its entrants, games won and game points
    (``greedy@1 2-0 random@1, points 31-6``), or why it is void."""
    from webui.league.matches import match_score
    from webui.league.models import Match

    entrants = match.entrants()
    names = " vs ".join(version.label for version in entrants)
    if match.status == Match.Status.VOID:
        why = (match.error.strip().splitlines() or ["not played"])[0][:160]
        return f"{names}: void ({why})"
    score = match_score(match.summary, len(entrants))
    if score is None:
        return f"{names}: recorded"
    wins = "-".join(str(w) for w in score["wins"])
    points = "-".join(str(p) for p in score["points"])
    if len(entrants) == 2:
        first, second = (version.label for version in entrants)
        line = f"{first} {wins} {second} (games won; points {points})"
        if match.winner is not None and len(set(score["wins"])) == 1:  # a knockout's tie
            line += f", {match.winner.label} goes through"
        return line
    return f"{names}: games won {wins}, points {points}"
