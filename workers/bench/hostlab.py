"""Separate hosts on one machine, for ``arena bench hosts`` and the multi-host tests.

A :class:`Lab` is a private LAN and the hosts plugged into it. The LAN is a bridge in a network
namespace of its own; each host is a network namespace with one veth link to that bridge, an
address on it, and its own hostname (a UTS namespace per process started there). Worker hosts
also get their own data folder (``ARENA_DATA_DIR``), temporary folder (``TMPDIR``: the seats'
folders) and control group (where the runner makes its seats' groups), so what each host
leaves behind can be told apart. Hosts share nothing but what they reach over the LAN; the
checkout is the same on every host, as one image is on every machine of a deployment.

- :meth:`Lab.start_services` runs the services host: a private PostgreSQL cluster (``initdb``
  and ``postgres`` from the machine's PostgreSQL, as the ``postgres`` user, its folder in the
  lab) and a private ``redis-server``, both listening on the host's LAN address only. The
  machine's own PostgreSQL and Redis are never touched.
- :meth:`Lab.start_arena` runs an arena service of ``docker-compose.yml`` (``worker``,
  ``beat``, ``migrate``) on a host: the compose file's command line and environment, with its
  service names (``db``, ``redis``) resolved to LAN addresses and ``/data`` to the host's
  folder. Nothing here restates a command: the compose file is read (:func:`compose`).
- :meth:`Lab.cut` and :meth:`Lab.restore` pull a host's cable out of the switch and put it
  back (its link on the bridge goes down: its packets go nowhere).
- :meth:`Lab.close` stops every process, deletes every namespace, link, control group and
  folder, also after a failure; a lab left by a killed run is removed by the next one.

Needs root (``ip netns``), iproute2, util-linux (``nsenter``, ``unshare``, ``setpriv``),
PostgreSQL's server programs, ``redis-server``, and for a host whose wall clock is wrong the
``libfaketime`` package (:func:`clock_ahead_env`). Standard library, PyYAML and psycopg;
Django only in the processes started.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit, urlunsplit

from arena.process_groups import finish_group, signal_group

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "docker-compose.yml"
PREFIX = "arena-lab"
SUBNET = "10.77.0"
"""The LAN's /24: private to the lab's own namespaces, so two labs never meet."""
STALE_S = 120.0
"""A lab whose creator is gone and which is older than this is removed by the next lab."""


class LabError(RuntimeError):
    """The lab could not be set up (one line: what failed and why)."""


# ---- the compose file --------------------------------------------------------------------


def compose(path: Path = COMPOSE_FILE) -> dict[str, Any]:
    """``docker-compose.yml`` as data (its ``<<`` merge keys resolved by the YAML loader)."""
    try:
        import yaml
    except ImportError as error:  # a development dependency
        raise LabError(
            "reading docker-compose.yml needs PyYAML: pip install -e '.[dev]'"
        ) from error
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("services"), dict):
        raise LabError(f"{path}: no 'services' mapping")
    return data


_VARIABLE = re.compile(
    r"\$(?:\$|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_][A-Za-z0-9_]*))"
)


def interpolate(text: str, variables: Mapping[str, str]) -> str:
    """Compose's variable substitution: ``${VAR}``, ``${VAR:-default}``, ``${VAR-default}``,
    ``${VAR:?error}``, ``${VAR?error}``, ``$VAR`` and ``$$``. A required variable that is
    missing raises :class:`LabError` with compose's message."""

    def one(found: re.Match[str]) -> str:
        if found.group(0) == "$$":
            return "$"
        name = found.group("name") or found.group("bare")
        op, arg = found.group("op") or "", found.group("arg") or ""
        value = variables.get(name)
        unset = value is None or (op.startswith(":") and value == "")
        if op.endswith("-") and unset:
            return arg
        if op.endswith("?") and unset:
            raise LabError(f"{name}: {arg or 'required'}")
        return value or ""

    return _VARIABLE.sub(one, text)


