"""The workers' ``arena`` command: ``arena worker``, joined to the ``arena`` command line as an
entry point of ``scopa_arena.commands`` (see :mod:`arena.plugins`)."""
