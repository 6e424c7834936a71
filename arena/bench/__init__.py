"""The library's benchmarks run by ``arena bench NAME``: one module per benchmark, imported only
when chosen (engine, protocol, match, seat, swiss, env, sprt; the platform's are in
:mod:`webui.bench` and :mod:`workers.bench`).

Each module exposes ``SUMMARY``, ``add_arguments(parser)`` and ``run(args) -> int``, and is an
entry point of ``scopa_arena.bench`` (:mod:`arena.plugins`); it measures its subject beside a
baseline taken in the same run and prints medians (``--json`` for machines). Benchmarks are run
by hand; no test asserts a timing.
"""
