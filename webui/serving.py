"""The site served with its production configuration on this machine: gunicorn, behind nginx.

``ProductionServer`` starts gunicorn with :mod:`webui.gunicorn_conf` (the settings the Docker
image and docker-compose.yml use) and, in front of it, nginx with the server block of
``deploy/nginx/arena.conf.template`` (the one the compose file mounts), each in a process group
of its own, and stops both. ``arena web --production``, ``arena bench site --concurrency`` and
the tests use it. It runs programs; it does not load Django itself, and it is not a supervisor
(in production, docker-compose restarts what stops).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO

from arena.process_groups import stop_group

ROOT = Path(__file__).resolve().parents[1]
NGINX_TEMPLATE = ROOT / "deploy" / "nginx" / "arena.conf.template"
PLACEHOLDERS = ("${ARENA_WEB_UPSTREAM}", "${ARENA_NGINX_LISTEN}")


class ServingError(RuntimeError):
    """The server could not start (one line, with the end of its log)."""


def find_nginx() -> str | None:
    """The nginx program, also where Debian puts it outside a non-root PATH."""
    found = shutil.which("nginx")
    if found is None and os.access("/usr/sbin/nginx", os.X_OK):
        found = "/usr/sbin/nginx"
    return found


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def address(host: str, port: int) -> str:
    """``host:port``, with brackets around an IPv6 host."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def render_site_block(upstream: str, listen: str, template: Path = NGINX_TEMPLATE) -> str:
    """The nginx server block with its two placeholders filled in, as the nginx image does."""
    text = template.read_text()
    text = text.replace(PLACEHOLDERS[0], upstream).replace(PLACEHOLDERS[1], listen)
    if "${ARENA_" in text:
        raise ServingError(f"{template}: a placeholder other than {', '.join(PLACEHOLDERS)}")
    return text


def nginx_main_config(prefix: Path, site: Path) -> str:
    """A whole nginx.conf around the site block, with every file nginx writes under ``prefix``.

    As root, nginx would hand its connections to an unprivileged user that cannot write
    ``prefix``; the workers keep the user that started them instead.
    """
    user = pwd.getpwuid(os.geteuid()).pw_name
    temp = {name: prefix / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for folder in temp.values():
        folder.mkdir(parents=True, exist_ok=True)
    return "\n".join(
        [
            f"user {user};" if os.geteuid() == 0 else "",
            "worker_processes 1;",
            f"pid {prefix / 'nginx.pid'};",
            f"error_log {prefix / 'error.log'} warn;",
            "events { worker_connections 4096; }",
            "http {",
            "    access_log off;",
            f"    client_body_temp_path {temp['body']};",
            f"    proxy_temp_path {temp['proxy']};",
            f"    fastcgi_temp_path {temp['fastcgi']};",
            f"    uwsgi_temp_path {temp['uwsgi']};",
            f"    scgi_temp_path {temp['scgi']};",
            f"    include {site};",
            "}",
            "",
        ]
    )


class ProductionServer:
    """gunicorn with the production settings on ``host:port``, behind nginx when ``nginx``.

    With nginx, gunicorn listens on a free port of 127.0.0.1 and nginx on ``host:port``.
    ``env`` adds to this process's environment for both (ARENA_* settings, ARENA_WEB_WORKERS,
    ARENA_WEB_THREADS); their output goes to ``log_dir`` (a temporary folder by default).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        nginx: bool = True,
        env: Mapping[str, str] | None = None,
        log_dir: Path | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.nginx = nginx
        self.env = {**os.environ, **(env or {})}
        self.env.setdefault("DJANGO_SETTINGS_MODULE", "webui.settings")
        self.env["PYTHONPATH"] = os.pathsep.join(
            p for p in [str(ROOT), self.env.get("PYTHONPATH", "")] if p
        )
        self._scratch = Path(tempfile.mkdtemp(prefix="arena-serve-"))
        self.log_dir = log_dir or self._scratch / "logs"
        self.gunicorn_port = free_port() if nginx else port
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self._logs: list[IO[bytes]] = []

    @property
    def url(self) -> str:
        """The public address: nginx's, or gunicorn's without nginx."""
        return f"http://{address(self.host, self.port)}"

    @property
    def gunicorn_url(self) -> str:
        """gunicorn's own address (the same as :attr:`url` without nginx)."""
        host = "127.0.0.1" if self.nginx else self.host
        return f"http://{address(host, self.gunicorn_port)}"

    def _spawn(self, name: str, argv: list[str]) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 (closed in stop)
        self._logs.append(log)
        self.processes[name] = subprocess.Popen(
            argv,
            cwd=ROOT,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start(self, ready_timeout_s: float = 60.0) -> ProductionServer:
        """Starts gunicorn (and nginx) and waits until ``/healthz`` answers through them."""
        try:
            bind = address("127.0.0.1" if self.nginx else self.host, self.gunicorn_port)
            self.env["ARENA_BIND"] = bind
            self._spawn(
                "gunicorn",
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "python:webui.gunicorn_conf",
                    "webui.wsgi",
                ],
            )
            if self.nginx:
                self._start_nginx(bind)
            self._wait_ready(ready_timeout_s)
        except BaseException:
            self.stop()
            raise
        return self

    def _start_nginx(self, upstream: str) -> None:
        program = find_nginx()
        if program is None:
            raise ServingError("nginx is not installed (scripts/services installs it)")
        prefix = self._scratch / "nginx"
        prefix.mkdir(parents=True, exist_ok=True)
        site = prefix / "arena.conf"
        site.write_text(render_site_block(upstream, address(self.host, self.port)))
        config = prefix / "nginx.conf"
        config.write_text(nginx_main_config(prefix, site))
        self._spawn(
            "nginx",
            [
                program,
                "-p",
                str(prefix),
                "-c",
                str(config),
                "-e",
                str(prefix / "error.log"),
                "-g",
                "daemon off;",
            ],
        )

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            for name, process in self.processes.items():
                if process.poll() is not None:
                    raise ServingError(
                        f"{name} exited with status {process.returncode}: {self.log_tail(name)}"
                    )
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise ServingError(
                    f"{self.url}/healthz did not answer within {timeout_s:g} s: "
                    f"{self.log_tail('gunicorn')}"
                )
            time.sleep(0.1)

    def failed(self) -> str | None:
        """Which process stopped on its own, if one did (a line for the operator)."""
        for name, process in self.processes.items():
            if process.poll() is not None:
                return f"{name} exited with status {process.returncode}"
        return None

    def log_tail(self, name: str, size: int = 2000) -> str:
        """The end of one process's output (nginx's error log for nginx)."""
        paths = [self.log_dir / f"{name}.log"]
        if name == "nginx":
            paths.append(self._scratch / "nginx" / "error.log")
        text = "".join(p.read_text(errors="replace") for p in paths if p.exists())
        return text[-size:].strip()

    def stop(self, timeout: float = 20.0) -> None:
        """Stops nginx, then gunicorn (graceful, then killed with their groups); idempotent."""
        for name in ("nginx", "gunicorn"):
            process = self.processes.pop(name, None)
            if process is not None:
                # nginx: SIGQUIT finishes the requests under way; gunicorn: SIGTERM does.
                stop_group(process, timeout, signal.SIGQUIT if name == "nginx" else signal.SIGTERM)
        for log in self._logs:
            log.close()
        self._logs.clear()
        shutil.rmtree(self._scratch, ignore_errors=True)  # the nginx prefix, default logs

    def __enter__(self) -> ProductionServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
