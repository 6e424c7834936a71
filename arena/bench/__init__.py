"""Benchmarks run by ``arena bench NAME``: one module per benchmark, imported only when chosen.

Each module ``arena.bench.<name>`` exposes ``add_arguments(parser)`` and ``run(args) -> int``,
measures its subject beside a baseline taken in the same run, and prints medians (``--json``
for machines).  Benchmarks are run by hand; no test asserts a timing.
"""
