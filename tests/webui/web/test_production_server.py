"""The production server keeps answering while slow clients hold connections open.

The site runs as deployed (:class:`webui.serving.ProductionServer`: gunicorn with
``webui/gunicorn_conf.py``, behind nginx with ``deploy/nginx/arena.conf.template``) on a
migrated SQLite database of its own. Slow clients send half a request header and then nothing,
as the sockets that froze the sync workers did.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from service_checks import require
from web_helpers import descendants, still_running, until_serving

from webui.serving import ProductionServer, find_nginx, free_port, render_site_block

ROOT = Path(__file__).resolve().parents[3]
SLOW_PATH = "/api/openapi.json?from=a-slow-client"
HALF_A_HEADER = f"GET {SLOW_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".encode()

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A data dir and a migrated SQLite database for the server processes."""
    data = tmp_path_factory.mktemp("served")
    env = {
        "ARENA_DATA_DIR": str(data),
        "ARENA_DATABASE_URL": f"sqlite:///{data / 'db.sqlite3'}",
        "ARENA_BROKER_URL": "",
        "ARENA_HTTPS": "0",
        "ARENA_WEB_WORKERS": "2",
        "ARENA_WEB_THREADS": "4",
    }
    migrated = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert migrated.returncode == 0, migrated.stderr
    return env


@pytest.fixture
def nginx() -> str:
    path = find_nginx()
    require(path is not None, "nginx")
    assert path is not None
    return path


def slow_clients(url: str, count: int) -> list[socket.socket]:
    """``count`` connections that each sent half a request header, and nothing more."""
    host, port = url.removeprefix("http://").rsplit(":", 1)
    sockets = []
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=10)
        sock.sendall(HALF_A_HEADER)
        sockets.append(sock)
    return sockets


def still_waiting(sock: socket.socket) -> bool:
    """Whether nobody answered nor closed this connection yet."""
    sock.setblocking(False)
    try:
        sock.recv(1)  # a byte (an answer) or b"" (closed): not waiting any more
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        sock.setblocking(True)


def healthz(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url + "/healthz", timeout=30) as answer:
        return answer.status, answer.read()


def served_requests(server: ProductionServer) -> list[str]:
    """The request lines in gunicorn's access log."""
    return re.findall(r'"([A-Z]+ \S+ HTTP/[\d.]+)"', server.log_tail("gunicorn", size=10**7))


@pytest.fixture
def behind_nginx(
    site_env: dict[str, str], nginx: str, tmp_path: Path
) -> Iterator[ProductionServer]:
    with ProductionServer(port=free_port(), env=site_env, log_dir=tmp_path / "logs") as server:
        yield server


def test_many_slow_clients_never_reach_gunicorn_and_healthz_keeps_answering(
    behind_nginx: ProductionServer,
) -> None:
    server = behind_nginx
    capacity = 2 * 4  # gunicorn's workers x threads here
    held: list[socket.socket] = []
    try:
        for _ in range(5):  # 250 slow clients, 30 times what gunicorn alone could hold
            held += slow_clients(server.url, 50)
            for _ in range(2):
                assert healthz(server.url) == (200, b"ok\n")
        assert len(held) > 30 * capacity
        assert all(still_waiting(sock) for sock in held)
        # nginx kept every one of them: gunicorn saw none, only the health checks (a worker
        # writes a request's access line after its answer: the last may follow a moment later).
        deadline = time.monotonic() + 30
        served = served_requests(server)
        while served.count("GET /healthz HTTP/1.1") < 10 and time.monotonic() < deadline:
            time.sleep(0.1)
            served = served_requests(server)
        assert served.count("GET /healthz HTTP/1.1") >= 10
        assert not [line for line in served if SLOW_PATH in line]
    finally:
        for sock in held:
            sock.close()
    assert healthz(server.url) == (200, b"ok\n")


def test_gunicorn_alone_answers_beside_more_slow_clients_than_it_has_processes(
    site_env: dict[str, str],
    tmp_path: Path,
) -> None:
    # The issue: three slow sockets froze three sync workers. Threads in two processes take
    # twice as many and still answer; nginx in front (above) takes the limit away.
    with ProductionServer(
        port=free_port(), nginx=False, env=site_env, log_dir=tmp_path / "logs"
    ) as server:
        held = slow_clients(server.url, 6)
        try:
            for _ in range(10):
                assert healthz(server.url) == (200, b"ok\n")
            assert all(still_waiting(sock) for sock in held)
        finally:
            for sock in held:
                sock.close()


def test_the_nginx_template_has_exactly_the_placeholders_the_compose_file_sets() -> None:
    compose = (ROOT / "docker-compose.yml").read_text()
    block = render_site_block("web:8000", "80")
    assert "server web:8000;" in block and "listen 80;" in block
    assert "${" not in block
    for name in ("ARENA_WEB_UPSTREAM", "ARENA_NGINX_LISTEN"):
        assert re.search(rf"^\s+{name}: ", compose, re.MULTILINE), name
    assert "python:webui.gunicorn_conf" in compose


