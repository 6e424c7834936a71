"""Subcommands of the ``arena`` command line, one module each (see :mod:`arena.cli`)."""
