"""The smallest bot there is: answers every turn with its first legal move, at once.

Raw gRPC, no SDK and no engine: it measures what the arena and the protocol cost, with the bot
costing as little as possible (``arena bench protocol``, ``arena bench match``). Run it as
``python -m arena.runner.echo_bot``; it follows the start-up contract (``SCOPA_BOT_ADDRESS``,
``LISTENING <address>`` on stdout). It is not a sample bot and plays no better than chance.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc

from arena.protocol import ADDRESS_ENV, PROTOCOL_VERSION, bot_pb2, bot_pb2_grpc

MANIFEST = """\
name = "echo"
version = "1.0.0"
author = "Scopa Arena"
command = ["python", "-m", "arena.runner.echo_bot"]
variants = ["*"]
"""


class EchoServicer(bot_pb2_grpc.BotServicer):  # type: ignore[misc]
    """Answers each turn request with index 0 and ignores every event."""

    def Describe(self, request: Any, context: Any) -> Any:
        """Who the bot is."""
        return bot_pb2.BotInfo(
            name="echo",
            version="1.0.0",
            author="Scopa Arena",
            variants=["*"],
            protocol_version=PROTOCOL_VERSION,
            language="python",
        )

    def Play(self, request_iterator: Iterator[Any], context: Any) -> Iterator[Any]:
        """One game: one answer per turn request."""
        response = bot_pb2.TurnResponse
        for message in request_iterator:
            if message.HasField("turn_request"):
                yield response(request_id=message.turn_request.request_id, move_index=0)


def write_folder(folder: Path) -> Path:
    """Makes ``folder`` a bot folder (a ``bot.toml``) that runs this bot; returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bot.toml").write_text(MANIFEST, encoding="utf-8")
    return folder


def main() -> None:
    """Serves at ``$SCOPA_BOT_ADDRESS`` until killed."""
    address = os.environ.get(ADDRESS_ENV, "127.0.0.1:50051")
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    bot_pb2_grpc.add_BotServicer_to_server(EchoServicer(), server)
    if server.add_insecure_port(address) == 0 and not address.startswith("unix:"):
        print(f"echo: cannot listen on {address}", file=sys.stderr)
        raise SystemExit(1)
    server.start()
    print(f"LISTENING {address}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
