"""The library's benchmarks run by ``arena bench NAME``: one module per benchmark, imported only
when chosen (engine, protocol, match, seat, swiss, env, sprt; the platform's are in
:mod:`webui.bench` and :mod:`workers.bench`).

Each module exposes ``SUMMARY``, ``add_arguments(parser)`` and ``run(args) -> int``, and is an
entry point of ``scopa_arena.bench`` (:mod:`arena.plugins`); it measures its subject beside a
baseline taken in the same run and prints medians (``--json`` for machines). Benchmarks are run
by hand; no test asserts a timing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def progress_bar(description: str, total: int, *, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for a benchmark's long work (none when ``quiet``, e.g. under
    ``--json``): yields ``advance(n)``, which moves it on by ``n``; removed when done."""
    if quiet:
        yield lambda n: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    progress = Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    progress.start()
    bar = progress.add_task(description, total=total)
    try:
        yield lambda n: progress.advance(bar, n)
    finally:
        progress.stop()
