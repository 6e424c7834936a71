"""``arena bench NAME``: run one benchmark (engine, protocol, match, season, swiss, site,
ladder, env, sprt, hosts).

Each benchmark lives in ``arena.bench.<name>`` and is imported only when chosen, so
``arena bench engine`` never loads gRPC or Django.  Options after NAME belong to that
benchmark: ``arena bench engine --help`` lists them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

BENCHES: dict[str, str] = {
    "engine": "random deals per second for each variant, beside a naive engine",
    "protocol": "gRPC round trips per decision, beside a bare round trip",
    "match": "a whole match between sample bots, and what the arena adds",
    "season": "scheduling and recording a season",
    "swiss": "a Swiss season against a full round-robin: matches and ranking quality",
    "site": "page and API response times",
    "ladder": "ladder convergence to the known order, and a new bot's wait for its first game",
    "env": "the training environment's random steps per second, beside the engine's",
    "sprt": "SPRT decisions simulated at known Elo differences: error rates and pairs used",
    "hosts": "worker hosts in network namespaces: a host cut off mid-match (needs root)",
}


def register(subparsers: Any) -> None:
    """Adds ``bench`` to the ``arena`` parser."""
    lines = "\n".join(f"  {name:10} {text}" for name, text in BENCHES.items())
    parser = subparsers.add_parser(
        "bench",
        help="benchmarks: engine, protocol, match, season, swiss, site, ladder, env, sprt, hosts",
        description=f"Run one benchmark. Benchmarks:\n{lines}\n\n"
        "Options after BENCH belong to it: arena bench engine --help.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bench", metavar="BENCH", nargs="?", choices=list(BENCHES),
                        help="one of: " + ", ".join(BENCHES))
    parser.add_argument("options", nargs=argparse.REMAINDER, default=[], help=argparse.SUPPRESS)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Imports the chosen benchmark, parses its options and runs it."""
    name = args.bench
    if name is None:
        print("arena bench: choose a benchmark: " + ", ".join(BENCHES), file=sys.stderr)
        return 2
    module_name = f"arena.bench.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        print(f"arena bench {name}: this benchmark is not available yet "
              f"(no module {module_name})", file=sys.stderr)
        return 1
    parser = argparse.ArgumentParser(
        prog=f"arena bench {name}",
        description=(module.__doc__ or BENCHES[name]).strip().splitlines()[0],
    )
    module.add_arguments(parser)
    status: int = module.run(parser.parse_args(args.options))
    return status
