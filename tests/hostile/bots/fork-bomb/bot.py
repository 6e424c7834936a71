"""A bot that forks without end when asked for a move (raw gRPC, no SDK)."""

import os
import signal
import sys
from concurrent import futures

import grpc

from arena.protocol import bot_pb2, bot_pb2_grpc


class ForkBomb(bot_pb2_grpc.BotServicer):
    def Describe(self, request, context):
        return bot_pb2.BotInfo(
            name="fork-bomb", version="1.0.0", variants=["*"], protocol_version=1
        )

    def Play(self, request_iterator, context):
        for message in request_iterator:
            if message.WhichOneof("kind") == "turn_request":
                children = 0
                try:
                    while True:
                        if os.fork() == 0:
                            while True:
                                signal.pause()
                        children += 1
                except OSError as error:
                    print(
                        f"fork-bomb: uid {os.getuid()} refused after {children} children: {error}",
                        file=sys.stderr,
                        flush=True,
                    )
                    raise


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
bot_pb2_grpc.add_BotServicer_to_server(ForkBomb(), server)
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
