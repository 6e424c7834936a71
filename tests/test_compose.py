"""``docker-compose.yml`` checked without a Docker engine, so it cannot drift from the code.

No Docker engine runs here; what can be checked is checked: the file parses; it names only
the image built from the repository's ``Dockerfile`` and official images; every command of the
arena's image is one that exists and parses (``arena`` subcommands and options by the real
parser, ``manage.py`` commands by Django, gunicorn's and celery's options by their own
parsers), every file it mounts or copies exists; every environment variable it sets for the
arena's image is one the code reads; the nginx template's variables are the ones it sets; the
database's user, name and password are the ones the arena's URL uses. The multi-host tests
(``tests/workers/test_hosts.py``) run the ``redis``, ``migrate``, ``worker`` and ``beat``
commands read from this file, through :mod:`workers.bench.hostlab`, which restates none.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from workers.bench import hostlab

ROOT = Path(__file__).resolve().parents[1]
OFFICIAL_IMAGE = re.compile(r"^[a-z0-9]+(?:[._-][a-z0-9]+)*:[A-Za-z0-9][A-Za-z0-9._-]*$")
DEFAULTS = {"POSTGRES_PASSWORD": "secret", "ARENA_SECRET_KEY": "key"}
"""The variables compose requires (``${VAR:?}``); every other one has a default."""


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return hostlab.compose()


def arena_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The services that run the image built from the repository's Dockerfile."""
    return {name: s for name, s in compose["services"].items() if "build" in s}


# ---- what the code reads -----------------------------------------------------------------


def _is_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def _environ_key(call: ast.Call) -> ast.AST | None:
    """The key argument of ``os.environ.get/setdefault/pop(KEY, ...)`` or ``os.getenv``."""
    func = call.func
    if not call.args or not isinstance(func, ast.Attribute):
        return None
    if _is_environ(func.value) and func.attr in {"get", "setdefault", "pop"}:
        return call.args[0]
    if func.attr == "getenv" and isinstance(func.value, ast.Name) and func.value.id == "os":
        return call.args[0]
    return None


def variables_read(path: Path) -> set[str]:
    """The environment variables a module reads: by a literal name, or through a function of
    its own that reads the variable its first parameter names (``env_flag("ARENA_DEBUG")``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    readers: set[str] = set()
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef) and function.args.args:
            first = function.args.args[0].arg
            for call in ast.walk(function):
                key = _environ_key(call) if isinstance(call, ast.Call) else None
                if isinstance(key, ast.Name) and key.id == first:
                    readers.add(function.name)
    found: set[str] = set()
    for node in ast.walk(tree):
        key: ast.AST | None = None
        if isinstance(node, ast.Call):
            key = _environ_key(node)
            if (
                key is None
                and isinstance(node.func, ast.Name)
                and node.func.id in readers
                and node.args
            ):
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            key = node.slice
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In)
            and _is_environ(node.comparators[0])
        ):
            key = node.left
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            found.add(key.value)
    return found


@pytest.fixture(scope="module")
def read_by_the_code() -> set[str]:
    """Every variable the arena's image reads: the project's own modules and, for
    ``FORWARDED_ALLOW_IPS`` and the like, gunicorn's settings."""
    found: set[str] = set()
    for package in ("arena", "webui", "workers"):
        for path in (ROOT / package).rglob("*.py"):
            if "_generated" not in path.parts and "migrations" not in path.parts:
                found |= variables_read(path)
    import gunicorn.config

    found |= variables_read(Path(inspect.getfile(gunicorn.config)))
    return found


def test_the_variables_read_are_found_as_the_code_reads_them() -> None:
    found = variables_read(ROOT / "webui" / "settings.py")
    assert {
        "ARENA_DATABASE_URL",
        "ARENA_DEBUG",
        "ARENA_ALLOWED_HOSTS",
        "ARENA_MATCH_LEASE_S",
        "ARENA_SWEEP_INTERVAL_S",
    } <= found
    assert "ARENA_NO_SUCH_SETTING" not in found
    assert {
        "ARENA_WEB_WORKERS",
        "ARENA_BIND",
        "ARENA_WEB_MAX_REQUESTS",
        "ARENA_WEB_MAX_RSS_MB",
    } <= (variables_read(ROOT / "webui" / "gunicorn_conf.py"))


