"""A bot that answers with a move index outside the legal moves (raw gRPC, no SDK)."""

import os
from concurrent import futures

import grpc

from arena.protocol import bot_pb2, bot_pb2_grpc


class Illegal(bot_pb2_grpc.BotServicer):
    def Describe(self, request, context):
        return bot_pb2.BotInfo(name="illegal", version="1.0.0", variants=["*"], protocol_version=1)

    def Play(self, request_iterator, context):
        for message in request_iterator:
            if message.WhichOneof("kind") == "turn_request":
                turn = message.turn_request
                yield bot_pb2.TurnResponse(
                    request_id=turn.request_id, move_index=len(turn.legal_moves) + 5
                )


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
bot_pb2_grpc.add_BotServicer_to_server(Illegal(), server)
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
