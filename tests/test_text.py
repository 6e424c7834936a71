"""``arena.text.printable``: what a bot wrote, shown as text and never as terminal commands."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from arena.text import _UNSAFE, printable, unsafe_characters

UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def test_the_class_is_every_control_format_and_separator_character_of_unicode() -> None:
    missed, over = [], []
    for code in range(sys.maxunicode + 1):
        unsafe = unicodedata.category(chr(code)) in UNSAFE_CATEGORIES
        matched = _UNSAFE.match(chr(code)) is not None
        whole_block = 0x13430 <= code <= 0x1343F or 0xE0000 <= code <= 0xE007F
        if unsafe and not matched:
            missed.append(f"U+{code:04X}")
        elif matched and not unsafe and not whole_block:
            over.append(f"U+{code:04X}")
    assert missed == [], "arena.text's class lags this Python's Unicode: add these"
    assert over == [], "arena.text escapes printable characters"


def test_a_terminal_attack_is_shown_as_text() -> None:
    attack = "\x1b[2J\x1b[H\x1b]0;owned\x07\r| bot | 10 | 10 W |\x9b31m\u202eevil"
    shown = printable(attack)
    assert shown == ("\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\x0d| bot | 10 | 10 W |\\x9b31m\\u202eevil")
    assert unsafe_characters(attack)[:2] == ["\\x1b", "\\x1b"]


@given(st.text())
def test_the_result_is_printable_and_escaping_again_changes_nothing(text: str) -> None:
    shown = printable(text)
    assert _UNSAFE.search(shown) is None
    assert printable(shown) == shown
    assert printable(text, lines=True) == printable(printable(text, lines=True), lines=True)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Zl", "Zp"))))
def test_text_without_such_characters_is_kept_as_it_is(text: str) -> None:
    assert printable(text) == text


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")))))
def test_a_log_keeps_its_lines_and_tabs(lines: list[str]) -> None:
    log = "\n".join(line.replace("\n", "") + "\tend" for line in lines)
    shown = printable(log, lines=True)
    assert shown.count("\n") == log.count("\n") and shown.count("\t") == log.count("\t")
    assert "\n" not in printable(log)
