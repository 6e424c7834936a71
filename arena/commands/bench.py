"""``arena bench NAME``: run one benchmark.

The benchmarks are entry points of the group ``scopa_arena.bench``: the library's own
(engine, protocol, match, swiss, env, sprt, in :mod:`arena.bench`) and the platform's (season,
site, ladder from :mod:`webui.bench`, hosts from :mod:`workers.bench`), which appear when the
platform is installed. Each names a module with ``SUMMARY`` (one line),
``add_arguments(parser)`` and ``run(args) -> int``, imported only when chosen (and for the list
of ``arena bench --help``), so ``arena bench engine`` never loads gRPC or Django. Options after
NAME belong to that benchmark: ``arena bench engine --help`` lists them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arena.plugins import BENCHES, load, plugins

HELP = "benchmarks: engine, protocol, match, season, site"


def register(subparsers: Any) -> None:
    """Adds ``bench`` to the ``arena`` parser."""
    benches = plugins(BENCHES)
    lines = []
    available = []
    for name, entry in benches.items():
        module = load(entry)
        if not isinstance(module, str):  # the platform's, without the platform: left out
            available.append(name)
            lines.append(f"  {name:10} {getattr(module, 'SUMMARY', '')}")
    parser = subparsers.add_parser(
        "bench",
        help="benchmarks: " + ", ".join(available),
        description="Run one benchmark. Benchmarks:\n" + "\n".join(lines) + "\n\n"
        "Options after BENCH belong to it: arena bench engine --help.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "bench",
        metavar="BENCH",
        nargs="?",
        choices=list(benches),
        help="one of: " + ", ".join(available),
    )
    parser.add_argument("options", nargs=argparse.REMAINDER, default=[], help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Imports the chosen benchmark, parses its options and runs it."""
    name = args.bench
    benches = plugins(BENCHES)
    if name is None:
        print("arena bench: choose a benchmark: " + ", ".join(benches), file=sys.stderr)
        return 2
    module = load(benches[name])
    if isinstance(module, str):
        print(f"arena bench {name}: not available here: {module}", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(
        prog=f"arena bench {name}",
        description=(module.__doc__ or module.SUMMARY).strip().splitlines()[0],
    )
    module.add_arguments(parser)
    status: int = module.run(parser.parse_args(args.options))
    return status
