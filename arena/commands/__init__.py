"""The library's subcommands of the ``arena`` command line, one module each, entry points of
``scopa_arena.commands`` (see :mod:`arena.cli`); :mod:`arena.commands.match_output` and
:mod:`arena.commands.sprt` serve ``arena match``, :mod:`arena.commands.submit` ``arena bot``."""
