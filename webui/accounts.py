"""Accounts from the shell: an operator's password reset (no e-mail needed), and the demo's login.

``arena password USER`` (:func:`reset_password`) gives an account a new password: a random one,
printed once, or one read from standard input. The site has no e-mail, so this is how an
operator lets someone back in; a person who is logged in changes their own password on the
site (``/accounts/password/``).

The demo's account (:func:`demo_login`) is an administrator whose password is made when the
account is, and kept in ``$ARENA_DATA_DIR/demo-login`` (readable by its owner only) so that every
run of ``arena demo`` can print the login again, an interrupted first run included. Once the
password is changed on the site the file no longer matches, and the demo says how to get a new
one instead of printing a stale password.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEMO_USER = "demo"
LOGIN_FILE = "demo-login"
MIN_LENGTH = 8


class AccountError(ValueError):
    """A refused request, one line: an unknown account, a password too short."""


def new_password() -> str:
    """A random password of 12 characters, easy to copy (URL-safe)."""
    return secrets.token_urlsafe(9)


def reset_password(username: str, password: str | None = None) -> str:
    """Sets ``username``'s password (a new random one when None) and returns it.

    The account's sessions on the site end (Django keys a session to the password's hash), and
    its failed-login lock-outs are cleared so that the new password works at once. Raises
    :class:`AccountError` for an unknown account or a password under :data:`MIN_LENGTH`.
    """
    from django.contrib.auth.models import User

    user = User.objects.filter(username=username).first()
    if user is None:
        raise AccountError(f"no account {username!r}")
    if password is not None and len(password) < MIN_LENGTH:
        raise AccountError(f"a password of at least {MIN_LENGTH} characters, not {len(password)}")
    chosen = password if password is not None else new_password()
    user.set_password(chosen)
    user.save(update_fields=["password"])
    _forget_lockouts(username)
    if username == DEMO_USER:
        _save_demo_password(chosen)
    return chosen


def _forget_lockouts(username: str) -> None:
    """Clears django-axes' failed logins of ``username`` (a reset is a fresh start)."""
    try:
        from axes.utils import reset
    except ImportError:  # axes not installed: nothing to clear
        return
    reset(username=username)


@dataclass(frozen=True)
class DemoLogin:
    """The demo's account and, when known, its password (None once its owner changed it)."""

    user: Any
    password: str | None
    created: bool


def _login_file() -> Path:
    from django.conf import settings

    return Path(settings.ARENA_DATA_DIR) / LOGIN_FILE


def _save_demo_password(password: str) -> None:
    path = _login_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(password + "\n")
    os.chmod(path, 0o600)  # an older file made with other bits


def demo_login() -> DemoLogin:
    """The demo's administrator (made with a new password when missing) and its password.

    A superuser, so that the admin shows it everything. The password comes from the data
    folder's login file while it still opens the account; an account of an older demo, made
    before the file existed, gets a new password (its old one was printed once and is lost).
    """
    from django.contrib.auth.models import User

    user = User.objects.filter(username=DEMO_USER).first()
    if user is None:
        password = new_password()
        user = User.objects.create_superuser(DEMO_USER, password=password, email="")
        _save_demo_password(password)
        return DemoLogin(user, password, True)
    if not (user.is_staff and user.is_superuser):
        User.objects.filter(pk=user.pk).update(is_staff=True, is_superuser=True)
        user.refresh_from_db()
    path = _login_file()
    try:
        saved = path.read_text().strip()
    except OSError:
        return DemoLogin(user, reset_password(DEMO_USER), False)
    if saved and user.check_password(saved):
        return DemoLogin(user, saved, False)
    return DemoLogin(user, None, False)  # changed on the site: the owner's own now
