"""The platform's benchmarks: ``arena bench season``, ``site`` and ``ladder``, joined to
``arena bench`` as entry points of ``scopa_arena.bench`` (see :mod:`arena.plugins`). Each
module has ``SUMMARY``, ``add_arguments(parser)`` and ``run(args) -> int``; none is run by the
tests' clock: the figures are for people.
"""
