"""Text a bot wrote, made safe to show: :func:`printable`.

Everything a bot says reaches people: its ``Describe`` fields (name, version, author), the
details of its faults (a fallback's reason, a gRPC status it sent, the last line it printed
before dying), its log. Printed raw on a terminal, control characters are commands: cursor
moves, line erases, a window title, a forged line of the result table after a carriage return.
On a page or in a terminal, bidirectional overrides and invisible characters make text read
other than it is. :func:`printable` turns every such character into a visible escape
(``\\x1b``, ``\\u202e``), keeping the rest of the text as it is; the runner applies it where a
bot's text enters a fault, a label or a log, and the command line and the site apply it again
where they show text that may have been stored before.

It does not escape markup: text printed through ``rich`` is also passed through
``rich.markup.escape``, and the site's templates escape HTML themselves.
"""

from __future__ import annotations

import re

_UNSAFE_CLASS = (
    # C0 and C1 controls, DEL (category Cc)
    "\x00-\x1f\x7f-\x9f"
    # format characters (Cf): soft hyphen, Arabic number signs, bidirectional marks,
    # embeddings, overrides and isolates, zero-width characters, the byte order mark,
    # interlinear annotations, Egyptian and shorthand format controls, musical formatting,
    # tags; line and paragraph separators (Zl, Zp); lone surrogates (Cs)
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u180e\u200b-\u200f"
    "\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f"
)
"""Every character of the Unicode categories Cc, Cf, Cs, Zl and Zp (Unicode 14, as Python
3.11 knows them; ``tests/test_text.py`` checks this against :mod:`unicodedata`), with the whole
blocks of the Egyptian format controls and of the tags."""

_UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")
_UNSAFE_IN_LINES = re.compile(f"(?![\n\t])[{_UNSAFE_CLASS}]")


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with every control, format and separator character escaped (``\\x1b``).

    ``lines`` keeps newlines and tabs (a log); otherwise they are escaped too (a name, a
    fault's detail: one line). Idempotent: an escape is printable text.

    >>> printable("\\x1b]0;pwned\\x07evil\\u202egnp.exe")
    '\\\\x1b]0;pwned\\\\x07evil\\\\u202egnp.exe'
    >>> printable("line 1\\nline 2\\r", lines=True)
    'line 1\\nline 2\\\\x0d'
    >>> printable("scopa \u2014 settebello")
    'scopa \u2014 settebello'
    """
    pattern = _UNSAFE_IN_LINES if lines else _UNSAFE
    if pattern.search(text) is None:
        return text
    return pattern.sub(_escape, text)


def unsafe_characters(text: str) -> list[str]:
    """The characters of ``text`` that :func:`printable` would escape, as escapes, in order
    (for an error message that names them)."""
    return [_escape(found) for found in _UNSAFE.finditer(text)]


__all__ = ["printable", "unsafe_characters"]
