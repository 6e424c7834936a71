"""What a read of a live page costs the database, counted on PostgreSQL through Django's whole
request path (its request signals too, which the test client leaves out): a kept page, the
live progress of a match and of a season, ``/tv/`` and its feed each cost the one version
query of their scopes, what ``/healthz`` costs; no health check before it, no variant looked
up, and no key that changes every second."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection, connections
from live_moves import publish
from web_helpers import record_ladder_match

from webui.league import ladder, matches, read_models, seasons, variants
from webui.league.live import LivePublisher
from webui.league.models import Match

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("reads_on_redis")]


class Statements:
    """Every statement sent to PostgreSQL by psycopg, Django's and its own (the health
    check's ``SELECT 1`` bypasses Django's cursor)."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def during(self, path: str) -> tuple[int, bytes]:
        """Serves ``path`` through Django's WSGI handler; its status and body (the statements
        are in :attr:`sql`)."""
        self.sql.clear()
        path, _, query = path.partition("?")
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": query,
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "wsgi.input": io.BytesIO(),
            "wsgi.url_scheme": "http",
        }
        got: list[str] = []
        body = b"".join(WSGIHandler()(environ, lambda status, headers: got.append(status)))
        return int(got[0].split()[0]), body


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> Iterator[Statements]:
    seen = Statements()
    real = psycopg.Cursor.execute

    def execute(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        seen.sql.append(str(query))
        return real(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", execute)
    yield seen


@pytest.fixture
def live_world(ready_versions: list[Any], settings: Any, users: dict[str, Any]) -> dict[str, Any]:
    """A rated ladder match recorded, a season whose match is being played, and a ladder
    match being played, both with a published move."""
    settings.ARENA_LADDER_VARIANTS = ["scopa"]
    for version in ready_versions:
        ladder.enter_version(version)
    record_ladder_match(ready_versions)
    scopa = variants.get_variant("scopa")
    season = seasons.create_season(
        name="Costs", variant=scopa, entrants=ready_versions, games_per_pairing=2
    )
    seasons.start_season(season)
    season_match = Match.objects.get(season=season)
    ladder_match = matches.create_open_match(
        Match.Kind.LADDER, scopa, ready_versions, games=2, rated=True
    )
    publishers = {}
    for match in (season_match, ladder_match):
        assert matches.claim_match(match.pk, "test") is not None
        publishers[match.pk] = LivePublisher(match.pk, 2, [v.label for v in ready_versions])
    read_models.recompute_reads()
    return {"season": season, "match": ladder_match, "publishers": publishers}


def version_queries(sql: list[str]) -> int:
    return sum(1 for s in sql if "league_readversion" in s)


def test_a_kept_page_and_every_live_read_cost_what_healthz_costs(
    pg: None, statements: Statements, live_world: dict[str, Any], settings: Any
) -> None:
    season, match = live_world["season"], live_world["match"]
    status, _ = statements.during("/healthz")
    assert status == 200 and statements.sql == ["SELECT 1"], "no health check before it"
    healthz = len(statements.sql)
    reads = [
        "/",
        "/ladder/",
        "/ladder/scopa/",
        "/api/ladder/scopa",
        "/tv/",
        "/api/tv",
        f"/api/tv?match={match.pk}",
        f"/matches/{match.pk}/",
        f"/api/matches/{match.pk}/live",
        f"/api/seasons/{season.pk}/live",
    ]
    for path in reads:
        statements.during(path)  # drawn (or read) once: the steady state follows
        status, _ = statements.during(path)
        assert status == 200, path
        assert len(statements.sql) == healthz, (path, statements.sql)
        assert version_queries(statements.sql) == 1, (path, statements.sql)


def test_a_poll_shows_the_newest_move_with_no_query_more(
    pg: None, statements: Statements, live_world: dict[str, Any]
) -> None:
    """The live part is read from the live cache at every poll: a move published between two
    polls is in the second, which costs no more than the first (the rows stay kept)."""
    season, match = live_world["season"], live_world["match"]
    publishers = live_world["publishers"]
    for path, match_id in (
        (f"/api/seasons/{season.pk}/live", Match.objects.get(season=season).pk),
        (f"/api/matches/{match.pk}/live", match.pk),
        ("/api/tv", match.pk),
    ):
        statements.during(path)
        first = statements.during(path)[1]
        cost = len(statements.sql)
        publisher = publishers[match_id]
        publish(publisher, getattr(publisher, "fed", 0) + 3)
        status, second = statements.during(path)
        assert status == 200 and second != first, path
        assert len(statements.sql) == cost == 1, (path, statements.sql)
        newest = publisher.state["moves"][-1]
        assert f'"move": {newest["move"]}' in second.decode(), path


def test_with_health_checks_asked_for_each_request_pays_one_more(
    pg: None, statements: Statements, live_world: dict[str, Any], monkeypatch: Any
) -> None:
    """What ARENA_DB_HEALTH_CHECKS=1 asks for, and what the default saves: a ``SELECT 1``
    before each request's first query."""
    from webui.settings import database_from_url

    url = "postgresql://arena@db/arena"
    assert database_from_url(url)["CONN_HEALTH_CHECKS"] is False
    monkeypatch.setenv("ARENA_DB_HEALTH_CHECKS", "1")
    assert database_from_url(url)["CONN_HEALTH_CHECKS"] is True
    statements.during("/api/tv")
    wrapper = connections["default"]
    wrapper.health_check_enabled = True  # as a connection opened with the setting on
    try:
        statements.during("/api/tv")
    finally:
        wrapper.health_check_enabled = False
    assert statements.sql[0] == "SELECT 1" and len(statements.sql) == 2, statements.sql


@pytest.fixture
def pg() -> None:
    if connection.vendor != "postgresql":
        pytest.fail("these counts are PostgreSQL's: run the suite with PostgreSQL")