# ---- the file ----------------------------------------------------------------------------


def test_the_file_parses_and_names_only_the_repository_image_and_official_images(
    compose: dict[str, Any],
) -> None:
    services = compose["services"]
    assert {"db", "redis", "migrate", "web", "nginx", "worker", "beat"} <= set(services)
    built = {s.get("image") for s in arena_services(compose).values()}
    assert built == {"scopa-arena:latest"}, built
    for name, service in services.items():
        if "build" in service:
            context = (
                service["build"]
                if isinstance(service["build"], str)
                else (service["build"].get("context", "."))
            )
            assert (ROOT / context / "Dockerfile").is_file(), name
        else:
            image = service.get("image", "")
            assert OFFICIAL_IMAGE.match(image), (name, image)  # a library image, tag pinned


def test_the_files_it_mounts_and_the_dockerfile_copies_exist(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            source = str(volume).split(":", 1)[0]
            if source.startswith((".", "/")):
                assert (ROOT / source).exists(), (name, volume)
    dockerfile = (ROOT / "Dockerfile").read_text()
    for line in dockerfile.splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), line


def test_every_command_of_the_arena_image_exists_and_its_options_parse(
    compose: dict[str, Any],
) -> None:
    from django.core.management import get_commands

    seen = set()
    for name in arena_services(compose):
        command = hostlab.service_command(name, DEFAULTS, compose)
        program, args = command[0], command[1:]
        seen.add(program)
        if program == "arena":
            from arena.cli import build_parser

            parsed = build_parser(args[0]).parse_args(args)  # exits on a bad option
            assert getattr(parsed, "func", None) is not None, command
        elif program == "python":
            assert args[0] == "manage.py" and (ROOT / "manage.py").is_file(), command
            assert args[1] in get_commands(), command
        elif program == "gunicorn":
            from gunicorn.config import Config

            parsed = Config().parser().parse_args(args)
            module = parsed.config.removeprefix("python:")
            assert importlib.util.find_spec(module) is not None, command
            assert all(importlib.util.find_spec(app.split(":")[0]) for app in parsed.args)
        elif program == "celery":
            from celery.app.utils import find_app
            from celery.bin.base import CLIContext
            from celery.bin.celery import celery as celery_cli

            assert args[0] in ("-A", "--app"), command
            app = find_app(args[1])  # as `celery -A` finds it
            sub = celery_cli.commands[args[2]]  # KeyError: no such celery command
            sub.make_context(
                args[2], args[3:], obj=CLIContext(app=app, no_color=True, workdir=None, quiet=True)
            )
        else:
            pytest.fail(f"service {name}: unknown program {program!r}")
    assert seen == {"arena", "python", "gunicorn", "celery"}
    # The image's default command is the site's.
    assert (
        '["gunicorn", "-c", "python:webui.gunicorn_conf", "webui.wsgi"]'
        in (ROOT / "Dockerfile").read_text()
    )
    assert hostlab.service_command("web", DEFAULTS, compose) == [
        "gunicorn",
        "-c",
        "python:webui.gunicorn_conf",
        "webui.wsgi",
    ]


def test_a_bad_arena_command_would_be_caught(compose: dict[str, Any]) -> None:
    from arena.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser("worker").parse_args(["worker", "--no-such-option"])
    worker = hostlab.service_command("worker", {"ARENA_WORKER_CONCURRENCY": "3"}, compose)
    assert worker == ["arena", "worker", "--concurrency", "3"]


def test_every_variable_it_sets_for_the_arena_image_is_read_by_the_code(
    compose: dict[str, Any],
    read_by_the_code: set[str],
) -> None:
    for name in arena_services(compose):
        environment = hostlab.service_environment(name, DEFAULTS, compose)
        assert environment, name
        unread = sorted(set(environment) - read_by_the_code)
        assert not unread, f"service {name} sets variables nothing reads: {unread}"
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        for key in re.findall(r"\b((?:ARENA|DJANGO)_[A-Z_]+)=", line):
            assert key in read_by_the_code, line


