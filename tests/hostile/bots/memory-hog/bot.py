"""A bot that allocates memory without end when asked for a move (raw gRPC, no SDK)."""

import os
import sys
from concurrent import futures

import grpc

from arena.protocol import bot_pb2, bot_pb2_grpc


class MemoryHog(bot_pb2_grpc.BotServicer):
    def Describe(self, request, context):
        return bot_pb2.BotInfo(
            name="memory-hog", version="1.0.0", variants=["*"], protocol_version=1
        )

    def Play(self, request_iterator, context):
        for message in request_iterator:
            if message.WhichOneof("kind") == "turn_request":
                hog = []
                try:
                    while True:
                        hog.append(bytearray(16 * 1024 * 1024))
                except MemoryError:
                    print(f"memory-hog: MemoryError after {16 * len(hog)} MiB", file=sys.stderr)
                    hog.clear()
                    raise


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
bot_pb2_grpc.add_BotServicer_to_server(MemoryHog(), server)
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
