"""The site's HTML pages and forms, described for ``/api/openapi.json`` beside the JSON API.

The OpenAPI document describes every route the site answers, not only ``/api/``: each page
with its query parameters, and each form with its fields, so that a client (and a fuzzer such
as schemathesis) knows them all. The URL table lives in :mod:`webui.web.urls`,
:mod:`webui.training.urls`, :mod:`webui.play.urls` and :mod:`webui.urls`;
``tests/web/test_pages.py`` checks that every route of those is described here or in
:data:`webui.web.openapi.ROUTES`, so a new page without a description fails. Django's own
admin is described by its login only (the rest is Django's, for staff).

Forms are ``application/x-www-form-urlencoded`` (``multipart/form-data`` where they take a
file) and need the session cookie and Django's CSRF token; answers are HTML: 200, a 302 to the
next page, or a 4xx page saying what is wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .schema import ANY, I, S, ref

TEXT = {"type": "string", "maxLength": 100_000}


@dataclass(frozen=True)
class Page:
    """One page or form: its path (Django syntax), methods, summary, query parameters (GET)
    and form fields (POST, a JSON schema of each), and whether it needs a signed-in user."""

    path: str
    methods: tuple[str, ...]
    summary: str
    params: dict[str, str] = field(default_factory=dict)
    form: dict[str, dict[str, Any]] = field(default_factory=dict)
    login: bool = False
    upload: bool = False  # the form takes a file (multipart)
    json_body: dict[str, Any] | None = None  # a POST of JSON instead of a form
    more_form: Callable[[], dict[str, dict[str, Any]]] | None = None  # fields read when asked


def format_option_fields() -> dict[str, dict[str, Any]]:
    """The season form's fields of the formats' options (read from the format registry)."""
    from webui.league.formats import every_option

    return {name: S for name in every_option()}


GAME_FILTERS = {
    "variant": "only games of this variant (its slug)",
    "opponent": "only games against this bot (its name)",
    "result": "win, loss, draw or forfeit, from the bot's side",
    "after": "the page of older games after this cursor (a page's next link)",
    "before": "the page of newer games before this cursor (a page's prev link)",
    "limit": "games per page, from 1 to 100",
}
ARCHIVE = {"type": "string", "format": "binary"}

PAGES: list[Page] = [
    Page("", ("GET",), "Home: variants, running seasons, recent games."),
    Page("healthz", ("GET",), "For load balancers: 'ok' when the database answers."),
    Page("variants/", ("GET",), "Every variant, with how many are rated in each."),
    Page("rules/", ("GET",), "The rules of Scopa and of every variant the arena plays."),
    Page("write-a-bot/", ("GET",), "How to write a bot, test it and submit it."),
    Page(
        "write-a-bot/starter-kit-<slug:lang>.zip",
        ("GET",),
        "The starter kit (python or javascript): the folder `arena bot new` writes, zipped; "
        "its README installs the SDK from this site.",
    ),
    Page(
        "sdk/", ("GET",), "The SDK's wheel (the arena library and command) and how to install it."
    ),
    Page("sdk/<str:filename>", ("GET",), "The SDK's wheel, for pip install."),
    Page(
        "data/",
        ("GET",),
        "The games as a data set: the download command for this site.",
        {"bot": "only the games of this bot (its name)", "variant": "only this variant (its slug)"},
    ),
    Page("authors/<str:username>/", ("GET",), "An author's bots."),
    Page(
        "notifications/",
        ("GET",),
        "What happened to your bots (validations, challenges, faults); marks them read.",
        login=True,
    ),
    Page(
        "variants/<slug:slug>/",
        ("GET",),
        "A variant's leaderboard.",
        {"ladder": "solo or partners"},
    ),
    Page("bots/", ("GET",), "Every bot."),
    Page(
        "bots/new/",
        ("GET", "POST"),
        "A new bot, and optionally its first version.",
        form={"name": S, "description": TEXT, "archive": ARCHIVE},
        login=True,
        upload=True,
    ),
    Page(
        "bots/<slug:name>/", ("GET",), "A bot: versions, ratings, matches, its games.", GAME_FILTERS
    ),
    Page(
        "bots/<slug:name>/upload/",
        ("POST",),
        "Upload a new version (its owner).",
        form={"archive": ARCHIVE},
        login=True,
        upload=True,
    ),
    Page(
        "bots/<slug:name>/edit/",
        ("POST",),
        "Change a bot's description (its owner).",
        form={"description": TEXT},
        login=True,
    ),
    Page("bots/<slug:name>/v<num:number>/", ("GET",), "A bot version and its games.", GAME_FILTERS),
    Page(
        "bots/<slug:name>/ladder/",
        ("GET", "POST"),
        "A bot's ladder entry; its owner picks the version, pauses or retires it.",
        form={"version": S, "status": S},
        login=True,
    ),
    Page(
        "bots/<slug:name>/promote/",
        ("POST",),
        "Make a ready 'version' the bot's ladder version (its owner): the button beside the "
        "candidate on the bot's page.",
        form={"version": S},
        login=True,
    ),
    Page(
        "bots/<slug:name>/fairplay/",
        ("GET",),
        "A bot's fair-play audits (staff only; a 404 for anyone else): each test's statistic, "
        "the decisions that weigh most with their cards, the games to replay.",
        login=True,
    ),
    Page(
        "bots/<slug:name>/fairplay/audit/",
        ("POST",),
        "Queue a fair-play audit of the bot's recent rated games (staff only).",
        login=True,
    ),
    Page(
        "bots/<slug:name>/tests/",
        ("GET", "POST"),
        "A bot's version tests (its owner and staff); its owner starts one: a ready "
        "'version' against the ladder version, by SPRT (elo0, elo1, alpha, beta, max_pairs).",
        form={"version": S, "elo0": S, "elo1": S, "alpha": S, "beta": S, "max_pairs": S},
        login=True,
    ),
    Page(
        "bots/<slug:name>/tests/<id:test_id>/",
        ("GET",),
        "A version test: its LLR after each pair between its bounds, the pentanomial, the "
        "Elo estimate (the bot's owner and staff).",
        login=True,
    ),
    Page(
        "bots/<slug:name>/tests/<id:test_id>/promote/",
        ("POST",),
        "Make the tested version the ladder version, once H1 is accepted (its owner).",
        login=True,
    ),
    Page(
        "bots/<slug:name>/tests/<id:test_id>/stop/",
        ("POST",),
        "Stop a running version test (its owner).",
        login=True,
    ),
    Page("ladder/", ("GET",), "Every ladder."),
    Page("ladder/<slug:slug>/", ("GET",), "One variant's ladder."),
    Page("challenges/", ("GET",), "The latest challenges and their results."),
    Page(
        "challenges/new/",
        ("GET", "POST"),
        "Challenge a bot with one of yours.",
        {
            "bot": "your bot, filled in",
            "opponent": "the bot to challenge, filled in",
            "variant": "the variant, filled in",
        },
        form={"bot": S, "opponent": S, "variant": S, "deals": S, "rated": S},
        login=True,
    ),
    Page("challenges/<id:match_id>/", ("GET",), "A challenge and its result."),
    Page("seasons/", ("GET",), "Every season."),
    Page(
        "seasons/new/",
        ("GET", "POST"),
        "A new season (staff).",
        form={
            "name": S,
            "variant": S,
            "format": S,
            "entrants": {"type": "array", "items": S},
            "games_per_pairing": S,
            "move_time_ms": S,
            "bank_ms": S,
            "memory_mb": S,
            "processes": S,
            "tmp_mb": S,
            "cpu_seconds": S,
            "start": S,
        },
        more_form=format_option_fields,
        login=True,
    ),
    Page(
        "seasons/<id:season_id>/",
        ("GET",),
        "A season: standings, rounds, bracket, and its matches a page at a time.",
        params={
            "matches_after": "the page of earlier matches after this cursor",
            "matches_before": "the page of later matches before this cursor",
        },
    ),
    Page("seasons/<id:season_id>/start/", ("POST",), "Start a draft season (staff).", login=True),
    Page("matches/<id:match_id>/", ("GET",), "A match and its games."),
    Page(
        "tv/",
        ("GET",),
        "Arena TV: a game being played now, followed live; when its match ends, the next "
        "match being played.",
    ),
    Page("games/<id:game_id>/", ("GET",), "A game and its replay viewer."),
    Page("replay/", ("GET",), "Open a replay file in the viewer (nothing is stored)."),
    Page("cards/", ("GET",), "The deck and the cards' names."),
    Page("api/", ("GET",), "The API's routes, as a page."),
    Page(
        "accounts/signup/",
        ("GET", "POST"),
        "A new account (a few per address an hour).",
        form={"username": S, "password1": S, "password2": S},
    ),
    Page(
        "accounts/login/",
        ("GET", "POST"),
        "Log in (failed logins are throttled per account and per address).",
        {"next": "where to go after"},
        form={"username": S, "password": S, "next": S},
    ),
    Page("accounts/logout/", ("POST",), "Log out.", login=True),
    Page(
        "accounts/password/",
        ("GET", "POST"),
        "Change your password (the old one first).",
        form={"old_password": S, "new_password1": S, "new_password2": S},
        login=True,
    ),
    Page(
        "accounts/",
        ("GET", "POST"),
        "Your account: API tokens, made and revoked.",
        form={"action": {"enum": ["create", "revoke"]}, "name": S, "token": S},
        login=True,
    ),
    Page(
        "play/",
        ("GET", "POST"),
        "Play a bot yourself: the form and your games.",
        form={"variant": S, "bot": S, "seat": S},
        login=True,
    ),
    Page("play/<id:game_id>/", ("GET",), "The table of one of your games.", login=True),
    Page(
        "play/<id:game_id>/state",
        ("GET",),
        "Your game's state, as JSON (the table polls it: the page's heartbeat).",
        login=True,
    ),
    Page(
        "play/<id:game_id>/move",
        ("POST",),
        "Your move at a turn, as JSON.",
        login=True,
        json_body={
            "type": "object",
            "properties": {"turn": I, "move": S},
            "required": ["turn", "move"],
        },
    ),
    Page("play/<id:game_id>/resign", ("POST",), "Give your game up.", login=True),
    Page("play/<id:game_id>/replay/", ("GET",), "A finished Play game in the replay viewer."),
    Page("play/<id:game_id>/frames", ("GET",), "A finished Play game's frames, as JSON."),
    Page(
        "admin/login/",
        ("GET", "POST"),
        "The admin's login (staff; throttled like the site's).",
        {"next": "where to go after"},
        form={"username": S, "password": S, "next": S},
    ),
]


def operations(page: Page, path_params: list[dict[str, Any]]) -> dict[str, Any]:
    """The OpenAPI operations of one page (``path_params`` from its path)."""
    html = {"text/html": {"schema": S}}
    errors = {
        code: {"description": what, "content": html}
        for code, what in (
            ("400", "bad input, said on the page"),
            ("403", "not allowed"),
            ("404", "not found"),
            ("429", "too many: a throttle or a limit"),
        )
    }
    out: dict[str, Any] = {}
    for method in page.methods:
        op: dict[str, Any] = {
            "operationId": f"{method.lower()}_page_{page.path or 'home'}".replace("/", "_")
            .replace("<", "")
            .replace(">", "")
            .replace(":", "_")
            .rstrip("_"),
            "summary": page.summary,
            "tags": ["page"],
            "responses": {
                "200": {"description": "the page", "content": html},
                "302": {"description": "to the next page"},
                **errors,
            },
        }
        query = (
            [
                {"name": name, "in": "query", "required": False, "description": about, "schema": S}
                for name, about in page.params.items()
            ]
            if method == "GET"
            else []
        )
        if path_params or query:
            op["parameters"] = path_params + query
        if method == "POST" and page.json_body is not None:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": page.json_body}},
            }
            op["responses"]["200"] = {
                "description": "the new state",
                "content": {"application/json": {"schema": ANY}},
            }
            for code in ("400", "403", "404", "409"):
                op["responses"][code] = {
                    "description": "refused",
                    "content": {"application/json": {"schema": ref("Error")}},
                }
        elif method == "POST" and page.form:
            kind = "multipart/form-data" if page.upload else "application/x-www-form-urlencoded"
            fields = {**page.form, **(page.more_form() if page.more_form else {})}
            op["requestBody"] = {
                "required": True,
                "content": {kind: {"schema": {"type": "object", "properties": fields}}},
            }
        if page.login:
            op["security"] = [{"session": []}]
        out[method.lower()] = op
    return out
