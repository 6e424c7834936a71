"""Every sample bot, started as a real process and served over gRPC, passes the compliance suite."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sdk.launch import LocalBot
from arena.sdk.testing import ComplianceSuite

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


def _serve(folder: str, **env: str) -> Iterator[str]:
    with LocalBot(SAMPLE_BOTS / folder, env=env) as bot:
        yield bot.address


class TestRandomBot(ComplianceSuite):
    @pytest.fixture(scope="class")
    @classmethod
    def bot_address(cls) -> Iterator[str]:
        yield from _serve("random", SCOPA_BOT_SEED="3")


class TestGreedyBot(ComplianceSuite):
    @pytest.fixture(scope="class")
    @classmethod
    def bot_address(cls) -> Iterator[str]:
        yield from _serve("greedy")


class TestIsmctsBot(ComplianceSuite):
    @pytest.fixture(scope="class")
    @classmethod
    def bot_address(cls) -> Iterator[str]:
        yield from _serve("ismcts", SCOPA_ISMCTS_ITERATIONS="30", SCOPA_BOT_SEED="1")


class TestJavaScriptBot(ComplianceSuite):
    variants = None  # every variant: the JS bot is quick and this is its only test

    @pytest.fixture(scope="class")
    @classmethod
    def bot_address(cls, node: str) -> Iterator[str]:
        yield from _serve("js-random", SCOPA_BOT_SEED="5")
