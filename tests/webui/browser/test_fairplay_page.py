"""The fair-play page in headless Chromium, laptop and phone: staff see a planted cheater's
audit flagged, its tests and the decisions that weigh most, and follow a link to replay the
game; the bot's owner gets the 404 page. Screenshots go to ``test-artifacts/fairplay/``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from browser_session import log_in
from test_responsive import check_page, open_context

pytestmark = [pytest.mark.browser, pytest.mark.services]


@pytest.fixture
def audited(transactional_db: Any) -> dict[str, Any]:
    """``peeker`` (sees its opponent's hand) with two rated games against ``honest``, audited."""
    from django.contrib.auth.models import User

    from arena.bench import fairplay
    from webui.fairplay import audits
    from webui.league.models import Game, Match, MatchSeat, Variant
    from webui.league.versions import create_bot, register_version

    owner = User.objects.create_user("owner", password="owner-pass-123")
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    variant, _ = Variant.objects.get_or_create(
        slug="scopa", defaults={"name": "scopa", "label": "scopa", "players": 2, "sides": 2}
    )
    versions = []
    for n, name in enumerate(("peeker", "honest"), start=1):
        bot = create_bot(owner, name, "")
        version, _ = register_version(
            bot, sha256=f"{n}" * 64, manifest={"name": name, "variants": ["*"]}, source_dir="."
        )
        versions.append(version)
    match = Match.objects.create(
        kind=Match.Kind.LADDER,
        variant=variant,
        rated=True,
        pairing="1-2",
        status=Match.Status.DONE,
    )
    for index, version in enumerate(versions):
        MatchSeat.objects.create(match=match, index=index, version=version, side=index)
    _, _, peek_greedy = fairplay.planted_policies()["peek-greedy"]  # built in tests/audit
    for index in range(2):
        players = [v.pk for v in (versions if index == 0 else versions[::-1])]
        policies = [peek_greedy if p == versions[0].pk else fairplay.sampler for p in players]
        replay = fairplay.played_replay(
            "scopa", 77, policies, ["peeker@1", "honest@1"][:: 1 if index == 0 else -1]
        )
        Game.objects.create(
            match=match,
            index=index,
            variant=variant,
            replay=replay,
            players=players,
            seats=[0, 1] if index == 0 else [1, 0],
            totals=replay["result"]["totals"],
        )
    audit = audits.run_audit(audits.request_audit(versions[0].bot).pk)
    assert audit is not None
    return {"owner": owner, "staff": staff, "audit": audit}


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_staff_read_the_audit_and_open_a_game_to_replay(
    browser: Any, live_server: Any, audited: dict[str, Any], artifacts: Path, size: str
) -> None:
    context = open_context(browser, size, "light")
    log_in(context, live_server, audited["staff"])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    out = artifacts / "fairplay"
    out.mkdir(exist_ok=True)
    try:
        page.goto(f"{live_server.url}/bots/peeker/fairplay/")
        verdict = str(page.text_content("#fairplay-verdict"))
        assert verdict == ("flagged" if audited["audit"].flagged else "not flagged")
        assert "hidden" in str(page.text_content("#fairplay-tests"))
        rows = page.locator("#fairplay-top tbody tr")
        assert rows.count() >= 1
        page.screenshot(path=str(out / f"fairplay-{size}.png"), full_page=True)
        problems = check_page(page, "fair play", size, "light")
        rows.first.locator("a").first.click()
        page.wait_for_url("**/games/*/")
    finally:
        context.close()
    assert not errors, f"JavaScript errors: {errors}"
    assert not problems, "\n".join(problems)


def test_the_owner_gets_the_404_page(
    browser: Any, live_server: Any, audited: dict[str, Any]
) -> None:
    context = open_context(browser, "laptop", "light")
    log_in(context, live_server, audited["owner"])
    page = context.new_page()
    try:
        response = page.goto(f"{live_server.url}/bots/peeker/fairplay/")
        assert response is not None and response.status == 404
        assert page.locator("#fairplay-top").count() == 0
    finally:
        context.close()
