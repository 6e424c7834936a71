"""The queue between the site and the workers: the Celery application's configuration, and
work sent to the workers by task name.

Configured from the Django settings (themselves from environment variables): with
``ARENA_BROKER_URL`` set (``redis://...``) every process shares that broker; without it the
embedded broker is kombu's ``filesystem://`` transport under ``$ARENA_DATA_DIR/broker``, which
needs no server and serves any number of local worker processes
(:class:`webui.local_workers.LocalWorkers`).

Settings that do not lose work: a task is acknowledged only after it finished
(``acks_late``), handed back when its worker process dies (``reject_on_worker_lost``), one
message reserved per process at a time (prefetch 1), soft and hard time limits, and a Redis
visibility timeout above the hard limit so a message is redelivered only when its worker is
really gone. What a lost message leaves behind (a Redis restart without persistence, a killed
or cut-off host) is found by ``arena.sweep`` (celery beat, every ``ARENA_SWEEP_INTERVAL_S``, 30 s
by default, or the ``arena season run`` loop: :func:`webui.league.sweep.requeue_stale`).
Beat also runs ``arena.schedule_ladder`` every ``ARENA_LADDER_INTERVAL_S``: the continuous
ladder's matches.

Two queues: ``ARENA_QUEUE`` for everything the workers that play bot matches do, and the Play
queue (:func:`play_queue`) for the Play page's games (``arena.play_human``), which only
``arena worker --play`` serves, with a pool of threads: a game mostly waits for a person, and
must never hold a process that plays bot matches.

Workers ride out a broker restart: they reconnect and go on (``RedisTransport`` below mends a
kombu channel that a dead connection left half-closed, which killed busy workers).

The league sends work by name (:func:`enqueue`, after the transaction commits) and never
imports the workers; :mod:`workers.celery_app` is this application with the workers' tasks
included.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from queue import Empty
from typing import Any
from urllib.parse import urlsplit

from celery import Celery
from django.conf import settings
from django.db import transaction
from kombu.exceptions import ChannelError
from kombu.transport import filesystem as kombu_filesystem
from kombu.transport import redis as kombu_redis
from kombu.utils import json as kombu_json

log = logging.getLogger("arena.league")

REDIS_SCHEMES = {"redis", "rediss"}


class RedisChannel(kombu_redis.Channel):
    """kombu's Redis channel, except that a dead connection does not leave it half-closed.

    Why (kombu 5.7.0 with celery 5.7.0, the latest releases): ``Channel.close()`` first reads
    the reply of a BRPOP under way. On a connection the broker dropped, that read raises a
    connection error before the channel is marked closed, so the ``Connection.collect()`` a
    worker runs when it loses its broker leaves the channel open and detaches the transport
    from its connection. Celery then closes the connection again; the channel's second close
    restores its unacknowledged messages through a new connection pool whose parameters it
    reads from the detached transport: ``AttributeError: 'NoneType' object has no attribute
    'hostname'``, which no error handler expects, and the worker's main process exits. A
    channel is in BRPOP with unacknowledged messages when its worker runs a task and has a free
    process: ``--concurrency 2`` (the default on 2 cores) playing one match.

    Here a failed read on a dead connection is what it is: there is no reply to wait for
    (``_brpop_read`` has already disconnected and left the poll), and the close goes on at once,
    while the transport still has its connection's parameters. The unacknowledged messages are
    restored if the broker is back, or else stay in its unacked hash until the visibility
    timeout (and ``arena.sweep`` finds the matches).
    """

    def close(self) -> None:
        """Closes the channel, also when the reply of a pending BRPOP can no longer come."""
        if self._in_poll:
            try:
                self._brpop_read()  # type: ignore[no-untyped-call]
            except Empty:
                pass
            except self.connection_errors:
                pass  # the connection is gone, and with it the reply
        super().close()  # type: ignore[no-untyped-call]


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`RedisChannel`."""

    Channel = RedisChannel