@pytest.mark.parametrize(
    "name,value",
    [
        ("ARENA_WEB_WORKERS", "0"),
        ("ARENA_WEB_THREADS", "many"),
        ("ARENA_WEB_TIMEOUT", "-5"),
        ("ARENA_WEB_MAX_REQUESTS", "-1"),
        ("ARENA_WEB_MAX_RSS_MB", "1GB"),
    ],
)
def test_gunicorn_refuses_a_bad_setting_naming_it(name: str, value: str) -> None:
    env = {**os.environ, name: value}
    result = subprocess.run(
        [sys.executable, "-c", "import webui.gunicorn_conf"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert f"{name}={value!r}: expected a whole number from " in result.stderr


def test_arena_web_production_serves_and_stops_on_sigterm_with_nothing_left(
    site_env: dict[str, str],
    nginx: str,
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "web", "--production", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, **site_env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output = until_serving(process, "arena web --production")
        assert "gunicorn behind nginx" in "".join(output)
        assert healthz(f"http://127.0.0.1:{port}") == (200, b"ok\n")
        children = descendants(process.pid)
        commands = [command for _, command in children.values()]
        assert any("gunicorn" in c for c in commands), commands
        assert any("nginx" in c for c in commands), commands
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
        assert still_running(children) == []
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body as sent (a 304 is an answer here, not an error)."""
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_nginx_compresses_pages_and_json_and_their_etags_still_answer_304(
    behind_nginx: ProductionServer,
) -> None:
    import gzip
    import json

    for path, kind in (("/api/openapi.json", "application/json"), ("/cards/", "text/html")):
        status, headers, body = fetch(behind_nginx.url + path, **{"Accept-Encoding": "gzip"})
        assert status == 200 and headers["Content-Type"].startswith(kind)
        assert headers.get("Content-Encoding") == "gzip", headers
        assert "Accept-Encoding" in headers.get("Vary", "")
        text = gzip.decompress(body)
        if kind == "application/json":
            assert json.loads(text)["openapi"].startswith("3.")
        # nginx made the site's ETag weak as it compressed; the site still knows it.
        etag = headers["ETag"]
        assert etag.startswith('W/"')
        again = fetch(behind_nginx.url + path, **{"Accept-Encoding": "gzip", "If-None-Match": etag})
        assert again[0] == 304 and again[2] == b""
    # A client that takes no compression gets the plain bytes.
    status, headers, body = fetch(behind_nginx.url + "/api/openapi.json")
    assert status == 200 and "Content-Encoding" not in headers
    assert json.loads(body)["openapi"].startswith("3.")


def booted_workers(server: ProductionServer) -> set[str]:
    """The pids of the workers gunicorn started, from its log."""
    return booted_workers_in(server.log_tail("gunicorn", 10**7))


def answers_all(url: str, count: int, clients: int) -> list[int]:
    """``count`` requests to ``/healthz`` from ``clients`` threads at once: their statuses
    (an error's status, or 0 when no answer came)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(_: int) -> int:
        try:
            return healthz(url)[0]
        except urllib.error.HTTPError as error:
            return error.code
        except OSError:
            return 0

    with ThreadPoolExecutor(clients) as pool:
        return list(pool.map(one, range(count)))


def test_workers_are_replaced_after_max_requests_and_no_request_fails(
    site_env: dict[str, str], nginx: str, tmp_path: Path
) -> None:
    env = {**site_env, "ARENA_WEB_MAX_REQUESTS": "10", "ARENA_WEB_MAX_REQUESTS_JITTER": "0"}
    with ProductionServer(port=free_port(), env=env, log_dir=tmp_path / "logs") as server:
        first = booted_workers(server)
        statuses = answers_all(server.url, 60, clients=4)
        assert statuses == [200] * 60
        log = server.log_tail("gunicorn", 10**7)
    # Two workers, 10 requests each (nginx's start-up check among them): 60 requests
    # replaced at least four of them.
    assert log.count("Autorestarting worker after current request.") >= 4
    assert len(booted_workers_in(log) - first) >= 4


def test_a_worker_over_the_memory_ceiling_is_replaced_and_no_request_fails(
    site_env: dict[str, str], nginx: str, tmp_path: Path
) -> None:
    env = {**site_env, "ARENA_WEB_MAX_RSS_MB": "1"}  # every worker holds more
    with ProductionServer(port=free_port(), env=env, log_dir=tmp_path / "logs") as server:
        first = booted_workers(server)
        statuses = answers_all(server.url, 6, clients=1)  # one after the other
        assert statuses == [200] * 6
        # A replacement's boot is logged after the request that retired its predecessor was
        # answered: on a loaded host the last one may not be in the log yet.
        deadline = time.monotonic() + 30  # a bound on a hang, not a measure
        log = server.log_tail("gunicorn", 10**7)
        while len(booted_workers_in(log) - first) < 3 and time.monotonic() < deadline:
            time.sleep(0.2)
            log = server.log_tail("gunicorn", 10**7)
    # Each request (the first worker's first) leaves its worker to be replaced: the later
    # ones were served by new workers.
    assert log.count("over ARENA_WEB_MAX_RSS_MB=1: replaced after its requests") >= 3
    assert len(booted_workers_in(log) - first) >= 3


def booted_workers_in(log: str) -> set[str]:
    return set(re.findall(r"Booting worker with pid: (\d+)", log))
