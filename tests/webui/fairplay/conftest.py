"""The fair-play tests' league: a bot that sees its opponent's hand and an honest one, with
rated duplicate games between them (PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest
from sample_versions import sample_versions

GAMES = 6


@pytest.fixture
def league(postgres_available: bool, settings: Any) -> dict[str, Any]:
    """Bots ``peeker`` (sees its opponent's hand: the harness hands it the deal) and ``honest``
    with :data:`GAMES` rated ladder games between them, duplicate pairs with seats swapped;
    their owner, another user and a staff member."""
    from django.contrib.auth.models import User
    from django.db import connection

    from arena.bench import fairplay
    from webui.league.models import Game, Match, MatchSeat, Variant

    assert connection.vendor == "postgresql", "the platform's tests run on PostgreSQL"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = User.objects.create_user("owner", password="owner-pass-123")
    other = User.objects.create_user("other", password="other-pass-123")
    staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
    peeker, (peek_v,) = sample_versions(owner, "peeker", ("greedy",))
    honest, (honest_v,) = sample_versions(other, "honest", ("random",))
    variant, _ = Variant.objects.get_or_create(
        slug="scopa", defaults={"name": "scopa", "label": "scopa", "players": 2, "sides": 2}
    )
    _, _, peek_greedy = fairplay.planted_policies()["peek-greedy"]  # built in tests/audit
    policies = {peek_v.pk: peek_greedy, honest_v.pk: fairplay.sampler}
    for pair in range(GAMES // 2):
        match = Match.objects.create(
            kind=Match.Kind.LADDER,
            variant=variant,
            rated=True,
            pairing="1-2",
            seed=pair,
            status=Match.Status.DONE,
        )
        MatchSeat.objects.create(match=match, index=0, version=peek_v, side=0)
        MatchSeat.objects.create(match=match, index=1, version=honest_v, side=1)
        for index in range(2):
            players = [peek_v.pk, honest_v.pk] if index == 0 else [honest_v.pk, peek_v.pk]
            replay = fairplay.played_replay(
                "scopa", 500 + pair, [policies[p] for p in players], [str(p) for p in players]
            )
            Game.objects.create(
                match=match,
                index=index,
                variant=variant,
                replay=replay,
                seats=[0, 1] if index == 0 else [1, 0],
                players=players,
                totals=replay["result"]["totals"],
            )
    return {"owner": owner, "other": other, "staff": staff, "peeker": peeker, "honest": honest}
