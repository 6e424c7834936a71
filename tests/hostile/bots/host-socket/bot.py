"""A bot that tries to connect to the host's unix sockets (PostgreSQL's), then plays on."""

import socket
import sys

from arena.sdk import Bot, serve

PATHS = ["/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432"]


class HostSocket(Bot):
    name = "host-socket"

    def __init__(self):
        # Its sockets are made as it starts: once its game has begun, a seat makes none.
        self.clients = {path: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for path in PATHS}

    def choose(self, observation, legal_moves):
        for path, client in self.clients.items():
            try:
                client.connect(path)
                outcome = "CONNECTED"
            except OSError as error:
                outcome = f"blocked ({type(error).__name__}: {error})"
            print(f"host-socket: {path} {outcome}", file=sys.stderr)
        return legal_moves[0]


serve(HostSocket())
