"""The fair-play audit on the platform (PostgreSQL): an audit of a bot's rated games flags a
planted cheater and not an honest bot, the staff page shows the tests and the decisions that
weigh most with links to the games, the bot's owner and everyone else get a 404, and the task
runs on its own queue behind the league's waiting matches."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.django_db

GAMES = 6


def test_an_audit_flags_the_bot_that_sees_hidden_cards_and_not_the_honest_one(
    league: dict[str, Any],
) -> None:
    from webui.fairplay import audits

    peeker = audits.run_audit(audits.request_audit(league["peeker"]).pk)
    honest = audits.run_audit(audits.request_audit(league["honest"]).pk)
    assert peeker is not None and honest is not None
    assert peeker.flagged and peeker.tests["hidden"]["flagged"]
    assert peeker.tests["second_game"]["decisions"] > 0
    assert not honest.flagged and not honest.tests["hidden"]["flagged"]
    assert len(peeker.games) == GAMES and peeker.decisions > 0 and peeker.cpu_seconds > 0
    hidden = peeker.tests["hidden"]
    assert 0 < hidden["exact"] < hidden["decisions"]
    assert hidden["excess"] == pytest.approx(
        (hidden["matches"] - hidden["expected"]) / hidden["decisions"], abs=1e-3
    )
    assert hidden["excess"] > honest.tests["hidden"]["excess"]
    top = peeker.top[0]
    assert top["weight"] > 0 and top["game"] in peeker.games and top["chosen"] in top["best"]
    assert top["seen"] > top["share"] and top["slack"] == (0.0 if top["exact"] else 0.02)
    assert "partner" not in peeker.tests  # no partners in scopa
    # Run once: a second run of the same audit finds it taken.
    assert audits.run_audit(peeker.pk) is None


def test_staff_see_the_page_with_the_tests_and_the_decisions_to_replay(
    league: dict[str, Any], client: Any
) -> None:
    from webui.fairplay import audits

    audit = audits.run_audit(audits.request_audit(league["peeker"]).pk)
    assert audit is not None
    client.force_login(league["staff"])
    page = client.get("/bots/peeker/fairplay/").content.decode()
    assert 'id="fairplay-verdict">flagged<' in page
    assert "second_game" in page and "hidden" in page
    assert "honest expectation" in page and "excess a decision" in page
    assert f'href="/games/{audit.top[0]["game"]}/"' in page
    assert audit.top[0]["chosen"] in page


def test_staff_queue_an_audit_with_the_button_once(league: dict[str, Any], client: Any) -> None:
    from webui.fairplay.models import FairPlayAudit

    client.force_login(league["staff"])
    first = client.post("/bots/honest/fairplay/audit/")
    second = client.post("/bots/honest/fairplay/audit/")
    assert first.status_code == second.status_code == 302
    queued = FairPlayAudit.objects.filter(bot=league["honest"])
    assert [a.status for a in queued] == ["queued"]
    assert queued[0].requested_by == league["staff"]


@pytest.mark.parametrize("who", ["owner", "other", None])
def test_it_rejects_everyone_but_staff_with_a_404(
    league: dict[str, Any], client: Any, who: str | None
) -> None:
    from webui.fairplay import audits
    from webui.fairplay.models import FairPlayAudit

    audits.run_audit(audits.request_audit(league["peeker"]).pk)
    if who is not None:
        client.force_login(league[who])
    assert client.get("/bots/peeker/fairplay/").status_code == 404
    before = FairPlayAudit.objects.count()
    assert client.post("/bots/peeker/fairplay/audit/").status_code == 404
    assert FairPlayAudit.objects.count() == before
    assert client.get("/bots/no-such-bot/fairplay/").status_code == 404


def test_the_periodic_sweep_queues_bots_with_new_rated_games_once(league: dict[str, Any]) -> None:
    from webui.fairplay import audits
    from webui.fairplay.models import FairPlayAudit

    assert {b.name for b in audits.due_bots()} == {"peeker", "honest"}
    assert audits.queue_due() == 2
    assert audits.queue_due() == 0  # queued since their last game: not due again
    assert FairPlayAudit.objects.count() == 2
    for audit in FairPlayAudit.objects.all():
        audits.run_audit(audit.pk)
    assert audits.due_bots() == []


@pytest.mark.django_db(transaction=True)
def test_the_task_waits_behind_the_leagues_matches_on_its_own_queue(
    league: dict[str, Any], settings: Any
) -> None:
    from webui.fairplay import audits
    from webui.fairplay.models import FairPlayAudit
    from webui.league.models import Match
    from webui.league.queue import audit_queue, current_app
    from workers.fairplay import fairplay_audit

    route = current_app().amqp.router.route({}, "arena.fairplay_audit")
    assert route["queue"].name == audit_queue() == f"{settings.ARENA_QUEUE}-audit"
    audit = audits.request_audit(league["honest"])
    waiting = Match.objects.create(
        kind=Match.Kind.LADDER, variant=Match.objects.first().variant, pairing="9-9"
    )
    settings.ARENA_FAIRPLAY_MAX_YIELDS = 3
    assert "behind the league's work" in fairplay_audit(audit.pk)
    assert FairPlayAudit.objects.get(pk=audit.pk).status == "queued"
    waiting.delete()
    assert "not flagged" in fairplay_audit(audit.pk)
    assert FairPlayAudit.objects.get(pk=audit.pk).status == "done"


def test_the_command_audits_named_bots_and_refuses_unknown_ones(league: dict[str, Any]) -> None:
    from io import StringIO

    from django.core.management import call_command
    from django.core.management.base import CommandError

    out = StringIO()
    call_command("fairplay_audit", "peeker", "--games", "2", stdout=out)
    assert "peeker: FLAGGED" in out.getvalue() or "peeker: not flagged" in out.getvalue()
    assert "2 games" in out.getvalue()
    with pytest.raises(CommandError, match="no bot named 'ghost'"):
        call_command("fairplay_audit", "ghost")
    with pytest.raises(CommandError, match="--games"):
        call_command("fairplay_audit", "peeker", "--games", "0")
