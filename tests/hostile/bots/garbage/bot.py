"""A bot that answers a turn with bytes that are no TurnResponse (raw gRPC, no SDK)."""

import os
from concurrent import futures

import grpc

from arena.protocol import bot_pb2

GARBAGE = b"\xff\xff\xff\xff garbage, not a protocol buffer \x00\x01"


def describe(request, context):
    return bot_pb2.BotInfo(name="garbage", version="1.0.0", variants=["*"], protocol_version=1)


def play(request_iterator, context):
    for message in request_iterator:
        if message.WhichOneof("kind") == "turn_request":
            yield GARBAGE


handler = grpc.method_handlers_generic_handler(
    "scopa.arena.v1.Bot",
    {
        "Describe": grpc.unary_unary_rpc_method_handler(
            describe,
            request_deserializer=bot_pb2.DescribeRequest.FromString,
            response_serializer=bot_pb2.BotInfo.SerializeToString,
        ),
        "Play": grpc.stream_stream_rpc_method_handler(
            play,
            request_deserializer=bot_pb2.ArenaMessage.FromString,
            response_serializer=lambda raw: raw,
        ),
    },
)
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_generic_rpc_handlers((handler,))
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
