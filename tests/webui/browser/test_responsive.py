"""Every main page on a phone (390x844) and a laptop (1280x800), light and dark, in Chromium.

On each: nothing scrolls the page sideways, every link of the main menu is on screen (on a phone
once the Menu button opens it), the colour scheme asked for is the one drawn, and the text of a
few key elements stands out from its background (WCAG contrast of at least 4.5). The menu also
works from the keyboard, and without JavaScript its links are all shown. Screenshots go to
``test-artifacts/responsive/``; with ``--docs-screenshots`` (``scripts/screenshots``) those of
every page in light, and of the replay in dark, go to ``docs/screenshots/`` as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from browser_session import log_in

pytestmark = [pytest.mark.browser, pytest.mark.services]

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "sample_bots"
SIZES = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
CHROMIUM_TOUCH = {"phone": True, "laptop": False}
MIN_CONTRAST = 4.5

# The elements whose text must stand out: headings, body text, links, tables, badges,
# buttons, form fields, the footer and the replay viewer's panels.
KEY_ELEMENTS = [
    "main h1",
    "main p",
    "main a",
    ".panel h2",
    "table.data td",
    "table.data th",
    ".badge",
    "main button",
    "main .button",
    ".muted",
    "main input[type=text]",
    "main select",
    "main textarea",
    "footer",
    ".v-side h3",
    ".v-log li",
    ".v-event",
    ".v-pos",
    ".v-btn",
]

CONTRAST = """(selectors) => {
  const parse = (text) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(text);
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const over = (top, bottom) => [0, 1, 2].map(i => top[i] * top[3] + bottom[i] * (1 - top[3]))
    .concat([1]);
  const luminance = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  // The colour behind an element: its own and its ancestors' backgrounds, stacked; null over
  // a gradient or a picture (the felt, the hero), which these checks leave to the eye.
  const behind = (el) => {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const style = getComputedStyle(n);
      if (style.backgroundImage !== 'none') return null;
      const c = parse(style.backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    return layers.reverse().reduce((acc, c) => over(c, acc), [255, 255, 255, 1]);
  };
  const shown = (el) => el.getClientRects().length && el.textContent.trim() &&
    getComputedStyle(el).visibility !== 'hidden' && !el.closest('[hidden]');
  const out = [];
  for (const selector of selectors) {
    for (const el of [...document.querySelectorAll(selector)].filter(shown).slice(0, 3)) {
      const bg = behind(el);
      if (!bg) continue;
      const fg = over(parse(getComputedStyle(el).color), bg);
      const [a, b] = [luminance(fg), luminance(bg)];
      out.push({selector, text: el.textContent.trim().slice(0, 30),
                ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
                colour: fg.slice(0, 3), background: bg.slice(0, 3)});
    }
  }
  return out;
}"""

PAGE_LUMINANCE = """() => {
  const m = /rgba?\\(([^)]+)\\)/.exec(getComputedStyle(document.documentElement).backgroundColor);
  const [r, g, b] = m[1].split(/[\\s,]+/).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}"""


@dataclass
class Site:
    """The pages to visit (name -> path) of one played season, and a member to log in."""

    public: dict[str, str]
    member_pages: dict[str, str]
    member: Any


@pytest.fixture
def site(transactional_db: Any) -> Site:
    """A finished season of three bots with a final, a member's bot, and their pages."""
    from django.contrib.auth.models import User

    from webui.league import seasons, variants
    from webui.league.models import Game, Match
    from webui.league.versions import (
        create_bot,
        finish_validation,
        register_folder_bot,
        register_version,
    )
    from webui.web.sampledata import play_season

    staff = User.objects.create_user("arena", password="arena-pass-123", is_staff=True)
    member = User.objects.create_user("ada", password="ada-pass-123")
    versions = [
        register_folder_bot(staff, SAMPLES / name, validate=False)
        for name in ("random", "greedy", "ismcts")
    ]
    season = seasons.create_season(
        name="Spring league",
        variant=variants.get_variant("scopa"),
        entrants=versions,
        knockout_size=2,
        games_per_pairing=2,
        seed=5,
    )
    seasons.start_season(season)
    play_season(season)
    bot = create_bot(member, "ada-bot", "Ada's first bot")
    for number, ok in ((1, False), (2, True)):  # her notifications: a refusal, a validation
        version, _ = register_version(
            bot,
            sha256=str(number) * 64,
            manifest={"name": "ada-bot", "variants": ["scopa"]},
            source_dir=str(SAMPLES / "random"),
        )
        finish_validation(version.pk, ok, "" if ok else "crash: exit status 1")
    # Half of the ratings' history a day old: the leaderboard has ranks to compare with.
    from django.utils import timezone

    from webui.league.models import RatingHistory

    for point in RatingHistory.objects.filter(seq__lte=6):
        RatingHistory.objects.filter(pk=point.pk).update(created=timezone.now() - timedelta(days=2))
    match = Match.objects.filter(season=season).order_by("id").first()
    assert match is not None
    game = Game.objects.filter(match=match).order_by("index").first()
    assert game is not None
    public = {
        "home": "/",
        "leaderboard": "/variants/scopa/",
        "bots": "/bots/",
        "bot": "/bots/greedy/",
        "version": "/bots/greedy/v1/",
        "seasons": "/seasons/",
        "ladder": "/ladder/",
        "season": f"/seasons/{season.pk}/",
        "match": f"/matches/{match.pk}/",
        "tv": "/tv/",
        "game": f"/games/{game.pk}/#f=9",
        "login": "/accounts/login/",
        "signup": "/accounts/signup/",
        "api": "/api/",
        "rules": "/rules/",
        "write-a-bot": "/write-a-bot/",
        "variants": "/variants/",
        "challenges": "/challenges/",
        "author": "/authors/arena/",
    }
    return Site(
        public,
        {
            "submit": "/bots/new/",
            "account": "/accounts/",
            "notifications": "/notifications/",
            "password": "/accounts/password/",
        },
        member,
    )


