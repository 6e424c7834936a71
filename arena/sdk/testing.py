"""The compliance checks as a pytest suite: subclass :class:`ComplianceSuite` in a test module.

Imports pytest, so it is kept apart from :mod:`arena.sdk.compliance`, which the ``arena bot
check`` command uses without any test framework installed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import grpc
import pytest

from arena.sdk.compliance import (
    CALL_TIMEOUT,
    check_describe,
    check_full_game,
    check_game_without_turns,
    check_health,
    check_single_legal_move,
    supported_variants,
)


class ComplianceSuite:
    """Pytest tests of the contract; subclass it as ``Test...`` and provide ``bot_address``.

    ::

        class TestMyBot(ComplianceSuite):
            @pytest.fixture(scope="class")
            @classmethod
            def bot_address(cls):
                with LocalBot("path/to/my-bot") as bot:
                    yield bot.address
    """

    variants: Sequence[str] | None = ("scopa", "scopone")
    """Variants whose full game is played (None: every variant the bot supports)."""

    @pytest.fixture(scope="class")
    @classmethod
    def bot_address(cls) -> Iterator[str]:
        """The gRPC target of the bot under test (override it)."""
        raise NotImplementedError("subclasses provide the bot_address fixture")

    @pytest.fixture(scope="class")
    @classmethod
    def channel(cls, bot_address: str) -> Iterator[grpc.Channel]:
        """A channel to the bot under test."""
        with grpc.insecure_channel(bot_address) as channel:
            grpc.channel_ready_future(channel).result(timeout=CALL_TIMEOUT)
            yield channel

    def test_it_describes_itself(self, channel: grpc.Channel) -> None:
        assert check_describe(channel)

    def test_it_reports_serving(self, channel: grpc.Channel) -> None:
        assert check_health(channel) == "SERVING"

    def test_it_answers_a_single_legal_move(self, channel: grpc.Channel) -> None:
        assert check_single_legal_move(channel) == "answered index 0"

    def test_it_closes_a_game_without_turns(self, channel: grpc.Channel) -> None:
        assert check_game_without_turns(channel)

    def test_it_plays_whole_games_legally(self, channel: grpc.Channel) -> None:
        playable = supported_variants(channel)
        chosen = [v for v in playable if self.variants is None or v in self.variants]
        assert chosen, f"the bot supports none of {self.variants}"
        for index, variant in enumerate(chosen):
            assert "answers" in check_full_game(channel, variant, seed=7 + index)
