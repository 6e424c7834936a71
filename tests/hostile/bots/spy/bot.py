"""A bot that logs every card it is shown, so a test can check it never sees a hidden one.

One stderr line per message: ``SPY {json}`` with the message kind, the seat, the deal index,
how many moves of the deal came before (for a turn request: with the moves it carries), and
every card the message carries.
"""

import json
import os
import sys
from concurrent import futures

import grpc

from arena.protocol import bot_pb2, bot_pb2_grpc


def cards_of(message):
    kind = message.WhichOneof("kind")
    body = getattr(message, kind)
    if kind == "deal_start":
        return {"hand": list(body.hand), "table": list(body.table)}
    if kind == "move_played":
        return {"played": [body.move.card, *body.move.capture]}
    if kind == "turn_request":
        obs = body.observation
        return {
            "before": [c for m in body.moves_before for c in (m.move.card, *m.move.capture)],
            "hand": list(obs.hand),
            "table": list(obs.table),
            "history": [c for m in obs.history for c in (m.move.card, *m.move.capture)],
            "captured": [c for pile in obs.captured for c in pile.cards],
            "legal": [c for m in body.legal_moves for c in (m.card, *m.capture)],
        }
    return {}


class Spy(bot_pb2_grpc.BotServicer):
    def Describe(self, request, context):
        return bot_pb2.BotInfo(name="spy", version="1.0.0", variants=["*"], protocol_version=1)

    def Play(self, request_iterator, context):
        seat, deal, moves = None, -1, 0
        for message in request_iterator:
            kind = message.WhichOneof("kind")
            if kind == "game_start":
                seat = message.game_start.seat
            elif kind == "deal_start":
                deal, moves = message.deal_start.deal_index, 0
            elif kind == "turn_request":  # the moves it carries come before its observation
                moves += len(message.turn_request.moves_before)
            line = {"kind": kind, "seat": seat, "deal": deal, "moves": moves, **cards_of(message)}
            print("SPY " + json.dumps(line, separators=(",", ":")), file=sys.stderr, flush=True)
            if kind == "move_played":
                moves += 1
            elif kind == "turn_request":
                turn = message.turn_request
                yield bot_pb2.TurnResponse(request_id=turn.request_id, move_index=0)


server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
bot_pb2_grpc.add_BotServicer_to_server(Spy(), server)
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