def service(name: str, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One service of the compose file."""
    services = (data or compose())["services"]
    if name not in services:
        raise LabError(f"docker-compose.yml has no service {name!r}")
    return dict(services[name])


def service_command(
    name: str, variables: Mapping[str, str], data: Mapping[str, Any] | None = None
) -> list[str]:
    """A service's ``command`` with its variables substituted."""
    command = service(name, data).get("command")
    if isinstance(command, str):
        raise LabError(f"service {name}: write its command as a list, not a shell string")
    if not command:
        raise LabError(f"service {name} has no command")
    return [interpolate(str(part), variables) for part in command]


def service_environment(
    name: str, variables: Mapping[str, str], data: Mapping[str, Any] | None = None
) -> dict[str, str]:
    """A service's ``environment`` with its variables substituted (a mapping or a list)."""
    environment = service(name, data).get("environment") or {}
    if isinstance(environment, list):
        environment = dict(
            item.split("=", 1) if "=" in item else (item, "") for item in environment
        )
    return {
        str(k): interpolate("" if v is None else str(v), variables) for k, v in environment.items()
    }


def on_lan(value: str, addresses: Mapping[str, str], paths: Mapping[str, Path]) -> str:
    """A compose value as it reads on the lab's hosts: a URL naming a compose service gets that
    service's LAN address, a path under a volume's mount point (``/data``) the host's folder."""
    for mount, folder in paths.items():
        if value == mount or value.startswith(mount + "/"):
            return str(folder) + value[len(mount) :]
    if "://" in value:
        parts = urlsplit(value)
        if parts.hostname is not None and parts.hostname in addresses:
            userinfo = parts.netloc.rpartition("@")[0]
            port = f":{parts.port}" if parts.port else ""
            netloc = f"{userinfo}@" if userinfo else ""
            netloc += addresses[parts.hostname] + port
            return urlunsplit(parts._replace(netloc=netloc))
    return value


# ---- processes, namespaces, control groups -----------------------------------------------


def _run(argv: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Runs a set-up command; a failure is a :class:`LabError` with its output."""
    done = subprocess.run(list(argv), capture_output=True, text=True, check=False, **kwargs)
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip().splitlines()
        raise LabError(f"{' '.join(argv)}: {output[-1] if output else done.returncode}")
    return done


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def netns_pids(netns: str) -> set[int]:
    """Processes whose network namespace is ``netns``."""
    done = subprocess.run(
        ["ip", "netns", "pids", netns], capture_output=True, text=True, check=False
    )
    return {int(p) for p in done.stdout.split() if p.isdigit()}


def cmdline(pid: int) -> str:
    """A process's command line ("" once it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def descendants(roots: set[int]) -> set[int]:
    """``roots`` and every process below them (from each process's parent id)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in found:
            continue
        found.add(pid)
        todo.extend(children.get(pid, []))
    return {pid for pid in found if Path(f"/proc/{pid}").exists()}


@dataclass
class HostGroups:
    """The control group(s) of one host: the runner makes its seats' groups inside."""

    folders: list[Path]
    join: bool  # v1: the host's processes go in; v2: ARENA_CGROUP points at it instead
    kind: str

    def procs_files(self) -> list[str]:
        return [str(f / "cgroup.procs") for f in self.folders]

    def env(self) -> dict[str, str]:
        return {} if self.join else {"ARENA_CGROUP": str(self.folders[0])}

    def seat_groups(self) -> list[Path]:
        """The seats' groups the runner left in the host's group(s)."""
        found: list[Path] = []
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found += [p for p in folder.iterdir() if p.is_dir() and p.name.startswith("scopa-")]
        return sorted(found)

    def pids(self) -> set[int]:
        """Every process in the host's group(s) and their seats' groups."""
        found: set[int] = set()
        for folder in self.folders:
            for procs in [
                folder / "cgroup.procs",
                *(g / "cgroup.procs" for g in self.seat_groups()),
            ]:
                with contextlib.suppress(OSError, ValueError):
                    found |= {int(p) for p in procs.read_text().split()}
        return found

    def remove(self) -> None:
        """Kills what is left inside and removes the groups, seats' groups first."""
        from arena.runner.cgroups import remove_group_folder

        for _ in range(50):
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        for folder in [*self.seat_groups(), *self.folders]:
            remove_group_folder(folder, tries=40, pause_s=0.05)


def make_host_groups(name: str) -> HostGroups | None:
    """A control group for one host where the runner's seats' groups can go, or None when the
    machine gives the runner none (its watchdog then stands in, and leaves no group)."""
    from arena.runner import cgroups

    found = cgroups.backend()
    if found is None:
        return None
    if found.kind == "v1":
        folders = list(dict.fromkeys([found.memory_parent / name, found.pids_parent / name]))
        for folder in folders:
            folder.mkdir(exist_ok=True)
        return HostGroups(folders, join=True, kind="v1")
    folder = found.memory_parent / name
    folder.mkdir(exist_ok=True)
    (folder / "cgroup.subtree_control").write_text("+memory +pids")
    return HostGroups([folder], join=False, kind="v2")


def _stale_groups(older_than_s: float) -> list[Path]:
    from arena.runner import cgroups

    found = cgroups.backend()
    if found is None:
        return []
    stale: list[Path] = []
    for parent in dict.fromkeys([found.memory_parent, found.pids_parent]):
        with contextlib.suppress(OSError):
            stale += [
                p for p in parent.iterdir() if p.is_dir() and _is_stale(p.name, p, older_than_s)
            ]
    return stale


def _is_stale(name: str, path: Path, older_than_s: float) -> bool:
    found = re.match(rf"{PREFIX}-(\d+)-[0-9a-f]+(-|$)", name)
    if found is None:
        return False
    try:
        age = time.time() - path.lstat().st_mtime
    except OSError:
        return False
    return not _alive(int(found.group(1))) and age >= older_than_s


def sweep_stale_labs(older_than_s: float = STALE_S) -> int:
    """Removes what labs of runs that died left (namespaces and their processes, control
    groups, folders); returns how many it removed. A lab is stale when the process that made
    it is gone and it is ``older_than_s`` old."""
    removed = 0
    netns_dir = Path("/run/netns")
    with contextlib.suppress(OSError):
        for entry in sorted(netns_dir.iterdir(), key=lambda p: p.name.endswith("-lan")):
            if _is_stale(entry.name, entry, older_than_s):
                for pid in descendants(netns_pids(entry.name)):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                subprocess.run(["ip", "netns", "del", entry.name], capture_output=True, check=False)
                removed += 1
    for group in _stale_groups(older_than_s):
        HostGroups([group], join=True, kind="").remove()
        removed += 1
    with contextlib.suppress(OSError):
        for entry in Path(tempfile.gettempdir()).iterdir():
            if entry.is_dir() and _is_stale(entry.name, entry, older_than_s):
                shutil.rmtree(entry, ignore_errors=True)
                removed += 1
    return removed


# ---- hosts and the processes on them -----------------------------------------------------


@dataclass
class Host:
    """One host of the lab: its namespace, LAN address, hostname and folder."""

    name: str
    address: str
    netns: str
    folder: Path
    groups: HostGroups | None = None

    @property
    def data(self) -> Path:
        """The host's ``ARENA_DATA_DIR``."""
        return self.folder / "data"

    @property
    def tmp(self) -> Path:
        """The host's temporary folder (``TMPDIR``): where the runner makes seats' folders."""
        return self.folder / "tmp"

    @property
    def logs(self) -> Path:
        return self.folder / "logs"

    def seat_folders(self) -> list[Path]:
        """The seats' folders on this host (``scopa-seat-*`` in its temporary folder)."""
        with contextlib.suppress(OSError):
            return sorted(p for p in self.tmp.iterdir() if p.name.startswith("scopa-seat-"))
        return []

    def seat_groups(self) -> list[Path]:
        """The seats' control groups on this host."""
        return [] if self.groups is None else self.groups.seat_groups()

    def pids(self) -> set[int]:
        """Every process this host runs: in its network namespace, in its control group, and
        below those (a sandboxed bot has a network namespace of its own)."""
        roots = netns_pids(self.netns)
        if self.groups is not None:
            roots |= self.groups.pids()
        return descendants(roots)


@dataclass
class ArenaProcess:
    """A long-running process on a host (a worker, beat, a server) and its log."""

    host: Host
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes]
    log: Path
    clock_ahead_s: float = 0.0
    _handle: IO[bytes] | None = None

    def running(self) -> bool:
        return self.process.poll() is None

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def own_pids(self) -> set[int]:
        """This process and its children that run the same program (a worker's pool), and
        their fork servers (which hold no seat: arena.runner.forkserver)."""
        from arena.runner.forkserver import SERVER_TITLE

        main = cmdline(self.process.pid)
        return {
            pid for pid in descendants({self.process.pid}) if cmdline(pid) in (main, SERVER_TITLE)
        }

    def stop(self, timeout: float = 20.0, sig: int = signal.SIGTERM) -> None:
        """Asks it to stop (a warm shutdown), kills its group after ``timeout``."""
        signal_group(self.process, sig)
        finish_group(self.process, timeout)
        if self._handle is not None:
            self._handle.close()
            self._handle = None


@dataclass
class Services:
    """The services host's private PostgreSQL and Redis."""

    host: Host
    password: str
    socket_dir: Path
    postgres: subprocess.Popen[bytes] | None = None
    redis: subprocess.Popen[bytes] | None = None
    database: str = "arena"
    user: str = "arena"

    def connect(self, database: str | None = None) -> Any:
        """A psycopg connection to the cluster through its unix socket (this machine only;
        for reading what the hosts wrote)."""
        import psycopg

        return psycopg.connect(
            host=str(self.socket_dir),
            port=5432,
            dbname=database or self.database,
            user=self.user,
            autocommit=True,
        )

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one query."""
        with self.connect() as conn:
            return list(conn.execute(sql, params).fetchall())


def clock_ahead_env(seconds: float) -> dict[str, str]:
    """The environment that sets a process's wall clock ``seconds`` ahead, and its children's:
    libfaketime preloaded, the monotonic clock left alone (as on a host whose clock is wrong).

    The library is the build the ``libfaketime`` package ships (a development dependency):
    Debian's faketime 0.9.10 makes Python 3.11's ``time.sleep`` fail with EINVAL when the
    monotonic clock is left alone (libfaketime issue 426), and hangs its timed waits when it
    is not. The arena's bot processes get an environment of their own, without it.
    """
    spec = importlib.util.find_spec("libfaketime")
    library = (
        None
        if spec is None or spec.origin is None
        else (Path(spec.origin).parent / "vendor" / "libfaketime" / "src" / "libfaketime.so.1")
    )
    if library is None or not library.is_file():
        raise LabError(
            "a host with a wrong clock needs the libfaketime package: pip install -e '.[dev]'"
        )
    return {
        "LD_PRELOAD": str(library),
        "FAKETIME": f"{seconds:+g}",
        "FAKETIME_DONT_FAKE_MONOTONIC": "1",
    }


def postgres_bin() -> Path:
    """The newest PostgreSQL server programs of this machine."""
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if not versions:
        raise LabError(
            "PostgreSQL's server programs (initdb) are not installed: "
            "scripts/services installs them"
        )
    return versions[-1].parent


class Lab:
    """A private LAN of hosts (network namespaces) on this machine; a context manager."""

    def __init__(self, root: Path | None = None) -> None:
        if os.geteuid() != 0:
            raise LabError("separate hosts need root (ip netns, veth links, control groups)")
        for program in ("ip", "nsenter", "unshare", "setpriv"):
            if shutil.which(program) is None:
                raise LabError(f"{program} is not installed (iproute2, util-linux)")
        sweep_stale_labs()
        self.id = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(3)}"
        base = Path(root or tempfile.gettempdir())
        self.root = base / self.id
        self.root.mkdir(mode=0o711)
        self.lan = f"{self.id}-lan"
        self.hosts: dict[str, Host] = {}
        self.processes: list[ArenaProcess] = []
        self.services: Services | None = None
        self._closed = False
        self._namespaces: list[str] = []
        try:
            self._add_netns(self.lan)
            self._ip(self.lan, "link", "add", "br0", "type", "bridge")
            self._ip(self.lan, "link", "set", "br0", "up")
            self._ip(self.lan, "link", "set", "lo", "up")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Lab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the network --

    def _add_netns(self, name: str) -> None:
        _run(["ip", "netns", "add", name])
        self._namespaces.append(name)

    def _ip(self, netns: str, *args: str) -> None:
        _run(["ip", "-n", netns, *args])

    def add_host(self, name: str, number: int) -> Host:
        """Plugs a new host into the LAN at ``SUBNET.number``."""
        if not re.fullmatch(r"[a-z][a-z0-9]{0,7}", name) or name in self.hosts:
            raise LabError(f"bad or repeated host name {name!r}")
        netns = f"{self.id}-{name}"
        folder = self.root / name
        host = Host(name, f"{SUBNET}.{number}", netns, folder)
        for sub in (folder, host.data, host.tmp, host.logs):
            sub.mkdir(mode=0o755, exist_ok=True)
        host.tmp.chmod(0o1777)
        self._add_netns(netns)
        self.hosts[name] = host
        _run(
            [
                "ip",
                "link",
                "add",
                "name",
                "eth0",
                "netns",
                netns,
                "type",
                "veth",
                "peer",
                "name",
                name,
                "netns",
                self.lan,
            ]
        )
        self._ip(self.lan, "link", "set", name, "master", "br0")
        self._ip(self.lan, "link", "set", name, "up")
        self._ip(netns, "link", "set", "lo", "up")
        self._ip(netns, "addr", "add", f"{host.address}/24", "dev", "eth0")
        self._ip(netns, "link", "set", "eth0", "up")
        return host

    def cut(self, host: Host) -> None:
        """Pulls the host's cable out of the switch: nothing it sends arrives, nothing reaches
        it, until :meth:`restore`."""
        self._ip(self.lan, "link", "set", host.name, "down")

    def restore(self, host: Host) -> None:
        """Plugs the host's cable back in."""
        self._ip(self.lan, "link", "set", host.name, "up")

    def enter(
        self, host: Host, argv: Sequence[str], hostname: bool = True, groups: bool = False
    ) -> list[str]:
        """``argv`` run on ``host``: in its network namespace, with its hostname and, for
        ``groups``, in its control group."""
        prefix = ["nsenter", f"--net=/run/netns/{host.netns}", "--"]
        script = ""
        files: list[str] = []
        if groups and host.groups is not None and host.groups.join:
            files = host.groups.procs_files()
            script += "".join(f'echo $$ > "${i}" || exit 125; ' for i in range(1, len(files) + 1))
        if hostname:
            prefix += ["unshare", "--uts", "--"]
            script += f"hostname {host.name}-{self.id.rsplit('-', 1)[-1]} || exit 125; "
        if not script:
            return [*prefix, *argv]
        return [
            *prefix,
            "/bin/sh",
            "-c",
            f'{script}shift {len(files)}; exec "$@"',
            "sh",
            *files,
            *argv,
        ]

    # -- the services host --

    def start_services(self, host: Host, timeout_s: float = 60.0) -> Services:
        """A private PostgreSQL cluster and Redis on ``host``, listening on its LAN address.

        The database, user and password are those of the compose file's ``db`` service, and
        Redis runs the compose file's ``redis`` command with the lab's address, port and folder
        added.
        """
        data = compose()
        db_env = service_environment("db", {"POSTGRES_PASSWORD": "x"}, data)
        password = secrets.token_urlsafe(16)
        folder = host.folder / "postgres"
        socket_dir = folder / "socket"
        services = Services(
            host,
            password,
            socket_dir,
            database=db_env.get("POSTGRES_DB", "arena"),
            user=db_env.get("POSTGRES_USER", "arena"),
        )
        self.services = services
        pg = postgres_bin()
        for made in (folder, socket_dir):
            made.mkdir(mode=0o700)
            shutil.chown(made, "postgres", "postgres")
        pwfile = folder / "pwfile"
        pwfile.write_text(password + "\n")
        shutil.chown(pwfile, "postgres", "postgres")
        pwfile.chmod(0o600)
        cluster = folder / "data"
        as_postgres = [
            "setpriv",
            "--reuid",
            "postgres",
            "--regid",
            "postgres",
            "--clear-groups",
            "--",
        ]
        _run(
            [
                *as_postgres,
                str(pg / "initdb"),
                "-D",
                str(cluster),
                "-U",
                services.user,
                f"--pwfile={pwfile}",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--no-locale",
                "-E",
                "UTF8",
                "--no-instructions",
            ]
        )
        with open(cluster / "pg_hba.conf", "a", encoding="utf-8") as hba:
            hba.write(f"host all all {SUBNET}.0/24 scram-sha-256\n")
        log = open(host.logs / "postgres.log", "ab")  # noqa: SIM115 (the child keeps it)
        try:
            # It dies with this process (SIGINT: PostgreSQL's fast shutdown).
            services.postgres = subprocess.Popen(
                self.enter(
                    host,
                    [
                        *as_postgres[:-1],
                        "--pdeathsig",
                        "INT",
                        "--",
                        str(pg / "postgres"),
                        "-D",
                        str(cluster),
                        "-c",
                        f"listen_addresses={host.address}",
                        "-c",
                        "port=5432",
                        "-c",
                        f"unix_socket_directories={socket_dir}",
                        "-c",
                        "fsync=off",
                        "-c",
                        "synchronous_commit=off",
                        "-c",
                        "full_page_writes=off",
                    ],
                    hostname=False,
                ),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()
        redis_argv = [
            *service_command("redis", {}, data),
            "--bind",
            host.address,
            "--port",
            "6379",
            "--dir",
            str(host.data),
            "--protected-mode",
            "no",
            "--daemonize",
            "no",
        ]
        log = open(host.logs / "redis.log", "ab")  # noqa: SIM115
        try:
            services.redis = subprocess.Popen(
                self.enter(
                    host, ["setpriv", "--pdeathsig", "TERM", "--", *redis_argv], hostname=False
                ),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout_s
        checks = {
            "postgres": (
                [str(pg / "pg_isready"), "-q", "-h", str(socket_dir), "-p", "5432"],
                services.postgres,
            ),
            "redis": (
                self.enter(host, ["redis-cli", "-h", host.address, "ping"], hostname=False),
                services.redis,
            ),
        }
        for name, (argv, child) in checks.items():
            while subprocess.run(argv, capture_output=True, check=False).returncode != 0:
                if child.poll() is not None or time.monotonic() > deadline:
                    tail = (host.logs / f"{name}.log").read_text(errors="replace")[-1500:]
                    raise LabError(f"the lab's {name} did not start: {tail}")
                time.sleep(0.1)
        with services.connect("postgres") as conn:
            conn.execute(f'CREATE DATABASE "{services.database}"')
        return services

    # -- arena services from the compose file --

    def arena_env(
        self,
        host: Host,
        variables: Mapping[str, str] | None = None,
        overrides: Mapping[str, str] | None = None,
        name: str = "worker",
    ) -> dict[str, str]:
        """The environment of compose service ``name`` on ``host``: compose's, on the LAN."""
        if self.services is None:
            raise LabError("start the services host first")
        given = {
            "POSTGRES_PASSWORD": self.services.password,
            "ARENA_SECRET_KEY": "lab-" + self.id,
            **(variables or {}),
        }
        addresses = {"db": self.services.host.address, "redis": self.services.host.address}
        env = {
            key: on_lan(value, addresses, {"/data": host.data})
            for key, value in service_environment(name, given).items()
        }
        venv_bin = str(Path(sys.executable).parent)
        base = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("ARENA_", "DJANGO_", "PYTEST", "CELERY"))
        }
        return {
            **base,
            "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
            "DJANGO_SETTINGS_MODULE": "webui.settings",
            "PYTHONUNBUFFERED": "1",
            "TMPDIR": str(host.tmp),
            **env,
            **(host.groups.env() if host.groups is not None else {}),
            **(overrides or {}),
        }

    def arena_command(
        self, host: Host, name: str, variables: Mapping[str, str] | None = None
    ) -> list[str]:
        """Compose service ``name``'s command on ``host`` (``/data`` is the host's folder)."""
        return [
            on_lan(part, {}, {"/data": host.data})
            for part in service_command(name, variables or {})
        ]

    def start_arena(
        self,
        host: Host,
        name: str,
        *,
        variables: Mapping[str, str] | None = None,
        overrides: Mapping[str, str] | None = None,
        clock_ahead_s: float = 0.0,
        label: str | None = None,
    ) -> ArenaProcess:
        """Starts compose service ``name`` (``worker``, ``beat``) on ``host`` in its control
        group; with ``clock_ahead_s``, its wall clock that far ahead (:func:`clock_ahead_env`)."""
        if host.groups is None:
            host.groups = make_host_groups(host.netns)
        argv = self.arena_command(host, name, variables)
        env = self.arena_env(host, variables, overrides, name)
        if clock_ahead_s:
            env.update(clock_ahead_env(clock_ahead_s))
        log_path = host.logs / f"{label or name}.log"
        handle = open(log_path, "ab")  # noqa: SIM115 (closed by stop)
        process = subprocess.Popen(
            self.enter(host, argv, groups=True),
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        started = ArenaProcess(host, label or name, argv, process, log_path, clock_ahead_s, handle)
        self.processes.append(started)
        return started

    def run_arena(
        self,
        host: Host,
        argv: Sequence[str],
        *,
        variables: Mapping[str, str] | None = None,
        overrides: Mapping[str, str] | None = None,
        name: str = "migrate",
        timeout_s: float = 300.0,
    ) -> str:
        """Runs a command to its end on ``host`` with compose service ``name``'s environment;
        returns its output, raises :class:`LabError` when it fails."""
        env = self.arena_env(host, variables, overrides, name)
        done = subprocess.run(
            self.enter(host, list(argv)),
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
        if done.returncode != 0:
            raise LabError(
                f"{' '.join(argv)} on {host.name} failed ({done.returncode}): "
                f"{(done.stderr or done.stdout)[-2000:]}"
            )
        return done.stdout

    # -- the end --

    def close(self) -> None:
        """Stops every process and removes every namespace, link, group and folder."""
        if self._closed:
            return
        self._closed = True
        for started in reversed(self.processes):
            with contextlib.suppress(Exception):
                started.stop(timeout=5.0, sig=signal.SIGKILL)
        if self.services is not None:
            for child in (self.services.redis, self.services.postgres):
                if child is not None and child.poll() is None:
                    child.send_signal(signal.SIGINT)  # PostgreSQL's fast shutdown
                    try:
                        child.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        child.kill()
                        child.wait()
        for netns in reversed(self._namespaces):
            for pid in descendants(netns_pids(netns)):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for host in self.hosts.values():
            if host.groups is not None:
                host.groups.remove()
        for netns in reversed(self._namespaces):  # the hosts (and their links), then the LAN
            subprocess.run(["ip", "netns", "del", netns], capture_output=True, check=False)
        shutil.rmtree(self.root, ignore_errors=True)

    def leftovers(self) -> list[str]:
        """What :meth:`close` should have removed and did not (for the tests)."""
        left = [f"namespace {n}" for n in self._namespaces if Path(f"/run/netns/{n}").exists()]
        left += [
            f"group {g}"
            for h in self.hosts.values()
            if h.groups is not None
            for g in h.groups.folders
            if g.exists()
        ]
        if self.root.exists():
            left.append(f"folder {self.root}")
        return left


__all__ = [
    "ArenaProcess",
    "Host",
    "Lab",
    "LabError",
    "Services",
    "compose",
    "interpolate",
    "on_lan",
    "service_command",
    "service_environment",
    "sweep_stale_labs",
]