# docs/screenshots/: every main page at both sizes in light, the replay in dark too.
DOCS_DARK = {"game"}
# Pictured with a game being played instead (test_featured_game).
DOCS_ELSEWHERE = {"tv"}


@pytest.fixture
def docs_screenshots(request: pytest.FixtureRequest) -> Path | None:
    """``docs/screenshots/`` when the run was asked to renew the README's pictures."""
    if not request.config.getoption("--docs-screenshots"):
        return None
    folder = ROOT / "docs" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def open_context(browser: Any, size: str, scheme: str, **extra: Any) -> Any:
    return browser.new_context(
        viewport=SIZES[size], color_scheme=scheme, has_touch=CHROMIUM_TOUCH[size], **extra
    )


def nav_items(page: Any) -> Any:
    return page.locator("#site-nav a, #site-nav button")


def on_screen(page: Any, locator: Any) -> bool:
    """Visible and wholly inside the viewport's width."""
    if not locator.is_visible():
        return False
    box = locator.bounding_box()
    width = page.viewport_size["width"]
    return bool(box and box["x"] >= 0 and box["x"] + box["width"] <= width)


def check_nav(page: Any, size: str) -> list[str]:
    """Every menu link reachable: on screen, or on screen once the Menu button opens it."""
    problems: list[str] = []
    items = nav_items(page)
    count = items.count()
    toggle = page.locator(".nav-toggle")
    if size == "laptop":
        if toggle.is_visible():
            problems.append("the Menu button shows on a laptop")
    else:
        if not on_screen(page, toggle):
            return ["the Menu button is not on screen"]
        early = [i for i in range(count) if items.nth(i).is_visible()]
        if early:
            problems.append(f"{len(early)} menu links show before the menu is opened")
        toggle.click()
        if toggle.get_attribute("aria-expanded") != "true":
            problems.append("the Menu button does not say it is expanded")
    for i in range(count):
        if not on_screen(page, items.nth(i)):
            problems.append(f"menu link {items.nth(i).text_content()!r} is not on screen")
    if size == "phone":
        page.keyboard.press("Escape")
        if items.first.is_visible() or toggle.get_attribute("aria-expanded") != "false":
            problems.append("Escape does not close the menu")
    return problems


def check_page(page: Any, name: str, size: str, scheme: str) -> list[str]:
    """The problems of the page shown: sideways scrolling, the menu, the scheme, contrast."""
    problems: list[str] = []
    width = page.evaluate("document.documentElement.scrollWidth")
    inner = page.evaluate("window.innerWidth")
    if width > inner:
        problems.append(f"the page scrolls sideways ({width} px wide in a {inner} px window)")
    luminance = page.evaluate(PAGE_LUMINANCE)
    if (scheme == "dark") != (luminance < 0.2):
        problems.append(
            f"a {scheme} scheme was asked for, the page is drawn with luminance {luminance:.2f}"
        )
    measured = page.evaluate(CONTRAST, KEY_ELEMENTS)
    if len(measured) < 3:
        problems.append(f"only {len(measured)} key elements measured")
    for m in measured:
        if m["ratio"] < MIN_CONTRAST:
            problems.append(
                f"{m['selector']} {m['text']!r}: contrast {m['ratio']:.2f} "
                f"({m['colour']} on {m['background']})"
            )
    problems += check_nav(page, size)
    return [f"{name} ({size}, {scheme}): {p}" for p in problems]


