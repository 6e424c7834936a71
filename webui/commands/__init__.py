"""The platform's ``arena`` commands: ``season``, ``demo`` and ``web``, joined to the ``arena``
command line as entry points of ``scopa_arena.commands`` (see :mod:`arena.plugins`)."""
