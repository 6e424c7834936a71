"""A bot that writes to the operator's terminal through everything it says (raw gRPC, no SDK).

Its ``Describe`` fields, the reason of every fallback answer, the status it ends its stream
with (after its third answer) and its log all carry terminal escapes (clear the screen, move
the cursor, erase lines, set the window title), a carriage return and a forged line of the
result table, C1 controls, bidirectional overrides and ``rich`` markup (``[bold]``,
``[link=...]``). Shown as text, all of it is harmless; printed raw, it takes the terminal.
"""

import os
import sys
from concurrent import futures

import grpc

from arena.protocol import bot_pb2, bot_pb2_grpc

ESC = "\x1b"
PAYLOAD = (
    f"{ESC}[2J{ESC}[H{ESC}]0;owned by terminal-escape\x07{ESC}[2K{ESC}[1A"
    "\r| random@1.0.0 | 2 | 0 | 2 | 0 | forged |\n"
    "\x9b31m[bold red]FORGED[/] [link=https://evil.example/]click[/link]\u202eevil\u2066"
)


class TerminalEscape(bot_pb2_grpc.BotServicer):
    def Describe(self, request, context):
        return bot_pb2.BotInfo(
            name=f"terminal-escape{ESC}]0;title\x07",
            version=f"1{ESC}[31m\u202e0",
            author=f"[bold]me[/]{ESC}[2J",
            variants=["*"],
            protocol_version=1,
        )

    def Play(self, request_iterator, context):
        answered = 0
        for message in request_iterator:
            if message.WhichOneof("kind") != "turn_request":
                continue
            if answered == 3:
                print(f"terminal-escape: ending the stream {PAYLOAD}", file=sys.stderr, flush=True)
                context.abort(grpc.StatusCode.UNKNOWN, PAYLOAD)
            answered += 1
            yield bot_pb2.TurnResponse(
                request_id=message.turn_request.request_id, move_index=0, fallback=PAYLOAD
            )


print(f"terminal-escape: starting {PAYLOAD}", file=sys.stderr, flush=True)
server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
bot_pb2_grpc.add_BotServicer_to_server(TerminalEscape(), server)
server.add_insecure_port(os.environ["SCOPA_BOT_ADDRESS"])
server.start()
print("LISTENING", os.environ["SCOPA_BOT_ADDRESS"], flush=True)
server.wait_for_termination()
