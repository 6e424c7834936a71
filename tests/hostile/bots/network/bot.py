"""A bot that tries to reach the network when asked for a move, then plays on."""

import socket
import sys

from arena.sdk import Bot, serve

TARGETS = [("127.0.0.1", 5432), ("127.0.0.1", 6379), ("1.1.1.1", 53), ("8.8.8.8", 443)]


def attempt(host, port):
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return "CONNECTED"
    except OSError as error:
        return f"blocked ({type(error).__name__}: {error})"


class Network(Bot):
    name = "network"

    def choose(self, observation, legal_moves):
        for host, port in TARGETS:
            print(f"network: tcp {host}:{port} {attempt(host, port)}", file=sys.stderr)
        try:
            socket.getaddrinfo("example.com", 80)
            print("network: dns example.com RESOLVED", file=sys.stderr)
        except OSError as error:
            print(f"network: dns example.com blocked ({error})", file=sys.stderr)
        return legal_moves[0]


serve(Network())