def visit(page: Any, base: str, name: str, path: str) -> None:
    page.goto(base + path)
    if name == "game":
        page.wait_for_selector(".v-board")
    page.wait_for_load_state("load")
    if name == "season":
        assert page.locator(".bracket .bracket-match").count() == 1  # the final, drawn


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", ["phone", "laptop"])
def test_every_main_page_fits_the_screen_and_stays_readable(
    browser: Any,
    live_server: Any,
    site: Site,
    size: str,
    scheme: str,
    artifacts: Path,
    docs_screenshots: Path | None,
) -> None:
    out = artifacts / "responsive"
    out.mkdir(exist_ok=True)
    problems: list[str] = []
    errors: list[str] = []
    for logged_in, pages in ((False, site.public), (True, site.member_pages)):
        context = open_context(browser, size, scheme)
        if logged_in:
            log_in(context, live_server, site.member)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        for name, path in pages.items():
            visit(page, live_server.url, name, path)
            if logged_in:
                assert page.locator("#site-nav", has_text="Log out").count() == 1
            shot = f"{name}-{size}{'-dark' if scheme == 'dark' else ''}.png"
            # an autofocused field's ring comes and goes with timing: pictures without it
            page.evaluate("document.activeElement && document.activeElement.blur()")
            page.screenshot(path=str(out / shot), full_page=True)
            if (
                docs_screenshots
                and name not in DOCS_ELSEWHERE
                and (scheme == "light" or name in DOCS_DARK)
            ):
                # the season's bracket is at its foot: that page is shown whole
                page.screenshot(path=str(docs_screenshots / shot), full_page=name == "season")
            problems += check_page(page, name, size, scheme)
        context.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not problems, "\n".join(problems)


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    context = open_context(browser, "phone", "light")
    yield context.new_page()
    context.close()


def test_every_menu_link_on_a_phone_opens_its_page(
    phone: Any, live_server: Any, site: Site
) -> None:
    log_in(phone.context, live_server, site.member)
    phone.goto(live_server.url + "/seasons/")
    hrefs = nav_items(phone).evaluate_all("items => items.map(i => i.getAttribute('href'))")
    links = [h for h in hrefs if h]
    assert "/bots/new/" in links and "/accounts/" in links and "/play/" in links
    assert "/ladder/" in links and "/rules/" in links and "/write-a-bot/" in links
    assert "/notifications/" in links and "/tv/" in links and len(links) == 11
    for href in links:
        phone.click(".nav-toggle")
        phone.click(f"#site-nav a[href='{href}']")
        phone.wait_for_url(live_server.url + href)
        assert phone.locator(f"#site-nav a[href='{href}']").get_attribute("aria-current") == "page"
    phone.click(".nav-toggle")
    phone.click("#site-nav button:has-text('Log out')")  # the last item is a form's button
    phone.wait_for_load_state("load")
    assert phone.locator("#site-nav a[href='/accounts/login/']").count() == 1


def test_the_menu_works_from_the_keyboard(phone: Any, live_server: Any, site: Site) -> None:
    phone.goto(live_server.url + "/")
    phone.keyboard.press("Tab")  # the brand
    phone.keyboard.press("Tab")
    assert phone.evaluate("document.activeElement.className") == "nav-toggle"
    phone.keyboard.press("Enter")
    assert phone.is_visible("#site-nav a[href='/seasons/']")
    phone.keyboard.press("Tab")
    assert phone.evaluate("document.activeElement.textContent") == "Home"
    phone.keyboard.press("Tab")
    phone.keyboard.press("Enter")
    phone.wait_for_url(live_server.url + "/seasons/")
    phone.keyboard.press("Tab")
    phone.keyboard.press("Tab")
    phone.keyboard.press(" ")  # a button opens with space too
    assert phone.is_visible("#site-nav a[href='/bots/']")
    phone.keyboard.press("Escape")
    assert not phone.is_visible("#site-nav a[href='/bots/']")
    assert phone.evaluate("document.activeElement.className") == "nav-toggle"


def test_without_javascript_a_phone_shows_every_menu_link(
    browser: Any, live_server: Any, site: Site
) -> None:
    context = open_context(browser, "phone", "light", java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(live_server.url + site.public["season"])
        assert not page.is_visible(".nav-toggle")  # nothing to press without a script
        items = nav_items(page)
        assert items.count() == 10
        for i in range(items.count()):
            assert on_screen(page, items.nth(i)), items.nth(i).text_content()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    finally:
        context.close()