def test_the_nginx_template_uses_exactly_the_variables_nginx_gets(
    compose: dict[str, Any],
) -> None:
    nginx = compose["services"]["nginx"]
    template = (ROOT / "deploy" / "nginx" / "arena.conf.template").read_text()
    assert set(re.findall(r"\$\{([A-Z_]+)\}", template)) == set(nginx["environment"])
    assert any("arena.conf.template:/etc/nginx/templates/" in v for v in nginx["volumes"])


def test_the_database_it_creates_is_the_one_the_arena_connects_to(
    compose: dict[str, Any],
) -> None:
    from urllib.parse import urlsplit

    db = hostlab.service_environment("db", DEFAULTS, compose)
    url = urlsplit(hostlab.service_environment("worker", DEFAULTS, compose)["ARENA_DATABASE_URL"])
    assert (url.username, url.password, url.path.lstrip("/"), url.hostname, url.port) == (
        db["POSTGRES_USER"],
        db["POSTGRES_PASSWORD"],
        db["POSTGRES_DB"],
        "db",
        5432,
    )
    broker = urlsplit(hostlab.service_environment("worker", DEFAULTS, compose)["ARENA_BROKER_URL"])
    assert (broker.scheme, broker.hostname, broker.port) == ("redis", "redis", 6379)


def test_the_multi_host_tests_run_the_compose_commands_and_restate_none(
    compose: dict[str, Any],
) -> None:
    # What the lab runs for each service is compose's command, as compose would run it.
    assert hostlab.service_command("redis", {}, compose) == compose["services"]["redis"]["command"]
    for name in ("migrate", "worker", "beat"):
        expected = [
            hostlab.interpolate(str(p), DEFAULTS) for p in compose["services"][name]["command"]
        ]
        assert hostlab.service_command(name, DEFAULTS, compose) == expected
    # ... and the lab spells none of their options or scripts itself (it adds only the
    # services host's address, port and folder to Redis's).
    lab_source = inspect.getsource(hostlab)
    for name in ("redis", "migrate", "worker", "beat"):
        for part in compose["services"][name]["command"]:
            if str(part).startswith("-") or str(part).endswith(".py"):
                assert f'"{part}"' not in lab_source, (name, part)


def test_compose_variable_substitution() -> None:
    values = {"SET": "x", "EMPTY": ""}
    assert hostlab.interpolate("${SET}-${UNSET:-d}-${EMPTY:-e}-${EMPTY-f}-$$", values) == (
        "x-d-e--$"
    )
    with pytest.raises(hostlab.LabError, match="set it"):
        hostlab.interpolate("${UNSET:?set it}", values)
    with pytest.raises(hostlab.LabError):
        hostlab.interpolate("${EMPTY:?}", values)
    assert hostlab.interpolate("${EMPTY?}", values) == ""


def test_compose_values_are_rewritten_for_the_lab_hosts() -> None:
    addresses = {"db": "10.77.0.10", "redis": "10.77.0.10"}
    paths = {"/data": Path("/lab/w1/data")}
    assert hostlab.on_lan("postgresql://arena:pw@db:5432/arena", addresses, paths) == (
        "postgresql://arena:pw@10.77.0.10:5432/arena"
    )
    assert hostlab.on_lan("redis://redis:6379/0", addresses, paths) == ("redis://10.77.0.10:6379/0")
    assert hostlab.on_lan("/data/celerybeat-schedule", addresses, paths) == (
        "/lab/w1/data/celerybeat-schedule"
    )
    assert hostlab.on_lan("/database", addresses, paths) == "/database"
    assert hostlab.on_lan("https://dbx.example.org/", addresses, paths) == (
        "https://dbx.example.org/"
    )


def test_the_settings_module_documents_every_variable_compose_sets(
    compose: dict[str, Any],
) -> None:
    documented = (ROOT / "webui" / "settings.py").read_text().split('"""')[1]
    configuration = (ROOT / "docs" / "RUNNING.md").read_text()
    for name in arena_services(compose):
        for key in hostlab.service_environment(name, DEFAULTS, compose):
            if key.startswith("ARENA_"):
                assert f"`{key}`" in configuration or f"``{key}``" in documented, key
