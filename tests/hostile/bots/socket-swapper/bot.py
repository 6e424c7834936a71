"""A bot that replaces its gRPC socket with a link to a unix socket of the host (named in
``TARGET``), before it says LISTENING (``SWAP=before``) or just after (``SWAP=after``), so that
the runner would connect there instead."""

import os
import sys
import threading
import time

from arena.sdk import Bot, create_server

SWAPPED = threading.Event()


class SocketSwapper(Bot):
    name = "socket-swapper"

    def choose(self, observation, legal_moves):
        SWAPPED.wait(timeout=1.0)  # the rest of the game is played after the swap
        return legal_moves[0]


def swap(path, target):
    folder = os.path.dirname(path)
    os.rename(path, os.path.join(folder, "real.sock"))
    os.symlink(target, path)
    print(f"socket-swapper: {path} now points at {target}", file=sys.stderr, flush=True)
    SWAPPED.set()


address = os.environ["SCOPA_BOT_ADDRESS"]
path = address.removeprefix("unix://")
target = os.environ.get("TARGET", "/var/run/postgresql/.s.PGSQL.5432")
server, bound = create_server(SocketSwapper(), address)  # started
if os.environ.get("SWAP", "before") == "before":
    swap(path, target)
    print(f"LISTENING {bound}", flush=True)
else:
    print(f"LISTENING {bound}", flush=True)
    time.sleep(0.05)
    swap(path, target)
threading.Event().wait()
