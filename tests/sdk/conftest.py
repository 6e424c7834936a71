"""Fixtures of the SDK and sample-bot tests: the sample bots' folder on ``sys.path`` and node."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from service_checks import require

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_BOTS = ROOT / "sample_bots"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # so `sample_bots.greedy.policy` imports in-process


@pytest.fixture(scope="session")
def node() -> str:
    """Node.js with the JavaScript sample bot's packages installed (``scripts/setup``)."""
    path = shutil.which("node")
    require(path is not None, "node")
    require(
        (SAMPLE_BOTS / "js-random" / "node_modules" / "@grpc" / "grpc-js").is_dir(),
        "the js-random bot's node_modules (run scripts/setup)",
    )
    assert path is not None
    return path
