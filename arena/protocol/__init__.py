"""The arena <-> bot gRPC protocol: generated stubs and conversions to and from engine objects.

``protos/scopa/arena/v1/bot.proto`` is the source of truth; the stubs are generated on first
import (see :mod:`arena.protocol.build`) and re-exported here as :data:`bot_pb2` (messages) and
:data:`bot_pb2_grpc` (service stubs).  Conversions between engine objects and messages live in
:mod:`arena.protocol.convert`.  This package is not the SDK (:mod:`arena.sdk`) nor the runner.
"""

from __future__ import annotations

from arena.protocol import build

build.ensure_stubs()

from scopa.arena.v1 import bot_pb2, bot_pb2_grpc  # noqa: E402

PROTOCOL_VERSION = 1
"""The protocol version of ``scopa.arena.v1`` that this code speaks."""

SERVICE_NAME = "scopa.arena.v1.Bot"
"""The fully qualified gRPC service name, also the health-check service name."""

ADDRESS_ENV = "SCOPA_BOT_ADDRESS"
"""The environment variable through which the runner tells a bot where to listen."""

READY_PREFIX = "LISTENING "
"""A started bot prints ``LISTENING <address>`` on one stdout line once it serves."""

__all__ = [
    "ADDRESS_ENV",
    "PROTOCOL_VERSION",
    "READY_PREFIX",
    "SERVICE_NAME",
    "bot_pb2",
    "bot_pb2_grpc",
]
