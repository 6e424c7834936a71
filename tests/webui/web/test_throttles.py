"""Throttled accounts: failed logins per account and per client address (django-axes), signups
per address (django-ratelimit), with the client's address read behind the trusted proxy only.

On the site's database (PostgreSQL), through the real login pages and middleware."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

pytestmark = pytest.mark.django_db

LOGIN_PAGES = ["/accounts/login/", "/admin/login/"]


@pytest.fixture(autouse=True)
def limits(settings: Any) -> None:
    """Small limits, and counters of this test's own."""
    from django.core.cache import caches

    settings.AXES_FAILURE_LIMIT = 3
    settings.ARENA_SIGNUPS_PER_HOUR = 2
    caches["limits"].clear()


def log_in(
    client: Any, page: str, username: str, password: str, address: str, **headers: Any
) -> Any:
    return client.post(
        page, {"username": username, "password": password}, REMOTE_ADDR=address, **headers
    )


def logged_in(client: Any) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("page", LOGIN_PAGES)
def test_an_account_that_failed_its_limit_is_refused_even_with_the_right_password(
    page: Any,
    client: Any,
    users: dict[str, Any],
) -> None:
    username = "staff"  # /admin/login/ takes staff only
    for attempt in range(3):  # from three addresses: the account's failures add up
        answer = log_in(client, page, username, "wrong", f"198.51.100.{attempt + 1}")
        assert answer.status_code == (200 if attempt < 2 else 429)  # the third locks it
        assert not logged_in(client)
    refused = log_in(client, page, username, "staff-pass-123", "198.51.100.9")
    assert refused.status_code == 429
    assert b"Too many failed logins" in refused.content
    assert not logged_in(client)
    # Another account, from another address, is not held back.
    assert (
        log_in(client, "/accounts/login/", "other", "other-pass-123", "192.0.2.1").status_code
        == 302
    )
    assert logged_in(client)


def test_a_client_address_that_failed_its_limit_is_refused_for_every_account(
    client: Any,
    users: dict[str, Any],
) -> None:
    for name in ("nobody", "owner", "staff"):  # one address, three accounts
        log_in(client, "/accounts/login/", name, "wrong", "203.0.113.5")
    refused = log_in(client, "/accounts/login/", "other", "other-pass-123", "203.0.113.5")
    assert refused.status_code == 429 and not logged_in(client)
    assert (
        log_in(client, "/accounts/login/", "other", "other-pass-123", "203.0.113.6").status_code
        == 302
    )


def test_the_lockout_ends_after_its_cool_off(
    client: Any, users: dict[str, Any], settings: Any
) -> None:
    from axes.models import AccessAttempt

    for _ in range(3):
        log_in(client, "/accounts/login/", "other", "wrong", "198.51.100.1")
    assert (
        log_in(client, "/accounts/login/", "other", "other-pass-123", "198.51.100.1").status_code
        == 429
    )
    AccessAttempt.objects.update(
        attempt_time=datetime.datetime.now(datetime.UTC)
        - settings.AXES_COOLOFF_TIME
        - datetime.timedelta(seconds=1)
    )
    assert (
        log_in(client, "/accounts/login/", "other", "other-pass-123", "198.51.100.1").status_code
        == 302
    )


def test_behind_the_proxy_each_client_is_counted_by_its_own_address(
    client: Any,
    users: dict[str, Any],
) -> None:
    from axes.models import AccessAttempt

    # nginx (127.0.0.1, trusted) appends the address it saw to what the client sent.
    for attempt in range(3):
        log_in(
            client,
            "/accounts/login/",
            f"user{attempt}",
            "wrong",
            "127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"10.9.9.9, 198.51.100.{attempt + 1}",
        )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {
        "198.51.100.1",
        "198.51.100.2",
        "198.51.100.3",
    }
    # A client that forges the header without the proxy is counted by its own address.
    for name in ("a", "b", "c"):
        log_in(
            client,
            "/accounts/login/",
            name,
            "wrong",
            "203.0.113.7",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{ord(name)}",
        )
    refused = log_in(
        client,
        "/accounts/login/",
        "other",
        "other-pass-123",
        "203.0.113.7",
        HTTP_X_FORWARDED_FOR="192.0.2.200",
    )
    assert refused.status_code == 429
    # Through the proxy, the same person gets no fresh start by changing what it forges.
    for name in ("d", "e", "f"):
        log_in(
            client,
            "/accounts/login/",
            name,
            "wrong",
            "127.0.0.1",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{ord(name)}, 203.0.113.8",
        )
    refused = log_in(
        client,
        "/accounts/login/",
        "other",
        "other-pass-123",
        "127.0.0.1",
        HTTP_X_FORWARDED_FOR="192.0.2.99, 203.0.113.8",
    )
    assert refused.status_code == 429


def test_signups_are_limited_per_client_address(client: Any, db: Any) -> None:
    from django.contrib.auth.models import User
    from django.test import Client

    def sign_up(name: str, address: str) -> Any:
        fresh = Client()
        return fresh.post(
            "/accounts/signup/",
            {
                "username": name,
                "password1": "a-long-pass-4821",
                "password2": "a-long-pass-4821",
            },
            REMOTE_ADDR=address,
        )

    mismatch = Client().post(
        "/accounts/signup/",
        {"username": "typo", "password1": "a-long-pass-4821", "password2": "other-4821"},
        REMOTE_ADDR="198.51.100.1",
    )
    assert mismatch.status_code == 400  # a refused form is not an account: not counted
    assert sign_up("first", "198.51.100.1").status_code == 302
    assert sign_up("second", "198.51.100.1").status_code == 302
    refused = sign_up("third", "198.51.100.1")
    assert refused.status_code == 429
    assert "2 accounts were made from your address this hour" in refused.content.decode()
    assert not User.objects.filter(username="third").exists()
    assert sign_up("third", "198.51.100.2").status_code == 302
    assert set(User.objects.values_list("username", flat=True)) == {"first", "second", "third"}
