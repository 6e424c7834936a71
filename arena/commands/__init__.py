"""Subcommands of the ``arena`` command line, one module each (see :mod:`arena.cli`)."""


def shown(text: str) -> str:
    """Text that may come from a bot (a label, a fault's detail, a log line), ready for
    ``rich``: control and format characters escaped (:func:`arena.text.printable`), then
    markup (``[bold]``, ``[link=...]``), so that it prints as the characters it is."""
    from rich.markup import escape

    from arena.text import printable

    return escape(printable(text))
