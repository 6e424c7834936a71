"""The library's subcommands of the ``arena`` command line, one module each, entry points of
``scopa_arena.commands`` (see :mod:`arena.cli`); :mod:`arena.commands.match_output` and
:mod:`arena.commands.sprt` serve ``arena match``, :mod:`arena.commands.submit` ``arena bot``."""


def shown(text: str) -> str:
    """Text that may come from a bot (a label, a fault's detail, a log line), ready for
    ``rich``: control and format characters escaped (:func:`arena.text.printable`), then
    markup (``[bold]``, ``[link=...]``), so that it prints as the characters it is."""
    from rich.markup import escape

    from arena.text import printable

    return escape(printable(text))
