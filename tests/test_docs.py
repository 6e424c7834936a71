"""The documentation holds together: every relative link and ``#anchor`` in README.md,
CHANGELOG.md, DEVELOPERS.md and docs/ resolves, every docs/ page opens with a one-line
purpose, and the README stays short.

Anchors are matched as GitHub makes them from headings (lower case, punctuation dropped,
spaces to hyphens, ``-1``, ``-2`` for repeats) or from an explicit ``<a id=...>``. The check
reads whatever the pages hold when it runs, so sections added to any page are checked as they
come. Links inside code (fenced blocks, inline code) are text, not links.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_MAX_LINES = 200

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"`+[^`]*`+")
# [text](target) and ![alt](target); a target may carry a "title" after a space.
MARKDOWN_LINK = re.compile(
    r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)"
)
REFERENCE_DEFINITION = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.I)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:id|name)\s*=\s*[\"']([^\"']+)[\"']", re.I)
PROSE = re.compile(r"^[^\s#>|`<*\-+!\[=]")


def documentation() -> list[Path]:
    """The pages the check reads: the top-level guides and every page under docs/."""
    pages = [ROOT / name for name in ("README.md", "CHANGELOG.md", "DEVELOPERS.md")]
    pages += sorted((ROOT / "docs").rglob("*.md"))
    return [page for page in pages if page.is_file()]


def docs_pages() -> list[Path]:
    return sorted((ROOT / "docs").rglob("*.md"))


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, inline code blanked out."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, INLINE_CODE.sub(lambda code: " " * len(code.group()), line)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text.

    >>> slug("`arena bench seat`, and one seat alone (a warm-up)")
    'arena-bench-seat-and-one-seat-alone-a-warm-up'
    >>> slug("Clocks and faults")
    'clocks-and-faults'
    """
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a page offers: its headings' slugs (repeats numbered) and HTML ids."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(HTML_ANCHOR.findall(line))
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> Iterator[tuple[int, str]]:
    """(line number, target) of every link and image of a page, outside code."""
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for pattern in (MARKDOWN_LINK, REFERENCE_DEFINITION, HTML_LINK):
            for target in pattern.findall(line):
                yield number, target


def is_external(target: str) -> bool:
    return bool(re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target)) or target.startswith("//")


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """One line for each link of ``page`` (in the repository at ``root``) that leads nowhere."""
    problems: list[str] = []
    where = page.relative_to(root)
    for number, target in links(page):
        if not target or is_external(target):
            continue
        path_part, _, fragment = target.partition("#")
        path_part = urllib.parse.unquote(path_part)
        destination = (page.parent / path_part).resolve() if path_part else page
        if path_part.startswith("/"):
            problems.append(f"{where}:{number}: {target!r} is an absolute path")
            continue
        if not destination.exists():
            problems.append(f"{where}:{number}: {target!r}: no such file or folder")
            continue
        if not destination.is_relative_to(root.resolve()):
            problems.append(f"{where}:{number}: {target!r} leads outside the repository")
            continue
        wanted = urllib.parse.unquote(fragment).lower()
        if fragment and destination.suffix == ".md" and wanted not in anchors(destination):
            problems.append(
                f"{where}:{number}: {target!r}: no heading or anchor "
                f"{fragment!r} in {destination.relative_to(root.resolve())}"
            )
    return problems


def purpose_problem(page: Path, root: Path = ROOT) -> str | None:
    """Why ``page`` does not open with a title and a one-line purpose, or None when it does.

    The purpose is the first paragraph after the ``# Title``: one line of prose, followed by
    a blank line (or the end of the page)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    where = page.relative_to(root)
    if not lines or not lines[0].startswith("# "):
        return f"{where}: the first line is not a '# Title'"
    rest = lines[1:]
    while rest and not rest[0].strip():
        rest = rest[1:]
    if not rest or not PROSE.match(rest[0]):
        first = rest[0] if rest else ""
        return f"{where}: no one-line purpose after the title (found {first!r})"
    if len(rest) > 1 and rest[1].strip():
        return f"{where}: the purpose after the title runs over one line ({rest[1]!r} follows)"
    return None


def test_the_check_reads_the_readme_and_docs() -> None:
    read = {page.relative_to(ROOT).as_posix() for page in documentation()}
    assert {"README.md", "CHANGELOG.md", "DEVELOPERS.md", "docs/REPLAY.md"} <= read


@pytest.mark.parametrize(
    "page", documentation(), ids=lambda page: page.relative_to(ROOT).as_posix()
)
def test_every_link_and_anchor_resolves(page: Path) -> None:
    problems = broken_links(page)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", docs_pages(), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_docs_page_opens_with_a_one_line_purpose(page: Path) -> None:
    problem = purpose_problem(page)
    assert problem is None, problem


def test_the_readme_is_under_200_lines() -> None:
    count = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert count < README_MAX_LINES, f"README.md has {count} lines; keep it under 200"


def test_the_check_finds_a_broken_link_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Readme\n\n## Quick start\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "sample.md"
    page.write_text(
        "# Sample\n\nA page the check reads.\n\n## Clocks and `faults`\n\n"
        "[ok](#clocks-and-faults) [gone](nosuch.md) [bad](../README.md#no-such-heading)\n"
        "[fine](../README.md#quick-start) `[code](nosuch.md)` [ext](https://example.org/x)\n"
        '<img src="../nosuch.png">\n\n```\n[fenced](nosuch.md)\n```\n',
        encoding="utf-8",
    )
    problems = broken_links(page, tmp_path)
    assert len(problems) == 3, problems
    assert problems[0] == "docs/sample.md:7: 'nosuch.md': no such file or folder"
    assert "no heading or anchor 'no-such-heading' in README.md" in problems[1]
    assert "'../nosuch.png': no such file" in problems[2]


def test_the_check_knows_a_purpose_line(tmp_path: Path) -> None:
    pages = {
        "good": "# Title\n\nWhat this page is for.\n\n## More\n",
        "long": "# Title\n\nWhat this page\nis for.\n",
        "none": "# Title\n\n## Straight to a section\n",
        "untitled": "What this page is for.\n",
    }
    for name, text in pages.items():
        (tmp_path / f"{name}.md").write_text(text, encoding="utf-8")
    assert purpose_problem(tmp_path / "good.md", tmp_path) is None
    assert "runs over one line" in (purpose_problem(tmp_path / "long.md", tmp_path) or "")
    assert "no one-line purpose" in (purpose_problem(tmp_path / "none.md", tmp_path) or "")
    assert "not a '# Title'" in (purpose_problem(tmp_path / "untitled.md", tmp_path) or "")