class FilesystemChannel(kombu_filesystem.Channel):
    """kombu's filesystem channel, except that a worker never reads a message half-written,
    and a message it cannot read costs that message only, not the worker.

    Why (kombu 5.7.0): ``_put`` creates the message's file under its final name and writes it
    after, while a worker polling the folder (every 20 ms here) moves away and reads whatever
    file has a message's name. Between the two, it reads nothing, and ``_get`` raises a JSON
    error that ends the worker: a season then waits for a worker that is gone. Here a message
    is written under a hidden name, which no reader takes, and renamed into place whole.
    """

    def _put(self, queue: Any, message: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{round(time.monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        hidden = os.path.join(self.data_folder_out, "." + name)  # kombu reads no dot file
        try:
            with open(hidden, "wb") as handle:
                handle.write(kombu_json.dumps(message).encode())  # type: ignore[no-untyped-call]
            os.replace(hidden, final)
        except OSError as error:
            raise ChannelError(f"cannot add {name!r} to the queue") from error

    def _get(self, queue: Any, timeout: Any = None) -> Any:
        while True:  # kombu removed a file it could not decode: the next one is read
            try:
                return super()._get(queue)  # type: ignore[no-untyped-call]
            except ValueError as error:
                log.error("the embedded broker dropped a message it cannot read: %s", error)


class FilesystemTransport(kombu_filesystem.Transport):
    """kombu's filesystem transport with :class:`FilesystemChannel`."""

    Channel = FilesystemChannel


def broker_options() -> tuple[str, dict[str, object]]:
    """The broker URL and transport options the environment asks for."""
    hard_limit = settings.ARENA_TASK_TIME_LIMIT_S
    if settings.ARENA_BROKER_URL:
        options: dict[str, object] = {
            # Redis redelivers an unacknowledged message after this: above the longest task.
            "visibility_timeout": hard_limit + 600,
            "socket_timeout": 10,
            "socket_connect_timeout": 10,
            "retry_on_timeout": True,
        }
        if settings.ARENA_BROKER_PREFIX:
            # Every key, not only the queue's: kombu keeps one "unacked" hash per Redis
            # database, which installations sharing it would otherwise restore for each other.
            options["global_keyprefix"] = settings.ARENA_BROKER_PREFIX
        return settings.ARENA_BROKER_URL, options
    folder = settings.ARENA_BROKER_DIR
    queue_dir = folder / "queue"
    processed = folder / "processed"
    queue_dir.mkdir(parents=True, exist_ok=True)
    processed.mkdir(parents=True, exist_ok=True)
    control = folder / "control"
    control.mkdir(parents=True, exist_ok=True)
    return "filesystem://", {
        # kombu's default is ./control, which litters whatever folder the process started in.
        "control_folder": str(control),
        "data_folder_in": str(queue_dir),
        "data_folder_out": str(queue_dir),
        "processed_folder": str(processed),
        "store_processed": False,
        # A folder scan is cheap (an idle worker uses well under 1% of a core) and every task
        # waits up to this long: the queue's own overhead per match is ~50 ms instead of ~230.
        "polling_interval": 0.02,
    }


def play_queue() -> str:
    """The Play page's queue: ``ARENA_PLAY_QUEUE``, else the match queue's name + ``-play``."""
    return str(settings.ARENA_PLAY_QUEUE or f"{settings.ARENA_QUEUE}-play")


def audit_queue() -> str:
    """The fair-play audits' queue: ``ARENA_AUDIT_QUEUE``, else the match queue's name +
    ``-audit``; served by ``arena worker --audit`` alone, so audits never take a match slot."""
    return str(settings.ARENA_AUDIT_QUEUE or f"{settings.ARENA_QUEUE}-audit")


def make_app() -> Celery:
    """A Celery application configured from the settings (:func:`current_app` is this
    process's; the workers add their tasks to it, :mod:`workers.celery_app`)."""
    broker_url, transport_options = broker_options()
    hard_limit = settings.ARENA_TASK_TIME_LIMIT_S
    celery = Celery("arena", broker=broker_url)
    if urlsplit(broker_url).scheme in REDIS_SCHEMES:
        celery.conf.broker_transport = f"{__name__}:RedisTransport"
    elif broker_url == "filesystem://":
        celery.conf.broker_transport = f"{__name__}:FilesystemTransport"
    celery.conf.update(
        broker_transport_options=transport_options,
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,  # a worker waits for its broker to come back
        task_default_queue=settings.ARENA_QUEUE,
        task_routes={
            "arena.play_human": {"queue": play_queue()},
            "arena.fairplay_audit": {"queue": audit_queue()},
            "arena.fairplay_sweep": {"queue": audit_queue()},
        },
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_acks_on_failure_or_timeout=True,
        task_time_limit=hard_limit,
        task_soft_time_limit=max(1, hard_limit - 60),
        task_ignore_result=True,
        task_serializer="json",
        accept_content=["json"],
        worker_prefetch_multiplier=1,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        worker_hijack_root_logger=False,
        # The arena's log handler writes to sys.stderr: redirected into a logger by Celery, its
        # records came back to that handler and were dropped, so a worker logged nothing.
        worker_redirect_stdouts=False,
        worker_send_task_events=False,
        timezone="UTC",
        beat_schedule={
            "sweep": {"task": "arena.sweep", "schedule": settings.ARENA_SWEEP_INTERVAL_S},
            "ladder": {
                "task": "arena.schedule_ladder",
                "schedule": settings.ARENA_LADDER_INTERVAL_S,
            },
            "fairplay": {
                "task": "arena.fairplay_sweep",
                "schedule": settings.ARENA_FAIRPLAY_INTERVAL_S,
            },
        },
    )
    return celery


app: Celery | None = None
"""This process's application, made on first use (:func:`current_app`)."""


def current_app() -> Celery:
    """This process's Celery application (made on first use, from the settings)."""
    global app
    if app is None:
        app = make_app()
    return app


def send(task: str, *args: Any, countdown: float | None = None) -> None:
    """Sends task ``task`` (by name) with ``args`` now; a broker that is down is logged (the
    sweeper enqueues the work again later)."""
    try:
        current_app().send_task(task, args=list(args), countdown=countdown)
    except Exception as error:  # the broker is down: the sweeper enqueues it again later
        log.warning("could not enqueue %s%s: %s", task, tuple(args), error)


def enqueue(task: str, *args: Any, countdown: float | None = None) -> None:
    """Sends task ``task`` (by name) with ``args`` once the current transaction commits."""
    transaction.on_commit(lambda: send(task, *args, countdown=countdown))


def queue_depth(queue: str | None = None) -> int | None:
    """Messages waiting in ``queue`` (the arena's by default; not yet taken by a worker), or
    None if unknown."""
    try:
        with current_app().connection_for_read() as connection:
            channel = connection.default_channel
            declared = channel.queue_declare(queue=queue or settings.ARENA_QUEUE, passive=True)
            return int(declared.message_count)
    except Exception:  # no such queue yet, or the broker is away
        return None
