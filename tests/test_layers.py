"""The layers: engine <- arena library <- webui <- workers, imports one way only, and the
``arena`` command line joined to the platform by entry points (:mod:`arena.plugins`).

The library's commands work where the platform cannot be imported (a subprocess in which
``webui``, ``workers``, Django and Celery are refused), and list the platform's commands where
it can.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLATFORM = ("webui", "workers", "django", "celery", "kombu")
LIBRARY_COMMANDS = {"replay", "bench", "match", "bot", "login", "doctor", "games"}
PLATFORM_COMMANDS = {"season", "demo", "web", "worker"}


def imports_of(package: str) -> dict[str, set[str]]:
    """Every module each source file of ``package`` imports (at any depth in the file)."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        relative = path.relative_to(ROOT)
        if "_generated" in relative.parts or "templates" in relative.parts:
            continue
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        out[str(relative)] = names
    return out


def offenders(package: str, above: tuple[str, ...]) -> dict[str, list[str]]:
    found = {
        path: sorted(n for n in names if n.split(".")[0] in above)
        for path, names in imports_of(package).items()
    }
    return {path: names for path, names in found.items() if names}


def test_the_library_imports_nothing_above_it() -> None:
    assert offenders("arena", (*PLATFORM, "sample_bots")) == {}


def test_the_site_never_imports_the_workers() -> None:
    assert offenders("webui", ("workers", "sample_bots")) == {}


def test_the_engine_imports_nothing_of_the_rest() -> None:
    outside = {
        path: sorted(
            n for n in names if n.startswith("arena.") and not n.startswith("arena.engine")
        )
        for path, names in imports_of("arena/engine").items()
    }
    assert {path: names for path, names in outside.items() if names} == {}


def module_graph(packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Each module of ``packages`` -> the modules of the project it imports (anywhere in it)."""
    paths = {}
    for package in packages:
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT).with_suffix("")
            if "_generated" in relative.parts or "templates" in relative.parts:
                continue
            parts = relative.parts[:-1] if relative.name == "__init__" else relative.parts
            paths[".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets.update(f"{base}.{alias.name}" for alias in node.names)
                targets.add(base)
        graph[name] = {t for t in targets if t in paths and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other() -> None:
    graph = module_graph(("arena", "webui", "workers"))
    found = circles(graph)
    assert found == []


def test_no_module_of_the_project_is_imported_by_name() -> None:
    calls = []
    for package in ("arena", "webui", "workers"):
        for path in (ROOT / package).rglob("*.py"):
            if "_generated" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            if "import_module(" in text or "__import__(" in text:
                calls.append(str(path.relative_to(ROOT)))
    assert calls == []


def run_arena(
    args: list[str], blocked: tuple[str, ...] = (), cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a fresh interpreter where the modules ``blocked`` cannot be imported."""
    script = (
        "import sys\n"
        f"for name in {list(blocked)!r}:\n"
        "    sys.modules[name] = None  # import name: ModuleNotFoundError\n"
        "from arena.cli import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=240
    )


def listed(help_text: str) -> set[str]:
    """The commands ``arena --help`` lists."""
    return {
        line.split()[0]
        for line in help_text.splitlines()
        if line.startswith("    ") and line.split()[0].isalpha()
    }


def benches(help_text: str) -> set[str]:
    """The benchmarks ``arena bench --help`` offers."""
    offered = help_text.split("one of:")[1].split("\n\n")[0]
    return set(offered.replace(",", " ").split())


def test_arena_help_lists_the_platforms_commands_when_it_is_installed() -> None:
    done = run_arena(["--help"])
    assert done.returncode == 0, done.stderr
    assert listed(done.stdout) >= LIBRARY_COMMANDS | PLATFORM_COMMANDS
    bench = run_arena(["bench", "--help"])
    assert {"engine", "swiss", "season", "site", "ladder", "hosts", "export"} <= benches(
        bench.stdout
    )


def test_the_librarys_commands_work_without_the_platform(tmp_path: Path) -> None:
    help_text = run_arena(["--help"], PLATFORM)
    assert help_text.returncode == 0, help_text.stderr
    shown = listed(help_text.stdout)
    assert shown >= LIBRARY_COMMANDS and not PLATFORM_COMMANDS & shown

    golden = ROOT / "tests" / "engine" / "golden" / "scopa.json"
    verified = run_arena(["replay", "verify", str(golden), "--json"], PLATFORM)
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"] is True

    made = run_arena(["bot", "new", "my-bot"], PLATFORM, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "my-bot" / "bot.toml").is_file()

    bench = run_arena(["bench", "--help"], PLATFORM)
    offered = benches(bench.stdout)
    assert "engine" in offered and not {"season", "site", "ladder", "hosts"} & offered
    engine = run_arena(
        ["bench", "engine", "--json", "--seconds", "0.02", "--runs", "1", "--variant", "scopa"],
        PLATFORM,
    )
    assert engine.returncode == 0, engine.stderr

    demo = run_arena(["demo", "--no-serve"], PLATFORM)
    assert demo.returncode == 2
    assert demo.stderr.startswith("arena demo: not available here:"), demo.stderr
    assert len(demo.stderr.strip().splitlines()) == 1


@pytest.mark.sandbox
def test_a_match_plays_without_the_platform(bwrap: str) -> None:
    played = run_arena(["match", "random", "greedy", "--games", "2", "--json"], PLATFORM)
    assert played.returncode == 0, played.stderr
    assert len(json.loads(played.stdout)["games"]) == 2
