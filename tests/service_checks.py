"""The rule for a test that needs a service of the machine: skip without it, fail under CI.

Imported by ``tests/conftest.py`` (which makes it the suite's fixtures) and by the helper
modules of the test folders, so the rule is written once. Not a fixture module itself.
"""

from __future__ import annotations

import os
import socket

import pytest

IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def require(condition: bool, what: str) -> None:
    """Skips the test when ``condition`` is false, or fails it under CI."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required under CI=true but is not available")
    pytest.skip(f"{what} is not available")


def port_open(host: str, port: int) -> bool:
    """Whether something accepts TCP connections at ``host:port``."""
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False
